// SPDX-License-Identifier: GPL-2.0-only
/*
 * The net_buffer tuner's telemetry: samples_netdev, the softnet (per-CPU
 * receive backlog) counters and the netns' device counters every interval.
 * Linked into net_buffer_tuner.so and into the docs generator (make docs).
 */
#include <bpftune/telemetry.h>

#include "tuner_tables.h"

#define F_SOFTNET	"/proc/net/softnet_stat"
#define F_NETDEV	"/proc/net/dev"
#define OV		BPFTUNE_COL_OVERVIEW
#define MW		BPFTUNE_COL_MACHINE_WIDE

static const struct bpftune_col_desc samples_netdev_cols[] = {
	BPFTUNE_COL_PROC_COUNTER("softnet_processed", MW, "packets",
		F_SOFTNET, SOFTNET, "0",
		"packets processed by NAPI/backlog, all CPUs"),
	BPFTUNE_COL_PROC_COUNTER("softnet_dropped", MW | OV, "packets",
		F_SOFTNET, SOFTNET, "1",
		"packets dropped: backlog full (netdev_max_backlog)"),
	BPFTUNE_COL_PROC_COUNTER("softnet_time_squeeze", MW | OV, "times",
		F_SOFTNET, SOFTNET, "2",
		"net_rx_action stopped with work left (netdev_budget/budget_usecs)"),
	BPFTUNE_COL_PROC_COUNTER("softnet_received_rps", MW, "interrupts",
		F_SOFTNET, SOFTNET, "9",
		"RPS inter-processor interrupts received"),
	BPFTUNE_COL_PROC_COUNTER("softnet_flow_limit_count", MW, "packets",
		F_SOFTNET, SOFTNET, "10",
		"packets dropped by flow limit"),
	BPFTUNE_COL_PROC_GAUGE("softnet_backlog_len", MW, "packets",
		F_SOFTNET, SOFTNET, "11",
		"packets in the per-CPU backlogs now (kernels >= 6.0)"),
	BPFTUNE_COL_PROC_COUNTER("rx_bytes", 0, "bytes",
		F_NETDEV, NETDEV, "rx_bytes",
		"bytes received, every device but lo"),
	BPFTUNE_COL_PROC_COUNTER("rx_packets", 0, "packets",
		F_NETDEV, NETDEV, "rx_packets",
		"packets received"),
	BPFTUNE_COL_PROC_COUNTER("rx_errs", 0, "errors",
		F_NETDEV, NETDEV, "rx_errs",
		"receive errors"),
	BPFTUNE_COL_PROC_COUNTER("rx_drop", 0, "packets",
		F_NETDEV, NETDEV, "rx_drop",
		"received packets dropped"),
	BPFTUNE_COL_PROC_COUNTER("rx_fifo", 0, "errors",
		F_NETDEV, NETDEV, "rx_fifo",
		"receive FIFO overruns"),
	BPFTUNE_COL_PROC_COUNTER("rx_frame", 0, "errors",
		F_NETDEV, NETDEV, "rx_frame",
		"framing errors"),
	BPFTUNE_COL_PROC_COUNTER("rx_multicast", 0, "packets",
		F_NETDEV, NETDEV, "rx_multicast",
		"multicast packets received"),
	BPFTUNE_COL_PROC_COUNTER("tx_bytes", 0, "bytes",
		F_NETDEV, NETDEV, "tx_bytes",
		"bytes sent, every device but lo"),
	BPFTUNE_COL_PROC_COUNTER("tx_packets", 0, "packets",
		F_NETDEV, NETDEV, "tx_packets",
		"packets sent"),
	BPFTUNE_COL_PROC_COUNTER("tx_errs", 0, "errors",
		F_NETDEV, NETDEV, "tx_errs",
		"transmit errors"),
	BPFTUNE_COL_PROC_COUNTER("tx_drop", 0, "packets",
		F_NETDEV, NETDEV, "tx_drop",
		"packets dropped on transmit"),
	BPFTUNE_COL_PROC_COUNTER("tx_fifo", 0, "errors",
		F_NETDEV, NETDEV, "tx_fifo",
		"transmit FIFO errors"),
	BPFTUNE_COL_PROC_COUNTER("tx_colls", 0, "collisions",
		F_NETDEV, NETDEV, "tx_colls",
		"collisions"),
	BPFTUNE_COL_PROC_COUNTER("tx_carrier", 0, "errors",
		F_NETDEV, NETDEV, "tx_carrier",
		"carrier errors"),
};

static const struct bpftune_table_desc tables[] = {
	{
		.name = "samples_netdev",
		.description = "Softnet (per-CPU receive backlog) counters summed over CPUs (machine-wide: in the daemon's netns row only), and the counters of the netns' devices summed, per network namespace, every sample interval.",
		.flags = BPFTUNE_TABLE_SAMPLED | BPFTUNE_TABLE_PER_NETNS,
		.cols = samples_netdev_cols,
		.num_cols = BPFTUNE_TELEMETRY_ARRAY_SIZE(samples_netdev_cols),
	},
};

const struct bpftune_telemetry_desc net_buffer_telemetry = {
	.tables = tables,
	.num_tables = BPFTUNE_TELEMETRY_ARRAY_SIZE(tables),
};
