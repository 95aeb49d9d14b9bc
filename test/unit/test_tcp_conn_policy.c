// SPDX-License-Identifier: GPL-2.0-only
/*
 * tcp_conn's decisions (src/tuners/tcp_conn/tcp_conn_policy.c): the cost an
 * outcome teaches, and the greedy choice among the algorithms.
 */
#include <string.h>

#include "unit.h"
#include "../../src/tuners/tcp_conn/tcp_conn_policy.h"

enum { CUBIC, BBR, HTCP, DCTCP };

static void test_first_outcome_is_free(void **state)
{
	struct tcp_conn_costs c;

	(void)state;
	memset(&c, 0, sizeof(c));
	assert_true(tcp_conn_learn(&c, CUBIC, 1000, 1000000) == 0);
	assert_int_equal(c.best_rtt_us, 1000);
	assert_int_equal(c.best_rate, 1000000);
	assert_int_equal(c.n[CUBIC], 1);
	assert_int_equal(c.outcomes, 1);
}

static void test_cost_is_rtt_above_plus_rate_below(void **state)
{
	struct tcp_conn_costs c;

	(void)state;
	memset(&c, 0, sizeof(c));
	tcp_conn_learn(&c, CUBIC, 1000, 1000000);
	/* RTT 50 % above the best, rate 25 % below: 0.75 */
	assert_float_equal(tcp_conn_learn(&c, BBR, 1500, 750000), 0.75, 1e-9);
	assert_float_equal(c.cost[BBR], 0.75, 1e-9);
	/* a better outcome moves the bests first: it costs nothing */
	assert_true(tcp_conn_learn(&c, HTCP, 500, 2000000) == 0);
	assert_int_equal(c.best_rtt_us, 500);
	assert_int_equal(c.best_rate, 2000000);
	/* RTT far above the best counts no more than the cap; no rate at all: 1 */
	assert_float_equal(tcp_conn_learn(&c, CUBIC, 500000, 0),
			   TCP_CONN_RTT_COST_MAX + 1, 1e-9);
	/* an RTT of 0 (not measured) is no new best and costs nothing */
	assert_float_equal(tcp_conn_learn(&c, HTCP, 0, 2000000), 0, 1e-9);
	assert_int_equal(c.best_rtt_us, 500);
	assert_int_equal(c.outcomes, 5);
}

static void test_cost_is_an_ewma(void **state)
{
	struct tcp_conn_costs c;

	(void)state;
	memset(&c, 0, sizeof(c));
	tcp_conn_learn(&c, CUBIC, 1000, 1000000);
	tcp_conn_learn(&c, BBR, 2000, 1000000);		/* 1.0 */
	assert_float_equal(c.cost[BBR], 1.0, 1e-9);
	tcp_conn_learn(&c, BBR, 1000, 1000000);		/* 0: 1 + 0.25 * (0 - 1) */
	assert_float_equal(c.cost[BBR], 1.0 - TCP_CONN_EWMA_WEIGHT, 1e-9);
	assert_int_equal(c.n[BBR], 2);
}

static void test_learn_out_of_range(void **state)
{
	struct tcp_conn_costs c;

	(void)state;
	memset(&c, 0, sizeof(c));
	assert_true(tcp_conn_learn(&c, -1, 1000, 1000) < 0);
	assert_true(tcp_conn_learn(&c, TCP_CONN_CC_MAX, 1000, 1000) < 0);
	assert_int_equal(c.outcomes, 0);
	assert_int_equal(c.best_rtt_us, 0);
}

static void test_greedy(void **state)
{
	struct tcp_conn_costs c;

	(void)state;
	memset(&c, 0, sizeof(c));
	/* nothing tried: the first one */
	assert_int_equal(tcp_conn_greedy(&c, 3, -1, false), CUBIC);
	/* cubic tried at a cost: an untried one is free and goes first */
	c.n[CUBIC] = 3;
	c.cost[CUBIC] = 0.5;
	assert_int_equal(tcp_conn_greedy(&c, 3, -1, false), BBR);
	/* even against a tried one that cost nothing */
	c.cost[CUBIC] = 0;
	assert_int_equal(tcp_conn_greedy(&c, 2, -1, false), BBR);
	/* all tried: the cheapest */
	c.n[BBR] = 2;
	c.cost[BBR] = 0.2;
	c.n[HTCP] = 1;
	c.cost[HTCP] = 0.1;
	c.cost[CUBIC] = 0.3;
	assert_int_equal(tcp_conn_greedy(&c, 3, -1, false), HTCP);
	/* only the first num_cc count */
	assert_int_equal(tcp_conn_greedy(&c, 2, -1, false), BBR);
	assert_int_equal(tcp_conn_greedy(&c, 0, -1, false), -1);
}

