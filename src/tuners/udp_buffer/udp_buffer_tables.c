// SPDX-License-Identifier: GPL-2.0-only
/*
 * The udp_buffer tuner's telemetry: samples_udp, UDP counters and gauges
 * (IPv4 and IPv6) of each network namespace every interval.
 * Linked into udp_buffer_tuner.so and into the docs generator (make docs).
 */
#include <bpftune/telemetry.h>

#include "udp_buffer_tables.h"

#define F_SNMP		"/proc/net/snmp"
#define F_SNMP6		"/proc/net/snmp6"
#define F_SOCKSTAT	"/proc/net/sockstat"
#define F_SOCKSTAT6	"/proc/net/sockstat6"
#define OV		BPFTUNE_COL_OVERVIEW
#define MW		BPFTUNE_COL_MACHINE_WIDE

static const struct bpftune_col_desc samples_udp_cols[] = {
	BPFTUNE_COL_PROC_COUNTER("in_datagrams", 0, "datagrams",
		F_SNMP, SNMP, "Udp.InDatagrams",
		"IPv4 datagrams delivered"),
	BPFTUNE_COL_PROC_COUNTER("no_ports", 0, "datagrams",
		F_SNMP, SNMP, "Udp.NoPorts",
		"datagrams to a port nobody listens on"),
	BPFTUNE_COL_PROC_COUNTER("in_errors", 0, "datagrams",
		F_SNMP, SNMP, "Udp.InErrors",
		"datagrams not delivered for other reasons"),
	BPFTUNE_COL_PROC_COUNTER("out_datagrams", 0, "datagrams",
		F_SNMP, SNMP, "Udp.OutDatagrams",
		"datagrams sent"),
	BPFTUNE_COL_PROC_COUNTER("rcvbuf_errors", OV, "datagrams",
		F_SNMP, SNMP, "Udp.RcvbufErrors",
		"datagrams dropped: receive buffer full (rmem)"),
	BPFTUNE_COL_PROC_COUNTER("sndbuf_errors", 0, "sends",
		F_SNMP, SNMP, "Udp.SndbufErrors",
		"sends failed: send buffer full (wmem)"),
	BPFTUNE_COL_PROC_COUNTER("in_csum_errors", 0, "datagrams",
		F_SNMP, SNMP, "Udp.InCsumErrors",
		"datagrams with a bad checksum"),
	BPFTUNE_COL_PROC_COUNTER("ignored_multi", 0, "datagrams",
		F_SNMP, SNMP, "Udp.IgnoredMulti",
		"broadcast/multicast datagrams nobody wanted"),
	BPFTUNE_COL_PROC_COUNTER("mem_errors", 0, "datagrams",
		F_SNMP, SNMP, "Udp.MemErrors",
		"datagrams dropped: udp_mem exhausted"),
	BPFTUNE_COL_PROC_COUNTER("udp6_in_datagrams", 0, "datagrams",
		F_SNMP6, KEYVAL, "Udp6InDatagrams",
		"IPv6 datagrams delivered"),
	BPFTUNE_COL_PROC_COUNTER("udp6_no_ports", 0, "datagrams",
		F_SNMP6, KEYVAL, "Udp6NoPorts",
		"IPv6 datagrams to a closed port"),
	BPFTUNE_COL_PROC_COUNTER("udp6_in_errors", 0, "datagrams",
		F_SNMP6, KEYVAL, "Udp6InErrors",
		"IPv6 datagrams not delivered"),
	BPFTUNE_COL_PROC_COUNTER("udp6_out_datagrams", 0, "datagrams",
		F_SNMP6, KEYVAL, "Udp6OutDatagrams",
		"IPv6 datagrams sent"),
	BPFTUNE_COL_PROC_COUNTER("udp6_rcvbuf_errors", 0, "datagrams",
		F_SNMP6, KEYVAL, "Udp6RcvbufErrors",
		"IPv6 datagrams dropped: receive buffer full"),
	BPFTUNE_COL_PROC_COUNTER("udp6_sndbuf_errors", 0, "sends",
		F_SNMP6, KEYVAL, "Udp6SndbufErrors",
		"IPv6 sends failed: send buffer full"),
	BPFTUNE_COL_PROC_COUNTER("udp6_mem_errors", 0, "datagrams",
		F_SNMP6, KEYVAL, "Udp6MemErrors",
		"IPv6 datagrams dropped: udp_mem exhausted"),
	BPFTUNE_COL_PROC_GAUGE("sock_inuse", 0, "sockets",
		F_SOCKSTAT, SOCKSTAT, "UDP.inuse",
		"IPv4 UDP sockets in use"),
	BPFTUNE_COL_PROC_GAUGE("mem_pages", MW, "pages",
		F_SOCKSTAT, SOCKSTAT, "UDP.mem",
		"pages used by UDP, machine-wide (compare with net.ipv4.udp_mem)"),
	BPFTUNE_COL_PROC_GAUGE("sock6_inuse", 0, "sockets",
		F_SOCKSTAT6, SOCKSTAT, "UDP6.inuse",
		"IPv6 UDP sockets in use"),
};

static const struct bpftune_table_desc tables[] = {
	{
		.name = "samples_udp",
		.description = "UDP counters and gauges (IPv4 and IPv6) per network namespace, every sample interval.",
		.flags = BPFTUNE_TABLE_SAMPLED | BPFTUNE_TABLE_PER_NETNS,
		.cols = samples_udp_cols,
		.num_cols = BPFTUNE_TELEMETRY_ARRAY_SIZE(samples_udp_cols),
	},
};

