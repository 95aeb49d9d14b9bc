/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * neigh_table's decisions as pure functions: which addresses and entries
 * count toward a netns' room, what the growth of gc_thresh1-3 starts
 * from, what a verdict is recorded as, and where a shrink step leaves the
 * thresholds.  No I/O and no library state: neigh_table_tuner.c reads the
 * thresholds and the netns over rtnetlink, passes them in with the
 * learning rate, and writes what comes back.  The table arithmetic is the
 * kit's (<bpftune/table_policy.h>).  Unit-tested in
 * test/unit/test_neigh_table_policy.c.
 */
#ifndef BPFTUNE_NEIGH_TABLE_POLICY_H
#define BPFTUNE_NEIGH_TABLE_POLICY_H

#include <stdbool.h>
#include <bpftune/table_policy.h>

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
void nt_grow_in(const struct bpftune_neigh_thresh *cur,
		const struct bpftune_neigh_thresh *orig, long entries,
		long ns_entries, long ns_capacity, unsigned int rate,
		struct bpftune_neigh_grow_in *in);
/* what bpftune_decide_values() records for a growth verdict */
const char *nt_grow_action(enum bpftune_neigh_verdict v);

enum nt_shrink {
	NT_SHRINK_LOWER,	/* *out: one step back, more to come */
	NT_SHRINK_LAST,		/* *out: the last step, back at the original */
	NT_SHRINK_WAIT,		/* the table is more than a quarter full */
	NT_SHRINK_DONE,		/* nothing above the original: not grown */
};

/* what bpftune_decide_values() records for @v */
const char *nt_shrink_action(enum nt_shrink v);

/* One shrink step of @cur toward @orig with @entries in the table. */
enum nt_shrink nt_shrink_decide(const struct bpftune_neigh_thresh *cur,
				long entries,
				const struct bpftune_neigh_thresh *orig,
				unsigned int rate,
				struct bpftune_neigh_thresh *out);

/* delta at @rate as a percentage of the value, for the log */
double nt_delta_pct(unsigned int rate);

#endif
