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

#include "writer_bench.h"

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

int main(int argc, char **argv)
{
	struct bpftune_event ev = { .scenario_id = 0, .netns_cookie = 4096, .pid = 1,
				    .comm = "bench" };
	struct bpftune_decision d = {
		.scenario = 0, .policy = "raise-to-request",
		.inputs = "backlog=2048 somaxconn=128", .action = "raise",
		.tunable = 0, .epsilon = -1, .explored = -1,
	};
	struct writer_bench b;
	long i;
	int err;

	err = writer_bench_start(&b, argc, argv, &ops);
	if (err)
		return err;
	for (i = 0; writer_bench_running(&b, i); i++) {
		ev.ts_uptime_ns = (uint64_t)i * 1000;
		bpftune_decision(b.t, &ev, &d);
	}
	writer_bench_finish(&b, i, "");
	return 0;
}
