// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sched collector: scheduler events into sched_events, per-CPU counts
 * into sched_stats, dropped runs of events into sched_gaps
 * (docs/collectors.md).  Off unless named by --collectors sched.
 *
 * Its BPF programs write into a ring buffer of its own (--buffer-size),
 * without waking anyone; a timer on the daemon's loop drains it every
 * DRAIN_MS into the telemetry writer's queue, whose thread commits a
 * transaction per batch.  The drain stops while that queue is nearly full
 * (keeping room for the daemon's own rows) and resumes a millisecond
 * later, so a burst waits in the ring buffer instead of being dropped;
 * when the daemon stops, drain() empties the ring buffer before the
 * writer's last flush.  What is lost is counted where it is lost (a full
 * ring buffer in BPF, lost_ringbuf; a full writer queue here,
 * lost_writer) and located: a row of sched_gaps per run of a CPU's
 * dropped events.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <bpftune/libbpftune.h>

#include "sched_collector.h"
#include "sched_rows.h"
#include "sched_tables.h"
#include "sched_collector.skel.h"
#include "sched_collector.legacy.skel.h"

#define DRAIN_MS	50	/* the ring buffer holds seconds at 200 k events/s */
#define RETRY_MS	1	/* the writer's queue was nearly full */
#define QUEUE_RESERVE	512	/* queue slots left to the daemon's own rows */
#define LAST_DRAIN_S	20	/* at exit, at most this long for what is left */

struct sched_state {
	struct bpftune_tuner *tuner;
	struct ring_buffer *rb;
	int counts_fd;
	int ncpus;
	unsigned int budget;	/* rows this drain may still queue */
	bool more;		/* stopped for want of room */
	_Atomic uint64_t *lost_writer;	/* per CPU */
	uint64_t *read;		/* per CPU: event records read (rows or lost_writer) */
	bool keep_observer;
	struct sched_gap *wgap;	/* per CPU: the open gap of lost_writer */
};

/* the CPU's open writer gap, if any, as a row: before its next event */
static void wgap_close(struct sched_state *st, struct sched_gap *g)
{
	if (g->dropped && !sched_gap_row(st->tuner, g, SCHED_GAP_WRITER))
		g->dropped = 0;
}

static void wgap_extend(struct sched_gap *g, uint64_t ts, unsigned int cpu)
{
	if (!g->dropped) {
		g->start_ns = ts;
		g->cpu = cpu;
	}
	g->end_ns = ts;
	g->dropped++;
}

static void on_event(struct sched_state *st, const struct sched_record *r)
{
	struct sched_gap *g;

	if (r->cpu >= (unsigned int)st->ncpus) {
		sched_event_row(st->tuner, r);
		return;
	}
	st->read[r->cpu]++;
	g = &st->wgap[r->cpu];
	wgap_close(st, g);
	if (!g->dropped && sched_event_row(st->tuner, r) != -ENOBUFS)
		return;
	atomic_fetch_add(&st->lost_writer[r->cpu], 1);
	wgap_extend(g, r->ts_ns, r->cpu);
}

/* one record, one row; a negative return stops the drain after it */
static int on_record(void *ctx, void *data, size_t len)
{
	struct sched_state *st = ctx;
	const struct sched_record *r = data;

	if (len >= sizeof(struct sched_gap) && r->kind == SCHED_REC_GAP)
		sched_gap_row(st->tuner, data, SCHED_GAP_RINGBUF);
	else if (len >= sizeof(*r))
		on_event(st, r);
	if (--st->budget == 0) {
		st->more = true;
		return -EAGAIN;
	}
	return 0;
}

/* as much as the queue has room for; false once the ring buffer is empty */
static bool drain_some(struct sched_state *st)
{
	unsigned int room = bpftune_table_room();

	st->more = room <= QUEUE_RESERVE;
	if (!st->more) {
		st->budget = room - QUEUE_RESERVE;
		ring_buffer__consume(st->rb);
	}
	return st->more;
}

static void drain(struct bpftune_tuner *t, void *priv)
{
	struct sched_state *st = priv;

	bpftune_timer_set(t, drain_some(st) ? RETRY_MS : DRAIN_MS);
}

static uint64_t events_of(const __u64 *kind)
{
	uint64_t n = 0;
	int k;

	for (k = 0; k < SCHED_EV_NUM; k++)
		n += kind[k];
	return n;
}

/* the BPF counters of every CPU (calloc'ed), or NULL */
static struct sched_counts *counts_read(const struct sched_state *st)
{
	struct sched_counts *c = calloc(st->ncpus, sizeof(*c));
	__u32 zero = 0;

	if (c && bpf_map_lookup_elem(st->counts_fd, &zero, c)) {
		free(c);
		c = NULL;
	}
	return c;
}

