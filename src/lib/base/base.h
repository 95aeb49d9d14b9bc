/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The library's lowest area: logging (log.c) and the daemon's
 * capabilities (cap.c).  Uses nothing else of the library; every other
 * area may use it (scripts/check-layers.sh).
 */
#ifndef BPFTUNE_BASE_H
#define BPFTUNE_BASE_H

#include "base/daemon_api.h"

#include <stdbool.h>
#include <bpftune/libbpftune.h>

/* ---- logging (log.c) ---- */
enum bpftune_log_dest { BPFTUNE_LOG_SYSLOG, BPFTUNE_LOG_STDERR };
BPFTUNE_DAEMON void bpftune_log_init(enum bpftune_log_dest dest, int max_level);
BPFTUNE_DAEMON bool bpftune_log_debug_enabled(void);
/* identical consecutive lines are collapsed; this reports the count */
BPFTUNE_DAEMON void bpftune_log_flush(void);

/* ---- capabilities (cap.c) ---- */
BPFTUNE_DAEMON int bpftune_cap_init(void);	/* keep only what the daemon needs */
void bpftune_cap_raise(void);	/* effective = permitted, nests */
void bpftune_cap_lower(void);

#endif
