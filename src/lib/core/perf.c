// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf_event_open(2) for plugins: counting a whole CPU needs CAP_PERFMON
 * (or CAP_SYS_ADMIN), which the daemon keeps permitted but not effective.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpftune/libbpftune.h>
#include "core/internal.h"

int bpftune_perf_event_open(struct perf_event_attr *attr, int pid, int cpu,
			    int group_fd, unsigned long flags)
{
	long fd;
	int err;

	if (!attr)
		return -EINVAL;
	bpftune_cap_raise();
	fd = syscall(__NR_perf_event_open, attr, pid, cpu, group_fd,
		     flags | PERF_FLAG_FD_CLOEXEC);
	err = errno;
	bpftune_cap_lower();
	return fd < 0 ? -err : (int)fd;
}
