// SPDX-License-Identifier: GPL-2.0-only
/* tcp_mem above the tuner's cap: what to write instead (see the header). */
#include "tcp_buffer_mem_plan.h"

/* @v raised to @floor (1 at least), or put there when above @top */
static long raise_to(long v, long floor, long top)
{
	if (floor < 1)
		floor = 1;
	if (v > top || v < floor)
		return floor;
	return v;
}

bool tcp_mem_over_cap(const long cur[3], long cap, long want[3])
{
	long max;

	if (cap <= 0 || (cur[0] <= cap && cur[1] <= cap && cur[2] <= cap))
		return false;
	max = cur[2] < cap ? cur[2] : cap;
	want[2] = max;
	want[1] = raise_to(cur[1], max / 3 * 2, max);
	want[0] = raise_to(cur[0], max / 2, want[1]);
	return true;
}
