/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Refused tunable writes (refusal.c): when the kernel refuses a write
 * (EINVAL, EPERM, EBUSY, EROFS...), the same tunable in the same netns is
 * not tried again before a back-off (10 s, doubling to 10 min) has passed,
 * whatever events keep coming; a write that works ends the episode.
 * Vetoes (the journal could not take the record) are not backed off --
 * trying again is cheap and the journal says when it works -- but are
 * logged once per episode too.  Pure bookkeeping: the caller passes the
 * time.  Keyed by (tuner id, tunable index, netns cookie).
 */
#ifndef BPFTUNE_REFUSAL_H
#define BPFTUNE_REFUSAL_H

#include <stdbool.h>
#include <stdint.h>

#define BPFTUNE_REFUSAL_BACKOFF_MS	10000
#define BPFTUNE_REFUSAL_BACKOFF_MAX_MS	600000

struct bpftune_refusal {
	struct bpftune_refusal *next;
	unsigned int tuner_id, index;
	uint64_t cookie;
	int err;			/* the last refusal's -errno */
	bool veto;			/* the last one was a veto, not the kernel */
	uint64_t until_ms;		/* no attempt before (kernel refusals) */
	uint64_t backoff_ms;		/* the next back-off */
	uint64_t refusals, skipped;	/* this episode */
};

/*
 * Is an attempt on (tuner, index, cookie) held back at @now_ms?  If so,
 * counts it as skipped and returns the refusal (err says why).
 */
struct bpftune_refusal *bpftune_refusal_holds(unsigned int tuner_id,
					      unsigned int index,
					      uint64_t cookie, uint64_t now_ms);
/*
 * A refusal (@veto: by an observer, else by the kernel) at @now_ms.
 * Returns its record: refusals == 1 for the first of an episode (log it
 * loudly), backoff_ms the wait before the next attempt (0 for a veto).
 * NULL if out of memory.
 */
struct bpftune_refusal *bpftune_refusal_note(unsigned int tuner_id,
					     unsigned int index,
					     uint64_t cookie, int err,
					     bool veto, uint64_t now_ms);
/*
 * A write worked: the episode ends.  Returns how many refusals it had
 * (0: there was none), *skipped the attempts held back meanwhile.
 */
uint64_t bpftune_refusal_clear(unsigned int tuner_id, unsigned int index,
			       uint64_t cookie, uint64_t *skipped);
/* forget a netns that is gone (every tuner), or a tuner unloaded */
void bpftune_refusal_forget_netns(uint64_t cookie);
void bpftune_refusal_forget_tuner(unsigned int tuner_id);
unsigned int bpftune_refusal_count(void);

#endif /* BPFTUNE_REFUSAL_H */
