// SPDX-License-Identifier: GPL-2.0-only
/*
 * Refused tunable writes: back-off bookkeeping (see refusal.h).  A short
 * list: an entry lives only while writes to one tunable in one netns keep
 * being refused, and goes with that netns or that tuner.
 */
#include <stdlib.h>

#include "write/refusal.h"

static struct bpftune_refusal *refusals;

static struct bpftune_refusal **find(unsigned int tuner_id, unsigned int index,
				     uint64_t cookie)
{
	struct bpftune_refusal **p;

	for (p = &refusals; *p; p = &(*p)->next)
		if ((*p)->tuner_id == tuner_id && (*p)->index == index &&
		    (*p)->cookie == cookie)
			break;
	return p;
}

struct bpftune_refusal *bpftune_refusal_holds(unsigned int tuner_id,
					      unsigned int index,
					      uint64_t cookie, uint64_t now_ms)
{
	struct bpftune_refusal *r = *find(tuner_id, index, cookie);

	if (!r || r->veto || now_ms >= r->until_ms)
		return NULL;
	r->skipped++;
	return r;
}

struct bpftune_refusal *bpftune_refusal_note(unsigned int tuner_id,
					     unsigned int index,
					     uint64_t cookie, int err,
					     bool veto, uint64_t now_ms)
{
	struct bpftune_refusal **p = find(tuner_id, index, cookie), *r = *p;

	if (!r) {
		r = calloc(1, sizeof(*r));
		if (!r)
			return NULL;
		r->tuner_id = tuner_id;
		r->index = index;
		r->cookie = cookie;
		r->backoff_ms = BPFTUNE_REFUSAL_BACKOFF_MS;
		*p = r;
	}
	r->err = err;
	r->veto = veto;
	r->refusals++;
	if (veto) {
		r->until_ms = 0;
		return r;
	}
	r->until_ms = now_ms + r->backoff_ms;
	/* the caller reports this wait; the next one doubles */
	if (r->backoff_ms < BPFTUNE_REFUSAL_BACKOFF_MAX_MS) {
		uint64_t next = r->backoff_ms * 2;

		r->backoff_ms = next < BPFTUNE_REFUSAL_BACKOFF_MAX_MS ?
				next : BPFTUNE_REFUSAL_BACKOFF_MAX_MS;
	}
	return r;
}

uint64_t bpftune_refusal_clear(unsigned int tuner_id, unsigned int index,
			       uint64_t cookie, uint64_t *skipped)
{
	struct bpftune_refusal **p = find(tuner_id, index, cookie), *r = *p;
	uint64_t n;

	*skipped = 0;
	if (!r)
		return 0;
	n = r->refusals;
	*skipped = r->skipped;
	*p = r->next;
	free(r);
	return n;
}

static void forget(bool (*match)(const struct bpftune_refusal *, uint64_t),
		   uint64_t key)
{
	struct bpftune_refusal **p = &refusals, *r;

	while ((r = *p)) {
		if (match(r, key)) {
			*p = r->next;
			free(r);
		} else {
			p = &r->next;
		}
	}
}

static bool of_netns(const struct bpftune_refusal *r, uint64_t cookie)
{
	return r->cookie == cookie;
}

static bool of_tuner(const struct bpftune_refusal *r, uint64_t id)
{
	return r->tuner_id == id;
}

void bpftune_refusal_forget_netns(uint64_t cookie)
{
	forget(of_netns, cookie);
}

void bpftune_refusal_forget_tuner(unsigned int tuner_id)
{
	forget(of_tuner, tuner_id);
}

unsigned int bpftune_refusal_count(void)
{
	const struct bpftune_refusal *r;
	unsigned int n = 0;

	for (r = refusals; r; r = r->next)
		n++;
	return n;
}
