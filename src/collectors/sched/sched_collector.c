// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sched collector: scheduler events into sched_events, per-CPU counts
 * into sched_stats (docs/collectors.md).  Off unless named by
 * --collectors sched.
 *
 * Its BPF programs write into a ring buffer of its own, without waking
 * anyone; a timer on the daemon's loop drains it every DRAIN_MS into the
 * telemetry writer's queue, whose thread commits a transaction per
 * batch.  The drain stops while that queue is nearly full (keeping room
 * for the daemon's own rows) and resumes a millisecond later, so a burst
 * waits in the ring buffer instead of being dropped.  What is lost is
 * counted where it is lost: a full ring buffer in BPF (lost_ringbuf), a
 * full writer queue here (lost_writer).
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <bpftune/libbpftune.h>

#include "sched_collector.h"
#include "sched_tables.h"
#include "sched_collector.skel.h"
#include "sched_collector.legacy.skel.h"

#define DRAIN_MS	50	/* the ring buffer holds ~0.3 s at 200 k events/s */
#define RETRY_MS	1	/* the writer's queue was nearly full */
#define QUEUE_RESERVE	512	/* queue slots left to the daemon's own rows */

struct sched_state {
	struct bpftune_tuner *tuner;
	struct ring_buffer *rb;
	int counts_fd;
	int ncpus;
	unsigned int budget;	/* rows this drain may still queue */
	bool more;		/* stopped for want of room */
	_Atomic uint64_t *lost_writer;	/* per CPU */
};

static const char *const kind_names[SCHED_EV_NUM] = {
	[SCHED_EV_SWITCH] = "switch",
	[SCHED_EV_WAKEUP] = "wakeup",
	[SCHED_EV_WAKEUP_NEW] = "wakeup_new",
	[SCHED_EV_MIGRATE] = "migrate",
};

static struct bpftune_value int_if(bool have, int64_t v)
{
	return have ? BPFTUNE_VALUE_INT(v) : BPFTUNE_VALUE_NULL;
}

/* one record, one row; a negative return stops the drain after it */
static int on_record(void *ctx, void *data, size_t len)
{
	struct sched_state *st = ctx;
	const struct sched_record *r = data;
	char comm[SCHED_COMM_LEN + 1], prev_comm[SCHED_COMM_LEN + 1], state_s[2];
	struct bpftune_event ev = { .ts_uptime_ns = 0 };
	bool sw, wake, mig;

	if (len < sizeof(*r) || r->kind >= SCHED_EV_NUM)
		return 0;
	sw = r->kind == SCHED_EV_SWITCH;
	wake = r->kind == SCHED_EV_WAKEUP || r->kind == SCHED_EV_WAKEUP_NEW;
	mig = r->kind == SCHED_EV_MIGRATE;
	snprintf(comm, sizeof(comm), "%.*s", SCHED_COMM_LEN, r->comm);
	snprintf(prev_comm, sizeof(prev_comm), "%.*s", SCHED_COMM_LEN, r->prev_comm);
	state_s[0] = r->prev_state;
	state_s[1] = '\0';
	ev.ts_uptime_ns = r->ts_ns;
	if (bpftune_table_row(st->tuner, SCHED_TABLE_EVENTS, &ev, (const struct bpftune_value[]){
		BPFTUNE_VALUE_INT(r->ts_ns), BPFTUNE_VALUE_INT(r->cpu),
		BPFTUNE_VALUE_TEXT(kind_names[r->kind]),
		BPFTUNE_VALUE_INT(r->pid), BPFTUNE_VALUE_TEXT(comm), BPFTUNE_VALUE_INT(r->prio),
		int_if(sw, r->prev_pid), sw ? BPFTUNE_VALUE_TEXT(prev_comm) : BPFTUNE_VALUE_NULL,
		int_if(sw, r->prev_prio), sw ? BPFTUNE_VALUE_TEXT(state_s) : BPFTUNE_VALUE_NULL,
		int_if(sw, r->preempt), int_if(wake, r->aux0),
		int_if(mig, r->aux0), int_if(mig, r->aux1) }, 14) == -ENOBUFS &&
	    r->cpu < (unsigned int)st->ncpus)
		atomic_fetch_add(&st->lost_writer[r->cpu], 1);
	if (--st->budget == 0) {
		st->more = true;
		return -EAGAIN;
	}
	return 0;
}

static void drain(struct bpftune_tuner *t, void *priv)
{
	struct sched_state *st = priv;
	unsigned int room = bpftune_table_room();

	st->more = room <= QUEUE_RESERVE;
	if (!st->more) {
		st->budget = room - QUEUE_RESERVE;
		ring_buffer__consume(st->rb);
	}
	bpftune_timer_set(t, st->more ? RETRY_MS : DRAIN_MS);
}

static uint64_t events_of(const struct sched_counts *c)
{
	uint64_t n = 0;
	int k;

	for (k = 0; k < SCHED_EV_NUM; k++)
		n += c->kind[k];
	return n;
}

/* sched_stats: one row per CPU, from the BPF counters (telemetry thread) */
static void stats_rows(struct bpftune_tuner *t, struct bpftune_sample *s)
{
	struct sched_state *st = bpftune_tuner_priv(t);
	struct sched_counts *c;
	__u32 zero = 0;
	int cpu;

	c = calloc(st->ncpus, sizeof(*c));
	if (!c)
		return;
	if (bpf_map_lookup_elem(st->counts_fd, &zero, c)) {
		free(c);
		return;
	}
	for (cpu = 0; cpu < st->ncpus; cpu++)
		bpftune_sample_row(s, (const struct bpftune_value[]){
			BPFTUNE_VALUE_INT(cpu), BPFTUNE_VALUE_INT(events_of(&c[cpu])),
			BPFTUNE_VALUE_INT(c[cpu].kind[SCHED_EV_SWITCH]),
			BPFTUNE_VALUE_INT(c[cpu].kind[SCHED_EV_WAKEUP]),
			BPFTUNE_VALUE_INT(c[cpu].kind[SCHED_EV_WAKEUP_NEW]),
			BPFTUNE_VALUE_INT(c[cpu].kind[SCHED_EV_MIGRATE]),
			BPFTUNE_VALUE_INT(c[cpu].lost_ringbuf),
			BPFTUNE_VALUE_INT(atomic_load(&st->lost_writer[cpu])) }, 8);
	free(c);
}

static void sched_fini(struct bpftune_tuner *t, void *priv)
{
	struct sched_state *st = priv;
	uint64_t lost = 0;
	int cpu;

	(void)t;
	sched_stats_source = NULL;
	ring_buffer__free(st->rb);
	for (cpu = 0; st->lost_writer && cpu < st->ncpus; cpu++)
		lost += atomic_load(&st->lost_writer[cpu]);
	if (lost)
		bpftune_log(LOG_NOTICE, "sched collector: %llu events dropped for want of room in the telemetry queue",
			    (unsigned long long)lost);
	free((void *)st->lost_writer);
	memset(st, 0, sizeof(*st));
}

static int sched_init(struct bpftune_tuner *t, void *priv)
{
	struct sched_state *st = priv;
	int rb_fd = bpf_map__fd(BPFTUNE_SKEL_MAP(t, sched_collector_bpf, sched_ringbuf));

	st->tuner = t;
	st->counts_fd = bpf_map__fd(BPFTUNE_SKEL_MAP(t, sched_collector_bpf, sched_counts));
	st->ncpus = libbpf_num_possible_cpus();
	if (rb_fd < 0 || st->counts_fd < 0 || st->ncpus <= 0)
		return rb_fd < 0 ? rb_fd : st->counts_fd < 0 ? st->counts_fd : -EINVAL;
	st->lost_writer = calloc(st->ncpus, sizeof(*st->lost_writer));
	st->rb = ring_buffer__new(rb_fd, on_record, st, NULL);
	if (!st->lost_writer || !st->rb) {
		sched_fini(t, priv);
		return -ENOMEM;
	}
	sched_stats_source = stats_rows;
	bpftune_timer_set(t, DRAIN_MS);
	bpftune_log(LOG_INFO, "sched collector: %d CPUs, a %d MiB ring buffer drained every %d ms",
		    st->ncpus, SCHED_RINGBUF_SIZE >> 20, DRAIN_MS);
	return 0;
}

/* its events never come through the shared ring buffer: no scenario */
BPFTUNE_COLLECTOR(sched_collector_bpf,
	.name = "sched",
	.description = "scheduler events (switch, wakeup, wakeup_new, migrate) into sched_events",
	.priv_size = sizeof(struct sched_state),
	.init = sched_init,
	.fini = sched_fini,
	.timer = drain,
	.telemetry = &sched_telemetry);
