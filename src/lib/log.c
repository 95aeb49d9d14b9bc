// SPDX-License-Identifier: GPL-2.0-only
/* Logging to syslog (default) or stderr (-s), with a debug level (-d). */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "internal.h"

static enum bpftune_log_dest log_dest = BPFTUNE_LOG_STDERR;
static int log_max_level = LOG_INFO;

void bpftune_log_init(enum bpftune_log_dest dest, int max_level)
{
	log_dest = dest;
	log_max_level = max_level;
	if (dest == BPFTUNE_LOG_SYSLOG)
		openlog("bpftune", LOG_PID | LOG_NDELAY, LOG_DAEMON);
}

bool bpftune_log_debug_enabled(void)
{
	return log_max_level >= LOG_DEBUG;
}

static const char *level_name(int level)
{
	switch (level) {
	case LOG_EMERG: case LOG_ALERT: case LOG_CRIT: case LOG_ERR:
		return "error";
	case LOG_WARNING:
		return "warning";
	case LOG_NOTICE:
		return "notice";
	case LOG_INFO:
		return "info";
	default:
		return "debug";
	}
}

void bpftune_log(int level, const char *fmt, ...)
{
	va_list ap;

	if (level > log_max_level)
		return;
	va_start(ap, fmt);
	if (log_dest == BPFTUNE_LOG_SYSLOG) {
		vsyslog(level, fmt, ap);
	} else {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		fprintf(stderr, "bpftune[%ld.%03ld] %s: ", (long)ts.tv_sec,
			ts.tv_nsec / 1000000, level_name(level));
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	}
	va_end(ap);
}
