// SPDX-License-Identifier: GPL-2.0-only
/*
 * The tcp_buffer tuner's telemetry: samples_tcp, the TCP counters and
 * gauges of each network namespace every interval, from /proc and from
 * the RTT and buffer gauges its BPF programs feed (tcp_buffer_tuner.h,
 * enum tcp_buffer_gauge).  Linked into tcp_buffer_tuner.so and into the
 * docs generator (make docs).
 */
#include <bpftune/telemetry.h>

#include "tcp_buffer.h"
#include "tcp_buffer_tables.h"

#define F_SNMP		"/proc/net/snmp"
#define F_NETSTAT	"/proc/net/netstat"
#define F_SOCKSTAT	"/proc/net/sockstat"
#define F_SOCKSTAT6	"/proc/net/sockstat6"
#define OV		BPFTUNE_COL_OVERVIEW
#define MW		BPFTUNE_COL_MACHINE_WIDE

static const struct bpftune_gauge_desc gauges[] = {
	[TCP_BUFFER_GAUGE_SRTT_US] = { "tcp_srtt_us", "us",
		"smoothed RTT of a sender with data in flight, at a sendmsg (sock_send_length, 6.3+; an incoming segment, tcp_probe, before), sampled while the send gate is open: a 200 ms window every second, and while it reports" },
	[TCP_BUFFER_GAUGE_RCV_RTT_US] = { "tcp_rcv_rtt_us", "us",
		"a receiver's RTT estimate at a receive-buffer adjustment (tcp_rcv_space_adjust), sampled while the receive gate is open: a 200 ms window every 2 s, and while it reports" },
	[TCP_BUFFER_GAUGE_RCVBUF] = { "tcp_rcvbuf", "bytes",
		"sk_rcvbuf at a receive-buffer adjustment (SO_RCVBUF-sized sockets excluded)" },
	[TCP_BUFFER_GAUGE_RCVBUF_NEAR_MAX] = { "tcp_rcvbuf_near_max", NULL,
		"1 for each of those within the learning rate's delta of tcp_rmem[2]" },
	[TCP_BUFFER_GAUGE_SNDBUF] = { "tcp_sndbuf", "bytes",
		"sk_sndbuf at the same sample as tcp_srtt_us (SO_SNDBUF-sized sockets excluded)" },
	[TCP_BUFFER_GAUGE_SNDBUF_NEAR_MAX] = { "tcp_sndbuf_near_max", NULL,
		"1 for each of those within the learning rate's delta of tcp_wmem[2]" },
};

_Static_assert(BPFTUNE_TELEMETRY_ARRAY_SIZE(gauges) == TCP_BUFFER_NUM_GAUGES,
	       "a declaration per gauge");

