/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Admin-override detection (core): types shared by admin_override.bpf.c
 * and admin_override.c.
 */
#ifndef BPFTUNE_ADMIN_OVERRIDE_H
#define BPFTUNE_ADMIN_OVERRIDE_H

enum admin_override_scenario {
	ADMIN_SCENARIO_WRITE,
};

/* Payload: a write seen by cgroup/sysctl. */
#define BPFTUNE_SYSCTL_NAME_LEN	64
#define BPFTUNE_SYSCTL_VALUE_LEN 24
struct bpftune_sysctl_write {
	char name[BPFTUNE_SYSCTL_NAME_LEN];	/* "net/core/somaxconn" */
	char value[BPFTUNE_SYSCTL_VALUE_LEN];	/* start of the new value */
};

#endif
