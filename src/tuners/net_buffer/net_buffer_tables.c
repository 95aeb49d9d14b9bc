// SPDX-License-Identifier: GPL-2.0-only
/*
 * The net_buffer tuner's telemetry: samples_netdev, the softnet (per-CPU
 * receive backlog) counters and the netns' device counters every interval.
 * Linked into net_buffer_tuner.so and into the docs generator (make docs).
 */
#include <bpftune/telemetry.h>

#include "net_buffer_tuner.h"
#include "net_buffer_tables.h"

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

/* ---- the decision policies' inputs ------------------------------------ */

static const struct bpftune_col_desc high_order_inputs[] = {
	BPFTUNE_INPUT_INT("high_order_alloc_disable", NULL, "net.core.high_order_alloc_disable now"),
	BPFTUNE_INPUT_TEXT("cause", "what made the receive path busy: backlog drops or squeezed rounds"),
};

/* grow-backlog and flow-limit-on-drop */
static const struct bpftune_col_desc backlog_inputs[] = {
	BPFTUNE_INPUT_INT("netdev_max_backlog", "packets", "netdev_max_backlog now"),
	BPFTUNE_INPUT_INT("dropped", "packets", "backlog drops counted in /proc/net/softnet_stat since the last look"),
	BPFTUNE_INPUT_TEXT("cpus", "the CPUs that dropped, comma-separated ('none')"),
	BPFTUNE_INPUT_INT("bpf_drops", "packets", "drops the BPF program counted"),
	BPFTUNE_INPUT_INT("event_cpu", NULL, "the CPU the event came from"),
};

/* grow-budget and wait-guard: enum nb_budget_input order */
static const struct bpftune_col_desc budget_inputs[] = {
	BPFTUNE_INPUT_INT("work", "packets", "packets the receive round processed"),
	BPFTUNE_INPUT_INT("polls", "polls", "NAPI polls in the round"),
	BPFTUNE_INPUT_INT("round_us", "us", "the round's length"),
	BPFTUNE_INPUT_INT("cpu", NULL, "its CPU"),
	BPFTUNE_INPUT_INT("netdev_budget", "packets", "netdev_budget now"),
	BPFTUNE_INPUT_INT("netdev_budget_usecs", "us", "netdev_budget_usecs now"),
	BPFTUNE_INPUT_INT("squeezes", "rounds", "squeezes counted in /proc/net/softnet_stat since the last look"),
	BPFTUNE_INPUT_REAL("wait_per_ms", "us/ms", "CPU wait rate while this value was in force; NULL before the guard has one"),
	BPFTUNE_INPUT_TEXT("wait_source", "where the CPU wait is read from (PSI or schedstat)"),
	BPFTUNE_INPUT_INT("guard_samples", "samples", "samples in the wait guard's window (the CPU wait rate between two decisions, with the setting then in force); NULL before it has one"),
};

_Static_assert(BPFTUNE_TELEMETRY_ARRAY_SIZE(budget_inputs) == NB_BUDGET_NUM_INPUTS,
	       "a declaration per input");

static const struct bpftune_col_desc shrink_inputs[] = {
	BPFTUNE_INPUT_INT("cur", NULL, "the tunable's value now"),
	BPFTUNE_INPUT_INT("orig", NULL, "its value before it was grown"),
	BPFTUNE_INPUT_INT("quiet_ms", "ms", "time since anything needed it"),
};

/* ---- outcomes: backlog drops and squeezed rounds per second ------------ */

#define R_DROPS	BPFTUNE_REWARD_PROC_COUNTER("softnet_dropped", -1, MW, "packets", \
		F_SOFTNET, SOFTNET, "1", "packets dropped for a full per-CPU backlog")
#define R_SQUEEZES BPFTUNE_REWARD_PROC_COUNTER("softnet_squeezed", -1, MW, "rounds", \
		F_SOFTNET, SOFTNET, "2", "receive rounds cut short by netdev_budget(_usecs)")
#define R_DOC	"fewer backlog drops and squeezed receive rounds per second after than before"

static const struct bpftune_reward_input receive_reward[] = { R_DROPS, R_SQUEEZES };
static const struct bpftune_reward_input wait_reward[] = {
	R_DROPS, R_SQUEEZES,
	BPFTUNE_REWARD_PROC_COUNTER("cpu_some_us", -1, MW, "us", "/proc/pressure/cpu", PSI,
		"some.total", "time some task waited for a CPU (PSI)"),
};
static const char *const enable_actions[] = { "enable", "none" };
static const char *const raise_actions[] = { "raise", "none" };
static const char *const set_actions[] = { "set" };
static const char *const back_actions[] = { "step back" };
static const char *const shrink_actions[] = { "shrink" };
static const struct bpftune_outcome_desc high_order_outcome =
	BPFTUNE_OUTCOME(enable_actions, 10, receive_reward, R_DOC);
static const struct bpftune_outcome_desc backlog_outcome =
	BPFTUNE_OUTCOME(raise_actions, 10, receive_reward, R_DOC);
static const struct bpftune_outcome_desc flow_limit_outcome =
	BPFTUNE_OUTCOME(set_actions, 10, receive_reward, R_DOC);
static const struct bpftune_outcome_desc budget_outcome =
	BPFTUNE_OUTCOME(raise_actions, 10, receive_reward, R_DOC);
static const struct bpftune_outcome_desc wait_outcome =
	BPFTUNE_OUTCOME(back_actions, 10, wait_reward, R_DOC ", and less CPU wait");
static const struct bpftune_outcome_desc shrink_outcome =
	BPFTUNE_OUTCOME(shrink_actions, 30, receive_reward, R_DOC);

static const struct bpftune_policy_desc policies[] = {
	BPFTUNE_POLICY_OUTCOME("re-enable-high-order",
		       "the receive path is busy and TCP memory not under pressure: high-order skb pages back on",
		       high_order_inputs, &high_order_outcome),
	BPFTUNE_POLICY_OUTCOME("grow-backlog",
		       "packets dropped for a full per-CPU backlog: raise netdev_max_backlog (capped)",
		       backlog_inputs, &backlog_outcome),
	BPFTUNE_POLICY_OUTCOME("flow-limit-on-drop",
		       "flow limiting on the CPUs that dropped, so small flows get through",
		       backlog_inputs, &flow_limit_outcome),
	BPFTUNE_POLICY_OUTCOME("grow-budget",
		       "a receive round used its whole budget or time with more waiting: raise it (capped)",
		       budget_inputs, &budget_outcome),
	BPFTUNE_POLICY_OUTCOME("wait-guard",
		       "CPU wait rose with the budget: step back and hold",
		       budget_inputs, &wait_outcome),
	BPFTUNE_POLICY_OUTCOME("shrink-when-quiet",
		       "nothing needed a grown value for a while: one step back toward the original",
		       shrink_inputs, &shrink_outcome),
};

const struct bpftune_telemetry_desc net_buffer_telemetry = {
	.tables = tables,
	.num_tables = BPFTUNE_TELEMETRY_ARRAY_SIZE(tables),
	.policies = policies,
	.num_policies = BPFTUNE_TELEMETRY_ARRAY_SIZE(policies),
};
