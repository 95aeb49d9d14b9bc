/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sysctls as the library reads and writes them, unguarded: raw I/O in a
 * network namespace (sysctl.c), the value syntax (sysctl_value.c), a
 * tunable's hard caps (tunable_cap.c) and the audit of hostile starting
 * values (tunable_audit.c).  The core uses them (admin override, the exit
 * summary, the start audit), and so do the areas above: the guarded
 * write path (write/tunable_set.c), the journal's rollback, the kit and
 * telemetry.  Tuners write only through bpftune_tunable_set().
 */
#ifndef BPFTUNE_CORE_SYSCTL_H
#define BPFTUNE_CORE_SYSCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <bpftune/libbpftune.h>

struct bpftune_tuner;

/* ---- sysctl I/O (sysctl.c): the library's, not the plugins' ---- */
/*
 * Read or write a sysctl, by dotted ("net.core.somaxconn") or slash name,
 * in the network namespace netns_fd (-1: the daemon's own).  Values are
 * whitespace-separated integers; return the number of values read, or
 * -errno.  Tuners write only through bpftune_tunable_set().
 */
int bpftune_sysctl_read(int netns_fd, const char *name, long *values,
			unsigned int max_values);
int bpftune_sysctl_write(int netns_fd, const char *name, const long *values,
			 unsigned int num_values);
int bpftune_sysctl_read_string(int netns_fd, const char *name, char *buf,
			       size_t len);
int bpftune_sysctl_write_string(int netns_fd, const char *name,
				const char *value);

/* ---- pure helpers, unit-tested (sysctl_value.c, tunable_cap.c) ---- */
int bpftune_sysctl_path(const char *name, char *path, size_t len);
int bpftune_sysctl_parse(const char *buf, long *values, unsigned int max);
int bpftune_sysctl_format(const long *values, unsigned int n, char *buf,
			  size_t len);
/* for a log line: space-separated, "?" when they do not fit */
void bpftune_sysctl_format_line(const long *values, unsigned int n, char *buf,
				size_t len);
void bpftune_sysctl_dotted(const char *slash_name, char *buf, size_t len);
/* hex CPU bitmaps (flow_limit_cpu_bitmap): read and written as one number */
bool bpftune_sysctl_is_cpumask(const char *name);
int bpftune_cpumask_parse(const char *buf, long *mask);
int bpftune_cpumask_format(long mask, char *buf, size_t len);
/* clamp to [min, max]; returns how many values were changed */
unsigned int bpftune_cap_values(const struct bpftune_tunable_desc *d,
				long *values, unsigned int n);
/*
 * Values outside [min, max], described into @buf ("2147483647 above the
 * cap 65536", "value 3 (0) below the floor 1"); returns how many.
 */
unsigned int bpftune_cap_audit(const struct bpftune_tunable_desc *d,
			       const long *values, unsigned int n, char *buf,
			       size_t len);
/*
 * At start: one line per tunable whose value (global netns) is outside
 * the tuner's caps, saying it is left alone until the tuner acts.
 */
void bpftune_tunables_audit(const struct bpftune_tuner *t);

#endif /* BPFTUNE_CORE_SYSCTL_H */
