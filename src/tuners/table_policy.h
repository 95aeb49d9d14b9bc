/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Pure arithmetic of the neigh_table and route_table tuners: how far a
 * table limit grows or shrinks, and how many neighbours the prefixes
 * configured on a netns' devices can hold.  No I/O: unit-tested in
 * test/unit/test_table_policy.c and linked into both tuners.
 */
#ifndef BPFTUNE_TABLE_POLICY_H
#define BPFTUNE_TABLE_POLICY_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Neighbours one address prefix can hold: 2^(host bits), an upper bound
 * (the network and broadcast addresses and our own are counted too).
 * @family is AF_INET or AF_INET6; the result saturates at @limit.
 * A prefix length past the address width holds nothing.
 */
long table_prefix_hosts(int family, unsigned int prefix_len, long limit);
/* a + b, saturating at @limit (both non-negative) */
long table_add_capped(long a, long b, long limit);

/* the three gc thresholds of a neighbour table */
struct neigh_thresh {
	long t1, t2, t3;
};

enum neigh_grow_verdict {
	NEIGH_GROW,		/* out holds larger thresholds */
	NEIGH_AT_HARD_CAP,	/* gc_thresh3 is at the tuner's hard cap */
	NEIGH_AT_PREFIX_CAP,	/* what the prefixes can hold is reached */
	NEIGH_NS_OVER_PREFIX,	/* the netns holds more than its prefixes can */
};

struct neigh_grow_in {
	struct neigh_thresh cur;	/* live thresholds */
	long entries;		/* entries in the whole table (all netns) */
	long ns_entries;	/* entries of the netns that needs more */
	long ns_capacity;	/* neighbours its prefixes can hold */
	long hard_cap;		/* for every threshold */
	long delta;		/* step: bpftune_delta(cur.t3), at least 1 used */
	/*
	 * thresholds before any growth: gc_thresh1/2 are scaled by their
	 * ratio to gc_thresh3 there, so that rounding down step after step
	 * does not drift them away from it; t3 <= 0: the live ones
	 */
	struct neigh_thresh orig;
};

/*
 * Grow gc_thresh3 by delta, no further than the hard cap nor than what the
 * table can legitimately need: the entries other namespaces hold now plus
 * what this netns' prefixes can hold.  gc_thresh1/2 keep their proportion
 * to gc_thresh3; no threshold ever goes down.  @limit (optional) gets the
 * bound that applied.
 */
enum neigh_grow_verdict neigh_grow(const struct neigh_grow_in *in,
				   struct neigh_thresh *out, long *limit);

/*
 * Shrink towards @orig (the values before we grew them) once the table is
 * at most a quarter full: gc_thresh3 by delta, not below @orig, the others
 * in proportion, never below their own original.  Returns false (out
 * untouched) when there is nothing to shrink.
 */
bool neigh_shrink(const struct neigh_thresh *cur, long entries,
		  const struct neigh_thresh *orig, long delta,
		  struct neigh_thresh *out);

/*
 * net.ipv6.route.max_size: @entries (routes or cached dsts, whichever is
 * larger) within @delta (of max_size) of @max_size -> max_size + delta,
 * or entries + 2 * @entries_delta (delta of entries) if that is more, so
 * that what is in use is clear of the near-limit zone; at most
 * @hard_cap.  0 when it need not or cannot grow (at or past the cap).
 */
long route_grow(long max_size, long entries, long delta, long entries_delta,
		long hard_cap);
/* Back towards @orig once at most a quarter is used; 0: nothing to do. */
long route_shrink(long max_size, long entries, long orig, long delta);

#endif
