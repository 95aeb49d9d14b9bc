// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sched collector's userspace path alone: no BPF, no kernel events.
 * For SECONDS a fake sched collector makes rows of sched_events from
 * records shaped as a busy machine's (switches mostly), through
 * sched_event_row() as the collector does, and as the collector's drain
 * does it stops while the writer's queue is nearly full instead of
 * dropping.  Rows committed per second is the writer's capacity for the
 * sched collector.  Built by make bench, run by bench/sched_collector.sh.
 *
 * usage: sched_writer DIR SECONDS
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "telemetry/tm.h"
#include "writer_bench.h"
#include "sched_rows.h"
#include "sched_tables.h"

#define QUEUE_RESERVE	512	/* as the collector */

static const struct bpftune_tuner_ops ops = {
	.abi_version = BPFTUNE_ABI_VERSION, .ops_size = sizeof(ops),
	.kind = BPFTUNE_KIND_COLLECTOR, .name = "sched",
	.description = "sched writer benchmark", .telemetry = &sched_telemetry,
};

/* the i-th record: three switches for a wakeup, now and then a migration */
static void record_of(struct sched_record *r, long i)
{
	memset(r, 0, sizeof(*r));
	r->ts_ns = 1000000000ULL + (uint64_t)i * 5000;
	r->cpu = i & 1;
	r->kind = i % 4 == 3 ? SCHED_EV_WAKEUP : i % 97 ? SCHED_EV_SWITCH : SCHED_EV_MIGRATE;
	r->pid = 1000 + (i % 320);
	r->prio = 120;
	snprintf(r->comm, sizeof(r->comm), "hackbench");
	r->prev_pid = 1000 + ((i + 7) % 320);
	r->prev_prio = 120;
	snprintf(r->prev_comm, sizeof(r->prev_comm), "hackbench");
	r->prev_state = 'S';
	r->aux0 = 1;
	r->aux1 = 0;
}

int main(int argc, char **argv)
{
	const struct timespec pause = { .tv_nsec = 200000 };
	struct writer_bench b;
	struct sched_record r;
	char what[64];
	long i = 0, waits = 0;
	int err;

	err = writer_bench_start(&b, argc, argv, &ops);
	if (err)
		return err;
	while (writer_bench_running(&b, i)) {
		if (bpftune_table_room() <= QUEUE_RESERVE) {
			nanosleep(&pause, NULL);
			waits++;
			continue;
		}
		record_of(&r, i++);
		if (sched_event_row(b.t, &r) == -EINVAL)
			return 1;
	}
	snprintf(what, sizeof(what), " (%ld waits for room)", waits);
	writer_bench_finish(&b, i, what);
	return 0;
}
