// SPDX-License-Identifier: GPL-2.0-only
/*
 * The tcp_conn tuner's telemetry: its decision policies and their typed
 * inputs (bbr-on-loss, epsilon-greedy).  Linked into tcp_conn_tuner.so
 * and into the docs generator (make docs).
 */
#include <bpftune/telemetry.h>

#include "tuner_tables.h"

#define IN_INT(n, u, d)		BPFTUNE_COL_INT(n, GAUGE, u, d)
#define IN_REAL(n, u, d)	BPFTUNE_COL_FLOAT(n, GAUGE, u, d)
#define IN_TEXT(n, d)		BPFTUNE_COL_LABEL(n, d)

static const struct bpftune_col_desc loss_inputs[] = {
	IN_INT("retrans", "segments", "data segments the connection retransmitted"),
	IN_INT("segs_out", "segments", "data segments it sent"),
	IN_REAL("loss_pct", "%", "retrans of segs_out"),
	IN_REAL("threshold_pct", "%", "the loss that moves a connection to bbr"),
	IN_INT("srtt_us", "us", "its smoothed RTT"),
	IN_TEXT("cc", "its congestion control before"),
};

static const struct bpftune_col_desc choice_inputs[] = {
	IN_TEXT("choice", "how the algorithm was placed: greedy, explore or default"),
	IN_INT("outcomes", "connections", "outcomes learnt for the destination so far"),
	IN_TEXT("costs", "per algorithm 'cost[name]=cost/tries' or 'untried' (the list is configurable)"),
	IN_REAL("cost", NULL, "the learnt cost of the algorithm used; NULL if untried"),
	IN_TEXT("cc", "the algorithm the connection used"),
	IN_INT("srtt_us", "us", "outcome: smoothed RTT at close"),
	IN_INT("min_rtt_us", "us", "outcome: minimum RTT"),
	IN_INT("delivery_rate", "bytes/s", "outcome: delivery rate"),
	IN_INT("bytes_acked", "bytes", "outcome: bytes acknowledged"),
	IN_INT("retrans", "segments", "outcome: segments retransmitted"),
	IN_INT("lossy", NULL, "1 if it was moved to bbr for loss midway"),
	IN_INT("ecn", NULL, "1 if it negotiated ECN"),
};

static const struct bpftune_policy_desc policies[] = {
	BPFTUNE_POLICY("bbr-on-loss",
		       "a connection retransmitted more than the threshold: move it to bbr",
		       loss_inputs),
	BPFTUNE_POLICY("epsilon-greedy",
		       "per destination, the algorithm of least learnt cost (RTT and rate), exploring with probability epsilon",
		       choice_inputs),
};

const struct bpftune_telemetry_desc tcp_conn_telemetry = {
	.policies = policies,
	.num_policies = BPFTUNE_TELEMETRY_ARRAY_SIZE(policies),
};
