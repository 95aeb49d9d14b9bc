// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sched collector's telemetry, exactly as docs/collectors.md fixes it
 * (dataset build --format sched reads it): sched_events, a row per
 * scheduler event, sched_stats, the per-CPU counts every interval, and
 * sched_gaps, where events were dropped.
 * Linked into sched_collector.so and into the docs generator.
 */
#include <stddef.h>
#include <bpftune/telemetry.h>

#include "sched_tables.h"

#define NN	BPFTUNE_COL_NOT_NULL
#define COL_I(n, fl, u, d)	BPFTUNE_COL(n, BPFTUNE_COL_INTEGER, BPFTUNE_KIND_LABEL, fl, u, d)
#define COL_T(n, fl, d)		BPFTUNE_COL(n, BPFTUNE_COL_TEXT, BPFTUNE_KIND_LABEL, fl, NULL, d)

static const struct bpftune_col_desc events_cols[] = {
	COL_I("ts_ns", NN, "ns", "CLOCK_BOOTTIME of the event (bpf_ktime_get_boot_ns() at the tracepoint)"),
	COL_I("cpu", NN, NULL, "CPU the tracepoint fired on"),
	COL_T("event", NN, "switch, wakeup, wakeup_new or migrate"),
	COL_I("pid", 0, NULL, "the task the event is about (switch: the one switched in); a thread id"),
	COL_T("comm", 0, "its command name (swapper/N: a CPU's idle task)"),
	COL_I("prio", 0, NULL, "its priority as the kernel holds it (p->prio, 120 for nice 0)"),
	COL_I("prev_pid", 0, NULL, "switch: the task switched out; NULL otherwise"),
	COL_T("prev_comm", 0, "switch: its command name"),
	COL_I("prev_prio", 0, NULL, "switch: its priority"),
	COL_T("prev_state", 0, "switch: its state as ftrace's letter (R S D T t X Z P I), without the +"),
	COL_I("preempt", 0, NULL, "switch: 1 if prev was preempted (ftrace's R+), else 0"),
	COL_I("target_cpu", 0, NULL, "wakeup, wakeup_new: the CPU the task will run on"),
	COL_I("orig_cpu", 0, NULL, "migrate: the CPU the task leaves"),
	COL_I("dest_cpu", 0, NULL, "migrate: the CPU it goes to"),
	COL_I("observer", NN, NULL, "1 if the event is about one of the daemon's own threads (either task of a switch); such rows exist only with --keep-observer"),
};

#define CTR(n, d)	BPFTUNE_COL_INT(n, COUNTER, "events", d)

static const struct bpftune_col_desc stats_cols[] = {
	BPFTUNE_COL_INT("cpu", LABEL, NULL, "the CPU the counts are of"),
	CTR("events", "events the BPF programs saw on this CPU (all four), cumulative"),
	CTR("switch", "of those, sched_switch"),
	CTR("wakeup", "of those, sched_wakeup"),
	CTR("wakeup_new", "of those, sched_wakeup_new"),
	CTR("migrate", "of those, sched_migrate_task"),
	CTR("lost_ringbuf", "events that found the collector's ring buffer full"),
	CTR("lost_writer", "events read from the ring buffer but dropped: writer queue full"),
	CTR("observer", "events about the daemon's own threads: left out (written, marked, with --keep-observer)"),
	CTR("observer_switch", "of those, sched_switch"),
};

static const struct bpftune_col_desc gaps_cols[] = {
	COL_I("cpu", NN, NULL, "the CPU whose events were dropped"),
	COL_I("start_ns", NN, "ns", "CLOCK_BOOTTIME of the first event dropped"),
	COL_I("end_ns", NN, "ns", "CLOCK_BOOTTIME of the last event dropped"),
	COL_I("dropped", NN, "events", "events of the CPU dropped between them, all of them"),
	COL_T("lost_in", NN, "ringbuf (the collector's ring buffer was full) or writer (the telemetry queue was)"),
};

collector_sample_fn sched_stats_source;

static void stats_sample(struct bpftune_tuner *t, struct bpftune_sample *s)
{
	if (sched_stats_source)
		sched_stats_source(t, s);
}

static const struct bpftune_table_desc tables[] = {
	{
		.name = "sched_events",
		.description = "One row per scheduler event (sched_switch, sched_wakeup, sched_wakeup_new, sched_migrate_task), written in batches: order by ts_ns. sched_events rows + lost_ringbuf + lost_writer (+ observer, without --keep-observer) = events (sched_stats).",
		.cols = events_cols,
		.num_cols = BPFTUNE_TELEMETRY_ARRAY_SIZE(events_cols),
	},
	{
		.name = "sched_stats",
		.description = "One row per CPU every sample interval: the sched collector's event counts and losses, cumulative since it started.",
		.flags = BPFTUNE_TABLE_SAMPLED,
		.cols = stats_cols,
		.num_cols = BPFTUNE_TELEMETRY_ARRAY_SIZE(stats_cols),
		.sample = stats_sample,
	},
	{
		.name = "sched_gaps",
		.description = "One row per gap: a run of a CPU's scheduler events that were dropped, from the first to the last and how many. No sched_events row of that CPU lies between start_ns and end_ns; sum(dropped) = lost_ringbuf + lost_writer (sched_stats).",
		.cols = gaps_cols,
		.num_cols = BPFTUNE_TELEMETRY_ARRAY_SIZE(gaps_cols),
	},
};

const struct bpftune_telemetry_desc sched_telemetry = {
	.tables = tables,
	.num_tables = BPFTUNE_TELEMETRY_ARRAY_SIZE(tables),
};
