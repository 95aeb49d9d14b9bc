// SPDX-License-Identifier: GPL-2.0-only
/*
 * neigh_table's decisions (src/tuners/neigh_table/neigh_table_policy.c):
 * what counts toward a netns' room, the growth's input, the recorded
 * actions and the shrink steps, and the gc_thresh arithmetic under them
 * (how many neighbours a prefix holds, growth in proportion, shrink back
 * to the original).  Rate 4: a step is 1/4.
 */
#include <limits.h>
#include <sys/socket.h>
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
	const struct nt_thresh cur = { 128, 512, 1024 };
	const struct nt_thresh orig = { 64, 256, 512 };
	struct nt_grow_input in;

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
	assert_string_equal(nt_grow_action(NT_GROW), "raise");
	assert_string_equal(nt_grow_action(NT_AT_HARD_CAP), "none: at the hard cap");
	assert_string_equal(nt_grow_action(NT_AT_PREFIX_CAP),
			    "none: at what the prefixes can hold");
	assert_string_equal(nt_grow_action(NT_NS_OVER_PREFIX),
			    "none: netns holds more entries than its prefixes");
	assert_string_equal(nt_grow_action((enum nt_grow_verdict)99), "none");
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
	const struct nt_thresh orig = { 128, 512, 1024 };
	struct nt_thresh cur = { 256, 1024, 2048 }, out;

	(void)state;
	/* at most a quarter full: one step of 1/4 of gc_thresh3 */
	assert_int_equal(nt_shrink_decide(&cur, 512, &orig, 4, &out), NT_SHRINK_LOWER);
	assert_int_equal(out.t3, 1536);
	assert_true(out.t3 > orig.t3 && out.t1 >= orig.t1 && out.t2 >= orig.t2);
	/* fuller: wait */
	assert_int_equal(nt_shrink_decide(&cur, 513, &orig, 4, &out), NT_SHRINK_WAIT);
	/* the last step lands on the original */
	cur = (struct nt_thresh){ 140, 560, 1100 };
	assert_int_equal(nt_shrink_decide(&cur, 0, &orig, 4, &out), NT_SHRINK_LAST);
	assert_int_equal(out.t3, 1024);
	/* at the original: nothing grown any more */
	assert_int_equal(nt_shrink_decide(&orig, 0, &orig, 4, &out), NT_SHRINK_DONE);
}

#define CAP	65536

static void test_prefix_hosts(void **state)
{
	(void)state;
	assert_int_equal(nt_prefix_hosts(AF_INET, 24, CAP), 256);
	assert_int_equal(nt_prefix_hosts(AF_INET, 23, CAP), 512);
	assert_int_equal(nt_prefix_hosts(AF_INET, 32, CAP), 1);
	assert_int_equal(nt_prefix_hosts(AF_INET, 31, CAP), 2);
	/* saturates at the cap */
	assert_int_equal(nt_prefix_hosts(AF_INET, 8, CAP), CAP);
	assert_int_equal(nt_prefix_hosts(AF_INET, 0, CAP), CAP);
	assert_int_equal(nt_prefix_hosts(AF_INET6, 64, CAP), CAP);
	assert_int_equal(nt_prefix_hosts(AF_INET6, 0, LONG_MAX), LONG_MAX);
	assert_int_equal(nt_prefix_hosts(AF_INET6, 120, CAP), 256);
	/* nonsense holds nothing */
	assert_int_equal(nt_prefix_hosts(AF_INET, 33, CAP), 0);
	assert_int_equal(nt_prefix_hosts(AF_INET6, 129, CAP), 0);
	assert_int_equal(nt_prefix_hosts(AF_UNIX, 24, CAP), 0);
	assert_int_equal(nt_prefix_hosts(AF_INET, 24, 0), 0);
}

static struct nt_grow_input grow_in(long t1, long t2, long t3, long entries,
				    long ns_entries, long ns_capacity)
{
	struct nt_grow_input in = {
		.cur = { t1, t2, t3 }, .entries = entries,
		.ns_entries = ns_entries, .ns_capacity = ns_capacity,
		.hard_cap = CAP, .delta = t3 >> 2,
	};
	return in;
}