static const struct bpftune_col_desc samples_tcp_cols[] = {
	BPFTUNE_COL_PROC_COUNTER("active_opens", 0, "connections",
		F_SNMP, SNMP, "Tcp.ActiveOpens",
		"connect()s that sent a SYN"),
	BPFTUNE_COL_PROC_COUNTER("passive_opens", 0, "connections",
		F_SNMP, SNMP, "Tcp.PassiveOpens",
		"connections accepted from a SYN"),
	BPFTUNE_COL_PROC_COUNTER("attempt_fails", 0, "connections",
		F_SNMP, SNMP, "Tcp.AttemptFails",
		"connection attempts that failed"),
	BPFTUNE_COL_PROC_COUNTER("estab_resets", 0, "connections",
		F_SNMP, SNMP, "Tcp.EstabResets",
		"established connections reset"),
	BPFTUNE_COL_PROC_GAUGE("curr_estab", 0, "connections",
		F_SNMP, SNMP, "Tcp.CurrEstab",
		"connections ESTABLISHED or CLOSE-WAIT now"),
	BPFTUNE_COL_PROC_COUNTER("in_segs", OV, "segments",
		F_SNMP, SNMP, "Tcp.InSegs",
		"segments received"),
	BPFTUNE_COL_PROC_COUNTER("out_segs", 0, "segments",
		F_SNMP, SNMP, "Tcp.OutSegs",
		"segments sent, retransmissions excluded"),
	BPFTUNE_COL_PROC_COUNTER("retrans_segs", OV, "segments",
		F_SNMP, SNMP, "Tcp.RetransSegs",
		"segments retransmitted"),
	BPFTUNE_COL_PROC_COUNTER("in_errs", 0, "segments",
		F_SNMP, SNMP, "Tcp.InErrs",
		"bad segments received"),
	BPFTUNE_COL_PROC_COUNTER("out_rsts", 0, "segments",
		F_SNMP, SNMP, "Tcp.OutRsts",
		"RSTs sent"),
	BPFTUNE_COL_PROC_COUNTER("in_csum_errors", 0, "segments",
		F_SNMP, SNMP, "Tcp.InCsumErrors",
		"segments with a bad checksum"),
	BPFTUNE_COL_PROC_COUNTER("syncookies_sent", 0, "cookies",
		F_NETSTAT, SNMP, "TcpExt.SyncookiesSent",
		"SYN cookies sent (SYN queue full)"),
	BPFTUNE_COL_PROC_COUNTER("syncookies_recv", 0, "cookies",
		F_NETSTAT, SNMP, "TcpExt.SyncookiesRecv",
		"valid SYN cookies received"),
	BPFTUNE_COL_PROC_COUNTER("syncookies_failed", 0, "cookies",
		F_NETSTAT, SNMP, "TcpExt.SyncookiesFailed",
		"invalid SYN cookies received"),
	BPFTUNE_COL_PROC_COUNTER("listen_overflows", OV, "SYNs",
		F_NETSTAT, SNMP, "TcpExt.ListenOverflows",
		"accept queue full (somaxconn, backlog)"),
	BPFTUNE_COL_PROC_COUNTER("listen_drops", 0, "SYNs",
		F_NETSTAT, SNMP, "TcpExt.ListenDrops",
		"SYNs dropped by listeners"),
	BPFTUNE_COL_PROC_COUNTER("req_q_full_drop", 0, "SYNs",
		F_NETSTAT, SNMP, "TcpExt.TCPReqQFullDrop",
		"SYNs dropped: SYN queue full, no cookies"),
	BPFTUNE_COL_PROC_COUNTER("req_q_full_do_cookies", 0, "SYNs",
		F_NETSTAT, SNMP, "TcpExt.TCPReqQFullDoCookies",
		"SYN queue full, answered with a cookie"),
	BPFTUNE_COL_PROC_COUNTER("prune_called", 0, "times",
		F_NETSTAT, SNMP, "TcpExt.PruneCalled",
		"receive queues pruned under memory pressure"),
	BPFTUNE_COL_PROC_COUNTER("rcv_pruned", 0, "packets",
		F_NETSTAT, SNMP, "TcpExt.RcvPruned",
		"packets dropped from pruned receive queues"),
	BPFTUNE_COL_PROC_COUNTER("rcv_collapsed", 0, "packets",
		F_NETSTAT, SNMP, "TcpExt.TCPRcvCollapsed",
		"packets collapsed to save receive memory"),
	BPFTUNE_COL_PROC_COUNTER("rcv_q_drop", 0, "packets",
		F_NETSTAT, SNMP, "TcpExt.TCPRcvQDrop",
		"packets dropped: receive buffer full"),
	BPFTUNE_COL_PROC_COUNTER("backlog_drop", 0, "packets",
		F_NETSTAT, SNMP, "TcpExt.TCPBacklogDrop",
		"packets dropped: socket backlog full"),
	BPFTUNE_COL_PROC_COUNTER("ofo_queue", 0, "packets",
		F_NETSTAT, SNMP, "TcpExt.TCPOFOQueue",
		"packets queued out of order"),
	BPFTUNE_COL_PROC_COUNTER("ofo_drop", 0, "packets",
		F_NETSTAT, SNMP, "TcpExt.TCPOFODrop",
		"out-of-order packets dropped (no memory)"),
	BPFTUNE_COL_PROC_COUNTER("memory_pressures", 0, "times",
		F_NETSTAT, SNMP, "TcpExt.TCPMemoryPressures",
		"times tcp_mem pressure was entered"),
	BPFTUNE_COL_PROC_COUNTER("memory_pressures_ms", 0, "ms",
		F_NETSTAT, SNMP, "TcpExt.TCPMemoryPressuresChrono",
		"milliseconds spent under tcp_mem pressure"),
	BPFTUNE_COL_PROC_COUNTER("abort_on_memory", 0, "connections",
		F_NETSTAT, SNMP, "TcpExt.TCPAbortOnMemory",
		"connections aborted: out of TCP memory"),
	BPFTUNE_COL_PROC_COUNTER("timeouts", 0, "events",
		F_NETSTAT, SNMP, "TcpExt.TCPTimeouts",
		"retransmission timeouts"),
	BPFTUNE_COL_PROC_COUNTER("loss_probes", 0, "events",
		F_NETSTAT, SNMP, "TcpExt.TCPLossProbes",
		"tail loss probes sent"),
	BPFTUNE_COL_PROC_COUNTER("lost_retransmit", 0, "retransmissions",
		F_NETSTAT, SNMP, "TcpExt.TCPLostRetransmit",
		"retransmissions lost again"),
	BPFTUNE_COL_PROC_COUNTER("fast_retrans", 0, "retransmissions",
		F_NETSTAT, SNMP, "TcpExt.TCPFastRetrans",
		"fast retransmissions"),
	BPFTUNE_COL_PROC_COUNTER("slow_start_retrans", 0, "retransmissions",
		F_NETSTAT, SNMP, "TcpExt.TCPSlowStartRetrans",
		"retransmissions in slow start"),
	BPFTUNE_COL_PROC_COUNTER("spurious_rtos", 0, "events",
		F_NETSTAT, SNMP, "TcpExt.TCPSpuriousRTOs",
		"timeouts found spurious (F-RTO)"),
	BPFTUNE_COL_PROC_COUNTER("dsack_recv", 0, "SACKs",
		F_NETSTAT, SNMP, "TcpExt.TCPDSACKRecv",
		"D-SACKs received"),
	BPFTUNE_COL_PROC_COUNTER("delayed_acks", 0, "ACKs",
		F_NETSTAT, SNMP, "TcpExt.DelayedACKs",
		"delayed ACKs sent"),
	BPFTUNE_COL_PROC_COUNTER("zero_window_drop", 0, "packets",
		F_NETSTAT, SNMP, "TcpExt.TCPZeroWindowDrop",
		"packets dropped: zero receive window"),
	BPFTUNE_COL_PROC_COUNTER("to_zero_window_adv", 0, "times",
		F_NETSTAT, SNMP, "TcpExt.TCPToZeroWindowAdv",
		"receive window closed to zero"),
	BPFTUNE_COL_PROC_COUNTER("want_zero_window_adv", 0, "times",
		F_NETSTAT, SNMP, "TcpExt.TCPWantZeroWindowAdv",
		"zero window wanted, not yet advertised"),
	BPFTUNE_COL_PROC_GAUGE("sock_inuse", 0, "sockets",
		F_SOCKSTAT, SOCKSTAT, "TCP.inuse",
		"IPv4 TCP sockets in use"),
	BPFTUNE_COL_PROC_GAUGE("sock_orphan", MW, "sockets",
		F_SOCKSTAT, SOCKSTAT, "TCP.orphan",
		"orphaned TCP sockets, machine-wide"),
	BPFTUNE_COL_PROC_GAUGE("sock_tw", 0, "sockets",
		F_SOCKSTAT, SOCKSTAT, "TCP.tw",
		"TCP sockets in TIME-WAIT"),
	BPFTUNE_COL_PROC_GAUGE("sock_alloc", MW, "sockets",
		F_SOCKSTAT, SOCKSTAT, "TCP.alloc",
		"TCP sockets allocated, machine-wide"),
	BPFTUNE_COL_PROC_GAUGE("mem_pages", MW | OV, "pages",
		F_SOCKSTAT, SOCKSTAT, "TCP.mem",
		"pages used by TCP, machine-wide (compare with net.ipv4.tcp_mem)"),
	BPFTUNE_COL_PROC_GAUGE("sock6_inuse", 0, "sockets",
		F_SOCKSTAT6, SOCKSTAT, "TCP6.inuse",
		"IPv6 TCP sockets in use"),
	BPFTUNE_COL_GAUGE("srtt_n", TCP_BUFFER_GAUGE_SRTT_US, N, 0, "observations",
		"smoothed RTTs seen (tcp_buffer tuner, tcp_probe, sampled): of senders with data in flight"),
	BPFTUNE_COL_GAUGE("srtt_mean_us", TCP_BUFFER_GAUGE_SRTT_US, MEAN, OV, "us",
		"mean of those smoothed RTTs, microseconds; NULL if none"),
	BPFTUNE_COL_GAUGE("srtt_max_us", TCP_BUFFER_GAUGE_SRTT_US, MAX, OV, "us",
		"largest of them, microseconds; NULL if none"),
	BPFTUNE_COL_GAUGE("rcv_rtt_n", TCP_BUFFER_GAUGE_RCV_RTT_US, N, 0, "observations",
		"receivers' RTT estimates seen (tcp_rcv_space_adjust, sampled)"),
	BPFTUNE_COL_GAUGE("rcv_rtt_mean_us", TCP_BUFFER_GAUGE_RCV_RTT_US, MEAN, 0, "us",
		"their mean, microseconds; NULL if none"),
	BPFTUNE_COL_GAUGE("rcv_rtt_max_us", TCP_BUFFER_GAUGE_RCV_RTT_US, MAX, 0, "us",
		"the largest, microseconds; NULL if none"),
	BPFTUNE_COL_GAUGE("rcvbuf_n", TCP_BUFFER_GAUGE_RCVBUF, N, 0, "observations",
		"receive buffers seen at autotuning (tcp_rcv_space_adjust, sampled; SO_RCVBUF-sized sockets excluded)"),
	BPFTUNE_COL_GAUGE("rcvbuf_mean", TCP_BUFFER_GAUGE_RCVBUF, MEAN, 0, "bytes",
		"their mean sk_rcvbuf, bytes; NULL if none"),
	BPFTUNE_COL_GAUGE("rcvbuf_max", TCP_BUFFER_GAUGE_RCVBUF, MAX, OV, "bytes",
		"the largest sk_rcvbuf, bytes; NULL if none"),
	BPFTUNE_COL_GAUGE("rcvbuf_near_max", TCP_BUFFER_GAUGE_RCVBUF_NEAR_MAX, N, OV, "observations",
		"of rcvbuf_n, those within the learning rate's delta of tcp_rmem[2]"),
	BPFTUNE_COL_GAUGE("sndbuf_n", TCP_BUFFER_GAUGE_SNDBUF, N, 0, "observations",
		"send buffers seen at incoming segments (tcp_probe, sampled; SO_SNDBUF-sized sockets excluded)"),
	BPFTUNE_COL_GAUGE("sndbuf_mean", TCP_BUFFER_GAUGE_SNDBUF, MEAN, 0, "bytes",
		"their mean sk_sndbuf, bytes; NULL if none"),
	BPFTUNE_COL_GAUGE("sndbuf_max", TCP_BUFFER_GAUGE_SNDBUF, MAX, 0, "bytes",
		"the largest sk_sndbuf, bytes; NULL if none"),
	BPFTUNE_COL_GAUGE("sndbuf_near_max", TCP_BUFFER_GAUGE_SNDBUF_NEAR_MAX, N, OV, "observations",
		"of sndbuf_n, those within the learning rate's delta of tcp_wmem[2]"),
};

