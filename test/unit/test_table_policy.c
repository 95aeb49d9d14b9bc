// SPDX-License-Identifier: GPL-2.0-only
/*
 * Growth and shrink arithmetic of the neigh_table tuner
 * (src/lib/kit/table_policy.c).
 */
#include <limits.h>
#include <sys/socket.h>

#include "unit.h"
#include <bpftune/table_policy.h>

#define CAP	65536

static void test_prefix_hosts(void **state)
{
	(void)state;
	assert_int_equal(bpftune_prefix_hosts(AF_INET, 24, CAP), 256);
	assert_int_equal(bpftune_prefix_hosts(AF_INET, 23, CAP), 512);
	assert_int_equal(bpftune_prefix_hosts(AF_INET, 32, CAP), 1);
	assert_int_equal(bpftune_prefix_hosts(AF_INET, 31, CAP), 2);
	/* saturates at the cap */
	assert_int_equal(bpftune_prefix_hosts(AF_INET, 8, CAP), CAP);
	assert_int_equal(bpftune_prefix_hosts(AF_INET, 0, CAP), CAP);
	assert_int_equal(bpftune_prefix_hosts(AF_INET6, 64, CAP), CAP);
	assert_int_equal(bpftune_prefix_hosts(AF_INET6, 0, LONG_MAX), LONG_MAX);
	assert_int_equal(bpftune_prefix_hosts(AF_INET6, 120, CAP), 256);
	/* nonsense holds nothing */
	assert_int_equal(bpftune_prefix_hosts(AF_INET, 33, CAP), 0);
	assert_int_equal(bpftune_prefix_hosts(AF_INET6, 129, CAP), 0);
	assert_int_equal(bpftune_prefix_hosts(AF_UNIX, 24, CAP), 0);
	assert_int_equal(bpftune_prefix_hosts(AF_INET, 24, 0), 0);
}

static void test_add_capped(void **state)
{
	(void)state;
	assert_int_equal(bpftune_add_capped(1, 2, 10), 3);
	assert_int_equal(bpftune_add_capped(8, 2, 10), 10);
	assert_int_equal(bpftune_add_capped(9, 2, 10), 10);
	assert_int_equal(bpftune_add_capped(LONG_MAX, LONG_MAX, 10), 10);
	assert_int_equal(bpftune_add_capped(-5, 3, 10), 3);
	assert_int_equal(bpftune_add_capped(LONG_MAX - 1, 5, LONG_MAX), LONG_MAX);
}

static struct bpftune_neigh_grow_in grow_in(long t1, long t2, long t3, long entries,
				    long ns_entries, long ns_capacity)
{
	struct bpftune_neigh_grow_in in = {
		.cur = { t1, t2, t3 }, .entries = entries,
		.ns_entries = ns_entries, .ns_capacity = ns_capacity,
		.hard_cap = CAP, .delta = t3 >> 2,
	};
	return in;
}

static void test_neigh_grow_keeps_proportions(void **state)
{
	struct bpftune_neigh_grow_in in = grow_in(128, 512, 1024, 900, 900, CAP);
	struct bpftune_neigh_thresh out;
	long limit = 0;

	(void)state;
	assert_int_equal(bpftune_neigh_grow(&in, &out, &limit), BPFTUNE_NEIGH_GROW);
	assert_int_equal(out.t3, 1280);
	assert_int_equal(out.t2, 640);
	assert_int_equal(out.t1, 160);
	assert_int_equal(limit, CAP);
	/* the test's starting point: 32 64 128 -> 40 80 160 */
	in = grow_in(32, 64, 128, 96, 96, 512);
	assert_int_equal(bpftune_neigh_grow(&in, &out, NULL), BPFTUNE_NEIGH_GROW);
	assert_int_equal(out.t1, 40);
	assert_int_equal(out.t2, 80);
	assert_int_equal(out.t3, 160);
}

/* raise after raise, gc_thresh1/2 stay a quarter and a half of gc_thresh3 */
static void test_neigh_grow_no_drift(void **state)
{
	struct bpftune_neigh_grow_in in = grow_in(32, 64, 128, 0, 0, CAP);
	struct bpftune_neigh_thresh out, drift;
	unsigned int i;

	(void)state;
	for (i = 0; i < 20; i++) {
		in.delta = in.cur.t3 / 4;
		in.orig = (struct bpftune_neigh_thresh){ 32, 64, 128 };
		assert_int_equal(bpftune_neigh_grow(&in, &out, NULL), BPFTUNE_NEIGH_GROW);
		assert_true(out.t1 <= out.t3 / 4 && out.t1 >= out.t3 / 4 - 1);
		assert_true(out.t2 <= out.t3 / 2 && out.t2 >= out.t3 / 2 - 1);
		in.cur = out;
	}
	/* without the original values, rounding down drifts (the old way) */
	in = grow_in(32, 64, 128, 0, 0, CAP);
	for (i = 0; i < 20; i++) {
		in.delta = in.cur.t3 / 4;
		assert_int_equal(bpftune_neigh_grow(&in, &drift, NULL), BPFTUNE_NEIGH_GROW);
		in.cur = drift;
	}
	assert_int_equal(drift.t3, out.t3);
	assert_true(drift.t1 < out.t1);
	/* never lower than the live value, whatever the original ratio */
	in = grow_in(100, 100, 128, 0, 0, CAP);
	in.delta = 32;
	in.orig = (struct bpftune_neigh_thresh){ 32, 64, 128 };
	assert_int_equal(bpftune_neigh_grow(&in, &out, NULL), BPFTUNE_NEIGH_GROW);
	assert_int_equal(out.t3, 160);
	assert_int_equal(out.t2, 100);
	assert_int_equal(out.t1, 100);
}

