// SPDX-License-Identifier: GPL-2.0-only
/*
 * The bounded ring between the daemon's thread, which produces rows, and
 * the writer thread, which commits them.  The producer never waits for
 * the writer: a full ring drops the row and counts it, and the row's seq
 * is used up so that a gap in seq shows where.  The writer is woken once
 * per crossing of half full, not per row; otherwise it drains the ring
 * at its sample interval.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "telemetry/tm.h"

#define SLOTS	BPFTUNE_TELEMETRY_QUEUE_SLOTS	/* a power of two */

_Static_assert((SLOTS & (SLOTS - 1)) == 0, "queue slots: a power of two");

#define RING_BYTES	(SLOTS * sizeof(struct row))
/* rows through the ring before its pages are given back again */
#define TRIM_ROWS	(SLOTS / 32)

struct tq_stats tq_stats;

static struct row *ring;
static _Atomic uint64_t q_head, q_tail;
static uint64_t trim_tail;	/* the writer's: tail at the last tq_trim() */
/* taken by producers (the main thread; an init() making rows) */
static pthread_mutex_t prod_lock = PTHREAD_MUTEX_INITIALIZER;

/* pages of its own, so that tq_trim() can give them back */
int tq_init(void)
{
	ring = mmap(NULL, RING_BYTES, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ring == MAP_FAILED) {
		ring = NULL;
		return -ENOMEM;
	}
	atomic_store(&q_head, 0);
	atomic_store(&q_tail, 0);
	trim_tail = 0;
	memset(&tq_stats, 0, sizeof(tq_stats));
	return 0;
}

void tq_fini(void)
{
	if (ring)
		munmap(ring, RING_BYTES);
	ring = NULL;
}

/*
 * The writer, after a flush: once the ring has wrapped, every slot has
 * been written and all of it (3.4 MB) would stay resident for good.  When
 * it is empty and TRIM_ROWS rows went through since the last time, its
 * pages are given back (they read as zeros again).  Under the producers'
 * lock, taken only if free: no row is written meanwhile, and the main
 * thread never waits for this.
 */
void tq_trim(void)
{
	uint64_t tail = tq_tail();

	if (!ring || tail - trim_tail < TRIM_ROWS || pthread_mutex_trylock(&prod_lock))
		return;
	if (atomic_load_explicit(&q_head, memory_order_relaxed) == tail &&
	    !madvise(ring, RING_BYTES, MADV_DONTNEED))
		trim_tail = tail;
	pthread_mutex_unlock(&prod_lock);
}

void tq_kick(void)
{
	uint64_t one = 1;

	if (tm.efd >= 0 && write(tm.efd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		bpftune_log(LOG_DEBUG, "telemetry: cannot wake the writer: %s",
			    strerror(errno));
}

struct row *tq_reserve(unsigned int table, enum row_kind kind,
		       const struct bpftune_tuner *t, uint64_t ts_us)
{
	uint64_t head, tail, seq;
	struct row *r;

	if (!tm.started || table >= tm_num_tables)
		return NULL;
	pthread_mutex_lock(&prod_lock);
	seq = ++tm_tables[table].prod_seq;
	head = atomic_load_explicit(&q_head, memory_order_relaxed);
	tail = atomic_load_explicit(&q_tail, memory_order_acquire);
	if (head - tail >= SLOTS) {
		atomic_fetch_add_explicit(&tq_stats.rows_dropped, 1, memory_order_relaxed);
		if (table == BPFTUNE_T_EVENTS)
			atomic_fetch_add_explicit(&tq_stats.events_dropped, 1,
						  memory_order_relaxed);
		pthread_mutex_unlock(&prod_lock);
		return NULL;
	}
	r = &ring[head & (SLOTS - 1)];
	r->kind = kind;
	r->table = table;
	r->seq = seq;
	r->ts_us = ts_us ? ts_us : tm_now_us();
	r->tuner_id = t ? t->id : TM_NO_TUNER;
	tm_scopy(r->tuner, sizeof(r->tuner), t ? t->ops->name : NULL);
	return r;
}

void tq_commit(void)
{
	uint64_t head = atomic_load_explicit(&q_head, memory_order_relaxed) + 1;
	uint64_t depth = head - atomic_load_explicit(&q_tail, memory_order_acquire);

	atomic_store_explicit(&q_head, head, memory_order_release);
	atomic_fetch_add_explicit(&tq_stats.rows_queued, 1, memory_order_relaxed);
	if (depth > atomic_load_explicit(&tq_stats.max_depth, memory_order_relaxed))
		atomic_store_explicit(&tq_stats.max_depth, depth, memory_order_relaxed);
	pthread_mutex_unlock(&prod_lock);
	if (depth == SLOTS / 2)
		tq_kick();
}

uint64_t tq_last_seq(unsigned int table)
{
	return table < tm_num_tables ? tm_tables[table].prod_seq : 0;
}

uint64_t tq_head(void)
{
	return atomic_load_explicit(&q_head, memory_order_acquire);
}

uint64_t tq_tail(void)
{
	return atomic_load_explicit(&q_tail, memory_order_relaxed);
}

const struct row *tq_slot(uint64_t i)
{
	return &ring[i & (SLOTS - 1)];
}

/* the slot's strings were bound SQLITE_STATIC: free it only once written */
void tq_release(uint64_t new_tail)
{
	atomic_store_explicit(&q_tail, new_tail, memory_order_release);
}

uint64_t tq_depth(void)
{
	return atomic_load_explicit(&q_head, memory_order_acquire) -
	       atomic_load_explicit(&q_tail, memory_order_relaxed);
}

unsigned int bpftune_table_room(void)
{
	uint64_t depth;

	if (!tm.started || !ring)
		return SLOTS;
	depth = tq_depth();
	return depth >= SLOTS ? 0 : (unsigned int)(SLOTS - depth);
}
