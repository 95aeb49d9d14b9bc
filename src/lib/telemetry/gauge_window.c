// SPDX-License-Identifier: GPL-2.0-only
/*
 * A gauge over a window of time, for a reward input read from a plugin's
 * gauges (telemetry.h, BPFTUNE_REWARD_GAUGE): a bounded history of what
 * the sampler took -- one plugin's gauges in one netns, each slot's
 * count and sum since the previous take -- and the mean of one gauge's
 * observations taken within a window.  A take counts in the window its
 * time falls in: the sampler's interval is the resolution.  Pure code:
 * the caller owns the storage and the lock (sampler.c).
 */
#include <errno.h>
#include <string.h>

#include "telemetry/telemetry_schema.h"

void bpftune_gauge_history_init(struct bpftune_gauge_history *h,
				struct bpftune_gauge_take *storage, unsigned int cap)
{
	memset(h, 0, sizeof(*h));
	h->e = storage;
	h->cap = cap;
}

void bpftune_gauge_history_add(struct bpftune_gauge_history *h, uint64_t cookie,
			       uint32_t tuner_id, uint64_t ts_us,
			       const struct bpftune_gauges *g)
{
	struct bpftune_gauge_take *e;
	unsigned int i;

	if (!h->cap)
		return;
	e = &h->e[h->next];
	/* the oldest goes: windows from before it are no longer whole */
	if (h->count == h->cap && e->ts_us > h->lost_ts_us)
		h->lost_ts_us = e->ts_us;
	e->cookie = cookie;
	e->tuner_id = tuner_id;
	e->ts_us = ts_us;
	for (i = 0; i < BPFTUNE_GAUGE_SLOTS; i++) {
		e->n[i] = g->g[i].n;
		e->sum[i] = g->g[i].sum;
	}
	h->next = (h->next + 1) % h->cap;
	if (h->count < h->cap)
		h->count++;
}

int bpftune_gauge_window_mean(const struct bpftune_gauge_history *h, uint64_t cookie,
			      uint32_t tuner_id, unsigned int gauge, uint64_t from_us,
			      uint64_t to_us, double *mean, uint64_t *n_out)
{
	uint64_t n = 0, sum = 0;
	unsigned int i;

	if (gauge >= BPFTUNE_GAUGE_SLOTS || to_us < from_us)
		return -EINVAL;
	if (h->lost_ts_us > from_us)
		return -ERANGE;
	for (i = 0; i < h->count; i++) {
		const struct bpftune_gauge_take *e = &h->e[i];

		if (e->cookie != cookie || e->tuner_id != tuner_id ||
		    e->ts_us <= from_us || e->ts_us > to_us)
			continue;
		n += e->n[gauge];
		sum += e->sum[gauge];
	}
	if (n_out)
		*n_out = n;
	if (!n)
		return -ENODATA;
	*mean = (double)sum / (double)n;
	return 0;
}
