// SPDX-License-Identifier: GPL-2.0-only
/* The frame of the writer benchmarks (writer_bench.h). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "core/loop.h"
#include "telemetry/telemetry.h"
#include "telemetry/tm.h"
#include "writer_bench.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int writer_bench_start(struct writer_bench *b, int argc, char **argv,
		       const struct bpftune_tuner_ops *ops)
{
	struct bpftune_telemetry_opts o = { .sample_interval_ms = 1000 };
	char why[256] = "";

	if (argc != 3 || (b->secs = atof(argv[2])) <= 0) {
		fprintf(stderr, "usage: %s DIR SECONDS\n", argv[0]);
		return 2;
	}
	bpftune_log_init(BPFTUNE_LOG_STDERR, LOG_WARNING);
	b->dir = o.dir = argv[1];
	o.argc = argc;
	o.argv = argv;
	if (bpftune_loop_init() || bpftune_telemetry_init(&o))
		return 1;
	b->t = bpftune_tuner_add(ops, NULL, -1, ops->name);
	if (!b->t || bpftune_telemetry_tuner_check(b->t, why, sizeof(why)) ||
	    bpftune_telemetry_start()) {
		fprintf(stderr, "%s: cannot start: %s\n", argv[0], why);
		return 1;
	}
	bpftune_telemetry_tuner_added(b->t);
	b->t0 = now();
	return 0;
}

bool writer_bench_running(struct writer_bench *b, long rows)
{
	if ((rows & 1023) || now() - b->t0 < b->secs)
		return true;
	b->t1 = now();
	return false;
}

void writer_bench_finish(struct writer_bench *b, long rows, const char *what)
{
	bpftune_telemetry_stop(0);
	/* the last flush is part of the writer's work */
	printf("%ld rows offered in %.3f s%s; writer done after %.3f s; file: %s\n",
	       rows, b->t1 - b->t0, what, now() - b->t0, b->dir);
	bpftune_tuner_remove(b->t);
	bpftune_loop_fini();
}