static const struct bpftune_table_desc tables[] = {
	{
		.name = "samples_tcp",
		.description = "TCP counters and gauges per network namespace, every sample interval: from /proc/net/snmp, netstat and sockstat as seen in that netns, and the RTT and buffer gauges the tcp_buffer tuner's BPF programs gather there. NULL where this kernel lacks the field.",
		.flags = BPFTUNE_TABLE_SAMPLED | BPFTUNE_TABLE_PER_NETNS,
		.cols = samples_tcp_cols,
		.num_cols = BPFTUNE_TELEMETRY_ARRAY_SIZE(samples_tcp_cols),
	},
};

/* ---- the decision policies' inputs (tcp_buffer_*.c records them) ------ */

/* grow-near-limit and latency-guard: enum tb_buf_input order */
static const struct bpftune_col_desc buf_inputs[] = {
	BPFTUNE_INPUT_INT("buffer", "bytes", "the socket's buffer size that came near the max"),
	BPFTUNE_INPUT_INT("event_max", "bytes", "tcp_rmem[2] or tcp_wmem[2] as the BPF program saw it"),
	BPFTUNE_INPUT_INT("live_max", "bytes", "the same read from /proc/sys now; NULL if unreadable"),
	BPFTUNE_INPUT_INT("rtt_us", "us", "the socket's smoothed RTT"),
	BPFTUNE_INPUT_INT("min_rtt_us", "us", "the socket's smallest RTT (the kernel's rtt_min); 0 if not measured"),
	BPFTUNE_INPUT_INT("rate_kbps", "kbit/s", "the socket's delivery rate"),
	BPFTUNE_INPUT_INT("bdp", "bytes", "tcp_rmem: the path's bandwidth-delay product (receive rate x receive RTT, else the netns's last one) that bounds growth at 4x; NULL for tcp_wmem or before any measurement"),
	BPFTUNE_INPUT_INT("rcv_wnd", "bytes", "the receiver's advertised window: one that takes in about all of it per RTT is bound by its window (and measures a BDP near it)"),
	BPFTUNE_INPUT_INT("rcv_wscale", NULL, "tcp_rmem: the receiver's window scale, fixed at its SYN (its window never exceeds 65535 << rcv_wscale); NULL for tcp_wmem"),
	BPFTUNE_INPUT_INT("tcp_pages", "pages", "memory TCP holds (the event's view)"),
	BPFTUNE_INPUT_INT("tcp_mem1", "pages", "tcp_mem[1], the pressure threshold"),
	BPFTUNE_INPUT_INT("pressure", NULL, "1 if TCP was under memory pressure"),
	BPFTUNE_INPUT_REAL("guard_r", NULL, "latency guard: correlation of RTT with the max; NULL before it has a fit"),
	BPFTUNE_INPUT_REAL("guard_rtt_rise", "fraction", "latency guard: RTT rise across the settings, of the mean; NULL before a fit"),
	BPFTUNE_INPUT_INT("guard_samples", "samples", "latency guard: samples the fit is over (the mean RTT between two reports, with the max then in force); NULL before a fit"),
	BPFTUNE_INPUT_REAL("guard_rate_gain", "fraction", "latency guard: throughput gain across the settings; NULL before it has one"),
};

