// SPDX-License-Identifier: GPL-2.0-only
/*
 * neigh_table's decisions (src/tuners/neigh_table/neigh_table_policy.c):
 * what counts toward a netns' room, the growth's input, the recorded
 * actions and the shrink steps.  Rate 4: a step is 1/4.
 */
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>

#include "unit.h"
#include "../../src/tuners/neigh_table/neigh_table_policy.h"

static void test_counts(void **state)
{
	const int noarp[] = { 1, 7 };

	(void)state;
	assert_true(nt_addr_counts(RT_SCOPE_UNIVERSE, 2, noarp, 2));
	assert_true(nt_addr_counts(RT_SCOPE_LINK, 2, noarp, 2));
	/* host scope, or a device without ARP/ND (loopback, tunnels) */
	assert_false(nt_addr_counts(RT_SCOPE_HOST, 2, noarp, 2));
	assert_false(nt_addr_counts(RT_SCOPE_UNIVERSE, 7, noarp, 2));
	assert_true(nt_addr_counts(RT_SCOPE_UNIVERSE, 7, noarp, 1));
	assert_true(nt_neigh_counts(NUD_REACHABLE));
	assert_true(nt_neigh_counts(NUD_STALE | NUD_PERMANENT));
	assert_false(nt_neigh_counts(NUD_NOARP));
}

static void test_grow_in(void **state)
{
	const struct bpftune_neigh_thresh cur = { 128, 512, 1024 };
	const struct bpftune_neigh_thresh orig = { 64, 256, 512 };
	struct bpftune_neigh_grow_in in;

	(void)state;
	nt_grow_in(&cur, &orig, 1000, 200, 254, 4, &in);
	assert_int_equal(in.cur.t3, 1024);
	assert_int_equal(in.orig.t1, 64);
	assert_int_equal(in.entries, 1000);
	assert_int_equal(in.ns_entries, 200);
	assert_int_equal(in.ns_capacity, 254);
	assert_int_equal(in.hard_cap, NEIGH_HARD_CAP);
	assert_int_equal(in.delta, 256);
	/* the table counts at least the netns' entries */
	nt_grow_in(&cur, &orig, 100, 200, 254, 4, &in);
	assert_int_equal(in.entries, 200);
	/* prefixes unknown: only the hard cap, the netns' entries unknown */
	nt_grow_in(&cur, &orig, 100, 200, -1, 4, &in);
	assert_int_equal(in.ns_capacity, NEIGH_HARD_CAP);
	assert_int_equal(in.ns_entries, 0);
	assert_int_equal(in.entries, 100);
	/* rate 0: 1/64 */
	nt_grow_in(&cur, &orig, 100, 0, 0, 0, &in);
	assert_int_equal(in.delta, 16);
}

static void test_actions(void **state)
{
	(void)state;
	assert_string_equal(nt_grow_action(BPFTUNE_NEIGH_GROW), "raise");
	assert_string_equal(nt_grow_action(BPFTUNE_NEIGH_AT_HARD_CAP), "none: at the hard cap");
	assert_string_equal(nt_grow_action(BPFTUNE_NEIGH_AT_PREFIX_CAP),
			    "none: at what the prefixes can hold");
	assert_string_equal(nt_grow_action(BPFTUNE_NEIGH_NS_OVER_PREFIX),
			    "none: netns holds more entries than its prefixes");
	assert_string_equal(nt_grow_action((enum bpftune_neigh_verdict)99), "none");
	assert_string_equal(nt_shrink_action(NT_SHRINK_LOWER), "lower");
	assert_string_equal(nt_shrink_action(NT_SHRINK_LAST), "lower");
	assert_string_equal(nt_shrink_action(NT_SHRINK_WAIT), "none: table not a quarter empty");
	assert_string_equal(nt_shrink_action(NT_SHRINK_DONE), "none: table not a quarter empty");
	assert_true(nt_delta_pct(4) == 25.0);
	assert_true(nt_delta_pct(0) == 100.0 / 64);
	assert_true(nt_delta_pct(9) == 25.0);	/* clamped to the maximum rate */
}

static void test_shrink(void **state)
{
	const struct bpftune_neigh_thresh orig = { 128, 512, 1024 };
	struct bpftune_neigh_thresh cur = { 256, 1024, 2048 }, out;

	(void)state;
	/* at most a quarter full: one step of 1/4 of gc_thresh3 */
	assert_int_equal(nt_shrink_decide(&cur, 512, &orig, 4, &out), NT_SHRINK_LOWER);
	assert_int_equal(out.t3, 1536);
	assert_true(out.t3 > orig.t3 && out.t1 >= orig.t1 && out.t2 >= orig.t2);
	/* fuller: wait */
	assert_int_equal(nt_shrink_decide(&cur, 513, &orig, 4, &out), NT_SHRINK_WAIT);
	/* the last step lands on the original */
	cur = (struct bpftune_neigh_thresh){ 140, 560, 1100 };
	assert_int_equal(nt_shrink_decide(&cur, 0, &orig, 4, &out), NT_SHRINK_LAST);
	assert_int_equal(out.t3, 1024);
	/* at the original: nothing grown any more */
	assert_int_equal(nt_shrink_decide(&orig, 0, &orig, 4, &out), NT_SHRINK_DONE);
}

int unit_run_neigh_table_policy(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_grow_in),
		cmocka_unit_test(test_actions),
		cmocka_unit_test(test_shrink),
	};

	return cmocka_run_group_tests_name("neigh_table_policy", tests, NULL, NULL);
}
