/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The telemetry declarations of the in-tree collectors, each in its
 * <name>_tables.c (ops->telemetry points at it; the docs generator finds
 * them by those file names).  A sampled table's callback lives with the
 * collector; the declaration reaches it through a pointer the collector
 * sets in init() (the docs generator links the declarations alone).
 */
#ifndef BPFTUNE_COLLECTOR_TABLES_H
#define BPFTUNE_COLLECTOR_TABLES_H

#include <bpftune/telemetry.h>

typedef void (*collector_sample_fn)(struct bpftune_tuner *tuner,
				    struct bpftune_sample *s);

extern const struct bpftune_telemetry_desc sched_telemetry;
extern collector_sample_fn sched_stats_source;

extern const struct bpftune_telemetry_desc perf_telemetry;
extern collector_sample_fn perf_counts_source;

#endif
