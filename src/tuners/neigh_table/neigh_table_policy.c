// SPDX-License-Identifier: GPL-2.0-only
/* neigh_table's decisions (neigh_table_policy.h): pure, unit-tested. */
#include <string.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <bpftune/bpftune.h>
#include <bpftune/grow.h>

#include "neigh_table_policy.h"

bool nt_addr_counts(unsigned int scope, int ifindex, const int *noarp,
		    unsigned int n)
{
	unsigned int i;

	if (scope == RT_SCOPE_HOST)
		return false;
	for (i = 0; i < n; i++)
		if (noarp[i] == ifindex)
			return false;
	return true;
}

bool nt_neigh_counts(unsigned int state)
{
	return !(state & NUD_NOARP);
}

void nt_grow_in(const struct bpftune_neigh_thresh *cur,
		const struct bpftune_neigh_thresh *orig, long entries,
		long ns_entries, long ns_capacity, unsigned int rate,
		struct bpftune_neigh_grow_in *in)
{
	memset(in, 0, sizeof(*in));
	in->cur = *cur;
	in->orig = *orig;
	in->hard_cap = NEIGH_HARD_CAP;
	if (ns_capacity < 0) {
		ns_capacity = NEIGH_HARD_CAP;
		ns_entries = 0;
	}
	in->ns_entries = ns_entries;
	in->ns_capacity = ns_capacity;
	in->entries = entries > ns_entries ? entries : ns_entries;
	in->delta = bpftune_delta_for_rate(cur->t3, rate);
}

static const char *const grow_actions[] = {
	[BPFTUNE_NEIGH_GROW]		= "raise",
	[BPFTUNE_NEIGH_NS_OVER_PREFIX]	= "none: netns holds more entries than its prefixes",
	[BPFTUNE_NEIGH_AT_PREFIX_CAP]	= "none: at what the prefixes can hold",
	[BPFTUNE_NEIGH_AT_HARD_CAP]	= "none: at the hard cap",
};

const char *nt_grow_action(enum bpftune_neigh_verdict v)
{
	return (unsigned int)v < sizeof(grow_actions) / sizeof(grow_actions[0]) ?
	       grow_actions[v] : "none";
}

const char *nt_shrink_action(enum nt_shrink v)
{
	return v == NT_SHRINK_LOWER || v == NT_SHRINK_LAST ? "lower" :
	       "none: table not a quarter empty";
}

enum nt_shrink nt_shrink_decide(const struct bpftune_neigh_thresh *cur,
				long entries,
				const struct bpftune_neigh_thresh *orig,
				unsigned int rate,
				struct bpftune_neigh_thresh *out)
{
	if (!bpftune_neigh_shrink(cur, entries, orig,
				  bpftune_delta_for_rate(cur->t3, rate), out))
		return cur->t3 <= orig->t3 ? NT_SHRINK_DONE : NT_SHRINK_WAIT;
	return out->t3 > orig->t3 ? NT_SHRINK_LOWER : NT_SHRINK_LAST;
}

double nt_delta_pct(unsigned int rate)
{
	if (rate > BPFTUNE_LEARNING_RATE_MAX)
		rate = BPFTUNE_LEARNING_RATE_MAX;
	return 100.0 / (double)(1u << (6 - rate));
}
