// SPDX-License-Identifier: GPL-2.0-only
/*
 * net_buffer's decisions (src/tuners/net_buffer/net_buffer_policy.c):
 * backlog drops, flow limiting, budget and time squeezes, the CPU wait
 * guard, high_order_alloc_disable and the shrink when quiet.  Rate 4: a
 * step is 1/4.
 */
#include <string.h>
#include <linux/types.h>

#include "unit.h"
#include "../../src/tuners/net_buffer/net_buffer_policy.h"
#include "../../src/tuners/net_buffer/net_buffer_tuner.h"

static void test_actions(void **state)
{
	(void)state;
	assert_string_equal(nb_verdict_action(NBV_RAISE), "raise");
	assert_string_equal(nb_verdict_action(NBV_AT_CAP), "none: at the cap");
	assert_string_equal(nb_verdict_action(NBV_NO_DROP),
			    "none: no drop counted since the last look");
	assert_string_equal(nb_verdict_action(NBV_CHANGED),
			    "none: limits changed since the event");
	assert_string_equal(nb_verdict_action(NBV_NO_SQUEEZE),
			    "none: the kernel counted no squeeze since the last look");
	assert_string_equal(nb_verdict_action(NBV_HELD), "none: held by the wait guard");
	assert_string_equal(nb_verdict_action(NBV_ONE_POLL),
			    "none: a single NAPI poll outlasted the limit; a longer one would not help");
	assert_string_equal(nb_verdict_action(NBV_STEP_BACK), "step back");
	assert_string_equal(nb_verdict_action(NBV_ENABLE), "enable");
	assert_string_equal(nb_verdict_action(NBV_LOWMEM),
			    "none: TCP memory under pressure (low-memory mode)");
	assert_string_equal(nb_verdict_action(NBV_SET), "set");
	assert_string_equal(nb_verdict_action(NBV_SHRINK), "shrink");
	assert_string_equal(nb_verdict_action((enum nb_verdict)99), "none");
}

static void test_backlog_drops(void **state)
{
	const uint64_t before[4] = { 10, 20, 30, 40 };
	uint64_t now[4] = { 10, 25, 30, 47 };
	uint64_t mask = 99;

	(void)state;
	assert_int_equal(nb_backlog_drops(now, before, 4, &mask), 12);
	assert_int_equal(mask, 0xa);	/* CPUs 1 and 3 */
	/* nothing new */
	assert_int_equal(nb_backlog_drops(before, before, 4, &mask), 0);
	assert_int_equal(mask, 0);
	/* a counter that went back (CPU offlined and back) counts none */
	now[1] = 5;
	assert_int_equal(nb_backlog_drops(now, before, 4, &mask), 7);
	assert_int_equal(mask, 0x8);
	/* only the first @n CPUs */
	assert_int_equal(nb_backlog_drops(now, before, 2, &mask), 0);
}

static void test_backlog_decide(void **state)
{
	long want = -1;

	(void)state;
	assert_int_equal(nb_backlog_decide(0, 1000, 4, &want), NBV_NO_DROP);
	assert_int_equal(want, 0);
	/* the default 1000 + 1/4; rate 0: + 1/64 */
	assert_int_equal(nb_backlog_decide(5, 1000, 4, &want), NBV_RAISE);
	assert_int_equal(want, 1250);
	assert_int_equal(nb_backlog_decide(5, 1000, 0, &want), NBV_RAISE);
	assert_int_equal(want, 1015);
	/* at or past the cap: nothing */
	assert_int_equal(nb_backlog_decide(5, NB_BACKLOG_CAP, 4, &want), NBV_AT_CAP);
	assert_int_equal(want, 0);
	assert_int_equal(nb_backlog_decide(5, NB_BACKLOG_CAP + 1, 4, &want), NBV_AT_CAP);
	/* just below it: a whole step (the library clamps and says so) */
	assert_int_equal(nb_backlog_decide(5, NB_BACKLOG_CAP - 1, 4, &want), NBV_RAISE);
	assert_true(want > NB_BACKLOG_CAP);
}

