// SPDX-License-Identifier: GPL-2.0-only
/*
 * udp_buffer's decisions (src/tuners/udp_buffer/udp_buffer_policy.c):
 * rmem_default and rmem_max on a full receive buffer, udp_mem's ceiling
 * and growth, and when udp_mem may step back.  Rate 4: a step is 1/4.
 */
#include <string.h>

#include "unit.h"
#include "../../src/tuners/udp_buffer/udp_buffer_policy.h"

static void test_rcvbuf_older_socket(void **state)
{
	long def = -1, max = -1;

	(void)state;
	/* sized by a smaller default before the last raise: left alone */
	assert_int_equal(udp_buffer_rcvbuf_decide(212992, 262144, 262144, 4, &def, &max),
			 UDP_BUFFER_PREDATES);
	assert_int_equal(def, 0);
	assert_int_equal(max, 0);
}

static void test_rcvbuf_raise(void **state)
{
	long def, max;

	(void)state;
	/* 212992 + 1/4; rmem_max below it follows it */
	assert_int_equal(udp_buffer_rcvbuf_decide(212992, 212992, 212992, 4, &def, &max),
			 UDP_BUFFER_RAISE);
	assert_int_equal(def, 266240);
	assert_int_equal(max, 266240);
	/* rmem_max already above: unchanged */
	assert_int_equal(udp_buffer_rcvbuf_decide(212992, 212992, 8 << 20, 4, &def, &max),
			 UDP_BUFFER_RAISE);
	assert_int_equal(def, 266240);
	assert_int_equal(max, 0);
	/* a buffer at or above the default counts too; rate 0: 1/64 */
	assert_int_equal(udp_buffer_rcvbuf_decide(300000, 212992, 212992, 0, &def, &max),
			 UDP_BUFFER_RAISE);
	assert_int_equal(def, 212992 + (212992 >> 6));
}

static void test_rcvbuf_cap(void **state)
{
	long def, max;

	(void)state;
	assert_int_equal(udp_buffer_rcvbuf_decide(RMEM_DEFAULT_CAP, RMEM_DEFAULT_CAP, 1 << 20, 4,
						  &def, &max), UDP_BUFFER_AT_CAP);
	assert_int_equal(def, 0);
	/* one step past the cap: rmem_max is taken to the cap only (the
	 * library clamps the default itself, and says so) */
	assert_int_equal(udp_buffer_rcvbuf_decide(4000000, 4000000, 4000000, 4, &def, &max),
			 UDP_BUFFER_RAISE);
	assert_int_equal(def, 5000000);
	assert_int_equal(max, RMEM_DEFAULT_CAP);
}

static void test_mem_ceiling(void **state)
{
	(void)state;
	/* what UDP holds plus a quarter of what is available */
	assert_int_equal(udp_buffer_mem_ceiling(1000, 40000, 5000, 1L << 30), 11000);
	/* available memory unknown: no further than udp_mem[2] now */
	assert_int_equal(udp_buffer_mem_ceiling(1000, 0, 5000, 1L << 30), 5000);
	assert_int_equal(udp_buffer_mem_ceiling(1000, -1, 5000, 1L << 30), 5000);
	/* never past the cap */
	assert_int_equal(udp_buffer_mem_ceiling(1000, 40000, 5000, 8000), 8000);
}

static void test_mem_decide(void **state)
{
	const long cur[3] = { 4000, 6000, 8000 };
	long want[3] = { 0, 0, 0 };

	(void)state;
	assert_int_equal(udp_buffer_mem_decide(cur, 8000, 4, want), UDP_BUFFER_AT_CEILING);
	assert_int_equal(udp_buffer_mem_decide(cur, 7000, 4, want), UDP_BUFFER_AT_CEILING);
	assert_int_equal(udp_buffer_mem_decide(cur, 9000, 4, want), UDP_BUFFER_RAISE);
	/* each a step (1/4) toward the ceiling, none past it */
	assert_int_equal(want[0], 5000);
	assert_int_equal(want[1], 7500);
	assert_int_equal(want[2], 9000);
}

static void test_mem_may_shrink(void **state)
{
	(void)state;
	/* room of a step (1/4 of 8000 = 2000) above what UDP holds */
	assert_true(udp_buffer_mem_may_shrink(5999, 8000, 4));
	assert_false(udp_buffer_mem_may_shrink(6000, 8000, 4));
	/* unknown: never */
	assert_false(udp_buffer_mem_may_shrink(-1, 8000, 4));
}

static void test_verdict_names(void **state)
{
	(void)state;
	assert_string_equal(udp_buffer_verdict_name(UDP_BUFFER_RAISE), "raise");
	assert_string_equal(udp_buffer_verdict_name(UDP_BUFFER_AT_CAP), "none: at the cap");
	assert_string_equal(udp_buffer_verdict_name((enum udp_buffer_verdict)99), "none");
}

int unit_run_udp_buffer_policy(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rcvbuf_older_socket),
		cmocka_unit_test(test_rcvbuf_raise),
		cmocka_unit_test(test_rcvbuf_cap),
		cmocka_unit_test(test_mem_ceiling),
		cmocka_unit_test(test_mem_decide),
		cmocka_unit_test(test_mem_may_shrink),
		cmocka_unit_test(test_verdict_names),
	};

	return cmocka_run_group_tests_name("udp_buffer_policy", tests, NULL, NULL);
}
