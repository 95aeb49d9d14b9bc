// SPDX-License-Identifier: GPL-2.0-only
/*
 * Stubs for the unit-test binary: logging (plugin_dir.c calls
 * bpftune_log(), whose real implementation pulls in syslog and daemon
 * state) and the netns cache the kit's readers go through.  The logic
 * under test is the real code.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/internal.h"

void bpftune_log(int level, const char *fmt, ...)
{
	va_list ap;

	(void)level;
	if (!getenv("BPFTUNE_UNIT_LOG"))
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/*
 * The netns cache (netns.c) for the kit's readers under test: they are
 * called with no event, i.e. in the test's own netns, which needs no fd.
 */
int bpftune_netns_fd_for_event(const struct bpftune_event *ev)
{
	(void)ev;
	return -ESRCH;
}

int bpftune_netns_enter(int netns_fd, int *saved_fd)
{
	*saved_fd = -1;
	return netns_fd == -1 ? 0 : -EBADF;
}

void bpftune_netns_leave(int saved_fd)
{
	(void)saved_fd;
}
