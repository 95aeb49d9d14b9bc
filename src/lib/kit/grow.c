// SPDX-License-Identifier: GPL-2.0-only
/* Growth and shrink steps (see grow.h). */
#include <errno.h>
#include <string.h>

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

long bpftune_add_capped(long a, long b, long limit)
{
	if (a < 0)
		a = 0;
	if (b < 0)
		b = 0;
	if (a >= limit || b >= limit - a)
		return limit;
	return a + b;
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

/* Did the benefit window rise by p->min_gain?  Sets res's gain. */
static bool benefit_clears(const struct bpftune_guard_params *p,
			   const struct bpftune_corr *benefit,
			   struct bpftune_guard_result *res)
{
	double r;
	int err;

	if (!benefit)
		return false;
	err = bpftune_corr_fit(benefit, &r, &res->gain);
	if (err == -EDOM)
		res->gain = 0;	/* the benefit did not move at all */
	else if (err)
		return false;	/* no line: the cost alone decides */
	res->have_gain = true;
	return res->gain >= p->min_gain;
}

bool bpftune_guard_check(const struct bpftune_guard_params *p,
			 const struct bpftune_guard_input *in,
			 struct bpftune_guard_result *res)
{
	uint64_t hold = p->hold_ms;
	long cur = in->cur;
	unsigned int i;

	memset(res, 0, sizeof(*res));
	res->samples = in->cost->n;
	if (in->cost->n < p->min_samples ||
	    bpftune_corr_fit(in->cost, &res->v.r, &res->rise)) {
		res->v.r = 0;
		return false;
	}
	res->have_fit = true;
	if (res->v.r < p->min_r || res->rise < p->min_rise ||
	    benefit_clears(p, in->benefit, res))
		return false;
	res->v.back = in->raised_from > 0 && in->raised_from < cur ?
		      in->raised_from : bpftune_shrink_step(cur, in->floor, in->rate);
	for (i = 0; i < in->trips && hold < p->hold_max_ms; i++)
		hold *= 2;
	res->v.hold_ms = hold < p->hold_max_ms ? hold : p->hold_max_ms;
	return true;
}

bool bpftune_guard_trips(const struct bpftune_guard_params *p,
			 const struct bpftune_corr *w, long cur,
			 long raised_from, long floor, unsigned int trips,
			 unsigned int rate, struct bpftune_guard_verdict *v)
{
	const struct bpftune_guard_input in = {
		.cost = w, .cur = cur, .raised_from = raised_from,
		.floor = floor, .trips = trips, .rate = rate,
	};
	struct bpftune_guard_result res;

	if (!bpftune_guard_check(p, &in, &res)) {
		v->r = res.v.r;
		return false;
	}
	*v = res.v;
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