static void test_flow_limit(void **state)
{
	long want = -1;

	(void)state;
	/* CPUs 0 and 2 dropped, 4 CPUs present */
	assert_int_equal(nb_flow_limit_decide(0, 0x5, 0xf, &want), NBV_SET);
	assert_int_equal(want, 0x5);
	/* added to what is there */
	assert_int_equal(nb_flow_limit_decide(0x2, 0x5, 0xf, &want), NBV_SET);
	assert_int_equal(want, 0x7);
	/* they have it already */
	assert_int_equal(nb_flow_limit_decide(0x7, 0x5, 0xf, &want), NBV_DONE);
	assert_int_equal(want, 0x7);
	/* a CPU that is not present is never set */
	assert_int_equal(nb_flow_limit_decide(0, 0x80, 0xf, &want), NBV_DONE);
	assert_int_equal(want, 0);
}

static const struct nb_squeeze_in base_in = {
	.tunable = NB_BUDGET, .ev_budget = 300, .ev_usecs = 8000,
	.budget = 300, .usecs = 8000, .squeezes = 3, .polls = 10,
	.round_ns = 2000000, .now_ms = 100000, .hold_until_ms = 0, .rate = 4,
};

static void test_squeeze_raise(void **state)
{
	struct nb_squeeze_in in = base_in;
	long want = -1;

	(void)state;
	assert_int_equal(nb_squeeze_decide(&in, &want), NBV_RAISE);
	assert_int_equal(want, 375);
	in.tunable = NB_BUDGET_USECS;
	assert_int_equal(nb_squeeze_decide(&in, &want), NBV_RAISE);
	assert_int_equal(want, 10000);
	/* a hold that ends now holds no more */
	in.hold_until_ms = in.now_ms;
	assert_int_equal(nb_squeeze_decide(&in, &want), NBV_RAISE);
}

static void test_squeeze_stale(void **state)
{
	struct nb_squeeze_in in = base_in;
	long want = -1;

	(void)state;
	/* the limits moved since the event: first, whatever else holds */
	in.budget = 375;
	in.squeezes = 0;
	assert_int_equal(nb_squeeze_decide(&in, &want), NBV_CHANGED);
	assert_int_equal(want, 0);
	in = base_in;
	in.ev_usecs = 2000;
	assert_int_equal(nb_squeeze_decide(&in, &want), NBV_CHANGED);
	/* the kernel counted none since the last look */
	in = base_in;
	in.squeezes = 0;
	assert_int_equal(nb_squeeze_decide(&in, &want), NBV_NO_SQUEEZE);
}

static void test_squeeze_held_cap_poll(void **state)
{
	struct nb_squeeze_in in = base_in;
	long want = -1;

	(void)state;
	in.hold_until_ms = in.now_ms + 1;
	assert_int_equal(nb_squeeze_decide(&in, &want), NBV_HELD);
	assert_int_equal(want, 0);
	/* each knob at its own cap */
	in = base_in;
	in.budget = in.ev_budget = NB_BUDGET_CAP;
	assert_int_equal(nb_squeeze_decide(&in, &want), NBV_AT_CAP);
	in.tunable = NB_BUDGET_USECS;
	assert_int_equal(nb_squeeze_decide(&in, &want), NBV_RAISE);
	in.usecs = in.ev_usecs = NB_USECS_CAP;
	assert_int_equal(nb_squeeze_decide(&in, &want), NBV_AT_CAP);
	/* one NAPI poll longer than the whole time limit */
	in = base_in;
	in.tunable = NB_BUDGET_USECS;
	in.polls = 1;
	in.round_ns = 9000000;
	assert_int_equal(nb_squeeze_decide(&in, &want), NBV_ONE_POLL);
	assert_int_equal(want, 0);
	/* two polls, or one within the limit: more time would help */
	in.polls = 2;
	assert_int_equal(nb_squeeze_decide(&in, &want), NBV_RAISE);
	in.polls = 1;
	in.round_ns = 8000000;
	assert_int_equal(nb_squeeze_decide(&in, &want), NBV_RAISE);
	/* a packet budget squeeze is not about time */
	in.tunable = NB_BUDGET;
	in.round_ns = 9000000;
	assert_int_equal(nb_squeeze_decide(&in, &want), NBV_RAISE);
}

static void rising(struct bpftune_corr *w, const double *x)
{
	const double y[] = { 80, 100, 120, 150 };
	unsigned int i;

	bpftune_corr_reset(w);
	for (i = 0; i < 4; i++)
		bpftune_corr_add(w, x[i], y[i]);
}

