// SPDX-License-Identifier: GPL-2.0-only
/*
 * route_table's decisions (src/tuners/route_table/route_table_policy.c):
 * net.ipv6.route.max_size near full and emptied, and which kernels still
 * enforce it.  Rate 4: a step is 1/4.
 */
#include <limits.h>

#include "unit.h"
#include "../../src/tuners/route_table/route_table_policy.h"

static void test_in_use(void **state)
{
	(void)state;
	assert_int_equal(rt_in_use(100, 40), 100);
	assert_int_equal(rt_in_use(40, 100), 100);
	assert_int_equal(rt_in_use(0, 0), 0);
}

static void test_grow(void **state)
{
	long want = -1;

	(void)state;
	/* 3100 of 4096 in use: within 1/4, grows by 1024 */
	assert_int_equal(rt_grow_decide(4096, 3100, 4, &want), RT_RAISE);
	assert_int_equal(want, 5120);
	/* past max_size: what is in use plus two of its steps */
	assert_int_equal(rt_grow_decide(4096, 8000, 4, &want), RT_RAISE);
	assert_int_equal(want, 12000);
	/* far from it */
	assert_int_equal(rt_grow_decide(4096, 1000, 4, &want), RT_NOT_NEAR);
	assert_int_equal(want, 0);
	assert_string_equal(rt_verdict_action(RT_NOT_NEAR), "none: not near max_size any more");
	/* never past the hard cap, and at it nothing more */
	assert_int_equal(rt_grow_decide(ROUTE_HARD_CAP - 10, ROUTE_HARD_CAP - 20, 4, &want),
			 RT_RAISE);
	assert_int_equal(want, ROUTE_HARD_CAP);
	assert_int_equal(rt_grow_decide(ROUTE_HARD_CAP, ROUTE_HARD_CAP, 4, &want), RT_AT_CAP);
	assert_int_equal(want, 0);
	assert_string_equal(rt_verdict_action(RT_AT_CAP), "none: at the hard cap");
	assert_string_equal(rt_verdict_action(RT_RAISE), "raise");
}

static void test_shrink(void **state)
{
	long want = -1;

	(void)state;
	/* a quarter or less in use: one step back, not below the original */
	assert_int_equal(rt_shrink_decide(8192, 2048, 4096, 4, &want), RT_LOWER);
	assert_int_equal(want, 6144);
	assert_int_equal(rt_shrink_decide(5000, 100, 4096, 4, &want), RT_LOWER);
	assert_int_equal(want, 4096);
	assert_string_equal(rt_verdict_action(RT_LOWER), "lower");
	/* more in use: stays */
	assert_int_equal(rt_shrink_decide(8192, 2049, 4096, 4, &want), RT_NOT_EMPTY);
	assert_int_equal(want, 0);
	/* back at the original (or the admin set it lower): forget it */
	assert_int_equal(rt_shrink_decide(4096, 0, 4096, 4, &want), RT_BACK);
	assert_int_equal(rt_shrink_decide(2048, 0, 4096, 4, &want), RT_BACK);
	assert_string_equal(rt_verdict_action(RT_BACK), "none");
}

static void test_grow_arith(void **state)
{
	(void)state;
	/* not near: nothing */
	assert_int_equal(rt_grow(4096, 3000, 1024, 750, 1L << 20), 0);
	/* near: by delta */
	assert_int_equal(rt_grow(4096, 3100, 1024, 775, 1L << 20), 5120);
	assert_int_equal(rt_grow(128, 96, 32, 24, 1L << 20), 160);
	/* far past it: clear of the near-limit zone at once */
	assert_int_equal(rt_grow(64, 1007, 16, 251, 1L << 20), 1509);
	/* the cap holds, and a value at or above it is left alone */
	assert_int_equal(rt_grow(1000000, 999000, 250000, 249750, 1L << 20), 1L << 20);
	assert_int_equal(rt_grow(1L << 20, 1L << 20, 1L << 18, 1L << 18, 1L << 20), 0);
	assert_int_equal(rt_grow(2000000, 1999999, 500000, 500000, 1L << 20), 0);
	/* INT_MAX default (6.3+): never near */
	assert_int_equal(rt_grow(INT_MAX, 5000, INT_MAX >> 2, 1250, 1L << 20), 0);
}

static void test_shrink_arith(void **state)
{
	long v = 558;
	unsigned int steps = 0;

	(void)state;
	assert_int_equal(rt_shrink(558, 200, 128, 139), 0);
	assert_int_equal(rt_shrink(128, 0, 128, 32), 0);
	while ((v = rt_shrink(v, 7, 128, v >> 2)) && v > 128)
		assert_true(++steps < 20);
	assert_int_equal(v, 128);
}

static void test_kernel_enforces(void **state)
{
	(void)state;
	assert_true(rt_kernel_enforces("6.1.0-18-amd64"));
	assert_true(rt_kernel_enforces("5.15.0"));
	assert_true(rt_kernel_enforces("6.2.16"));
	assert_false(rt_kernel_enforces("6.3.0"));
	assert_false(rt_kernel_enforces("6.18.0"));
	assert_false(rt_kernel_enforces("7.0"));
	/* unreadable: assume it does */
	assert_true(rt_kernel_enforces("linux"));
	assert_true(rt_kernel_enforces(""));
	assert_true(rt_kernel_enforces(NULL));
}

int unit_run_route_table_policy(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_in_use),
		cmocka_unit_test(test_grow),
		cmocka_unit_test(test_shrink),
		cmocka_unit_test(test_grow_arith),
		cmocka_unit_test(test_shrink_arith),
		cmocka_unit_test(test_kernel_enforces),
	};

	return cmocka_run_group_tests_name("route_table_policy", tests, NULL, NULL);
}
