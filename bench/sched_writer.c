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

#include "core/internal.h"
#include "core/loop.h"
#include "telemetry/telemetry.h"
#include "telemetry/tm.h"
#include "sched_rows.h"
#include "sched_tables.h"

#define QUEUE_RESERVE	512	/* as the collector */

static const struct bpftune_tuner_ops ops = {
	.abi_version = BPFTUNE_ABI_VERSION, .ops_size = sizeof(ops),
	.kind = BPFTUNE_KIND_COLLECTOR, .name = "sched",
	.description = "sched writer benchmark", .telemetry = &sched_telemetry,
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

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
	struct bpftune_telemetry_opts o = { .sample_interval_ms = 1000 };
	const struct timespec pause = { .tv_nsec = 200000 };
	struct sched_record r;
	struct bpftune_tuner *t;
	char why[256];
	double t0, t1, secs;
	long i = 0, waits = 0;

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
	t = bpftune_tuner_add(&ops, NULL, -1, "sched_writer");
	if (!t || bpftune_telemetry_tuner_check(t, why, sizeof(why)) || bpftune_telemetry_start()) {
		fprintf(stderr, "sched_writer: cannot start: %s\n", why);
		return 1;
	}
	bpftune_telemetry_tuner_added(t);
	t0 = now();
	while ((i & 1023) || now() - t0 < secs) {
		if (bpftune_table_room() <= QUEUE_RESERVE) {
			nanosleep(&pause, NULL);
			waits++;
			continue;
		}
		record_of(&r, i++);
		if (sched_event_row(t, &r) == -EINVAL)
			return 1;
	}
	t1 = now();
	bpftune_telemetry_stop(0);
	printf("%ld rows offered in %.3f s (%ld waits for room); writer done after %.3f s; file: %s\n",
	       i, t1 - t0, waits, now() - t0, argv[1]);
	bpftune_tuner_remove(t);
	bpftune_loop_fini();
	return 0;
}
