// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kit's /proc readers (see <bpftune/proc.h>): enter the event's netns,
 * read the file whole, look the keys up, come back.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "kit/proc_file.h"
#include "core/sysctl.h"

/* Look @n keys of /proc/thread-self/net/@file up in @ev's netns. */
static int netns_lookup(const struct bpftune_event *ev, const char *file,
			enum bpftune_proc_format fmt, const char *const keys[],
			uint64_t vals[], unsigned int n)
{
	struct bpftune_proc_value v[32];
	char path[64];
	unsigned int i;
	int fd, saved, found;

	if (n > BPFTUNE_ARRAY_SIZE(v) || (n && (!keys || !vals)))
		return -EINVAL;
	fd = ev ? bpftune_netns_fd_for_event(ev) : -1;
	if (fd < -1)
		return fd;
	/* thread-self: the netns this thread is in, not the process's */
	snprintf(path, sizeof(path), "/proc/thread-self/net/%s", file);
	if (fd == -1 && !bpftune_netns_entered()) {
		/* the global netns's: kept open, read often by the gates */
		found = bpftune_proc_file_lookup_pinned(path, fmt, keys, v, n);
	} else {
		found = bpftune_netns_enter(fd, &saved);
		if (found)
			return found;
		found = bpftune_proc_file_lookup(path, fmt, keys, v, n);
		bpftune_netns_leave(saved);
	}
	for (i = 0; found >= 0 && i < n; i++)
		vals[i] = v[i].i > 0 ? (uint64_t)v[i].i : 0;
	return found;
}

int bpftune_proc_snmp(const struct bpftune_event *ev, const char *const keys[],
		      uint64_t vals[], unsigned int n)
{
	return netns_lookup(ev, "snmp", BPFTUNE_PROC_SNMP, keys, vals, n);
}

int bpftune_proc_netstat(const struct bpftune_event *ev,
			 const char *const keys[], uint64_t vals[],
			 unsigned int n)
{
	return netns_lookup(ev, "netstat", BPFTUNE_PROC_SNMP, keys, vals, n);
}

int bpftune_proc_snmp6(const struct bpftune_event *ev, const char *const keys[],
		       uint64_t vals[], unsigned int n)
{
	return netns_lookup(ev, "snmp6", BPFTUNE_PROC_KEYVAL, keys, vals, n);
}

int bpftune_proc_sockstat(const struct bpftune_event *ev,
			  const char *const keys[], uint64_t vals[],
			  unsigned int n)
{
	return netns_lookup(ev, "sockstat", BPFTUNE_PROC_SOCKSTAT, keys, vals, n);
}

int bpftune_proc_sockstat6(const struct bpftune_event *ev,
			   const char *const keys[], uint64_t vals[],
			   unsigned int n)
{
	return netns_lookup(ev, "sockstat6", BPFTUNE_PROC_SOCKSTAT, keys, vals, n);
}

int bpftune_proc_sysctl(const struct bpftune_event *ev, const char *name,
			long *values, unsigned int max)
{
	int fd = ev ? bpftune_netns_fd_for_event(ev) : -1;

	return fd < -1 ? fd : bpftune_sysctl_read(fd, name, values, max);
}

int bpftune_proc_protocol_memory(const char *proto, long *pages,
				 bool *pressure)
{
	char *text = bpftune_proc_file_read("/proc/net/protocols", NULL);
	int err;

	if (!text)
		return -errno;
	err = bpftune_protocols_parse(text, proto, pages, pressure);
	free(text);
	return err;
}

int bpftune_proc_softnet_sum(unsigned int cols, uint64_t *values,
			     unsigned int max)
{
	char *text = bpftune_proc_file_read_pinned("/proc/net/softnet_stat", NULL);
	uint64_t vals[256];
	unsigned int cpus[256], col;
	int rows = 0, i;

	if (!text)
		return -errno;
	memset(values, 0, max * sizeof(*values));
	for (col = 0; col < 32 && rows >= 0; col++) {
		if (!(cols & (1u << col)))
			continue;
		rows = bpftune_softnet_rows(text, col, vals, cpus,
					    BPFTUNE_ARRAY_SIZE(vals));
		for (i = 0; i < rows; i++)
			if (cpus[i] < max)
				values[cpus[i]] += vals[i];
	}
	free(text);
	return rows;
}

int bpftune_proc_softnet(unsigned int col, uint64_t *values, unsigned int max)
{
	return col < 32 ? bpftune_proc_softnet_sum(1u << col, values, max) : -EINVAL;
}

int bpftune_proc_cpu_wait(double *wait, const char **source)
{
	char *text = bpftune_proc_file_read("/proc/pressure/cpu", NULL);
	struct bpftune_proc_value v;
	int err = -ENOENT;

	if (text) {
		err = bpftune_proc_lookup(BPFTUNE_PROC_PSI, text, "some.total", &v);
		free(text);
		if (!err) {
			*wait = v.d;
			if (source)
				*source = "PSI";
			return 0;
		}
	}
	text = bpftune_proc_file_read("/proc/schedstat", NULL);
	if (!text)
		return -ENOENT;
	err = bpftune_schedstat_wait(text, wait);
	free(text);
	if (!err && source)
		*source = "run delay";
	return err;
}
