// SPDX-License-Identifier: GPL-2.0-only
/* Hard caps and the learning-rate delta (src/lib/core/tunable_cap.c). */
#include <limits.h>
#include <string.h>

#include "core/internal.h"
#include "unit.h"
#include "core/sysctl.h"

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

/* Extreme starting values against a one-value and a three-value tunable. */
static void test_audit_extremes(void **state)
{
	static const struct bpftune_tunable_desc one = {
		.name = "net.core.netdev_max_backlog", .num_values = 1,
		.min = 1000, .max = 65536, .cap_reason = "test",
	};
	static const struct {
		const struct bpftune_tunable_desc *d;
		long v[3];
		unsigned int out;
		const char *why;
	} cases[] = {
		{ &one, { 0 }, 1, "0 below the floor 1000" },
		{ &one, { 1 }, 1, "1 below the floor 1000" },
		{ &one, { 1000 }, 0, "" },
		{ &one, { 65536 }, 0, "" },
		{ &one, { 65537 }, 1, "65537 above the cap 65536" },
		{ &one, { INT_MAX }, 1, "2147483647 above the cap 65536" },
		{ &one, { LONG_MAX }, 1, "9223372036854775807 above the cap 65536" },
		{ &one, { -1 }, 1, "-1 below the floor 1000" },
		{ &rmem, { 4096, 131072, 64L << 20 }, 0, "" },
		{ &rmem, { 0, 0, 0 }, 3, "value 1 (0) below the floor 4096, value 2 (0) below the floor 4096, value 3 (0) below the floor 4096" },
		{ &rmem, { 4096, 131072, INT_MAX }, 1, "value 3 (2147483647) above the cap 67108864" },
		/* min > max (the kernel takes it): each value on its own */
		{ &rmem, { 8388608, 131072, 4096 }, 0, "" },
		{ &rmem, { 1L << 40, 1, 4096 }, 2, "value 1 (1099511627776) above the cap 67108864, value 2 (1) below the floor 4096" },
	};
	char why[256];
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(bpftune_cap_audit(cases[i].d, cases[i].v,
						   cases[i].d->num_values, why, sizeof(why)),
				 cases[i].out);
		assert_string_equal(why, cases[i].why);
	}
	/* a short buffer: cut, terminated, the count still right */
	assert_int_equal(bpftune_cap_audit(&rmem, cases[9].v, 3, why, 20), 3);
	assert_true(strlen(why) < 20);
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
		cmocka_unit_test(test_audit_extremes),
	};

	return cmocka_run_group_tests_name("tunable_cap", tests, NULL, NULL);
}
