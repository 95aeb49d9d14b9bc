// SPDX-License-Identifier: GPL-2.0-only
/*
 * ip_frag's decisions (src/tuners/ip_frag/ip_frag_policy.c): a threshold
 * near full, the fragment flood guard, and the shrink when quiet.
 * Rate 4: a step is 1/4.
 */
#include <string.h>

#include "unit.h"
#include "../../src/tuners/ip_frag/ip_frag_policy.h"

#define MIB	(1L << 20)

static void test_actions(void **state)
{
	(void)state;
	assert_string_equal(ipf_verdict_action(IPF_RAISE), "raise");
	assert_string_equal(ipf_verdict_action(IPF_CHANGED),
			    "none: threshold changed since the event");
	assert_string_equal(ipf_verdict_action(IPF_HELD), "none: held by the flood guard");
	assert_string_equal(ipf_verdict_action(IPF_AT_CAP), "none: at the cap");
	assert_string_equal(ipf_verdict_action(IPF_STEP_BACK), "step back");
	assert_string_equal(ipf_verdict_action(IPF_SHRINK), "shrink");
	assert_string_equal(ipf_verdict_action(IPF_IN_USE),
			    "none: reassembly memory still in use");
	/* out of range: nothing done */
	assert_string_equal(ipf_verdict_action((enum ipf_verdict)99), "none");
}

static void test_near_raise(void **state)
{
	long want = -1;

	(void)state;
	assert_int_equal(ipf_near_precheck(4 * MIB, 4 * MIB), IPF_RAISE);
	/* 4 MiB + 1/4; rate 0: + 1/64 */
	assert_int_equal(ipf_near_decide(4 * MIB, 1000, 0, 4, &want), IPF_RAISE);
	assert_int_equal(want, 5 * MIB);
	assert_int_equal(ipf_near_decide(4 * MIB, 1000, 0, 0, &want), IPF_RAISE);
	assert_int_equal(want, 4 * MIB + 65536);
	/* a hold that ended at this very ms holds no more */
	assert_int_equal(ipf_near_decide(4 * MIB, 1000, 1000, 4, &want), IPF_RAISE);
	/* the smallest threshold still grows by at least one byte */
	assert_int_equal(ipf_near_decide(1, 1000, 0, 0, &want), IPF_RAISE);
	assert_int_equal(want, 2);
}

static void test_near_stale_held_cap(void **state)
{
	long want = -1;

	(void)state;
	/* the admin (or another raise) moved it since the event */
	assert_int_equal(ipf_near_precheck(5 * MIB, 4 * MIB), IPF_CHANGED);
	assert_int_equal(ipf_near_precheck(-1, 4 * MIB), IPF_CHANGED);
	/* the flood guard holds it */
	assert_int_equal(ipf_near_decide(4 * MIB, 1000, 1001, 4, &want), IPF_HELD);
	assert_int_equal(want, 0);
	/* at or past the cap: nothing, even while held the hold says so first */
	assert_int_equal(ipf_near_decide(FRAG_CAP, 1000, 0, 4, &want), IPF_AT_CAP);
	assert_int_equal(want, 0);
	assert_int_equal(ipf_near_decide(FRAG_CAP + 1, 1000, 0, 4, &want), IPF_AT_CAP);
	assert_int_equal(ipf_near_decide(FRAG_CAP, 1000, 2000, 4, &want), IPF_HELD);
	/* one below the cap: one step, past it (the library clamps and says so) */
	assert_int_equal(ipf_near_decide(FRAG_CAP - 1, 1000, 0, 4, &want), IPF_RAISE);
	assert_true(want > FRAG_CAP);
}

