// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ip_frag tuner's telemetry: samples_frag, IP fragmentation and
 * reassembly (IPv4 and IPv6) of each network namespace every interval.
 * Linked into ip_frag_tuner.so and into the docs generator (make docs).
 */
#include <bpftune/telemetry.h>

#include "ip_frag_tables.h"

#define F_SNMP		"/proc/net/snmp"
#define F_SNMP6		"/proc/net/snmp6"
#define F_SOCKSTAT	"/proc/net/sockstat"
#define F_SOCKSTAT6	"/proc/net/sockstat6"
#define OV		BPFTUNE_COL_OVERVIEW

static const struct bpftune_col_desc samples_frag_cols[] = {
	BPFTUNE_COL_PROC_COUNTER("reasm_timeout", 0, "reassemblies",
		F_SNMP, SNMP, "Ip.ReasmTimeout",
		"IPv4 reassemblies timed out"),
	BPFTUNE_COL_PROC_COUNTER("reasm_reqds", 0, "fragments",
		F_SNMP, SNMP, "Ip.ReasmReqds",
		"IPv4 fragments needing reassembly"),
	BPFTUNE_COL_PROC_COUNTER("reasm_oks", 0, "datagrams",
		F_SNMP, SNMP, "Ip.ReasmOKs",
		"IPv4 datagrams reassembled"),
	BPFTUNE_COL_PROC_COUNTER("reasm_fails", OV, "datagrams",
		F_SNMP, SNMP, "Ip.ReasmFails",
		"IPv4 reassembly failures (incl. ipfrag_high_thresh)"),
	BPFTUNE_COL_PROC_COUNTER("frag_oks", 0, "datagrams",
		F_SNMP, SNMP, "Ip.FragOKs",
		"IPv4 datagrams fragmented"),
	BPFTUNE_COL_PROC_COUNTER("frag_fails", 0, "datagrams",
		F_SNMP, SNMP, "Ip.FragFails",
		"IPv4 datagrams that needed but could not be fragmented"),
	BPFTUNE_COL_PROC_COUNTER("frag_creates", 0, "fragments",
		F_SNMP, SNMP, "Ip.FragCreates",
		"IPv4 fragments created"),
	BPFTUNE_COL_PROC_GAUGE("frag_inuse", 0, "queues",
		F_SOCKSTAT, SOCKSTAT, "FRAG.inuse",
		"IPv4 reassembly queues now"),
	BPFTUNE_COL_PROC_GAUGE("frag_memory", 0, "bytes",
		F_SOCKSTAT, SOCKSTAT, "FRAG.memory",
		"bytes held by IPv4 reassembly (compare with ipfrag_high_thresh)"),
	BPFTUNE_COL_PROC_COUNTER("reasm6_timeout", 0, "reassemblies",
		F_SNMP6, KEYVAL, "Ip6ReasmTimeout",
		"IPv6 reassemblies timed out"),
	BPFTUNE_COL_PROC_COUNTER("reasm6_reqds", 0, "fragments",
		F_SNMP6, KEYVAL, "Ip6ReasmReqds",
		"IPv6 fragments needing reassembly"),
	BPFTUNE_COL_PROC_COUNTER("reasm6_oks", 0, "datagrams",
		F_SNMP6, KEYVAL, "Ip6ReasmOKs",
		"IPv6 datagrams reassembled"),
	BPFTUNE_COL_PROC_COUNTER("reasm6_fails", 0, "datagrams",
		F_SNMP6, KEYVAL, "Ip6ReasmFails",
		"IPv6 reassembly failures"),
	BPFTUNE_COL_PROC_COUNTER("frag6_oks", 0, "datagrams",
		F_SNMP6, KEYVAL, "Ip6FragOKs",
		"IPv6 datagrams fragmented"),
	BPFTUNE_COL_PROC_COUNTER("frag6_fails", 0, "datagrams",
		F_SNMP6, KEYVAL, "Ip6FragFails",
		"IPv6 fragmentation failures"),
	BPFTUNE_COL_PROC_COUNTER("frag6_creates", 0, "fragments",
		F_SNMP6, KEYVAL, "Ip6FragCreates",
		"IPv6 fragments created"),
	BPFTUNE_COL_PROC_GAUGE("frag6_inuse", 0, "queues",
		F_SOCKSTAT6, SOCKSTAT, "FRAG6.inuse",
		"IPv6 reassembly queues now"),
	BPFTUNE_COL_PROC_GAUGE("frag6_memory", 0, "bytes",
		F_SOCKSTAT6, SOCKSTAT, "FRAG6.memory",
		"bytes held by IPv6 reassembly"),
};

static const struct bpftune_table_desc tables[] = {
	{
		.name = "samples_frag",
		.description = "IP fragmentation and reassembly (IPv4 and IPv6) per network namespace, every sample interval.",
		.flags = BPFTUNE_TABLE_SAMPLED | BPFTUNE_TABLE_PER_NETNS,
		.cols = samples_frag_cols,
		.num_cols = BPFTUNE_TELEMETRY_ARRAY_SIZE(samples_frag_cols),
	},
};

