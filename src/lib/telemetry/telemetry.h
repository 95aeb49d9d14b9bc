/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Telemetry: the daemon's observer that records runs, events, decisions,
 * changes, states, periodic samples, its own health and the plugins'
 * declared tables into one SQLite file per run (the core's tables:
 * schema_core.c; a plugin's: its ops->telemetry; docs/telemetry.md).
 *
 * The event path only copies a row into a bounded queue; a writer thread
 * owns SQLite, the sample timer and the sampler.  A full queue drops the
 * row and counts it.  The only periodic wake-up is the writer's sample
 * timer, and only with telemetry on.  Module map: tm.h.
 */
#ifndef BPFTUNE_TELEMETRY_H
#define BPFTUNE_TELEMETRY_H

#include "base/daemon_api.h"

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "core/internal.h"
#include "telemetry/telemetry_schema.h"

#define BPFTUNE_TELEMETRY_DIR		"/var/lib/bpftune/telemetry"

/*
 * --host-id: the host_id of every row, instead of the machine's (several
 * "hosts" on one machine: tests, containers sharing a machine-id).  Safe
 * in a file name and a Redis key (bpftune-ship puts it in both).
 */
#define BPFTUNE_HOST_ID_MAX		36
#define BPFTUNE_HOST_ID_CHARS \
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-"

static inline bool bpftune_host_id_valid(const char *s)
{
	size_t n = strlen(s);

	return n && n <= BPFTUNE_HOST_ID_MAX && strspn(s, BPFTUNE_HOST_ID_CHARS) == n;
}

struct bpftune_telemetry_opts {
	const char *dir;		/* NULL: BPFTUNE_TELEMETRY_DIR */
	const char *label;		/* --label, may be NULL */
	const char *host_id;		/* --host-id; NULL: the machine's */
	unsigned int sample_interval_ms;	/* 0: the default */
	int sample_netns;		/* --sample-netns; -1: the default */
	int keep_files;			/* --telemetry-keep; -1: default, 0: all */
	long max_mb;			/* --telemetry-max-mb; -1: default, 0: no limit */
	unsigned int learning_rate;
	bool legacy;
	bool observe_only;
	int argc;
	char **argv;
};

/*
 * Before the tuners start: create the run's file and its tables.  Failure
 * is logged and leaves telemetry off; tuning goes on.  0 or -errno.
 */
BPFTUNE_DAEMON int bpftune_telemetry_init(const struct bpftune_telemetry_opts *o);
/* After the tuners started: record the run, start the writer and timer. */
BPFTUNE_DAEMON int bpftune_telemetry_start(void);
/*
 * Before any plugin starts, telemetry on or off: follow the plugins on the
 * observer bus -- check each one's table declarations before it loads
 * (a bad one refuses the plugin), and start and stop its tables.
 */
BPFTUNE_DAEMON void bpftune_telemetry_watch_plugins(void);
/* Last samples and health, flush, close.  Safe to call more than once. */
BPFTUNE_DAEMON void bpftune_telemetry_stop(int exit_status);
/* Path of the run's file, or NULL when telemetry is off. */
const char *bpftune_telemetry_path(void);

#endif /* BPFTUNE_TELEMETRY_H */