static void test_fail_share(void **state)
{
	const struct ipf_counters base = { .reqds = 1000, .oks = 200, .fails = 50 };
	struct ipf_counters now = base;
	double share = -1;

	(void)state;
	/* no fragment since the last raise: nothing to add */
	assert_false(ipf_fail_share(&base, &now, &share));
	assert_true(share == -1);
	/* 400 fragments, 100 failures */
	now.reqds = 1400;
	now.fails = 150;
	assert_true(ipf_fail_share(&base, &now, &share));
	assert_true(share == 0.25);
	/* counters that went back (a netns recreated): no fragment, not a wrap */
	now.reqds = 10;
	assert_false(ipf_fail_share(&base, &now, &share));
	/* failures that went back count as none */
	now.reqds = 2000;
	now.fails = 0;
	assert_true(ipf_fail_share(&base, &now, &share));
	assert_true(share == 0);
}

/*
 * The flood guard as ip_frag drives it: threshold i was in force while
 * @fails[i] of every 1000 fragments failed; each raise adds that share
 * with the threshold to the window and asks the guard.  Returns the raise
 * at which it trips, or -1.
 */
static int drive_flood(const long *high, const uint64_t *fails, unsigned int n,
		       unsigned int trips, struct bpftune_guard_verdict *v)
{
	struct ipf_counters base = { 0 }, now = { 0 };
	struct bpftune_corr w;
	unsigned int i;
	double share;

	bpftune_corr_reset(&w);
	for (i = 0; i < n; i++) {
		now.reqds += 1000;
		now.fails += fails[i];
		if (ipf_fail_share(&base, &now, &share))
			bpftune_corr_add(&w, (double)high[i], share);
		base = now;
		if (ipf_flood_trips(&w, high[i], i ? high[i - 1] : 0, trips, 4, v))
			return (int)i;
	}
	return -1;
}

static void test_flood_guard(void **state)
{
	const long high[] = { 4 * MIB, 5 * MIB, 6553600, 8192000, 10240000, 12800000 };
	/* a flood: the more memory, the more half-datagrams time out */
	const uint64_t flood[] = { 100, 200, 300, 400, 500, 600 };
	/* legitimate load: fewer drops as the threshold grows */
	const uint64_t load[] = { 400, 300, 200, 100, 50, 10 };
	const uint64_t flat[] = { 100, 100, 100, 100, 100, 100 };
	struct bpftune_guard_verdict v;

	(void)state;
	/* four settings, r near 1: the last raise (to 8192000) is taken back */
	assert_int_equal(drive_flood(high, flood, 6, 0, &v), 3);
	assert_int_equal(v.back, 6553600);
	assert_int_equal(v.hold_ms, IPF_GUARD_HOLD_MS);
	assert_true(v.r >= IPF_GUARD_MIN_R);
	/* longer each trip, at most 16 minutes */
	assert_int_equal(drive_flood(high, flood, 6, 1, &v), 3);
	assert_int_equal(v.hold_ms, 2 * IPF_GUARD_HOLD_MS);
	assert_int_equal(drive_flood(high, flood, 6, 10, &v), 3);
	assert_int_equal(v.hold_ms, IPF_GUARD_HOLD_MAX_MS);
	/* failures falling or flat: never */
	assert_int_equal(drive_flood(high, load, 6, 0, &v), -1);
	assert_int_equal(drive_flood(high, flat, 6, 0, &v), -1);
	/* three settings are not enough */
	assert_int_equal(drive_flood(high, flood, 3, 0, &v), -1);
}

static void test_flood_guard_back(void **state)
{
	const double x[] = { 4 * MIB, 5 * MIB, 6 * MIB, 7 * MIB };
	const double y[] = { 0.1, 0.2, 0.3, 0.4 };
	struct bpftune_guard_verdict v;
	struct bpftune_corr w;
	unsigned int i;

	(void)state;
	bpftune_corr_reset(&w);
	for (i = 0; i < 4; i++)
		bpftune_corr_add(&w, x[i], y[i]);
	/* the last raise unknown (0: a step back or a shrink came since) */
	assert_true(ipf_flood_trips(&w, 8 * MIB, 0, 0, 4, &v));
	assert_int_equal(v.back, 6 * MIB);
	/* never below the tunable's minimum */
	assert_true(ipf_flood_trips(&w, FRAG_MIN + 1, 0, 0, 4, &v));
	assert_int_equal(v.back, FRAG_MIN);
}

