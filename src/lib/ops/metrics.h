/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Metrics (metrics.c) and plugin hot plug (hotplug.c): the daemon's ops
 * that follow the tuners through the observer bus.
 */
#ifndef BPFTUNE_OPS_METRICS_H
#define BPFTUNE_OPS_METRICS_H

#include "base/daemon_api.h"

struct bpftune_buf;
struct bpftune_allow;
struct bpftune_bpf_opts;

/* ---- metrics (metrics.c) ---- */
/* Prometheus text exposition of everything; 0 or -errno */
int bpftune_metrics_format(struct bpftune_buf *out);
/* Write DIR/bpftune.prom atomically after changes (coalesced), and at exit. */
BPFTUNE_DAEMON int bpftune_metrics_init(const char *dir);
BPFTUNE_DAEMON void bpftune_metrics_fini(void);
/* something changed: write the metrics file soon (no-op without one) */
void bpftune_metrics_dirty(void);

/* ---- plugin hot plug (hotplug.c) ---- */
/* @drain delivers pending ring buffer events before a tuner is unloaded */
BPFTUNE_DAEMON int bpftune_hotplug_init(const char *dir, const struct bpftune_allow *allow,
			 const struct bpftune_bpf_opts *opts, void (*drain)(void));
BPFTUNE_DAEMON void bpftune_hotplug_fini(void);

#endif /* BPFTUNE_OPS_METRICS_H */