static void test_neigh_grow_keeps_proportions(void **state)
{
	struct nt_grow_input in = grow_in(128, 512, 1024, 900, 900, CAP);
	struct nt_thresh out;
	long limit = 0;

	(void)state;
	assert_int_equal(nt_grow_step(&in, &out, &limit), NT_GROW);
	assert_int_equal(out.t3, 1280);
	assert_int_equal(out.t2, 640);
	assert_int_equal(out.t1, 160);
	assert_int_equal(limit, CAP);
	/* the test's starting point: 32 64 128 -> 40 80 160 */
	in = grow_in(32, 64, 128, 96, 96, 512);
	assert_int_equal(nt_grow_step(&in, &out, NULL), NT_GROW);
	assert_int_equal(out.t1, 40);
	assert_int_equal(out.t2, 80);
	assert_int_equal(out.t3, 160);
}

/* raise after raise, gc_thresh1/2 stay a quarter and a half of gc_thresh3 */
static void test_neigh_grow_no_drift(void **state)
{
	struct nt_grow_input in = grow_in(32, 64, 128, 0, 0, CAP);
	struct nt_thresh out, drift;
	unsigned int i;

	(void)state;
	for (i = 0; i < 20; i++) {
		in.delta = in.cur.t3 / 4;
		in.orig = (struct nt_thresh){ 32, 64, 128 };
		assert_int_equal(nt_grow_step(&in, &out, NULL), NT_GROW);
		assert_true(out.t1 <= out.t3 / 4 && out.t1 >= out.t3 / 4 - 1);
		assert_true(out.t2 <= out.t3 / 2 && out.t2 >= out.t3 / 2 - 1);
		in.cur = out;
	}
	/* without the original values, rounding down drifts (the old way) */
	in = grow_in(32, 64, 128, 0, 0, CAP);
	for (i = 0; i < 20; i++) {
		in.delta = in.cur.t3 / 4;
		assert_int_equal(nt_grow_step(&in, &drift, NULL), NT_GROW);
		in.cur = drift;
	}
	assert_int_equal(drift.t3, out.t3);
	assert_true(drift.t1 < out.t1);
	/* never lower than the live value, whatever the original ratio */
	in = grow_in(100, 100, 128, 0, 0, CAP);
	in.delta = 32;
	in.orig = (struct nt_thresh){ 32, 64, 128 };
	assert_int_equal(nt_grow_step(&in, &out, NULL), NT_GROW);
	assert_int_equal(out.t3, 160);
	assert_int_equal(out.t2, 100);
	assert_int_equal(out.t1, 100);
}

static void test_neigh_grow_prefix_cap(void **state)
{
	/* 10 entries elsewhere + a /23 (512): the table needs at most 522 */
	struct nt_grow_input in = grow_in(125, 250, 500, 480, 470, 512);
	struct nt_thresh out;
	long limit;

	(void)state;
	assert_int_equal(nt_grow_step(&in, &out, &limit), NT_GROW);
	assert_int_equal(limit, 522);
	assert_int_equal(out.t3, 522);
	assert_true(out.t2 >= 250 && out.t2 <= 261);
	assert_true(out.t1 >= 125 && out.t1 <= out.t2);
	/* there: no growth, and which bound said so */
	in = grow_in(130, 261, 522, 500, 490, 512);
	assert_int_equal(nt_grow_step(&in, &out, &limit), NT_AT_PREFIX_CAP);
	assert_int_equal(limit, 522);
	/* a netns with more entries than its prefixes hold gets no more */
	in = grow_in(32, 64, 128, 600, 600, 512);
	assert_int_equal(nt_grow_step(&in, &out, NULL), NT_NS_OVER_PREFIX);
}

static void test_neigh_grow_hard_cap(void **state)
{
	struct nt_grow_input in = grow_in(16384, 32768, 60000, 59000, 59000, CAP);
	struct nt_thresh out;

	(void)state;
	assert_int_equal(nt_grow_step(&in, &out, NULL), NT_GROW);
	assert_int_equal(out.t3, CAP);
	assert_true(out.t2 <= CAP && out.t1 <= out.t2);
	in = grow_in(16384, 32768, CAP, 65000, 65000, CAP);
	assert_int_equal(nt_grow_step(&in, &out, NULL), NT_AT_HARD_CAP);
	/* an admin's value above the cap is never lowered by growth */
	in = grow_in(1000, 2000, 100000, 99000, 99000, CAP);
	assert_int_equal(nt_grow_step(&in, &out, NULL), NT_AT_HARD_CAP);
}