_Static_assert(BPFTUNE_TELEMETRY_ARRAY_SIZE(buf_inputs) == TB_BUF_NUM_INPUTS,
	       "a declaration per input");

static const struct bpftune_col_desc autotune_inputs[] = {
	BPFTUNE_INPUT_INT("rcvbuf", "bytes", "the receiver's fixed buffer that filled"),
	BPFTUNE_INPUT_INT("rmem_max", "bytes", "tcp_rmem[2] as the BPF program saw it"),
	BPFTUNE_INPUT_INT("moderate_rcvbuf", NULL, "tcp_moderate_rcvbuf as the BPF program saw it"),
};

static const struct bpftune_col_desc syn_inputs[] = {
	BPFTUNE_INPUT_INT("port", NULL, "the listener's port"),
	BPFTUNE_INPUT_INT("qlen", "requests", "its half-open requests"),
	BPFTUNE_INPUT_INT("backlog", "connections", "its accept backlog"),
	BPFTUNE_INPUT_INT("max_syn_backlog", "requests", "tcp_max_syn_backlog now"),
	BPFTUNE_INPUT_INT("syncookies", NULL, "tcp_syncookies now"),
	BPFTUNE_INPUT_INT("completed", "handshakes", "handshakes completed since the last evaluation"),
	BPFTUNE_INPUT_INT("stalled", "requests", "SYN-ACKs resent (requests not answered) since then"),
	BPFTUNE_INPUT_INT("cookies_sent", "cookies", "syncookies sent since then"),
	BPFTUNE_INPUT_INT("cookies_recv", "cookies", "syncookies received back since then"),
	BPFTUNE_INPUT_INT("syn_queue_drops", "packets", "SYNs dropped for a full SYN queue since then"),
	BPFTUNE_INPUT_INT("flood_votes", "evaluations", "evaluations in a row that looked like a flood"),
};

