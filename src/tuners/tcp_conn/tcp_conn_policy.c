// SPDX-License-Identifier: GPL-2.0-only
/* tcp_conn's decisions (tcp_conn_policy.h): pure, unit-tested. */
#include "tcp_conn_policy.h"

double tcp_conn_learn(struct tcp_conn_costs *c, int cc, uint32_t srtt_us,
		      uint64_t rate)
{
	double rtt_cost = 0, rate_cost = 0, cost;

	if (cc < 0 || cc >= TCP_CONN_CC_MAX)
		return -1;
	if (srtt_us && (!c->best_rtt_us || srtt_us < c->best_rtt_us))
		c->best_rtt_us = srtt_us;
	if (rate > c->best_rate)
		c->best_rate = rate;
	if (c->best_rtt_us && srtt_us > c->best_rtt_us) {
		rtt_cost = (double)(srtt_us - c->best_rtt_us) / c->best_rtt_us;
		if (rtt_cost > TCP_CONN_RTT_COST_MAX)
			rtt_cost = TCP_CONN_RTT_COST_MAX;
	}
	if (c->best_rate)
		rate_cost = (double)(c->best_rate - rate) / c->best_rate;
	cost = rtt_cost + rate_cost;
	c->cost[cc] = c->n[cc] ?
		c->cost[cc] + TCP_CONN_EWMA_WEIGHT * (cost - c->cost[cc]) : cost;
	c->n[cc]++;
	c->outcomes++;
	return cost;
}

int tcp_conn_greedy(const struct tcp_conn_costs *c, unsigned int num_cc,
		    int dctcp, bool ecn)
{
	double best = 0;
	int i, pick = -1;

	if (num_cc > TCP_CONN_CC_MAX)
		num_cc = TCP_CONN_CC_MAX;
	for (i = 0; i < (int)num_cc; i++) {
		double cost = c->n[i] ? c->cost[i] : 0;

		if (i == dctcp && !ecn)
			continue;
		if (pick < 0 || cost < best ||
		    (cost == best && !c->n[i] && c->n[pick])) {
			pick = i;
			best = cost;
		}
	}
	return pick;
}

double tcp_conn_propensity(const struct tcp_conn_choice_ctx *c, double epsilon)
{
	double k = c->candidates;

	if (c->how == TCP_CONN_MODEL || c->candidates <= 1 || epsilon <= 0)
		return 1.0;
	if (epsilon > 1)
		return 0;
	if (c->chosen < 0)
		return c->greedy < 0 ? 1.0 - epsilon : 0;
	return epsilon / k + (c->chosen == c->greedy ? 1.0 - epsilon : 0);
}
