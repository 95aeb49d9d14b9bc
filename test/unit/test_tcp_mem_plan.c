// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests of src/tuners/tcp_buffer/tcp_buffer_mem_plan.c: tcp_mem above its cap. */
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../src/tuners/tcp_buffer/tcp_buffer_mem_plan.h"
#include "unit.h"

#define CAP	1572864L	/* a quarter of 24 GiB in 4 KiB pages */

static void expect(long c0, long c1, long c2, long w0, long w1, long w2)
{
	long cur[3] = { c0, c1, c2 }, want[3] = { -1, -1, -1 };

	assert_true(tcp_mem_over_cap(cur, CAP, want));
	assert_int_equal(want[0], w0);
	assert_int_equal(want[1], w1);
	assert_int_equal(want[2], w2);
	/* what is written is sane: ordered, within the cap, above zero */
	assert_true(want[0] > 0 && want[0] <= want[1] && want[1] <= want[2]);
	assert_true(want[2] <= CAP);
}

/* the case: tiny thresholds, a max far above the cap */
static void test_tiny_thresholds_huge_max(void **state)
{
	(void)state;
	expect(50, 100, 2000000000L, CAP / 2, CAP / 3 * 2, CAP);
}

/* thresholds already above the kernel's proportions are kept */
static void test_high_thresholds_kept(void **state)
{
	(void)state;
	expect(CAP - 2, CAP - 1, CAP + 1, CAP - 2, CAP - 1, CAP);
}

/* every value above the cap, INT_MAX and LONG_MAX included */
static void test_all_above(void **state)
{
	(void)state;
	expect(INT_MAX, INT_MAX, INT_MAX, CAP / 2, CAP / 3 * 2, CAP);
	expect(LONG_MAX, LONG_MAX, LONG_MAX, CAP / 2, CAP / 3 * 2, CAP);
	/* a threshold above the max only: brought within it */
	expect(CAP + 5, 10, CAP + 9, CAP / 2, CAP / 3 * 2, CAP);
}

/* min > max where only a threshold is above the cap */
static void test_threshold_above_max(void **state)
{
	(void)state;
	expect(10, CAP + 1, 1000, 500, 666, 1000);
	/* a max of 1: the thresholds are 1 too, never 0 */
	expect(CAP + 1, 0, 1, 1, 1, 1);
}

/* within the cap: nothing to do, whatever the values */
static void test_within_cap(void **state)
{
	long want[3] = { 7, 7, 7 };
	const long cases[][3] = {
		{ 0, 0, 0 }, { 1, 1, 1 }, { 50, 100, 200 }, { CAP, CAP, CAP },
		{ 300, 200, 100 },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_false(tcp_mem_over_cap(cases[i], CAP, want));
		assert_int_equal(want[0], 7);
	}
	/* no cap known: nothing to do */
	assert_false(tcp_mem_over_cap(cases[2], 0, want));
}

int unit_run_tcp_mem_plan(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tiny_thresholds_huge_max),
		cmocka_unit_test(test_high_thresholds_kept),
		cmocka_unit_test(test_all_above),
		cmocka_unit_test(test_threshold_above_max),
		cmocka_unit_test(test_within_cap),
	};

	return cmocka_run_group_tests_name("tcp_mem_plan", tests, NULL, NULL);
}
