// SPDX-License-Identifier: GPL-2.0-only
/* The kit's table policy (see <bpftune/table_policy.h>). */
#include <limits.h>
#include <sys/socket.h>

#include <bpftune/table_policy.h>

long bpftune_prefix_hosts(int family, unsigned int prefix_len, long limit)
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

enum bpftune_neigh_verdict
bpftune_neigh_grow(const struct bpftune_neigh_grow_in *in,
		   struct bpftune_neigh_thresh *out, long *limit)
{
	const struct bpftune_neigh_thresh *c = &in->cur;
	const struct bpftune_neigh_thresh *ref = in->orig.t3 > 0 ? &in->orig : c;
	long others, bound, want, delta = in->delta > 0 ? in->delta : 1;
	enum bpftune_neigh_verdict capped;

	others = max_l(in->entries - max_l(in->ns_entries, 0), 0);
	bound = bpftune_add_capped(others, in->ns_capacity, in->hard_cap);
	capped = bound < in->hard_cap ? BPFTUNE_NEIGH_AT_PREFIX_CAP : BPFTUNE_NEIGH_AT_HARD_CAP;
	if (limit)
		*limit = bound;
	if (c->t3 >= in->hard_cap)
		return BPFTUNE_NEIGH_AT_HARD_CAP;
	if (in->ns_capacity >= 0 && in->ns_entries >= in->ns_capacity)
		return BPFTUNE_NEIGH_NS_OVER_PREFIX;
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
	return BPFTUNE_NEIGH_GROW;
}

bool bpftune_neigh_shrink(const struct bpftune_neigh_thresh *cur, long entries,
			  const struct bpftune_neigh_thresh *orig, long delta,
			  struct bpftune_neigh_thresh *out)
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
