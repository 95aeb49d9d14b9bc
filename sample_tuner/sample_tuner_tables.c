// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sample tuner's telemetry: table sample_listen, a row per truncated
 * listen() it saw.  The hook is sample_tuner.bpf.c; this is the table;
 * the kinds of its columns give the graphs (bpftune-telemetry plot draws
 * the requested backlogs as a CDF and somaxconn as it was).  The daemon
 * adds run_id, host_id, seq, ts_uptime_us and -- the table is per netns --
 * netns_cookie; the tuner writes the rest with bpftune_table_row().
 */
#include <bpftune/telemetry.h>

#include "sample_tuner.h"

static const struct bpftune_col_desc listen_cols[] = {
	BPFTUNE_COL_INT("pid", LABEL, NULL, "tgid of the task that called listen()"),
	BPFTUNE_COL_LABEL("comm", "its command name"),
	BPFTUNE_COL_INT("backlog", DISTRIBUTION, "connections",
			"the accept queue length listen() asked for"),
	BPFTUNE_COL_INT("somaxconn", GAUGE, "connections",
			"net.core.somaxconn in that netns then: what the queue was cut to"),
};

static const struct bpftune_table_desc tables[] = {
	[SAMPLE_TABLE_LISTEN] = {
		.name = "sample_listen",
		.description = "One row per listen() whose backlog net.core.somaxconn truncated, as the sample tuner saw it (in the netns it was called in).",
		.flags = BPFTUNE_TABLE_PER_NETNS,
		.cols = listen_cols,
		.num_cols = BPFTUNE_TELEMETRY_ARRAY_SIZE(listen_cols),
	},
};

/* what raise-to-request looks at: one typed column each in its table */
static const struct bpftune_col_desc raise_inputs[] = {
	BPFTUNE_COL_INT("backlog", GAUGE, "connections", "the backlog listen() asked for"),
	BPFTUNE_COL_INT("somaxconn", GAUGE, "connections", "net.core.somaxconn, which truncated it"),
};

/*
 * What came of it: the listen queue overflows and drops in the netns per
 * second, read 5 s after the decision against the rate before it (a cost:
 * weight -1).  The library reads them and writes outcomes_sample_raise_to_request.
 */
static const char *const raise_actions[] = { "raise", "none" };
static const struct bpftune_reward_input raise_reward[] = {
	BPFTUNE_REWARD_PROC_COUNTER("listen_overflows", -1, 0, "connections",
		"/proc/net/netstat", SNMP, "TcpExt.ListenOverflows",
		"accept queue overflows in the netns"),
	BPFTUNE_REWARD_PROC_COUNTER("listen_drops", -1, 0, "connections",
		"/proc/net/netstat", SNMP, "TcpExt.ListenDrops",
		"connection requests dropped by listeners in the netns"),
};
static const struct bpftune_outcome_desc raise_outcome =
	BPFTUNE_OUTCOME(raise_actions, 5, raise_reward,
			"fewer listen queue overflows and drops per second after than before");

static const struct bpftune_policy_desc policies[] = {
	BPFTUNE_POLICY_OUTCOME("raise-to-request",
		       "listen() asked for more than somaxconn: raise somaxconn to the request",
		       raise_inputs, &raise_outcome),
};

const struct bpftune_telemetry_desc sample_telemetry = {
	.tables = tables,
	.num_tables = BPFTUNE_TELEMETRY_ARRAY_SIZE(tables),
	.policies = policies,
	.num_policies = BPFTUNE_TELEMETRY_ARRAY_SIZE(policies),
};
