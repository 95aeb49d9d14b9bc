// SPDX-License-Identifier: GPL-2.0-only
/*
 * Logging stub for the unit-test binary: plugin_dir.c calls bpftune_log(),
 * whose real implementation (log.c) pulls in syslog and daemon state.
 * Only logging is stubbed; the logic under test is the real code.
 */
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