static void test_neigh_grow_never_lowers(void **state)
{
	/* an admin's odd order (t1 > t2) stays; nothing goes down */
	struct nt_grow_input in = grow_in(900, 600, 1000, 950, 950, CAP);
	struct nt_thresh out;

	(void)state;
	assert_int_equal(nt_grow_step(&in, &out, NULL), NT_GROW);
	assert_int_equal(out.t3, 1250);
	assert_true(out.t2 >= 600 && out.t2 <= out.t3);
	assert_true(out.t1 >= 900);
	/* a zero delta still moves */
	in = grow_in(1, 2, 3, 3, 3, CAP);
	in.delta = 0;
	assert_int_equal(nt_grow_step(&in, &out, NULL), NT_GROW);
	assert_int_equal(out.t3, 4);
}

static void test_neigh_shrink(void **state)
{
	const struct nt_thresh orig = { 32, 64, 128 };
	struct nt_thresh cur = { 200, 400, 800 }, out;
	unsigned int steps = 0;

	(void)state;
	/* more than a quarter in use: nothing */
	assert_false(nt_shrink_step(&cur, 201, &orig, 200, &out));
	/* at or below orig: nothing */
	assert_false(nt_shrink_step(&orig, 0, &orig, 32, &out));
	/* steps down to exactly the original values */
	while (nt_shrink_step(&cur, 2, &orig, cur.t3 >> 2, &out)) {
		assert_true(out.t3 < cur.t3 && out.t3 >= orig.t3);
		assert_true(out.t2 <= cur.t2 && out.t2 >= orig.t2);
		assert_true(out.t1 <= cur.t1 && out.t1 >= orig.t1);
		cur = out;
		assert_true(++steps < 20);
	}
	assert_int_equal(cur.t1, 32);
	assert_int_equal(cur.t2, 64);
	assert_int_equal(cur.t3, 128);
	assert_int_equal(steps, 7);
}

/* grow then shrink with random sizes: always back to the original */
static void test_neigh_round_trip(void **state)
{
	uint64_t seed = 42;
	unsigned int i, k;

	(void)state;
	for (i = 0; i < 200; i++) {
		struct nt_thresh orig, cur, out;
		struct nt_grow_input in;

		orig.t3 = 16 + unit_rand(&seed) % 4000;
		orig.t2 = unit_rand(&seed) % (orig.t3 + 1);
		orig.t1 = unit_rand(&seed) % (orig.t2 + 1);
		cur = orig;
		for (k = 0; k < 10; k++) {
			in = grow_in(cur.t1, cur.t2, cur.t3, cur.t3, cur.t3, CAP);
			if (nt_grow_step(&in, &out, NULL) != NT_GROW)
				break;
			assert_true(out.t3 > cur.t3 && out.t3 <= CAP);
			assert_true(out.t1 <= out.t2 && out.t2 <= out.t3);
			cur = out;
		}
		for (k = 0; k < 100 && nt_shrink_step(&cur, 0, &orig, cur.t3 >> 2, &out); k++)
			cur = out;
		assert_int_equal(cur.t1, orig.t1);
		assert_int_equal(cur.t2, orig.t2);
		assert_int_equal(cur.t3, orig.t3);
	}
}

int unit_run_neigh_table_policy(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prefix_hosts),
		cmocka_unit_test(test_neigh_grow_keeps_proportions),
		cmocka_unit_test(test_neigh_grow_no_drift),
		cmocka_unit_test(test_neigh_grow_prefix_cap),
		cmocka_unit_test(test_neigh_grow_hard_cap),
		cmocka_unit_test(test_neigh_grow_never_lowers),
		cmocka_unit_test(test_neigh_shrink),
		cmocka_unit_test(test_neigh_round_trip),
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_grow_in),
		cmocka_unit_test(test_actions),
		cmocka_unit_test(test_shrink),
	};

	return cmocka_run_group_tests_name("neigh_table_policy", tests, NULL, NULL);
}
