// SPDX-License-Identifier: GPL-2.0-only
/* Hard caps and the learning-rate delta (src/lib/core/tunable_cap.c). */
#include <limits.h>

#include "core/internal.h"
#include "unit.h"

static const struct bpftune_tunable_desc rmem = {
	.name = "net.ipv4.tcp_rmem",
	.num_values = 3,
	.min = 4096,
	.max = 64L << 20,
	.cap_reason = "test",
};

static void test_cap_within(void **state)
{
	long v[3] = { 4096, 131072, 64L << 20 };

	(void)state;
	assert_int_equal(bpftune_cap_values(&rmem, v, 3), 0);
	assert_int_equal(v[0], 4096);
	assert_int_equal(v[1], 131072);
	assert_int_equal(v[2], 64L << 20);
}

static void test_cap_above_max(void **state)
{
	long v[1] = { (64L << 20) + 1 };

	(void)state;
	assert_int_equal(bpftune_cap_values(&rmem, v, 1), 1);
	assert_int_equal(v[0], 64L << 20);
	v[0] = LONG_MAX;
	assert_int_equal(bpftune_cap_values(&rmem, v, 1), 1);
	assert_int_equal(v[0], 64L << 20);
}

static void test_cap_below_min(void **state)
{
	long v[1] = { 4095 };

	(void)state;
	assert_int_equal(bpftune_cap_values(&rmem, v, 1), 1);
	assert_int_equal(v[0], 4096);
	v[0] = LONG_MIN;
	assert_int_equal(bpftune_cap_values(&rmem, v, 1), 1);
	assert_int_equal(v[0], 4096);
	v[0] = -1;
	assert_int_equal(bpftune_cap_values(&rmem, v, 1), 1);
	assert_int_equal(v[0], 4096);
}

static void test_cap_multi_counts(void **state)
{
	long v[3] = { 1, 131072, 1L << 40 };

	(void)state;
	assert_int_equal(bpftune_cap_values(&rmem, v, 3), 2);
	assert_int_equal(v[0], 4096);
	assert_int_equal(v[1], 131072);
	assert_int_equal(v[2], 64L << 20);
	/* only the first n are looked at */
	v[0] = 0;
	v[1] = 0;
	v[2] = 0;
	assert_int_equal(bpftune_cap_values(&rmem, v, 2), 2);
	assert_int_equal(v[2], 0);
	assert_int_equal(bpftune_cap_values(&rmem, v, 0), 0);
	/* idempotent */
	assert_int_equal(bpftune_cap_values(&rmem, v, 2), 0);
}

static void test_cap_point_range(void **state)
{
	const struct bpftune_tunable_desc fixed = {
		.name = "x", .num_values = 3, .min = 7, .max = 7,
	};
	long v[3] = { 6, 7, 8 };

	(void)state;
	assert_int_equal(bpftune_cap_values(&fixed, v, 3), 2);
	assert_int_equal(v[0], 7);
	assert_int_equal(v[1], 7);
	assert_int_equal(v[2], 7);
}

static void test_cap_negative_range(void **state)
{
	const struct bpftune_tunable_desc d = {
		.name = "x", .num_values = 2, .min = -10, .max = -1,
	};
	long v[2] = { 0, -11 };

	(void)state;
	assert_int_equal(bpftune_cap_values(&d, v, 2), 2);
	assert_int_equal(v[0], -1);
	assert_int_equal(v[1], -10);
}

static void test_delta_rates(void **state)
{
	(void)state;
	assert_int_equal(bpftune_delta_for_rate(6400, 0), 100);	/* 1/64 */
	assert_int_equal(bpftune_delta_for_rate(6400, 1), 200);	/* 1/32 */
	assert_int_equal(bpftune_delta_for_rate(6400, 2), 400);	/* 1/16 */
	assert_int_equal(bpftune_delta_for_rate(6400, 3), 800);	/* 1/8 */
	assert_int_equal(bpftune_delta_for_rate(6400, 4), 1600);	/* 1/4 */
	/* the default is 25 % */
	assert_int_equal(bpftune_delta_for_rate(1000,
			 BPFTUNE_LEARNING_RATE_DEFAULT), 250);
}

static void test_delta_rate_clamped(void **state)
{
	(void)state;
	assert_int_equal(bpftune_delta_for_rate(6400, 5), 1600);
	assert_int_equal(bpftune_delta_for_rate(6400, 6), 1600);
	assert_int_equal(bpftune_delta_for_rate(6400, 100), 1600);
	assert_int_equal(bpftune_delta_for_rate(6400, UINT_MAX), 1600);
}

static void test_delta_small_and_large(void **state)
{
	unsigned int r;

	(void)state;
	/* rounds down: small values give no delta at low rates */
	assert_int_equal(bpftune_delta_for_rate(63, 0), 0);
	assert_int_equal(bpftune_delta_for_rate(64, 0), 1);
	assert_int_equal(bpftune_delta_for_rate(3, 4), 0);
	assert_int_equal(bpftune_delta_for_rate(0, 4), 0);
	/* a large value does not overflow and matches division */
	for (r = 0; r <= BPFTUNE_LEARNING_RATE_MAX; r++)
		assert_true(bpftune_delta_for_rate(LONG_MAX, r) ==
			    LONG_MAX / (64L >> r));
}

int unit_run_tunable_cap(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cap_within),
		cmocka_unit_test(test_cap_above_max),
		cmocka_unit_test(test_cap_below_min),
		cmocka_unit_test(test_cap_multi_counts),
		cmocka_unit_test(test_cap_point_range),
		cmocka_unit_test(test_cap_negative_range),
		cmocka_unit_test(test_delta_rates),
		cmocka_unit_test(test_delta_rate_clamped),
		cmocka_unit_test(test_delta_small_and_large),
	};

	return cmocka_run_group_tests_name("tunable_cap", tests, NULL, NULL);
}