static void test_shrink_due(void **state)
{
	(void)state;
	/* not grown */
	assert_false(ipf_shrink_due(-1, 100000, 0));
	assert_false(ipf_shrink_due(4 * MIB, 10000 + IPF_SHRINK_QUIET_MS - 1, 10000));
	assert_true(ipf_shrink_due(4 * MIB, 10000 + IPF_SHRINK_QUIET_MS, 10000));
	/* a clock that went back is never quiet */
	assert_false(ipf_shrink_due(4 * MIB, 5000, 10000));
}

static void test_shrink(void **state)
{
	struct ipf_shrink_in in = {
		.cur = 8 * MIB, .orig = 4 * MIB, .low = 3 * MIB, .have_low = true,
		.mem = 0, .rate = 4,
	};
	long want = -1;

	(void)state;
	/* one step of 1/4 back */
	assert_int_equal(ipf_shrink_decide(&in, &want), IPF_SHRINK);
	assert_int_equal(want, 6 * MIB);
	/* not below the original */
	in.cur = 4 * MIB + 1000;
	assert_int_equal(ipf_shrink_decide(&in, &want), IPF_SHRINK);
	assert_int_equal(want, 4 * MIB);
	/* not below the low threshold (admin raised it since) */
	in.cur = 8 * MIB;
	in.low = 7 * MIB;
	assert_int_equal(ipf_shrink_decide(&in, &want), IPF_SHRINK);
	assert_int_equal(want, 7 * MIB);
	/* an unread low threshold bounds nothing */
	in.have_low = false;
	assert_int_equal(ipf_shrink_decide(&in, &want), IPF_SHRINK);
	assert_int_equal(want, 6 * MIB);
}

static void test_shrink_in_use_given_back(void **state)
{
	struct ipf_shrink_in in = {
		.cur = 8 * MIB, .orig = 4 * MIB, .low = 3 * MIB, .have_low = true,
		.rate = 4,
	};
	long want;

	(void)state;
	/* 6 MiB would be within its step (1.5 MiB) of what is held */
	in.mem = 6 * MIB - 6 * MIB / 4;
	assert_int_equal(ipf_shrink_decide(&in, &want), IPF_IN_USE);
	assert_int_equal(want, 6 * MIB);
	in.mem--;
	assert_int_equal(ipf_shrink_decide(&in, &want), IPF_SHRINK);
	/* memory unreadable: assume it is in use */
	in.mem = -1;
	assert_int_equal(ipf_shrink_decide(&in, &want), IPF_IN_USE);
	/* back at the original, or below it: nothing more to give back */
	in.mem = 0;
	in.cur = 4 * MIB;
	assert_int_equal(ipf_shrink_decide(&in, &want), IPF_GIVEN_BACK);
	in.cur = 2 * MIB;
	assert_int_equal(ipf_shrink_decide(&in, &want), IPF_GIVEN_BACK);
	/* the low threshold at or above the threshold: no step possible */
	in.cur = 8 * MIB;
	in.low = 8 * MIB;
	assert_int_equal(ipf_shrink_decide(&in, &want), IPF_GIVEN_BACK);
}

int unit_run_ip_frag_policy(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_actions),
		cmocka_unit_test(test_near_raise),
		cmocka_unit_test(test_near_stale_held_cap),
		cmocka_unit_test(test_fail_share),
		cmocka_unit_test(test_flood_guard),
		cmocka_unit_test(test_flood_guard_back),
		cmocka_unit_test(test_shrink_due),
		cmocka_unit_test(test_shrink),
		cmocka_unit_test(test_shrink_in_use_given_back),
	};

	return cmocka_run_group_tests_name("ip_frag_policy", tests, NULL, NULL);
}