static const struct bpftune_col_desc cookies_idle_inputs[] = {
	BPFTUNE_INPUT_INT("quiet_ms", "ms", "time without a cookie sent or a stalled request"),
	BPFTUNE_INPUT_INT("saved", NULL, "tcp_syncookies before the flood"),
};

/* grow-tcp-mem and low-memory-mode */
static const struct bpftune_col_desc mem_inputs[] = {
	BPFTUNE_INPUT_INT("tcp_pages", "pages", "memory TCP holds (/proc/net/protocols)"),
	BPFTUNE_INPUT_INT("event_pages", "pages", "the same as the BPF program saw it"),
	BPFTUNE_INPUT_INT("tcp_mem_min", "pages", "tcp_mem[0]"),
	BPFTUNE_INPUT_INT("tcp_mem_pressure", "pages", "tcp_mem[1]"),
	BPFTUNE_INPUT_INT("tcp_mem_max", "pages", "tcp_mem[2]"),
	BPFTUNE_INPUT_INT("pressure", NULL, "1 if TCP is under memory pressure"),
	BPFTUNE_INPUT_INT("refused", NULL, "1 if the kernel refused TCP socket memory"),
	BPFTUNE_INPUT_INT("avail_pages", "pages", "MemAvailable"),
	BPFTUNE_INPUT_INT("ceiling", "pages", "the most tcp_mem may grow to now"),
};