static void test_neigh_grow_prefix_cap(void **state)
{
	/* 10 entries elsewhere + a /23 (512): the table needs at most 522 */
	struct bpftune_neigh_grow_in in = grow_in(125, 250, 500, 480, 470, 512);
	struct bpftune_neigh_thresh out;
	long limit;

	(void)state;
	assert_int_equal(bpftune_neigh_grow(&in, &out, &limit), BPFTUNE_NEIGH_GROW);
	assert_int_equal(limit, 522);
	assert_int_equal(out.t3, 522);
	assert_true(out.t2 >= 250 && out.t2 <= 261);
	assert_true(out.t1 >= 125 && out.t1 <= out.t2);
	/* there: no growth, and which bound said so */
	in = grow_in(130, 261, 522, 500, 490, 512);
	assert_int_equal(bpftune_neigh_grow(&in, &out, &limit), BPFTUNE_NEIGH_AT_PREFIX_CAP);
	assert_int_equal(limit, 522);
	/* a netns with more entries than its prefixes hold gets no more */
	in = grow_in(32, 64, 128, 600, 600, 512);
	assert_int_equal(bpftune_neigh_grow(&in, &out, NULL), BPFTUNE_NEIGH_NS_OVER_PREFIX);
}

static void test_neigh_grow_hard_cap(void **state)
{
	struct bpftune_neigh_grow_in in = grow_in(16384, 32768, 60000, 59000, 59000, CAP);
	struct bpftune_neigh_thresh out;

	(void)state;
	assert_int_equal(bpftune_neigh_grow(&in, &out, NULL), BPFTUNE_NEIGH_GROW);
	assert_int_equal(out.t3, CAP);
	assert_true(out.t2 <= CAP && out.t1 <= out.t2);
	in = grow_in(16384, 32768, CAP, 65000, 65000, CAP);
	assert_int_equal(bpftune_neigh_grow(&in, &out, NULL), BPFTUNE_NEIGH_AT_HARD_CAP);
	/* an admin's value above the cap is never lowered by growth */
	in = grow_in(1000, 2000, 100000, 99000, 99000, CAP);
	assert_int_equal(bpftune_neigh_grow(&in, &out, NULL), BPFTUNE_NEIGH_AT_HARD_CAP);
}

static void test_neigh_grow_never_lowers(void **state)
{
	/* an admin's odd order (t1 > t2) stays; nothing goes down */
	struct bpftune_neigh_grow_in in = grow_in(900, 600, 1000, 950, 950, CAP);
	struct bpftune_neigh_thresh out;

	(void)state;
	assert_int_equal(bpftune_neigh_grow(&in, &out, NULL), BPFTUNE_NEIGH_GROW);
	assert_int_equal(out.t3, 1250);
	assert_true(out.t2 >= 600 && out.t2 <= out.t3);
	assert_true(out.t1 >= 900);
	/* a zero delta still moves */
	in = grow_in(1, 2, 3, 3, 3, CAP);
	in.delta = 0;
	assert_int_equal(bpftune_neigh_grow(&in, &out, NULL), BPFTUNE_NEIGH_GROW);
	assert_int_equal(out.t3, 4);
}

static void test_neigh_shrink(void **state)
{
	const struct bpftune_neigh_thresh orig = { 32, 64, 128 };
	struct bpftune_neigh_thresh cur = { 200, 400, 800 }, out;
	unsigned int steps = 0;

	(void)state;
	/* more than a quarter in use: nothing */
	assert_false(bpftune_neigh_shrink(&cur, 201, &orig, 200, &out));
	/* at or below orig: nothing */
	assert_false(bpftune_neigh_shrink(&orig, 0, &orig, 32, &out));
	/* steps down to exactly the original values */
	while (bpftune_neigh_shrink(&cur, 2, &orig, cur.t3 >> 2, &out)) {
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
		struct bpftune_neigh_thresh orig, cur, out;
		struct bpftune_neigh_grow_in in;

		orig.t3 = 16 + unit_rand(&seed) % 4000;
		orig.t2 = unit_rand(&seed) % (orig.t3 + 1);
		orig.t1 = unit_rand(&seed) % (orig.t2 + 1);
		cur = orig;
		for (k = 0; k < 10; k++) {
			in = grow_in(cur.t1, cur.t2, cur.t3, cur.t3, cur.t3, CAP);
			if (bpftune_neigh_grow(&in, &out, NULL) != BPFTUNE_NEIGH_GROW)
				break;
			assert_true(out.t3 > cur.t3 && out.t3 <= CAP);
			assert_true(out.t1 <= out.t2 && out.t2 <= out.t3);
			cur = out;
		}
		for (k = 0; k < 100 && bpftune_neigh_shrink(&cur, 0, &orig, cur.t3 >> 2, &out); k++)
			cur = out;
		assert_int_equal(cur.t1, orig.t1);
		assert_int_equal(cur.t2, orig.t2);
		assert_int_equal(cur.t3, orig.t3);
	}
}

int unit_run_table_policy(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prefix_hosts),
		cmocka_unit_test(test_add_capped),
		cmocka_unit_test(test_neigh_grow_keeps_proportions),
		cmocka_unit_test(test_neigh_grow_no_drift),
		cmocka_unit_test(test_neigh_grow_prefix_cap),
		cmocka_unit_test(test_neigh_grow_hard_cap),
		cmocka_unit_test(test_neigh_grow_never_lowers),
		cmocka_unit_test(test_neigh_shrink),
		cmocka_unit_test(test_neigh_round_trip),
	};

	return cmocka_run_group_tests_name("table_policy", tests, NULL, NULL);
}
