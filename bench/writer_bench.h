/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The frame of the writer benchmarks (telemetry_writer, sched_writer):
 * the telemetry writer of a real run file with one fake plugin, its rows
 * made for SECONDS, then the writer's last flush timed as well.
 */
#ifndef BPFTUNE_BENCH_WRITER_H
#define BPFTUNE_BENCH_WRITER_H

#include <stdbool.h>

#include "core/internal.h"

struct writer_bench {
	struct bpftune_tuner *t;	/* the fake plugin */
	const char *dir;		/* where the run file goes */
	double secs, t0, t1;
};

/* usage DIR SECONDS, the writer and @ops's tables: 0, or the exit status */
int writer_bench_start(struct writer_bench *b, int argc, char **argv,
		       const struct bpftune_tuner_ops *ops);
/* true until SECONDS have passed (checked every 1024 rows) */
bool writer_bench_running(struct writer_bench *b, long rows);
/* stop the writer (its last flush) and say "N rows offered in ..." + @what */
void writer_bench_finish(struct writer_bench *b, long rows, const char *what);

#endif
