/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sched's telemetry declarations, in sched_tables.c (ops->telemetry).  A
 * sampled table's callback lives with the collector; the declaration
 * reaches it through a pointer the collector sets in init() (the docs
 * generator links the declarations alone).
 */
#ifndef BPFTUNE_SCHED_TABLES_H
#define BPFTUNE_SCHED_TABLES_H

#include <bpftune/telemetry.h>

typedef void (*collector_sample_fn)(struct bpftune_tuner *tuner,
				    struct bpftune_sample *s);

extern const struct bpftune_telemetry_desc sched_telemetry;
extern collector_sample_fn sched_stats_source;

#endif