static void test_greedy_dctcp_needs_ecn(void **state)
{
	struct tcp_conn_costs c;

	(void)state;
	memset(&c, 0, sizeof(c));
	c.n[CUBIC] = c.n[BBR] = c.n[HTCP] = 1;
	c.cost[CUBIC] = c.cost[BBR] = c.cost[HTCP] = 0.5;
	/* dctcp untried, so free: taken only where ECN was negotiated */
	assert_int_equal(tcp_conn_greedy(&c, 4, DCTCP, true), DCTCP);
	assert_int_equal(tcp_conn_greedy(&c, 4, DCTCP, false), CUBIC);
	/* dctcp the only algorithm, without ECN: no candidate */
	assert_int_equal(tcp_conn_greedy(&c, 1, 0, false), -1);
}

static void test_propensity(void **state)
{
	const double e = 0.05;
	struct tcp_conn_choice_ctx c;

	(void)state;
	/* the greedy one, reached greedily or by an exploration's draw */
	c = (struct tcp_conn_choice_ctx){ TCP_CONN_GREEDY, 1, 1, 3 };
	assert_float_equal(tcp_conn_propensity(&c, e), 0.95 + 0.05 / 3, 1e-12);
	c.how = TCP_CONN_EXPLORE;
	assert_float_equal(tcp_conn_propensity(&c, e), 0.95 + 0.05 / 3, 1e-12);
	/* another one: only exploration takes it */
	c.chosen = 2;
	assert_float_equal(tcp_conn_propensity(&c, e), 0.05 / 3, 1e-12);
	/* no greedy one yet: an exploration's draw, or none */
	c = (struct tcp_conn_choice_ctx){ TCP_CONN_EXPLORE, 0, -1, 2 };
	assert_float_equal(tcp_conn_propensity(&c, e), 0.025, 1e-12);
	c = (struct tcp_conn_choice_ctx){ TCP_CONN_DEFAULT, -1, -1, 2 };
	assert_float_equal(tcp_conn_propensity(&c, e), 0.95, 1e-12);
	/* none although a greedy one existed: setting it failed, unknown */
	c.greedy = 0;
	assert_float_equal(tcp_conn_propensity(&c, e), 0, 0);
	/* nothing drawn: too few connections, one candidate, the model */
	c = (struct tcp_conn_choice_ctx){ TCP_CONN_DEFAULT, -1, -1, 0 };
	assert_float_equal(tcp_conn_propensity(&c, e), 1, 0);
	c = (struct tcp_conn_choice_ctx){ TCP_CONN_GREEDY, 0, 0, 1 };
	assert_float_equal(tcp_conn_propensity(&c, e), 1, 0);
	c = (struct tcp_conn_choice_ctx){ TCP_CONN_MODEL, 2, 0, 3 };
	assert_float_equal(tcp_conn_propensity(&c, e), 1, 0);
	/* the propensities of every action of a state sum to 1 */
	{
		double sum = 0;
		int a;

		for (a = -1; a < 3; a++) {
			c = (struct tcp_conn_choice_ctx){ TCP_CONN_EXPLORE, a, 1, 3 };
			sum += a < 0 ? 0 : tcp_conn_propensity(&c, e);
		}
		assert_float_equal(sum, 1, 1e-12);
		sum = 0;
		for (a = -1; a < 3; a++) {
			c = (struct tcp_conn_choice_ctx){ TCP_CONN_EXPLORE, a, -1, 3 };
			sum += tcp_conn_propensity(&c, e);
		}
		assert_float_equal(sum, 1, 1e-12);
	}
}

int unit_run_tcp_conn_policy(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_outcome_is_free),
		cmocka_unit_test(test_cost_is_rtt_above_plus_rate_below),
		cmocka_unit_test(test_cost_is_an_ewma),
		cmocka_unit_test(test_learn_out_of_range),
		cmocka_unit_test(test_greedy),
		cmocka_unit_test(test_greedy_dctcp_needs_ecn),
		cmocka_unit_test(test_propensity),
	};

	return cmocka_run_group_tests_name("tcp_conn_policy", tests, NULL, NULL);
}
