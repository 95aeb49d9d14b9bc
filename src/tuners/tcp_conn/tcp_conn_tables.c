// SPDX-License-Identifier: GPL-2.0-only
/*
 * The tcp_conn tuner's telemetry: a row per connection the sockops
 * program reported (tcp_conn_outcomes: how it got its congestion control
 * and how it did, the training data of the epsilon-greedy choice), a row
 * per connection moved to bbr on loss (tcp_conn_lossy), and its decision
 * policies with their typed inputs (bbr-on-loss, epsilon-greedy).  Written
 * from tcp_conn_tuner.c; linked into tcp_conn_tuner.so and into the docs
 * generator (make docs).
 */
#include <bpftune/telemetry.h>

#include "tcp_conn_tuner.h"
#include "tcp_conn_tables.h"

#define DEST_DESC	"destination: the remote address under its prefix mask (/32 for IPv4, /64 for IPv6)"

static const struct bpftune_col_desc outcome_cols[] = {
	BPFTUNE_COL_INT("family", LABEL, NULL, "4 or 6"),
	BPFTUNE_COL_LABEL("dest", DEST_DESC),
	BPFTUNE_COL_LABEL("choice", "how it got its congestion control: default (left to the netns default), greedy (the destination's cheapest), explore (at random) or model (the learned model's pick)"),
	BPFTUNE_COL_LABEL("cc", "the congestion control it ended with"),
	BPFTUNE_COL_INT("srtt_us", DISTRIBUTION, "us", "smoothed RTT at close"),
	BPFTUNE_COL_INT("min_rtt_us", DISTRIBUTION, "us", "its windowed minimum RTT (the kernel's rtt_min)"),
	BPFTUNE_COL_INT("delivery_rate", DISTRIBUTION, "bytes/s", "its last delivery rate sample"),
	BPFTUNE_COL_INT("bytes_acked", DISTRIBUTION, "bytes", "bytes the peer acknowledged"),
	BPFTUNE_COL_INT("segs_out", DISTRIBUTION, "segments", "data segments sent"),
	BPFTUNE_COL_INT("retrans", DISTRIBUTION, "segments", "segments retransmitted"),
	BPFTUNE_COL_INT("duration_us", DISTRIBUTION, "us", "from established to close"),
	BPFTUNE_COL_INT("ecn", LABEL, NULL, "1 if ECN was negotiated (dctcp is a candidate only then)"),
	BPFTUNE_COL_INT("lossy", LABEL, NULL, "1 if it was moved to bbr on loss meanwhile"),
	BPFTUNE_COL_FLOAT("cost", DISTRIBUTION, NULL,
			  "what it taught its algorithm's cost to the destination: srtt above the best seen (relative, at most 4) plus delivery rate below the best; NULL when it taught nothing (lossy, under 64 KiB acknowledged, or an algorithm not among the candidates)"),
	BPFTUNE_COL_INT("outcomes", GAUGE, "connections", "outcomes the destination has taught so far, this one included when its cost is not NULL"),
};

static const struct bpftune_col_desc lossy_cols[] = {
	BPFTUNE_COL_INT("family", LABEL, NULL, "4 or 6"),
	BPFTUNE_COL_LABEL("dest", DEST_DESC),
	BPFTUNE_COL_LABEL("laddr", "local address"),
	BPFTUNE_COL_INT("lport", LABEL, NULL, "local port"),
	BPFTUNE_COL_INT("rport", LABEL, NULL, "remote port"),
	BPFTUNE_COL_LABEL("from_cc", "the congestion control it had (it has bbr now)"),
	BPFTUNE_COL_INT("segs_out", DISTRIBUTION, "segments", "data segments sent so far"),
	BPFTUNE_COL_INT("retrans", DISTRIBUTION, "segments", "segments retransmitted so far"),
	BPFTUNE_COL_FLOAT("loss_pct", DISTRIBUTION, "%", "retrans / segs_out; more than 1 % (after 100 segments) makes a connection lossy"),
	BPFTUNE_COL_INT("srtt_us", DISTRIBUTION, "us", "smoothed RTT then"),
};

static const struct bpftune_table_desc tables[] = {
	[TCP_CONN_TABLE_OUTCOMES] = {
		.name = "tcp_conn_outcomes",
		.description = "One row per connection the tcp_conn tuner heard the end of: every connection it chose the congestion control of, and a sample of those left to the default that carried 64 KiB or more; what it had and how it did.  The rows the per-destination cost is learned from.",
		.flags = BPFTUNE_TABLE_PER_NETNS,
		.cols = outcome_cols,
		.num_cols = BPFTUNE_TELEMETRY_ARRAY_SIZE(outcome_cols),
	},
	[TCP_CONN_TABLE_LOSSY] = {
		.name = "tcp_conn_lossy",
		.description = "One row per connection the tcp_conn tuner moved to bbr because it retransmitted more than 1 % of its data segments (in an observe-only run: would have moved; it kept its algorithm).",
		.flags = BPFTUNE_TABLE_PER_NETNS,
		.cols = lossy_cols,
		.num_cols = BPFTUNE_TELEMETRY_ARRAY_SIZE(lossy_cols),
	},
};

