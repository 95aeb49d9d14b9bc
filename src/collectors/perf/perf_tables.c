// SPDX-License-Identifier: GPL-2.0-only
/*
 * The perf collector's telemetry: perf_counts, per CPU every interval,
 * one column per counter (NULL where this machine cannot count it), and
 * perf_counters, once per run, naming which counters exist and why the
 * others do not.  Linked into perf_collector.so and the docs generator.
 */
#include <linux/perf_event.h>
#include <bpftune/telemetry.h>

#include "perf_collector.h"
#include "perf_tables.h"

#define PERF_COL(id, name, type, config, unit, desc)			\
	BPFTUNE_COL(name, BPFTUNE_COL_INTEGER, BPFTUNE_KIND_COUNTER, 0, unit,	\
		    desc ", cumulative since the collector started; NULL if not countable here"),

static const struct bpftune_col_desc counts_cols[] = {
	BPFTUNE_COL_INT("cpu", LABEL, NULL, "the CPU counted"),
	PERF_COUNTERS(PERF_COL)
	BPFTUNE_COL("multiplexed", BPFTUNE_COL_INTEGER, BPFTUNE_KIND_LABEL, 0, NULL,
		    "1 if a value of the row was scaled by time_enabled/time_running (the counter shared the PMU), else 0"),
};

static const struct bpftune_col_desc counters_cols[] = {
	BPFTUNE_COL_LABEL("counter", "the counter: a column of perf_counts"),
	BPFTUNE_COL_LABEL("type", "software, hardware or hw_cache"),
	BPFTUNE_COL_INT("config", LABEL, NULL, "perf_event_attr.config"),
	BPFTUNE_COL_INT("available", LABEL, NULL, "1 if counted on at least one CPU"),
	BPFTUNE_COL_INT("cpus", LABEL, "CPUs", "CPUs it is counted on"),
	BPFTUNE_COL_INT("errno", LABEL, NULL, "why not: perf_event_open's errno (0 if available)"),
	BPFTUNE_COL_LABEL("reason", "why not, in words (NULL if available)"),
};

collector_sample_fn perf_counts_source;

static void counts_sample(struct bpftune_tuner *t, struct bpftune_sample *s)
{
	if (perf_counts_source)
		perf_counts_source(t, s);
}

static const struct bpftune_table_desc tables[] = {
	[PERF_TABLE_COUNTS] = {
		.name = "perf_counts",
		.description = "One row per CPU every sample interval: perf counters counted on that CPU (all tasks), cumulative; software counters everywhere, hardware and cache counters where a PMU has them (perf_counters says which).",
		.flags = BPFTUNE_TABLE_SAMPLED,
		.cols = counts_cols,
		.num_cols = BPFTUNE_TELEMETRY_ARRAY_SIZE(counts_cols),
		.sample = counts_sample,
	},
	[PERF_TABLE_COUNTERS] = {
		.name = "perf_counters",
		.description = "One row per counter the perf collector tried, when it started: whether this machine can count it and, if not, why.",
		.cols = counters_cols,
		.num_cols = BPFTUNE_TELEMETRY_ARRAY_SIZE(counters_cols),
	},
};

const struct bpftune_telemetry_desc perf_telemetry = {
	.tables = tables,
	.num_tables = BPFTUNE_TELEMETRY_ARRAY_SIZE(tables),
};
