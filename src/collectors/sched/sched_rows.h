/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A ring buffer record of the sched collector made a row: of sched_events
 * (an event) or of sched_gaps (where a CPU's events were dropped).  Apart
 * from the collector so that bench/sched_writer.c measures this very
 * path without BPF.
 */
#ifndef SCHED_ROWS_H
#define SCHED_ROWS_H

#include <bpftune/libbpftune.h>
#include <bpftune/telemetry.h>

#include "sched_collector.h"

/* where a gap was found */
enum sched_gap_where {
	SCHED_GAP_RINGBUF,	/* the ring buffer was full (BPF) */
	SCHED_GAP_WRITER,	/* the telemetry queue was (userspace) */
};

/* a row of sched_events; 0, or what bpftune_table_row() returned */
int sched_event_row(struct bpftune_tuner *t, const struct sched_record *r);
/* a row of sched_gaps */
int sched_gap_row(struct bpftune_tuner *t, const struct sched_gap *g,
		  enum sched_gap_where where);

#endif
