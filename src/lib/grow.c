// SPDX-License-Identifier: GPL-2.0-only
/* Growth and shrink steps (see grow.h). */
#include "internal.h"
#include "grow.h"

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
