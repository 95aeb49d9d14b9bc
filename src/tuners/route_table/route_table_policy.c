// SPDX-License-Identifier: GPL-2.0-only
/* route_table's decisions (route_table_policy.h): pure, unit-tested. */
#include <stdio.h>
#include <bpftune/grow.h>

#include "route_table_policy.h"

static const char *const actions[] = {
	[RT_RAISE]	= "raise",
	[RT_AT_CAP]	= "none: at the hard cap",
	[RT_NOT_NEAR]	= "none: not near max_size any more",
	[RT_LOWER]	= "lower",
	[RT_BACK]	= "none",
	[RT_NOT_EMPTY]	= "none",
};

const char *rt_verdict_action(enum rt_verdict v)
{
	return (unsigned int)v < sizeof(actions) / sizeof(actions[0]) ?
	       actions[v] : "none";
}

long rt_grow(long max_size, long entries, long delta, long entries_delta,
	     long hard_cap)
{
	long want;

	if (delta < 1)
		delta = 1;
	if (entries_delta < 0)
		entries_delta = 0;
	if (max_size >= hard_cap || entries + delta < max_size)
		return 0;
	/*
	 * Past max_size (a kernel that does not enforce it, or a value set
	 * below what was there): leave what is in use clear of the
	 * near-limit zone at once, rather than one report per step.
	 */
	want = bpftune_add_capped(entries, 2 * entries_delta, hard_cap);
	if (want < max_size + delta)
		want = max_size + delta;
	return want < hard_cap ? want : hard_cap;
}

long rt_shrink(long max_size, long entries, long orig, long delta)
{
	if (delta < 1)
		delta = 1;
	if (max_size <= orig || entries < 0 || entries > max_size / 4)
		return 0;
	return max_size - delta > orig ? max_size - delta : orig;
}

long rt_in_use(long routes, long dst_entries)
{
	return routes > dst_entries ? routes : dst_entries;
}

enum rt_verdict rt_grow_decide(long cur, long used, unsigned int rate,
			       long *want)
{
	*want = rt_grow(cur, used, bpftune_delta_for_rate(cur, rate),
			bpftune_delta_for_rate(used, rate), ROUTE_HARD_CAP);
	if (*want)
		return RT_RAISE;
	return cur >= ROUTE_HARD_CAP ? RT_AT_CAP : RT_NOT_NEAR;
}

enum rt_verdict rt_shrink_decide(long cur, long used, long orig,
				 unsigned int rate, long *want)
{
	*want = rt_shrink(cur, used, orig, bpftune_delta_for_rate(cur, rate));
	if (*want)
		return RT_LOWER;
	return cur <= orig ? RT_BACK : RT_NOT_EMPTY;
}

bool rt_kernel_enforces(const char *release)
{
	unsigned int major = 0, minor = 0;

	if (!release || sscanf(release, "%u.%u", &major, &minor) != 2)
		return true;
	return major < 6 || (major == 6 && minor < 3);
}
