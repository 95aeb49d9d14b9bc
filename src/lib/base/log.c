// SPDX-License-Identifier: GPL-2.0-only
/* Logging to syslog (default) or stderr (-s), with a debug level (-d). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/base.h"

static enum bpftune_log_dest log_dest = BPFTUNE_LOG_STDERR;
static int log_max_level = LOG_INFO;

/* The last line and how often it came again since, to collapse repeats. */
static char last_msg[1024];
static int last_level;
static unsigned long repeats;

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

static void emit(int level, const char *msg)
{
	struct timespec ts;

	if (log_dest == BPFTUNE_LOG_SYSLOG) {
		syslog(level, "%s", msg);
		return;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	fprintf(stderr, "bpftune[%ld.%03ld] %s: %s\n", (long)ts.tv_sec,
		ts.tv_nsec / 1000000, level_name(level), msg);
}

/* Say how often the previous line repeated, if it did. */
void bpftune_log_flush(void)
{
	char msg[64];

	if (!repeats)
		return;
	snprintf(msg, sizeof(msg), "last message repeated %lu time%s", repeats,
		 repeats == 1 ? "" : "s");
	repeats = 0;
	emit(last_level, msg);
}

void bpftune_log(int level, const char *fmt, ...)
{
	char msg[sizeof(last_msg)];
	va_list ap;

	if (level > log_max_level)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (level == last_level && !strcmp(msg, last_msg)) {
		repeats++;
		return;
	}
	bpftune_log_flush();
	memcpy(last_msg, msg, sizeof(msg));
	last_level = level;
	emit(level, msg);
}