/* sched_stats: one row per CPU, from the BPF counters (telemetry thread) */
static void stats_rows(struct bpftune_tuner *t, struct bpftune_sample *s)
{
	struct sched_state *st = bpftune_tuner_priv(t);
	struct sched_counts *c = counts_read(st);
	int cpu;

	for (cpu = 0; c && cpu < st->ncpus; cpu++)
		bpftune_sample_row(s, (const struct bpftune_value[]){
			BPFTUNE_VALUE_INT(cpu), BPFTUNE_VALUE_INT(events_of(c[cpu].kind)),
			BPFTUNE_VALUE_INT(c[cpu].kind[SCHED_EV_SWITCH]),
			BPFTUNE_VALUE_INT(c[cpu].kind[SCHED_EV_WAKEUP]),
			BPFTUNE_VALUE_INT(c[cpu].kind[SCHED_EV_WAKEUP_NEW]),
			BPFTUNE_VALUE_INT(c[cpu].kind[SCHED_EV_MIGRATE]),
			BPFTUNE_VALUE_INT(c[cpu].lost_ringbuf),
			BPFTUNE_VALUE_INT(atomic_load(&st->lost_writer[cpu])),
			BPFTUNE_VALUE_INT(events_of(c[cpu].observer)),
			BPFTUNE_VALUE_INT(c[cpu].observer[SCHED_EV_SWITCH]) }, 10);
	free(c);
}

/* the BPF side's switches, set after load: --keep-observer, recording */
static void set_bss(struct bpftune_tuner *t, __u32 keep, __u32 recording)
{
	__u32 *k = BPFTUNE_SKEL_VAR(t, sched_collector_bpf, bss, sched_keep_observer);
	__u32 *r = BPFTUNE_SKEL_VAR(t, sched_collector_bpf, bss, sched_recording);

	if (k && r) {
		*k = keep;
		*r = recording;
	}
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * The daemon stops: the BPF side stops recording and counting (the last
 * sched_stats rows then agree with sched_gaps), then what the ring buffer
 * holds and the gaps still open are written while the writer still runs.
 * At most LAST_DRAIN_S: what is left then is lost, and counted.
 */
/*
 * Every event the programs counted has been read from the ring buffer or
 * counted lost there.  A program that passed the recording check just
 * before it was cleared may still be writing its record: the ring buffer then
 * looks empty to the consumer, which stops at a record not yet committed.
 */
static bool all_read(const struct sched_state *st, const struct sched_counts *c)
{
	uint64_t want;
	int cpu;

	for (cpu = 0; c && cpu < st->ncpus; cpu++) {
		want = events_of(c[cpu].kind) - c[cpu].lost_ringbuf;
		if (!st->keep_observer)
			want -= events_of(c[cpu].observer);
		if (st->read[cpu] < want)
			return false;
	}
	return true;
}

static void sched_drain(struct bpftune_tuner *t, void *priv)
{
	const struct timespec ms = { .tv_nsec = 1000000 };
	struct sched_state *st = priv;
	double end = now_s() + LAST_DRAIN_S;
	struct sched_counts *c = NULL;
	int cpu;

	set_bss(t, st->keep_observer, 0);
	for (;;) {
		bool more = drain_some(st);

		free(c);
		c = counts_read(st);
		if ((!more && (!c || all_read(st, c))) || now_s() >= end)
			break;
		nanosleep(&ms, NULL);
	}
	for (cpu = 0; cpu < st->ncpus; cpu++) {
		if (c && c[cpu].gap.dropped)
			sched_gap_row(st->tuner, &c[cpu].gap, SCHED_GAP_RINGBUF);
		wgap_close(st, &st->wgap[cpu]);
	}
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
	free(st->read);
	free(st->wgap);
	memset(st, 0, sizeof(*st));
}

static int sched_init(struct bpftune_tuner *t, void *priv)
{
	struct bpf_map *map = BPFTUNE_SKEL_MAP(t, sched_collector_bpf, sched_ringbuf);
	const struct bpftune_collector_opts *o = bpftune_collector_opts();
	struct sched_state *st = priv;
	int rb_fd = bpf_map__fd(map);

	st->tuner = t;
	st->counts_fd = bpf_map__fd(BPFTUNE_SKEL_MAP(t, sched_collector_bpf, sched_counts));
	st->ncpus = libbpf_num_possible_cpus();
	if (rb_fd < 0 || st->counts_fd < 0 || st->ncpus <= 0)
		return rb_fd < 0 ? rb_fd : st->counts_fd < 0 ? st->counts_fd : -EINVAL;
	st->lost_writer = calloc(st->ncpus, sizeof(*st->lost_writer));
	st->wgap = calloc(st->ncpus, sizeof(*st->wgap));
	st->read = calloc(st->ncpus, sizeof(*st->read));
	st->rb = ring_buffer__new(rb_fd, on_record, st, NULL);
	if (!st->lost_writer || !st->wgap || !st->read || !st->rb) {
		sched_fini(t, priv);
		return -ENOMEM;
	}
	st->keep_observer = o->keep_observer;
	set_bss(t, st->keep_observer, 1);
	sched_stats_source = stats_rows;
	bpftune_timer_set(t, DRAIN_MS);
	bpftune_log(LOG_INFO, "sched collector: %d CPUs, a %u KiB ring buffer drained every %d ms; the daemon's own threads %s",
		    st->ncpus, bpf_map__max_entries(map) >> 10, DRAIN_MS,
		    o->keep_observer ? "kept, marked observer=1" : "left out");
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
	.drain = sched_drain,
	.telemetry = &sched_telemetry);