static const struct bpftune_col_desc undo_inputs[] = {
	BPFTUNE_INPUT_INT("tcp_pages", "pages", "memory TCP holds"),
	BPFTUNE_INPUT_INT("tcp_mem_min", "pages", "tcp_mem[0]"),
	BPFTUNE_INPUT_INT("tcp_mem_pressure", "pages", "tcp_mem[1]"),
	BPFTUNE_INPUT_INT("tcp_mem_max", "pages", "tcp_mem[2]"),
	BPFTUNE_INPUT_INT("pressure", NULL, "1 if TCP is under memory pressure"),
	BPFTUNE_INPUT_INT("calm_checks", "checks", "checks in a row far enough from pressure"),
	BPFTUNE_INPUT_INT("pcpu_reserve", "pages", "what the kernel's per-CPU caches may add to tcp_pages (mem_pcpu_rsv x CPUs)"),
};

/* ---- outcomes ------------------------------------------------------------ */

/* the netns's receive and send throughput, retransmissions, receive drops, RTT */
static const struct bpftune_reward_input buf_reward[] = {
	BPFTUNE_REWARD_PROC_COUNTER("rx_bytes", 1, 0, "bytes", "/proc/net/dev", NETDEV,
		"rx_bytes", "bytes received by the netns's devices (receive throughput)"),
	BPFTUNE_REWARD_PROC_COUNTER("tx_bytes", 1, 0, "bytes", "/proc/net/dev", NETDEV,
		"tx_bytes", "bytes sent by the netns's devices (send throughput)"),
	BPFTUNE_REWARD_PROC_COUNTER("retrans_segs", -1, 0, "segments", F_SNMP, SNMP,
		"Tcp.RetransSegs", "TCP segments retransmitted"),
	BPFTUNE_REWARD_PROC_COUNTER("rcvq_drops", -1, 0, "packets", F_NETSTAT, SNMP,
		"TcpExt.TCPRcvQDrop", "packets dropped for a full receive queue"),
	BPFTUNE_REWARD_GAUGE("srtt_mean_us", -1, TCP_BUFFER_GAUGE_SRTT_US, "us",
		"smoothed RTT of the netns's senders (samples_tcp.srtt_mean_us's observations)"),
};
#define BUF_DOC	"more bytes received and sent, fewer retransmissions and receive queue drops per second, and a lower mean smoothed RTT, after than before"
static const struct bpftune_reward_input syn_reward[] = {
	BPFTUNE_REWARD_PROC_COUNTER("passive_opens", 1, 0, "connections", F_SNMP, SNMP,
		"Tcp.PassiveOpens", "connections accepted (handshakes completed)"),
	BPFTUNE_REWARD_PROC_COUNTER("listen_drops", -1, 0, "requests", F_NETSTAT, SNMP,
		"TcpExt.ListenDrops", "connection requests dropped by listeners"),
};
#define SYN_DOC	"more handshakes completed and fewer listener drops per second after than before"
static const struct bpftune_reward_input mem_reward[] = {
	BPFTUNE_REWARD_PROC_COUNTER("memory_pressures", -1, MW, "times", F_NETSTAT, SNMP,
		"TcpExt.TCPMemoryPressures", "times TCP entered memory pressure"),
	BPFTUNE_REWARD_PROC_COUNTER("aborts_on_memory", -1, MW, "connections", F_NETSTAT, SNMP,
		"TcpExt.TCPAbortOnMemory", "connections aborted for lack of memory"),
	BPFTUNE_REWARD_PROC_GAUGE("mem_available_kb", 1, BPFTUNE_COL_MACHINE_WIDE, "kB",
		"/proc/meminfo", KEYVAL, "MemAvailable", "MemAvailable"),
};
#define MEM_DOC	"fewer TCP memory pressure episodes and aborts per second, and more available memory, after than before"
static const char *const raise_actions[] = { "raise", "none" };
static const char *const back_actions[] = { "step back" };
static const char *const enable_actions[] = { "enable", "none" };
static const char *const syn_actions[] = { "raise", "none" };
static const char *const flood_actions[] = { "syncookies on, no backlog growth", "none" };
static const char *const restore_actions[] = { "restore", "none" };
static const char *const mem_actions[] = {
	"raise", "lower the max to the cap, raise the thresholds", "none",
};
static const char *const enter_actions[] = { "enter" };
static const struct bpftune_outcome_desc grow_outcome =
	BPFTUNE_OUTCOME(raise_actions, 10, buf_reward, BUF_DOC);
