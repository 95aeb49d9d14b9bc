/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * neigh_table's decisions as pure functions: which addresses and entries
 * count toward a netns' room, what the growth of gc_thresh1-3 starts
 * from, what a verdict is recorded as, and where a shrink step leaves the
 * thresholds.  No I/O and no library state: neigh_table_tuner.c reads the
 * thresholds and the netns over rtnetlink, passes them in with the
 * learning rate, and writes what comes back.  Unit-tested in
 * test/unit/test_neigh_table_policy.c.
 */
#ifndef BPFTUNE_NEIGH_TABLE_POLICY_H
#define BPFTUNE_NEIGH_TABLE_POLICY_H

#include <stdbool.h>

/*
 * Hard cap for every threshold.  An entry costs about half a KiB of
 * unswappable kernel memory (struct neighbour, its hash slot, queued
 * skbs): 65536 of them is ~32 MiB.  An L2 domain with more neighbours
 * than that is something to configure by hand.
 */
#define NEIGH_HARD_CAP		65536
#define NEIGH_CAP_REASON	"65536 neighbours cost ~32 MiB of unswappable kernel memory; " \
				"larger L2 domains are configured by hand; growth is also " \
				"bounded by what the configured prefixes can hold"

/*
 * Neighbours one address prefix can hold: 2^(host bits), an upper bound
 * (the network and broadcast addresses and our own are counted too).
 * @family is AF_INET or AF_INET6; the result saturates at @limit.
 * A prefix length past the address width holds nothing.
 */
long nt_prefix_hosts(int family, unsigned int prefix_len, long limit);

/* the three gc thresholds of a neighbour table */
struct nt_thresh {
	long t1, t2, t3;
};

enum nt_grow_verdict {
	NT_GROW,		/* out holds larger thresholds */
	NT_AT_HARD_CAP,	/* gc_thresh3 is at the tuner's hard cap */
	NT_AT_PREFIX_CAP,	/* what the prefixes can hold is reached */
	NT_NS_OVER_PREFIX,	/* the netns holds more than its prefixes can */
};

struct nt_grow_input {
	struct nt_thresh cur;	/* live thresholds */
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
	struct nt_thresh orig;
};

/*
 * Grow gc_thresh3 by delta, no further than the hard cap nor than what the
 * table can legitimately need: the entries other namespaces hold now plus
 * what this netns' prefixes can hold.  gc_thresh1/2 keep their proportion
 * to gc_thresh3; no threshold ever goes down.  @limit (optional) gets the
 * bound that applied.
 */
enum nt_grow_verdict
nt_grow_step(const struct nt_grow_input *in,
		   struct nt_thresh *out, long *limit);

/*
 * Shrink towards @orig (the values before we grew them) once the table is
 * at most a quarter full: gc_thresh3 by delta, not below @orig, the others
 * in proportion, never below their own original.  Returns false (out
 * untouched) when there is nothing to shrink.
 */
bool nt_shrink_step(const struct nt_thresh *cur, long entries,
			  const struct nt_thresh *orig, long delta,
			  struct nt_thresh *out);

/*
 * Does an address of scope @scope on device @ifindex give room for
 * neighbours?  Not a host-scope one, nor one on a device without ARP/ND
 * (@noarp, @n of them).
 */
bool nt_addr_counts(unsigned int scope, int ifindex, const int *noarp,
		    unsigned int n);
/* Is a neighbour of NUD state @state an on-link host (not multicast...)? */
bool nt_neigh_counts(unsigned int state);

/*
 * The growth's input: the live thresholds @cur and those at start
 * @orig, the whole table's @entries, and the netns' @ns_entries and
 * @ns_capacity (negative: its prefixes could not be read, and only the
 * hard cap applies).  The netns' entries are part of the table, one may
 * lag the other: the table counts at least as many.
 */
void nt_grow_in(const struct nt_thresh *cur,
		const struct nt_thresh *orig, long entries,
		long ns_entries, long ns_capacity, unsigned int rate,
		struct nt_grow_input *in);
/* what bpftune_decide_values() records for a growth verdict */
const char *nt_grow_action(enum nt_grow_verdict v);

enum nt_shrink {
	NT_SHRINK_LOWER,	/* *out: one step back, more to come */
	NT_SHRINK_LAST,		/* *out: the last step, back at the original */
	NT_SHRINK_WAIT,		/* the table is more than a quarter full */
	NT_SHRINK_DONE,		/* nothing above the original: not grown */
};

/* what bpftune_decide_values() records for @v */
const char *nt_shrink_action(enum nt_shrink v);

/* One shrink step of @cur toward @orig with @entries in the table. */
enum nt_shrink nt_shrink_decide(const struct nt_thresh *cur,
				long entries,
				const struct nt_thresh *orig,
				unsigned int rate,
				struct nt_thresh *out);

/* delta at @rate as a percentage of the value, for the log */
double nt_delta_pct(unsigned int rate);

#endif
