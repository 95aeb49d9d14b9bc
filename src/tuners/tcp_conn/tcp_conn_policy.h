/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tcp_conn's decisions as pure functions: what an outcome teaches a
 * destination, and which algorithm is its cheapest.  No I/O and no
 * library state: tcp_conn_tuner.c keeps one struct tcp_conn_costs per
 * destination, feeds it the connections the BPF side reports and writes
 * the verdict back to the BPF side.  Unit-tested in
 * test/unit/test_tcp_conn_policy.c.
 */
#ifndef BPFTUNE_TCP_CONN_POLICY_H
#define BPFTUNE_TCP_CONN_POLICY_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/types.h>

#include "tcp_conn_tuner.h"

#define TCP_CONN_RTT_COST_MAX	4.0	/* RTT 5x the best costs no more than that */
#define TCP_CONN_EWMA_WEIGHT	0.25

/* What one destination has taught so far. */
struct tcp_conn_costs {
	uint32_t best_rtt_us;		/* lowest smoothed RTT seen */
	uint64_t best_rate;		/* highest delivery rate seen */
	double cost[TCP_CONN_CC_MAX];	/* EWMA per algorithm index */
	unsigned int n[TCP_CONN_CC_MAX];	/* outcomes per algorithm */
	uint64_t outcomes;		/* all of them */
};

/*
 * An outcome of algorithm @cc (0 .. TCP_CONN_CC_MAX - 1): a connection
 * that ended with smoothed RTT @srtt_us and delivery rate @rate.  Its cost
 * is how far the RTT was above the best seen to the destination (relative,
 * at most TCP_CONN_RTT_COST_MAX) plus how far the rate was below the best
 * (relative, 0..1); smoothed against smoothed, since a minimum RTT would
 * make every queue look bad.  The best values move first, so the first
 * outcome costs 0.  Folded into the algorithm's EWMA; returns the
 * outcome's own cost, or -1 for an @cc out of range (nothing learned).
 */
double tcp_conn_learn(struct tcp_conn_costs *c, int cc, uint32_t srtt_us,
		      uint64_t rate);

/*
 * The cheapest of algorithms 0 .. @num_cc - 1 for the destination; an
 * untried one counts as free (so each gets a turn) and wins a tie with a
 * tried one.  @dctcp (its index, or -1) is a candidate only if @ecn (the
 * destination negotiated ECN).  -1 if there is no candidate.
 */
int tcp_conn_greedy(const struct tcp_conn_costs *c, unsigned int num_cc,
		    int dctcp, bool ecn);

/*
 * What the sockops program knew when it chose a connection's algorithm
 * (struct tcp_conn_done): how (enum tcp_conn_how), the algorithm it set
 * (@chosen, -1: none, the netns default), the destination's greedy one
 * then (@greedy, -1: none yet, or dctcp for a connection without ECN)
 * and how many algorithms exploration drew from (@candidates; 0 before
 * the destination had enough connections to choose).
 */
struct tcp_conn_choice_ctx {
	unsigned int how;
	int chosen, greedy;
	unsigned int candidates;
};

/*
 * The probability that the epsilon-greedy choice took the action it took:
 * with probability @epsilon one of the candidates uniformly, else the
 * greedy one (none if there is none).  So an algorithm has epsilon / K,
 * plus 1 - epsilon if it is the greedy one, however it was reached (an
 * exploration may draw the greedy one); "none" has 1 - epsilon when there
 * was no greedy one.  1 where nothing was drawn (the model's pick, too few
 * connections yet, a single candidate); 0 where the program fell back
 * for a reason of its own (setting the algorithm failed): unknown.
 */
double tcp_conn_propensity(const struct tcp_conn_choice_ctx *c, double epsilon);

#endif