static const struct bpftune_outcome_desc guard_outcome =
	BPFTUNE_OUTCOME(back_actions, 10, buf_reward, BUF_DOC);
static const struct bpftune_outcome_desc autotune_outcome =
	BPFTUNE_OUTCOME(enable_actions, 10, buf_reward, BUF_DOC);
static const struct bpftune_outcome_desc syn_grow_outcome =
	BPFTUNE_OUTCOME(syn_actions, 10, syn_reward, SYN_DOC);
static const struct bpftune_outcome_desc syn_flood_outcome =
	BPFTUNE_OUTCOME(flood_actions, 10, syn_reward, SYN_DOC);
static const struct bpftune_outcome_desc cookies_idle_outcome =
	BPFTUNE_OUTCOME(restore_actions, 10, syn_reward, SYN_DOC);
static const struct bpftune_outcome_desc mem_grow_outcome =
	BPFTUNE_OUTCOME(mem_actions, 30, mem_reward, MEM_DOC);
static const struct bpftune_outcome_desc lowmem_outcome =
	BPFTUNE_OUTCOME(enter_actions, 30, mem_reward, MEM_DOC);
static const struct bpftune_outcome_desc undo_outcome =
	BPFTUNE_OUTCOME(restore_actions, 30, mem_reward, MEM_DOC);

static const struct bpftune_policy_desc policies[] = {
	BPFTUNE_POLICY_OUTCOME("grow-near-limit",
		       "a socket's buffer came near tcp_rmem[2]/tcp_wmem[2]: raise the max (capped), unless low on memory or held by the latency guard",
		       buf_inputs, &grow_outcome),
	BPFTUNE_POLICY_OUTCOME("latency-guard",
		       "RTT rose with the buffer max while throughput stood still: step back and hold",
		       buf_inputs, &guard_outcome),
	BPFTUNE_POLICY_OUTCOME("enable-autotuning",
		       "a receiver filled its fixed buffer with tcp_moderate_rcvbuf off: turn autotuning on",
		       autotune_inputs, &autotune_outcome),
	BPFTUNE_POLICY_OUTCOME("grow-syn-backlog",
		       "SYNs dropped past 3/4 of tcp_max_syn_backlog with handshakes completing: grow it",
		       syn_inputs, &syn_grow_outcome),
	BPFTUNE_POLICY_OUTCOME("syn-flood",
		       "requests that stall, confirmed twice: a flood; syncookies on, backlog not grown",
		       syn_inputs, &syn_flood_outcome),
	BPFTUNE_POLICY_OUTCOME("syncookies-idle",
		       "the flood is over: syncookies back to what they were",
		       cookies_idle_inputs, &cookies_idle_outcome),
	BPFTUNE_POLICY_OUTCOME("grow-tcp-mem",
		       "TCP memory near tcp_mem[1] or refused: grow tcp_mem within a quarter of available memory",
		       mem_inputs, &mem_grow_outcome),
	BPFTUNE_POLICY_OUTCOME("low-memory-mode",
		       "TCP really short of memory: smaller buffers, no metrics saved",
		       mem_inputs, &lowmem_outcome),
	BPFTUNE_POLICY_OUTCOME("undo-low-memory",
		       "memory pressure gone for a while: undo low-memory mode",
		       undo_inputs, &undo_outcome),
};

const struct bpftune_telemetry_desc tcp_buffer_telemetry = {
	.tables = tables,
	.num_tables = BPFTUNE_TELEMETRY_ARRAY_SIZE(tables),
	.gauges = gauges,
	.num_gauges = BPFTUNE_TELEMETRY_ARRAY_SIZE(gauges),
	.policies = policies,
	.num_policies = BPFTUNE_TELEMETRY_ARRAY_SIZE(policies),
};
