// SPDX-License-Identifier: GPL-2.0-only
/*
 * The perf collector's scaling of multiplexed counters
 * (src/collectors/perf/perf_scale.h): value * enabled / running, flagged.
 */
#include <stdbool.h>

#include "../../src/collectors/perf/perf_scale.h"
#include "unit.h"

static void test_not_multiplexed(void **state)
{
	bool scaled = true;
	int64_t out = -1;

	(void)state;
	assert_int_equal(perf_scale(12345, 1000, 1000, &out, &scaled), 0);
	assert_int_equal(out, 12345);
	assert_false(scaled);
	/* running a hair over enabled (rounding in the kernel): as is */
	assert_int_equal(perf_scale(7, 1000, 1001, &out, &scaled), 0);
	assert_int_equal(out, 7);
	assert_false(scaled);
}

static void test_multiplexed(void **state)
{
	bool scaled = false;
	int64_t out = 0;

	(void)state;
	/* ran a quarter of the time: four times the count */
	assert_int_equal(perf_scale(1000, 4000000, 1000000, &out, &scaled), 0);
	assert_int_equal(out, 4000);
	assert_true(scaled);
	/* truncates, never rounds up */
	assert_int_equal(perf_scale(10, 3, 2, &out, &scaled), 0);
	assert_int_equal(out, 15);
	assert_int_equal(perf_scale(1, 3, 2, &out, &scaled), 0);
	assert_int_equal(out, 1);
	/* value * enabled overflows 64 bits: exact in 128 */
	assert_int_equal(perf_scale(1ULL << 40, 1ULL << 40, 1ULL << 39, &out, &scaled), 0);
	assert_int_equal(out, 1LL << 41);
}

static void test_never_ran(void **state)
{
	bool scaled = false;
	int64_t out = 42;

	(void)state;
	assert_int_equal(perf_scale(0, 5000, 0, &out, &scaled), -ENODATA);
	assert_int_equal(out, 42);
	assert_int_equal(perf_scale(0, 0, 0, &out, &scaled), -ENODATA);
}

static void test_saturates(void **state)
{
	bool scaled = false;
	int64_t out = 0;

	(void)state;
	assert_int_equal(perf_scale(UINT64_MAX, 10, 1, &out, &scaled), 0);
	assert_int_equal(out, INT64_MAX);
	assert_true(scaled);
	assert_int_equal(perf_scale(UINT64_MAX, 1, 1, &out, &scaled), 0);
	assert_int_equal(out, INT64_MAX);
}

int unit_run_perf_scale(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_not_multiplexed),
		cmocka_unit_test(test_multiplexed),
		cmocka_unit_test(test_never_ran),
		cmocka_unit_test(test_saturates),
	};

	return cmocka_run_group_tests_name("perf_scale", tests, NULL, NULL);
}
