// SPDX-License-Identifier: GPL-2.0-only
/* neigh_table's decisions (neigh_table_policy.h): pure, unit-tested. */
#include <limits.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <bpftune/bpftune.h>
#include <bpftune/grow.h>

#include "neigh_table_policy.h"

long nt_prefix_hosts(int family, unsigned int prefix_len, long limit)
{
	unsigned int bits = family == AF_INET6 ? 128 : 32;
	unsigned int host;

	if (limit <= 0 || (family != AF_INET && family != AF_INET6) ||
	    prefix_len > bits)
		return 0;
	host = bits - prefix_len;
	/* 2^62 still fits a long; anything larger saturates anyway */
	if (host >= 62 || (1L << host) > limit)
		return limit;
	return 1L << host;
}

/* x * num / den; thresholds are ints, so the product fits 64 bits */
static long scale(long x, long num, long den)
{
	if (den <= 0 || x < 0 || x > INT_MAX || num < 0 || num > INT_MAX)
		return x;
	return (long)((long long)x * num / den);
}

static long max_l(long a, long b)
{
	return a > b ? a : b;
}

static long min_l(long a, long b)
{
	return a < b ? a : b;
}

enum nt_grow_verdict
nt_grow_step(const struct nt_grow_input *in,
		   struct nt_thresh *out, long *limit)
{
	const struct nt_thresh *c = &in->cur;
	const struct nt_thresh *ref = in->orig.t3 > 0 ? &in->orig : c;
	long others, bound, want, delta = in->delta > 0 ? in->delta : 1;
	enum nt_grow_verdict capped;

	others = max_l(in->entries - max_l(in->ns_entries, 0), 0);
	bound = bpftune_add_capped(others, in->ns_capacity, in->hard_cap);
	capped = bound < in->hard_cap ? NT_AT_PREFIX_CAP : NT_AT_HARD_CAP;
	if (limit)
		*limit = bound;
	if (c->t3 >= in->hard_cap)
		return NT_AT_HARD_CAP;
	if (in->ns_capacity >= 0 && in->ns_entries >= in->ns_capacity)
		return NT_NS_OVER_PREFIX;
	want = c->t3 > in->hard_cap - delta ? in->hard_cap : c->t3 + delta;
	if (want > bound)
		want = bound;
	if (want <= c->t3)
		return capped;
	out->t3 = want;
	out->t2 = min_l(max_l(scale(ref->t2, want, ref->t3), c->t2), want);
	out->t1 = min_l(max_l(scale(ref->t1, want, ref->t3), c->t1), out->t2);
	/* an admin's t1 > t2 or t2 > t3 is not ours to fix: never lower */
	out->t2 = max_l(out->t2, c->t2);
	out->t1 = max_l(out->t1, c->t1);
	return NT_GROW;
}

bool nt_shrink_step(const struct nt_thresh *cur, long entries,
			  const struct nt_thresh *orig, long delta,
			  struct nt_thresh *out)
{
	long want;

	if (delta < 1)
		delta = 1;
	if (cur->t3 <= orig->t3 || entries < 0 || entries > cur->t3 / 4)
		return false;
	want = max_l(cur->t3 - delta, orig->t3);
	if (want == orig->t3) {
		*out = *orig;
	} else {
		out->t3 = want;
		out->t2 = max_l(min_l(scale(cur->t2, want, cur->t3), want), orig->t2);
		out->t1 = max_l(min_l(scale(cur->t1, want, cur->t3), out->t2), orig->t1);
	}
	/* shrinking never raises a threshold */
	out->t2 = min_l(out->t2, cur->t2);
	out->t1 = min_l(out->t1, cur->t1);
	return true;
}

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

void nt_grow_in(const struct nt_thresh *cur,
		const struct nt_thresh *orig, long entries,
		long ns_entries, long ns_capacity, unsigned int rate,
		struct nt_grow_input *in)
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
	[NT_GROW]		= "raise",
	[NT_NS_OVER_PREFIX]	= "none: netns holds more entries than its prefixes",
	[NT_AT_PREFIX_CAP]	= "none: at what the prefixes can hold",
	[NT_AT_HARD_CAP]	= "none: at the hard cap",
};

const char *nt_grow_action(enum nt_grow_verdict v)
{
	return (unsigned int)v < sizeof(grow_actions) / sizeof(grow_actions[0]) ?
	       grow_actions[v] : "none";
}

const char *nt_shrink_action(enum nt_shrink v)
{
	return v == NT_SHRINK_LOWER || v == NT_SHRINK_LAST ? "lower" :
	       "none: table not a quarter empty";
}

enum nt_shrink nt_shrink_decide(const struct nt_thresh *cur,
				long entries,
				const struct nt_thresh *orig,
				unsigned int rate,
				struct nt_thresh *out)
{
	if (!nt_shrink_step(cur, entries, orig,
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
