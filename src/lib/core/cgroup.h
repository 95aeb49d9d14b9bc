/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BPFTUNE_CGROUP_H
#define BPFTUNE_CGROUP_H
/* fd of the cgroup at @path, or of the cgroup2 root if NULL; -errno */
int bpftune_cgroup_open(const char *path);
#endif
