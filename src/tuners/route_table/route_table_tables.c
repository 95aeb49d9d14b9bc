// SPDX-License-Identifier: GPL-2.0-only
/*
 * The route_table tuner's telemetry: samples_route, the IPv6 routing
 * table and its dst entries (what net.ipv6.route.max_size limits) in
 * each network namespace every interval, from /proc/net/rt6_stats: one
 * row of hex fields, "fib_nodes fib_route_nodes fib_rt_alloc
 * fib_rt_entries fib_rt_cache dst_entries fib_discarded_routes".
 * Linked into route_table_tuner.so and into the docs generator (make docs).
 */
#include <bpftune/telemetry.h>

#include "route_table_tables.h"

#define F_RT6_STATS	"/proc/net/rt6_stats"
#define OV		BPFTUNE_COL_OVERVIEW

static const struct bpftune_col_desc samples_route_cols[] = {
	BPFTUNE_COL_PROC_GAUGE("fib_nodes", 0, "nodes",
		F_RT6_STATS, SOFTNET, "0",
		"IPv6 FIB tree nodes"),
	BPFTUNE_COL_PROC_GAUGE("fib_route_nodes", 0, "nodes",
		F_RT6_STATS, SOFTNET, "1",
		"IPv6 FIB tree nodes that hold routes"),
	BPFTUNE_COL_PROC_GAUGE("fib_rt_entries", 0, "routes",
		F_RT6_STATS, SOFTNET, "3",
		"IPv6 routes in the FIB"),
	BPFTUNE_COL_PROC_GAUGE("fib_rt_cache", 0, "routes",
		F_RT6_STATS, SOFTNET, "4",
		"IPv6 cached (exception) routes"),
	BPFTUNE_COL_PROC_GAUGE("dst_entries", OV, "entries",
		F_RT6_STATS, SOFTNET, "5",
		"IPv6 dst entries in use: what net.ipv6.route.max_size limits"),
	BPFTUNE_COL_PROC_COUNTER("fib_discarded_routes", 0, "routes",
		F_RT6_STATS, SOFTNET, "6",
		"IPv6 routes discarded while the FIB was changed"),
};

static const struct bpftune_table_desc tables[] = {
	{
		.name = "samples_route",
		.description = "The IPv6 routing table and its dst entries per network namespace, every sample interval.",
		.flags = BPFTUNE_TABLE_SAMPLED | BPFTUNE_TABLE_PER_NETNS,
		.cols = samples_route_cols,
		.num_cols = BPFTUNE_TELEMETRY_ARRAY_SIZE(samples_route_cols),
	},
};

/* ---- the decision policies' inputs ------------------------------------ */

static const struct bpftune_col_desc grow_inputs[] = {
	BPFTUNE_INPUT_INT("max_size", "routes", "net.ipv6.route.max_size now"),
	BPFTUNE_INPUT_INT("routes", "routes", "IPv6 routes in the table"),
	BPFTUNE_INPUT_INT("dst_entries", "entries", "IPv6 dst cache entries"),
	BPFTUNE_INPUT_INT("gc_thresh", "entries", "net.ipv6.route.gc_thresh as the BPF program saw it"),
};

static const struct bpftune_col_desc shrink_inputs[] = {
	BPFTUNE_INPUT_INT("max_size", "routes", "net.ipv6.route.max_size now"),
	BPFTUNE_INPUT_INT("routes", "routes", "IPv6 routes in the table"),
	BPFTUNE_INPUT_INT("dst_entries", "entries", "IPv6 dst cache entries"),
	BPFTUNE_INPUT_INT("orig", "routes", "max_size before it was grown"),
};

/* ---- outcomes: IPv6 packets without a route per second ------------------ */

static const struct bpftune_reward_input route_reward[] = {
	BPFTUNE_REWARD_PROC_COUNTER("out_no_routes", -1, 0, "packets", "/proc/net/snmp6", KEYVAL,
		"Ip6OutNoRoutes", "IPv6 packets dropped for no route (a full table among the causes)"),
	BPFTUNE_REWARD_PROC_GAUGE("dst_entries", -0.25, 0, "entries", F_RT6_STATS, SOFTNET, "5",
		"IPv6 dst entries in use (memory)"),
};
#define ROUTE_DOC "fewer IPv6 packets without a route per second after than before, a little for fewer dst entries"
static const char *const raise_actions[] = { "raise", "none" };
static const char *const lower_actions[] = { "lower", "none" };
static const struct bpftune_outcome_desc grow_outcome =
	BPFTUNE_OUTCOME(raise_actions, 10, route_reward, ROUTE_DOC);
static const struct bpftune_outcome_desc shrink_outcome =
	BPFTUNE_OUTCOME(lower_actions, 30, route_reward, ROUTE_DOC);

static const struct bpftune_policy_desc policies[] = {
	BPFTUNE_POLICY_OUTCOME("grow-near-limit",
		       "IPv6 routes or dst entries near max_size: raise it (hard cap)",
		       grow_inputs, &grow_outcome),
	BPFTUNE_POLICY_OUTCOME("shrink-when-empty",
		       "the table emptied: max_size back toward the original",
		       shrink_inputs, &shrink_outcome),
};

const struct bpftune_telemetry_desc route_table_telemetry = {
	.tables = tables,
	.num_tables = BPFTUNE_TELEMETRY_ARRAY_SIZE(tables),
	.policies = policies,
	.num_policies = BPFTUNE_TELEMETRY_ARRAY_SIZE(policies),
};
