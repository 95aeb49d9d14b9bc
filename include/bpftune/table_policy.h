/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tuner kit: the table policy of tuners that size kernel tables -- how far
 * a table limit grows or shrinks, and how many neighbours the prefixes
 * configured on a netns' devices can hold (neigh_table).
 *
 * Contract: pure functions, no I/O and no state; the caller reads the
 * table (netlink.h, proc.h) and applies the verdict with
 * bpftune_tunable_set().  Unit-tested in test/unit/test_table_policy.c.
 */
#ifndef BPFTUNE_TABLE_POLICY_H
#define BPFTUNE_TABLE_POLICY_H

#include <stdbool.h>
#include <stdint.h>

#pragma GCC visibility push(default)

/*
 * Neighbours one address prefix can hold: 2^(host bits), an upper bound
 * (the network and broadcast addresses and our own are counted too).
 * @family is AF_INET or AF_INET6; the result saturates at @limit.
 * A prefix length past the address width holds nothing.
 */
long bpftune_prefix_hosts(int family, unsigned int prefix_len, long limit);
/* a + b, saturating at @limit (both non-negative) */
long bpftune_add_capped(long a, long b, long limit);

/* the three gc thresholds of a neighbour table */
struct bpftune_neigh_thresh {
	long t1, t2, t3;
};

enum bpftune_neigh_verdict {
	BPFTUNE_NEIGH_GROW,		/* out holds larger thresholds */
	BPFTUNE_NEIGH_AT_HARD_CAP,	/* gc_thresh3 is at the tuner's hard cap */
	BPFTUNE_NEIGH_AT_PREFIX_CAP,	/* what the prefixes can hold is reached */
	BPFTUNE_NEIGH_NS_OVER_PREFIX,	/* the netns holds more than its prefixes can */
};

struct bpftune_neigh_grow_in {
	struct bpftune_neigh_thresh cur;	/* live thresholds */
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
	struct bpftune_neigh_thresh orig;
};

/*
 * Grow gc_thresh3 by delta, no further than the hard cap nor than what the
 * table can legitimately need: the entries other namespaces hold now plus
 * what this netns' prefixes can hold.  gc_thresh1/2 keep their proportion
 * to gc_thresh3; no threshold ever goes down.  @limit (optional) gets the
 * bound that applied.
 */
enum bpftune_neigh_verdict
bpftune_neigh_grow(const struct bpftune_neigh_grow_in *in,
		   struct bpftune_neigh_thresh *out, long *limit);

/*
 * Shrink towards @orig (the values before we grew them) once the table is
 * at most a quarter full: gc_thresh3 by delta, not below @orig, the others
 * in proportion, never below their own original.  Returns false (out
 * untouched) when there is nothing to shrink.
 */
bool bpftune_neigh_shrink(const struct bpftune_neigh_thresh *cur, long entries,
			  const struct bpftune_neigh_thresh *orig, long delta,
			  struct bpftune_neigh_thresh *out);

#pragma GCC visibility pop

#endif