static void test_wait_guard(void **state)
{
	const double budget[] = { 300, 375, 468, 585 };
	const double usecs[] = { 8000, 10000, 12500, 15625 };
	const double flat[] = { 100, 100, 100 };
	struct bpftune_guard_verdict v;
	struct bpftune_corr w;
	unsigned int i;

	(void)state;
	rising(&w, budget);
	assert_true(nb_wait_guard_trips(&w, NB_BUDGET, 731, 585, 0, 4, &v));
	assert_int_equal(v.back, 585);
	assert_int_equal(v.hold_ms, NET_BUFFER_GUARD_HOLD_MS);
	assert_true(nb_wait_guard_trips(&w, NB_BUDGET, 731, 585, 5, 4, &v));
	assert_int_equal(v.hold_ms, NET_BUFFER_GUARD_HOLD_MAX_MS);
	/* the last raise unknown: one step back, never below the minimum */
	assert_true(nb_wait_guard_trips(&w, NB_BUDGET, 9, -1, 0, 4, &v));
	assert_int_equal(v.back, NB_BUDGET_MIN);
	rising(&w, usecs);
	assert_true(nb_wait_guard_trips(&w, NB_BUDGET_USECS, 101, -1, 0, 4, &v));
	assert_int_equal(v.back, NB_USECS_MIN);
	/* three settings, or wait that did not rise: no trip */
	bpftune_corr_reset(&w);
	for (i = 0; i < 3; i++)
		bpftune_corr_add(&w, budget[i], flat[i]);
	assert_false(nb_wait_guard_trips(&w, NB_BUDGET, 731, 585, 0, 4, &v));
	bpftune_corr_add(&w, budget[3], flat[0]);
	assert_false(nb_wait_guard_trips(&w, NB_BUDGET, 731, 585, 0, 4, &v));
}

static void test_high_order(void **state)
{
	(void)state;
	assert_int_equal(nb_high_order_decide(true, 1, false), NBV_ENABLE);
	assert_int_equal(nb_high_order_decide(true, 1, true), NBV_LOWMEM);
	/* not set, or unreadable: never looked at again */
	assert_int_equal(nb_high_order_decide(true, 0, false), NBV_DONE);
	assert_int_equal(nb_high_order_decide(true, 0, true), NBV_DONE);
	assert_int_equal(nb_high_order_decide(false, 1, false), NBV_DONE);
}

static void test_shrink(void **state)
{
	long want = -1;

	(void)state;
	assert_false(nb_shrink_due(-1, 100000, 0));
	assert_false(nb_shrink_due(300, 10000 + NB_SHRINK_QUIET_MS - 1, 10000));
	assert_true(nb_shrink_due(300, 10000 + NB_SHRINK_QUIET_MS, 10000));
	assert_false(nb_shrink_due(300, 5000, 10000));
	/* one step of 1/4 back, not below the original */
	assert_int_equal(nb_shrink_decide(NB_BUDGET, 600, 300, 4, &want), NBV_SHRINK);
	assert_int_equal(want, 450);
	assert_int_equal(nb_shrink_decide(NB_MAX_BACKLOG, 1100, 1000, 4, &want), NBV_SHRINK);
	assert_int_equal(want, 1000);
	/* at or below the original (the admin lowered it): nothing to give */
	assert_int_equal(nb_shrink_decide(NB_BUDGET_USECS, 8000, 8000, 4, &want), NBV_DONE);
	assert_int_equal(nb_shrink_decide(NB_BUDGET_USECS, 4000, 8000, 4, &want), NBV_DONE);
	/* the flow-limit bits go back at once */
	assert_int_equal(nb_shrink_decide(NB_FLOW_LIMIT, 0x5, 0, 4, &want), NBV_SHRINK);
	assert_int_equal(want, 0);
	assert_int_equal(nb_shrink_decide(NB_FLOW_LIMIT, 0x5, 0x5, 4, &want), NBV_DONE);
}

int unit_run_net_buffer_policy(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_actions),
		cmocka_unit_test(test_backlog_drops),
		cmocka_unit_test(test_backlog_decide),
		cmocka_unit_test(test_flow_limit),
		cmocka_unit_test(test_squeeze_raise),
		cmocka_unit_test(test_squeeze_stale),
		cmocka_unit_test(test_squeeze_held_cap_poll),
		cmocka_unit_test(test_wait_guard),
		cmocka_unit_test(test_high_order),
		cmocka_unit_test(test_shrink),
	};

	return cmocka_run_group_tests_name("net_buffer_policy", tests, NULL, NULL);
}