/* ---- the decision policies' inputs ------------------------------------ */

/* grow-near-limit and frag-flood-guard */
static const struct bpftune_col_desc near_inputs[] = {
	BPFTUNE_INPUT_TEXT("family", "ipv4 or ipv6"),
	BPFTUNE_INPUT_INT("mem", "bytes", "memory fragments awaiting reassembly hold"),
	BPFTUNE_INPUT_INT("event_high", "bytes", "ipfrag_high_thresh as the BPF program saw it"),
	BPFTUNE_INPUT_INT("high", "bytes", "ipfrag_high_thresh now"),
	BPFTUNE_INPUT_INT("low", "bytes", "ipfrag_low_thresh as the BPF program saw it"),
	BPFTUNE_INPUT_INT("reqds", "fragments", "ReasmReqds; NULL if unreadable"),
	BPFTUNE_INPUT_INT("oks", "datagrams", "ReasmOKs; NULL if unreadable"),
	BPFTUNE_INPUT_INT("fails", "datagrams", "ReasmFails; NULL if unreadable"),
	BPFTUNE_INPUT_INT("timeouts", "datagrams", "ReasmTimeout; NULL if unreadable"),
	BPFTUNE_INPUT_REAL("fail_share", "fraction", "failures per fragment since the last raise; NULL before the flood guard has one"),
	BPFTUNE_INPUT_INT("guard_samples", "samples", "samples in the flood guard's window (the failure share at a check, with the threshold then in force); NULL before it has one"),
};

static const struct bpftune_col_desc shrink_inputs[] = {
	BPFTUNE_INPUT_TEXT("family", "ipv4 or ipv6"),
	BPFTUNE_INPUT_INT("high", "bytes", "ipfrag_high_thresh now"),
	BPFTUNE_INPUT_INT("want", "bytes", "one step back toward the original"),
	BPFTUNE_INPUT_INT("orig", "bytes", "its value before it was grown"),
	BPFTUNE_INPUT_INT("low", "bytes", "ipfrag_low_thresh now"),
	BPFTUNE_INPUT_INT("mem", "bytes", "memory reassembly holds; NULL if unreadable"),
	BPFTUNE_INPUT_INT("quiet_ms", "ms", "time since anything needed it"),
};

/* ---- outcomes: reassemblies per second --------------------------------- */

static const struct bpftune_reward_input frag_reward[] = {
	BPFTUNE_REWARD_PROC_COUNTER("reasm_oks", 1, 0, "datagrams", F_SNMP, SNMP,
		"Ip.ReasmOKs", "IPv4 datagrams reassembled"),
	BPFTUNE_REWARD_PROC_COUNTER("reasm_fails", -1, 0, "datagrams", F_SNMP, SNMP,
		"Ip.ReasmFails", "IPv4 reassemblies that failed"),
	BPFTUNE_REWARD_PROC_COUNTER("reasm6_oks", 1, 0, "datagrams", F_SNMP6, KEYVAL,
		"Ip6ReasmOKs", "IPv6 datagrams reassembled"),
	BPFTUNE_REWARD_PROC_COUNTER("reasm6_fails", -1, 0, "datagrams", F_SNMP6, KEYVAL,
		"Ip6ReasmFails", "IPv6 reassemblies that failed"),
};
#define FRAG_DOC "more reassemblies and fewer reassembly failures per second (IPv4 and IPv6) after than before"
static const char *const raise_actions[] = { "raise", "none" };
static const char *const back_actions[] = { "step back" };
static const char *const shrink_actions[] = { "shrink", "none" };
static const struct bpftune_outcome_desc grow_outcome =
	BPFTUNE_OUTCOME(raise_actions, 10, frag_reward, FRAG_DOC);
static const struct bpftune_outcome_desc guard_outcome =
	BPFTUNE_OUTCOME(back_actions, 10, frag_reward, FRAG_DOC);
static const struct bpftune_outcome_desc shrink_outcome =
	BPFTUNE_OUTCOME(shrink_actions, 30, frag_reward, FRAG_DOC);

static const struct bpftune_policy_desc policies[] = {
	BPFTUNE_POLICY_OUTCOME("grow-near-limit",
		       "fragments awaiting reassembly near ipfrag_high_thresh: raise it (capped)",
		       near_inputs, &grow_outcome),
	BPFTUNE_POLICY_OUTCOME("frag-flood-guard",
		       "reassembly failures rose with the threshold: a fragment flood; step back and hold",
		       near_inputs, &guard_outcome),
	BPFTUNE_POLICY_OUTCOME("shrink-when-quiet",
		       "reassembly needed no more for a while: one step back toward the original",
		       shrink_inputs, &shrink_outcome),
};

const struct bpftune_telemetry_desc ip_frag_telemetry = {
	.tables = tables,
	.num_tables = BPFTUNE_TELEMETRY_ARRAY_SIZE(tables),
	.policies = policies,
	.num_policies = BPFTUNE_TELEMETRY_ARRAY_SIZE(policies),
};
