/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * route_table's decisions as pure functions: when net.ipv6.route.max_size
 * grows or steps back, and whether the running kernel enforces it.  No
 * I/O and no library state: route_table_tuner.c reads the tunable and the
 * event, passes them in with the learning rate, and writes what comes
 * back.  Unit-tested in test/unit/test_route_table_policy.c.
 */
#ifndef BPFTUNE_ROUTE_TABLE_POLICY_H
#define BPFTUNE_ROUTE_TABLE_POLICY_H

#include <stdbool.h>

/*
 * A full IPv6 Internet table is ~230k routes (2025); 1M leaves four times
 * that.  Each route and cached dst costs a few hundred bytes of kernel
 * memory: past 1M the limit no longer protects anything.
 */
#define ROUTE_HARD_CAP		(1L << 20)

enum rt_verdict {
	RT_RAISE,		/* near full: *want is the new max_size */
	RT_AT_CAP,		/* near full, but at the hard cap */
	RT_NOT_NEAR,		/* no longer within delta of max_size */
	RT_LOWER,		/* emptied: *want, one step back */
	RT_BACK,		/* nothing to step back: at (or below) the original */
	RT_NOT_EMPTY,		/* more than a quarter still in use */
};

/* what bpftune_decide_values() records for @v */
const char *rt_verdict_action(enum rt_verdict v);

/*
 * max_size @max_size with @entries in use (routes or cached dsts,
 * whichever is larger) within @delta (of max_size) of it -> max_size +
 * delta, or entries + 2 * @entries_delta (delta of entries) if that is
 * more, so that what is in use is clear of the near-limit zone; at most
 * @hard_cap.  0 when it need not or cannot grow (at or past the cap).
 */
long rt_grow(long max_size, long entries, long delta, long entries_delta,
	     long hard_cap);
/* Back towards @orig once at most a quarter is used; 0: nothing to do. */
long rt_shrink(long max_size, long entries, long orig, long delta);

/* what counts against max_size: routes or dst cache entries, the larger */
long rt_in_use(long routes, long dst_entries);

/* @used within delta of max_size @cur: grow?  *want on RT_RAISE (else 0) */
enum rt_verdict rt_grow_decide(long cur, long used, unsigned int rate,
			       long *want);

/*
 * A max_size @cur we raised from @orig with @used in use: step back?
 * *want on RT_LOWER (else 0).  RT_BACK: the netns can be forgotten.
 */
enum rt_verdict rt_shrink_decide(long cur, long used, long orig,
				 unsigned int rate, long *want);

/*
 * Does a kernel of release @release ("6.1.0-18-amd64") still enforce
 * max_size (before 6.3)?  An unreadable release: assume it does.
 */
bool rt_kernel_enforces(const char *release);

#endif
