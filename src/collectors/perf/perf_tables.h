/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perf's telemetry declarations, in perf_tables.c (ops->telemetry).  A
 * sampled table's callback lives with the collector; the declaration
 * reaches it through a pointer the collector sets in init() (the docs
 * generator links the declarations alone).
 */
#ifndef BPFTUNE_PERF_TABLES_H
#define BPFTUNE_PERF_TABLES_H

#include <bpftune/telemetry.h>

typedef void (*collector_sample_fn)(struct bpftune_tuner *tuner,
				    struct bpftune_sample *s);

extern const struct bpftune_telemetry_desc perf_telemetry;
extern collector_sample_fn perf_counts_source;

#endif
