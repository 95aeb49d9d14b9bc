// SPDX-License-Identifier: GPL-2.0-only
/* Growth and shrink steps (see grow.h). */
#include "core/internal.h"
#include <bpftune/grow.h>

long bpftune_grow_step(long cur, long cap, unsigned int rate)
{
	long d;

	if (cur >= cap)
		return cur;
	if (cur < 0)
		cur = 0;
	d = bpftune_delta_for_rate(cur, rate);
	if (d < 1)
		d = 1;
	if (cur > cap - d)
		return cap;
	return cur + d;
}

long bpftune_shrink_step(long cur, long floor, unsigned int rate)
{
	long d;

	if (cur <= floor)
		return cur;
	d = bpftune_delta_for_rate(cur, rate);
	if (d < 1)
		d = 1;
	if (cur - d < floor)
		return floor;
	return cur - d;
}

unsigned int bpftune_shrink_toward(const long *cur, const long *orig,
				   unsigned int n, unsigned int rate,
				   long *out)
{
	unsigned int i, moved = 0;

	for (i = 0; i < n; i++) {
		out[i] = bpftune_shrink_step(cur[i], orig[i], rate);
		if (out[i] != cur[i])
			moved++;
	}
	return moved;
}

bool bpftune_guard_trips(const struct bpftune_guard_policy *p,
			 const struct bpftune_corr *w, long cur,
			 long raised_from, long floor, unsigned int trips,
			 unsigned int rate, struct bpftune_guard_verdict *v)
{
	uint64_t hold = p->hold_ms;
	unsigned int i;

	v->r = 0;
	if (!bpftune_corr_rising(w, p->min_samples, p->min_r, p->min_rise, &v->r))
		return false;
	v->back = raised_from > 0 && raised_from < cur ? raised_from :
		  bpftune_shrink_step(cur, floor, rate);
	for (i = 0; i < trips && hold < p->hold_max_ms; i++)
		hold *= 2;
	v->hold_ms = hold < p->hold_max_ms ? hold : p->hold_max_ms;
	return true;
}

bool bpftune_counter_rate(double before, uint64_t before_ms, double now,
			  uint64_t now_ms, double *rate)
{
	if (now_ms <= before_ms || now < before)
		return false;
	*rate = (now - before) / (double)(now_ms - before_ms);
	return true;
}