/* ---- the decision policies' inputs ------------------------------------ */

static const struct bpftune_col_desc rmem_inputs[] = {
	BPFTUNE_INPUT_INT("port", NULL, "the socket's local port"),
	BPFTUNE_INPUT_INT("family", NULL, "its address family (2 IPv4, 10 IPv6)"),
	BPFTUNE_INPUT_INT("rcvbuf", "bytes", "its receive buffer"),
	BPFTUNE_INPUT_INT("queued", "bytes", "bytes queued on it when it dropped"),
	BPFTUNE_INPUT_INT("rmem_default", "bytes", "net.core.rmem_default now"),
	BPFTUNE_INPUT_INT("rmem_max", "bytes", "net.core.rmem_max now"),
	BPFTUNE_INPUT_INT("udp_pages", "pages", "memory UDP holds (the event's view)"),
	BPFTUNE_INPUT_INT("udp_mem1", "pages", "udp_mem[1], the pressure threshold"),
};

static const struct bpftune_col_desc mem_inputs[] = {
	BPFTUNE_INPUT_INT("udp_pages", "pages", "memory UDP holds (/proc/net/sockstat)"),
	BPFTUNE_INPUT_INT("event_pages", "pages", "the same as the BPF program saw it"),
	BPFTUNE_INPUT_INT("udp_mem_min", "pages", "udp_mem[0]"),
	BPFTUNE_INPUT_INT("udp_mem_pressure", "pages", "udp_mem[1]"),
	BPFTUNE_INPUT_INT("udp_mem_max", "pages", "udp_mem[2]"),
	BPFTUNE_INPUT_INT("avail_pages", "pages", "MemAvailable"),
	BPFTUNE_INPUT_INT("ceiling", "pages", "the most udp_mem may grow to now"),
	BPFTUNE_INPUT_INT("port", NULL, "the local port of the socket refused"),
};

static const struct bpftune_col_desc shrink_inputs[] = {
	BPFTUNE_INPUT_INT("quiet_ms", "ms", "time since a drop needed it"),
	BPFTUNE_INPUT_INT("cur", NULL, "the tunable's (last) value now"),
	BPFTUNE_INPUT_INT("orig", NULL, "its value before it was grown"),
	BPFTUNE_INPUT_INT("udp_pages", "pages", "memory UDP holds; NULL unless udp_mem"),
};

/* ---- outcomes: UDP drops per second ------------------------------------ */

static const struct bpftune_reward_input rmem_reward[] = {
	BPFTUNE_REWARD_PROC_COUNTER("in_datagrams", 1, 0, "datagrams", F_SNMP, SNMP,
		"Udp.InDatagrams", "UDP datagrams delivered"),
	BPFTUNE_REWARD_PROC_COUNTER("rcvbuf_errors", -1, 0, "datagrams", F_SNMP, SNMP,
		"Udp.RcvbufErrors", "UDP datagrams dropped for a full receive buffer"),
};
static const struct bpftune_reward_input mem_reward[] = {
	BPFTUNE_REWARD_PROC_COUNTER("rcvbuf_errors", -1, 0, "datagrams", F_SNMP, SNMP,
		"Udp.RcvbufErrors", "UDP datagrams dropped for a full receive buffer"),
	BPFTUNE_REWARD_PROC_COUNTER("mem_errors", -1, 0, "datagrams", F_SNMP, SNMP,
		"Udp.MemErrors", "UDP datagrams dropped for lack of UDP memory"),
};
static const char *const raise_actions[] = {
	"raise", "none", "none: the socket predates the current default",
	"none: at the cap", "none: at the ceiling",
};
static const char *const shrink_actions[] = { "shrink", "none" };
static const struct bpftune_outcome_desc rmem_outcome =
	BPFTUNE_OUTCOME(raise_actions, 10, rmem_reward,
			"more UDP datagrams delivered and fewer receive buffer drops per second after than before");
static const struct bpftune_outcome_desc mem_outcome =
	BPFTUNE_OUTCOME(raise_actions, 10, mem_reward,
			"fewer receive buffer and UDP memory drops per second after than before");
static const struct bpftune_outcome_desc shrink_outcome =
	BPFTUNE_OUTCOME(shrink_actions, 30, mem_reward,
			"no more receive buffer or UDP memory drops per second after than before");

static const struct bpftune_policy_desc policies[] = {
	BPFTUNE_POLICY_OUTCOME("grow-rmem-default",
		       "a socket sized by rmem_default dropped datagrams: raise rmem_default (and rmem_max)",
		       rmem_inputs, &rmem_outcome),
	BPFTUNE_POLICY_OUTCOME("grow-udp-mem",
		       "the kernel refused UDP memory: grow udp_mem within a quarter of available memory",
		       mem_inputs, &mem_outcome),
	BPFTUNE_POLICY_OUTCOME("shrink-when-quiet",
		       "no drop needed a grown value for a while: one step back toward the original",
		       shrink_inputs, &shrink_outcome),
};

const struct bpftune_telemetry_desc udp_buffer_telemetry = {
	.tables = tables,
	.num_tables = BPFTUNE_TELEMETRY_ARRAY_SIZE(tables),
	.policies = policies,
	.num_policies = BPFTUNE_TELEMETRY_ARRAY_SIZE(policies),
};
