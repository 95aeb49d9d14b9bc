// SPDX-License-Identifier: GPL-2.0-only
/*
 * The telemetry writer alone: no BPF, no kernel events.  For SECONDS a
 * fake tuner records decisions as fast as the producer can copy them
 * into the queue (most are dropped: the producer is much faster), so the
 * writer thread is busy the whole time and rows committed per second is
 * its capacity.  Built and run by bench/telemetry.sh.
 *
 * usage: telemetry_writer DIR SECONDS
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "core/internal.h"
#include "core/loop.h"
#include "telemetry/telemetry.h"

static const struct bpftune_tunable_desc tunables[] = {
	{ .name = "net.core.somaxconn", .flags = BPFTUNE_TUNABLE_NAMESPACED,
	  .num_values = 1, .min = 128, .max = 65535, .cap_reason = "bench" },
};
/* no handler: the decisions are made here, not for kernel events */
static const struct bpftune_scenario_desc scenarios[] = {
	{ .name = "bench", .description = "rows for the writer benchmark" },
};
static const struct bpftune_tuner_ops ops = {
	.abi_version = BPFTUNE_ABI_VERSION, .name = "bench",
	.description = "writer benchmark", .tunables = tunables, .num_tunables = 1,
	.scenarios = scenarios, .num_scenarios = 1,
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct bpftune_telemetry_opts o = { .sample_interval_ms = 1000 };
	struct bpftune_event ev = { .scenario_id = 0, .netns_cookie = 4096, .pid = 1,
				    .comm = "bench" };
	struct bpftune_decision d = {
		.scenario = 0, .policy = "raise-to-request",
		.inputs = "backlog=2048 somaxconn=128", .action = "raise",
		.tunable = 0, .epsilon = -1, .explored = -1,
	};
	struct bpftune_tuner *t;
	double t0, t1, secs;
	long i;

	if (argc != 3 || (secs = atof(argv[2])) <= 0) {
		fprintf(stderr, "usage: %s DIR SECONDS\n", argv[0]);
		return 2;
	}
	bpftune_log_init(BPFTUNE_LOG_STDERR, LOG_WARNING);
	o.dir = argv[1];
	o.argc = argc;
	o.argv = argv;
	if (bpftune_loop_init() || bpftune_telemetry_init(&o))
		return 1;
	t = bpftune_tuner_add(&ops, NULL, -1, "bench");
	if (!t || bpftune_telemetry_start())
		return 1;
	t0 = now();
	for (i = 0; (i & 1023) || now() - t0 < secs; i++) {
		ev.ts_uptime_ns = (uint64_t)i * 1000;
		bpftune_decision(t, &ev, &d);
	}
	t1 = now();
	bpftune_telemetry_stop(0);
	/* the last flush is part of the writer's work */
	printf("%ld rows offered in %.3f s; writer done after %.3f s; file: %s\n",
	       i, t1 - t0, now() - t0, argv[1]);
	bpftune_tuner_remove(t);
	bpftune_loop_fini();
	return 0;
}