static const struct bpftune_col_desc loss_inputs[] = {
	BPFTUNE_INPUT_INT("retrans", "segments", "data segments the connection retransmitted"),
	BPFTUNE_INPUT_INT("segs_out", "segments", "data segments it sent"),
	BPFTUNE_INPUT_REAL("loss_pct", "%", "retrans of segs_out"),
	BPFTUNE_INPUT_REAL("threshold_pct", "%", "the loss that moves a connection to bbr"),
	BPFTUNE_INPUT_INT("srtt_us", "us", "its smoothed RTT"),
	BPFTUNE_INPUT_TEXT("cc", "its congestion control before"),
};

static const struct bpftune_col_desc choice_inputs[] = {
	BPFTUNE_INPUT_TEXT("choice", "how the algorithm was placed: greedy, explore, model or default"),
	BPFTUNE_INPUT_INT("outcomes", "connections", "outcomes learnt for the destination so far"),
	BPFTUNE_INPUT_TEXT("costs", "per algorithm 'cost[name]=cost/tries' or 'untried' (the list is configurable)"),
	BPFTUNE_INPUT_REAL("cost", NULL, "the learnt cost of the algorithm used; NULL if untried"),
	BPFTUNE_INPUT_TEXT("cc", "the algorithm the connection used"),
	BPFTUNE_INPUT_INT("srtt_us", "us", "outcome: smoothed RTT at close"),
	BPFTUNE_INPUT_INT("min_rtt_us", "us", "outcome: minimum RTT"),
	BPFTUNE_INPUT_INT("delivery_rate", "bytes/s", "outcome: delivery rate"),
	BPFTUNE_INPUT_INT("bytes_acked", "bytes", "outcome: bytes acknowledged"),
	BPFTUNE_INPUT_INT("retrans", "segments", "outcome: segments retransmitted"),
	BPFTUNE_INPUT_INT("lossy", NULL, "1 if it was moved to bbr for loss midway"),
	BPFTUNE_INPUT_INT("ecn", NULL, "1 if it negotiated ECN"),
};

/* ---- outcomes -------------------------------------------------------------- */

/* moved to bbr: the netns's retransmissions against segments sent */
static const struct bpftune_reward_input loss_reward[] = {
	BPFTUNE_REWARD_PROC_COUNTER("out_segs", 1, 0, "segments", "/proc/net/snmp", SNMP,
		"Tcp.OutSegs", "TCP segments sent in the netns"),
	BPFTUNE_REWARD_PROC_COUNTER("retrans_segs", -1, 0, "segments", "/proc/net/snmp", SNMP,
		"Tcp.RetransSegs", "TCP segments retransmitted in the netns"),
};
/*
 * the choice: recorded when the connection ends, its outcome in its
 * inputs -- the share of its RTT spent queueing (srtt above min_rtt) as
 * the cost; the full per-destination cost is tcp_conn_outcomes.cost
 */
static const struct bpftune_reward_input choice_reward[] = {
	BPFTUNE_REWARD_INPUT_REF("srtt_us", "min_rtt_us", -1, "us",
		"smoothed RTT at close, against its minimum RTT as before"),
};
static const char *const loss_actions[] = { "cc=bbr" };
/* the default candidates (the list is configurable), then "none": the default */
static const char *const choice_actions[] = {
	"cc=cubic", "cc=bbr", "cc=htcp", "cc=dctcp", "none",
};
static const struct bpftune_outcome_desc loss_outcome =
	BPFTUNE_OUTCOME(loss_actions, 10, loss_reward,
			"more segments sent and fewer retransmitted per second in the netns after than before");
static const struct bpftune_outcome_desc choice_outcome = {
	.actions = choice_actions,
	.num_actions = BPFTUNE_TELEMETRY_ARRAY_SIZE(choice_actions),
	.horizon_s = 0,
	.reward = choice_reward,
	.num_reward = BPFTUNE_TELEMETRY_ARRAY_SIZE(choice_reward),
	.reward_doc = "minus the share of the connection's RTT spent queueing: -(srtt - min_rtt) / srtt, in [-1, 0]",
	/*
	 * epsilon-greedy, uniform among the candidates when exploring: the
	 * tuner gives each choice its exact odds (tcp_conn_propensity())
	 */
	.explore_choices = 4,
};

static const struct bpftune_policy_desc policies[] = {
	BPFTUNE_POLICY_OUTCOME("bbr-on-loss",
		       "a connection retransmitted more than the threshold: move it to bbr",
		       loss_inputs, &loss_outcome),
	BPFTUNE_POLICY_OUTCOME("epsilon-greedy",
		       "per destination, the algorithm of least learnt cost (RTT and rate), exploring with probability epsilon",
		       choice_inputs, &choice_outcome),
};

const struct bpftune_telemetry_desc tcp_conn_telemetry = {
	.tables = tables,
	.num_tables = BPFTUNE_TELEMETRY_ARRAY_SIZE(tables),
	.policies = policies,
	.num_policies = BPFTUNE_TELEMETRY_ARRAY_SIZE(policies),
};
