// SPDX-License-Identifier: GPL-2.0-only
/*
 * The neigh_table tuner's telemetry: samples_neigh, the ARP and IPv6 ND
 * table statistics every interval.  The kernel keeps one neighbour table
 * for every netns: one row per interval.  Linked into
 * neigh_table_tuner.so and into the docs generator (make docs).
 */
#include <bpftune/telemetry.h>

#include "neigh_table_tables.h"

#define F_ARP		"/proc/net/stat/arp_cache"
#define F_NDISC		"/proc/net/stat/ndisc_cache"

#define NCTR(n, unit, f, key, d) \
	BPFTUNE_COL_PROC_COUNTER(n, 0, unit, f, STATHDR, key, d)

/* summed over CPUs, but entries: the table's size, the same on every row */
#define NEIGH(pfx, ov, f, what) \
	BPFTUNE_COL_PROC_GAUGE(pfx "entries", ov, "entries", f, STATHDR, "entries", \
			       what " table entries now"), \
	NCTR(pfx "allocs", "entries", f, "allocs", what " entries allocated"), \
	NCTR(pfx "destroys", "entries", f, "destroys", what " entries destroyed"), \
	NCTR(pfx "hash_grows", "times", f, "hash_grows", what " hash table resizes"), \
	NCTR(pfx "lookups", "lookups", f, "lookups", what " lookups"), \
	NCTR(pfx "hits", "lookups", f, "hits", what " lookups that found an entry"), \
	NCTR(pfx "res_failed", "resolutions", f, "res_failed", what " resolutions that failed"), \
	NCTR(pfx "periodic_gc_runs", "times", f, "periodic_gc_runs", \
	     what " periodic garbage collections"), \
	NCTR(pfx "forced_gc_runs", "times", f, "forced_gc_runs", \
	     what " forced garbage collections (above gc_thresh2/3)"), \
	NCTR(pfx "unresolved_discards", "packets", f, "unresolved_discards", \
	     what " packets dropped waiting for resolution"), \
	NCTR(pfx "table_fulls", "allocations", f, "table_fulls", \
	     what " allocations refused: table full (gc_thresh3)")

static const struct bpftune_col_desc samples_neigh_cols[] = {
	NEIGH("arp_", BPFTUNE_COL_OVERVIEW, F_ARP, "IPv4 ARP:"),
	NEIGH("ndisc_", 0, F_NDISC, "IPv6 ND:"),
};

static const struct bpftune_table_desc tables[] = {
	{
		.name = "samples_neigh",
		.description = "Neighbour tables (ARP, IPv6 ND), summed over CPUs, every sample interval. Machine-wide (the kernel keeps one table for every netns): one row per interval.",
		.flags = BPFTUNE_TABLE_SAMPLED,
		.cols = samples_neigh_cols,
		.num_cols = BPFTUNE_TELEMETRY_ARRAY_SIZE(samples_neigh_cols),
	},
};

/* ---- the decision policies' inputs ------------------------------------ */

static const struct bpftune_col_desc grow_inputs[] = {
	BPFTUNE_INPUT_TEXT("family", "ipv4 (arp) or ipv6 (ndisc)"),
	BPFTUNE_INPUT_TEXT("dev", "the device of the neighbour being created"),
	BPFTUNE_INPUT_INT("entries", "entries", "entries in the table (the event's view)"),
	BPFTUNE_INPUT_INT("gc_entries", "entries", "entries the garbage collector counts"),
	BPFTUNE_INPUT_INT("gc_thresh1", "entries", "gc_thresh1 now"),
	BPFTUNE_INPUT_INT("gc_thresh2", "entries", "gc_thresh2 now"),
	BPFTUNE_INPUT_INT("gc_thresh3", "entries", "gc_thresh3 now"),
	BPFTUNE_INPUT_INT("ns_entries", "entries", "entries of the event's netns"),
	BPFTUNE_INPUT_INT("prefix_capacity", "entries", "neighbours its on-link prefixes can hold; NULL if unknown"),
	BPFTUNE_INPUT_INT("prefixes", "prefixes", "its on-link prefixes"),
	BPFTUNE_INPUT_INT("bound", "entries", "the most the table may grow to now"),
	BPFTUNE_INPUT_INT("created", NULL, "1 if the event is a neighbour created, 0 one refused"),
};

static const struct bpftune_col_desc shrink_inputs[] = {
	BPFTUNE_INPUT_TEXT("family", "ipv4 (arp) or ipv6 (ndisc)"),
	BPFTUNE_INPUT_INT("entries", "entries", "entries in the table"),
	BPFTUNE_INPUT_INT("gc_thresh1", "entries", "gc_thresh1 now"),
	BPFTUNE_INPUT_INT("gc_thresh2", "entries", "gc_thresh2 now"),
	BPFTUNE_INPUT_INT("gc_thresh3", "entries", "gc_thresh3 now"),
	BPFTUNE_INPUT_INT("orig_thresh1", "entries", "gc_thresh1 before it was grown"),
	BPFTUNE_INPUT_INT("orig_thresh2", "entries", "gc_thresh2 before it was grown"),
	BPFTUNE_INPUT_INT("orig_thresh3", "entries", "gc_thresh3 before it was grown"),
};

/* ---- outcomes: neighbour allocations refused per second ----------------- */

static const struct bpftune_reward_input neigh_reward[] = {
	BPFTUNE_REWARD_PROC_COUNTER("arp_table_fulls", -1, 0, "allocations", F_ARP, STATHDR,
		"table_fulls", "IPv4 ARP allocations refused: table full"),
	BPFTUNE_REWARD_PROC_COUNTER("arp_unresolved_discards", -1, 0, "packets", F_ARP, STATHDR,
		"unresolved_discards", "IPv4 packets dropped waiting for resolution"),
	BPFTUNE_REWARD_PROC_COUNTER("ndisc_table_fulls", -1, 0, "allocations", F_NDISC, STATHDR,
		"table_fulls", "IPv6 ND allocations refused: table full"),
	BPFTUNE_REWARD_PROC_COUNTER("ndisc_unresolved_discards", -1, 0, "packets", F_NDISC,
		STATHDR, "unresolved_discards", "IPv6 packets dropped waiting for resolution"),
};
#define NEIGH_DOC "fewer neighbour allocations refused and packets dropped unresolved per second (ARP and ND) after than before"
static const char *const raise_actions[] = { "raise", "none" };
static const char *const lower_actions[] = { "lower", "none" };
static const struct bpftune_outcome_desc grow_outcome =
	BPFTUNE_OUTCOME(raise_actions, 10, neigh_reward, NEIGH_DOC);
static const struct bpftune_outcome_desc shrink_outcome =
	BPFTUNE_OUTCOME(lower_actions, 30, neigh_reward, NEIGH_DOC);

static const struct bpftune_policy_desc policies[] = {
	BPFTUNE_POLICY_OUTCOME("grow-near-limit",
		       "the neighbour table near gc_thresh3 (or refusing entries): raise the thresholds within what the prefixes can hold",
		       grow_inputs, &grow_outcome),
	BPFTUNE_POLICY_OUTCOME("shrink-when-empty",
		       "the table at most a quarter of gc_thresh3: back toward the original thresholds",
		       shrink_inputs, &shrink_outcome),
};

const struct bpftune_telemetry_desc neigh_table_telemetry = {
	.tables = tables,
	.num_tables = BPFTUNE_TELEMETRY_ARRAY_SIZE(tables),
	.policies = policies,
	.num_policies = BPFTUNE_TELEMETRY_ARRAY_SIZE(policies),
};
