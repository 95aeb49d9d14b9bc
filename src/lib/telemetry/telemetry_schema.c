// SPDX-License-Identifier: GPL-2.0-only
/*
 * The telemetry tables, declared once.  Everything else is generated from
 * this file: the DDL the daemon runs, the INSERT statements its writer
 * prepares, what the sampler reads from /proc, and docs/telemetry.md
 * (make docs; a test regenerates it and fails if the copy in git differs).
 * To add a column: add it here, bind it in telemetry.c (the writer checks
 * every bind against these names), bump the schema version, make docs.
 */
#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "telemetry/telemetry_schema.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define TABLE(n, f, d, c) { .name = n, .flags = f, .doc = d, .cols = c, \
			    .num_cols = ARRAY_SIZE(c) }

#define INT(n, d)	{ n, BPFTUNE_TCOL_INTEGER, 0, d, NULL, 0, NULL }
#define REAL(n, d)	{ n, BPFTUNE_TCOL_REAL, 0, d, NULL, 0, NULL }
#define TEXT(n, d)	{ n, BPFTUNE_TCOL_TEXT, 0, d, NULL, 0, NULL }
#define NN_TEXT(n, d)	{ n, BPFTUNE_TCOL_TEXT, BPFTUNE_TCOL_NOT_NULL, d, NULL, 0, NULL }

/* sample columns: counter (cumulative) or gauge, and where they are read */
#define CTR(n, file, fmt, key, d) \
	{ n, BPFTUNE_TCOL_INTEGER, BPFTUNE_TCOL_COUNTER, d, file, BPFTUNE_PROC_##fmt, key }
#define GAUGE(n, file, fmt, key, d) \
	{ n, BPFTUNE_TCOL_INTEGER, BPFTUNE_TCOL_GAUGE, d, file, BPFTUNE_PROC_##fmt, key }
#define RGAUGE(n, file, fmt, key, d) \
	{ n, BPFTUNE_TCOL_REAL, BPFTUNE_TCOL_GAUGE, d, file, BPFTUNE_PROC_##fmt, key }
/* the same, machine-wide: only the daemon's netns row has them */
#define GCTR(n, file, fmt, key, d) \
	{ n, BPFTUNE_TCOL_INTEGER, BPFTUNE_TCOL_COUNTER | BPFTUNE_TCOL_GLOBAL, d, file, BPFTUNE_PROC_##fmt, key }
#define GGAUGE(n, file, fmt, key, d) \
	{ n, BPFTUNE_TCOL_INTEGER, BPFTUNE_TCOL_GAUGE | BPFTUNE_TCOL_GLOBAL, d, file, BPFTUNE_PROC_##fmt, key }
/* BPF-side gauges over the interval: count and max integers, mean real */
#define BPF_N(n, key, d) \
	{ n, BPFTUNE_TCOL_INTEGER, BPFTUNE_TCOL_GAUGE, d, NULL, BPFTUNE_PROC_BPF, key }
#define BPF_MEAN(n, key, d) \
	{ n, BPFTUNE_TCOL_REAL, BPFTUNE_TCOL_GAUGE, d, NULL, BPFTUNE_PROC_BPF, key }
/* first column of a per-netns samples table */
#define NETNS_COOKIE \
	{ "netns_cookie", BPFTUNE_TCOL_INTEGER, BPFTUNE_TCOL_NOT_NULL | BPFTUNE_TCOL_GAUGE, \
	  "network namespace the row describes (its cookie, as in events.netns_cookie); 0 for the daemon's (global) netns", \
	  NULL, BPFTUNE_PROC_NETNS, "cookie" }

const char *const bpftune_gauge_names[BPFTUNE_NUM_GAUGES] = {
	[BPFTUNE_GAUGE_TCP_SRTT_US] = "tcp_srtt_us",
	[BPFTUNE_GAUGE_TCP_RCV_RTT_US] = "tcp_rcv_rtt_us",
	[BPFTUNE_GAUGE_TCP_RCVBUF] = "tcp_rcvbuf",
	[BPFTUNE_GAUGE_TCP_RCVBUF_NEAR_MAX] = "tcp_rcvbuf_near_max",
	[BPFTUNE_GAUGE_TCP_SNDBUF] = "tcp_sndbuf",
	[BPFTUNE_GAUGE_TCP_SNDBUF_NEAR_MAX] = "tcp_sndbuf_near_max",
};
_Static_assert(BPFTUNE_NUM_GAUGES <= BPFTUNE_GAUGE_SLOTS, "gauge slots");

#define SNMP		"/proc/net/snmp"
#define NETSTAT		"/proc/net/netstat"
#define SNMP6		"/proc/net/snmp6"
#define SOCKSTAT	"/proc/net/sockstat"
#define SOCKSTAT6	"/proc/net/sockstat6"
#define ARP		"/proc/net/stat/arp_cache"
#define NDISC		"/proc/net/stat/ndisc_cache"
#define SOFTNET		"/proc/net/softnet_stat"
#define NETDEV		"/proc/net/dev"
#define LOADAVG		"/proc/loadavg"
#define STAT		"/proc/stat"
#define MEMINFO		"/proc/meminfo"
#define PSI_CPU		"/proc/pressure/cpu"
#define PSI_MEM		"/proc/pressure/memory"
#define PSI_IO		"/proc/pressure/io"

const struct bpftune_tcol bpftune_telemetry_common_cols[] = {
	NN_TEXT("run_id", "UUID of the daemon run the row belongs to (runs.run_id)"),
	NN_TEXT("host_id", "id of the host: --host-id if given, else systemd's app-specific hash of /etc/machine-id, else a random id kept in the telemetry directory's host-id file"),
	{ "seq", BPFTUNE_TCOL_INTEGER, BPFTUNE_TCOL_NOT_NULL,
	  "row number in this table for this run, from 1; a gap means rows were dropped (writer queue full, counted in health)",
	  NULL, 0, NULL },
	{ "ts_uptime_us", BPFTUNE_TCOL_INTEGER, BPFTUNE_TCOL_NOT_NULL,
	  "CLOCK_BOOTTIME in microseconds when the row was observed; for events the BPF-side bpf_ktime_get_boot_ns() of the event",
	  NULL, 0, NULL },
};
const unsigned int bpftune_telemetry_num_common_cols =
	ARRAY_SIZE(bpftune_telemetry_common_cols);

static const struct bpftune_tcol meta_cols[] = {
	NN_TEXT("key", "schema_version, run_id, host_id, created_by, created_wall"),
	TEXT("value", "the value, as text"),
};

static const struct bpftune_tcol runs_cols[] = {
	TEXT("boot_id", "/proc/sys/kernel/random/boot_id: ts_uptime_us values compare only within one boot"),
	INT("start_wall_us", "CLOCK_REALTIME at start, microseconds since the epoch (the row's ts_uptime_us is the same instant on CLOCK_BOOTTIME)"),
	TEXT("start_wall", "start, ISO 8601 UTC"),
	INT("end_ts_uptime_us", "CLOCK_BOOTTIME at clean exit; NULL if the daemon was killed or crashed"),
	INT("exit_status", "the daemon's exit status; NULL if it did not exit cleanly"),
	TEXT("daemon_version", "bpftune version"),
	INT("schema_version", "telemetry schema version (also PRAGMA user_version)"),
	TEXT("kernel_release", "uname -r"),
	TEXT("kernel_version", "uname -v"),
	TEXT("arch", "uname -m"),
	TEXT("cpu_model", "model name from /proc/cpuinfo"),
	INT("cpu_cores", "online CPUs"),
	INT("mem_total_kb", "MemTotal from /proc/meminfo"),
	TEXT("support_mode", "what the kernel supports: full, legacy or tracepoint-only (bpftune -S)"),
	TEXT("bpf_objects", "which BPF objects were loaded: full, or legacy (-L)"),
	INT("learning_rate", "-r, 0..4"),
	TEXT("tuners", "names of the tuners that started, comma-separated"),
	TEXT("label", "--label: the workload or experiment name; NULL if none"),
	INT("observe_only", "1 with --observe: tuners decided, nothing was written to the kernel"),
	INT("sample_interval_ms", "--sample-interval: period of the samples_* and health rows"),
	INT("pid", "the daemon's pid"),
	TEXT("args", "the daemon's command line"),
};

static const struct bpftune_tcol tuners_cols[] = {
	INT("tuner_id", "id of the tuner in this run (events.tuner_id, ...)"),
	TEXT("tuner", "tuner name"),
	TEXT("description", "what the tuner does"),
	TEXT("file", "plugin file it was loaded from"),
	INT("num_tunables", "number of tunables it manages"),
	TEXT("scenarios", "its scenarios, 'id=name' separated by '; '"),
};

static const struct bpftune_tcol tunables_cols[] = {
	INT("tuner_id", "tuner that manages it"),
	TEXT("tuner", "tuner name"),
	INT("tunable_index", "index of the tunable within its tuner (decisions/changes.tunable_index)"),
	TEXT("tunable", "sysctl name, e.g. net.core.somaxconn"),
	INT("namespaced", "1 if the sysctl has one value per network namespace"),
	INT("num_values", "number of values (tcp_rmem has 3)"),
	INT("min", "hard cap: no value below is ever written"),
	INT("max", "hard cap: no value above is ever written"),
	TEXT("cap_reason", "why the cap is where it is"),
	TEXT("initial_values", "values in the daemon's netns at start, space-separated; NULL if unreadable"),
	INT("initial_0", "first initial value"),
	INT("initial_1", "second initial value, if any"),
	INT("initial_2", "third initial value, if any"),
	INT("read_errno", "0, or the errno reading the initial values failed with"),
};

static const struct bpftune_tcol states_cols[] = {
	INT("tuner_id", "tuner whose state changed"),
	TEXT("tuner", "tuner name"),
	INT("netns_cookie", "network namespace cookie; 0 means every netns (the tuner as a whole)"),
	TEXT("netns", "the netns, as the log names it"),
	TEXT("state", "ACTIVE (tuning), MANUAL (an admin set a tunable it manages: it stopped there) or GONE (netns destroyed)"),
	TEXT("cause", "why: 'started', or what the admin wrote, ..."),
};

static const struct bpftune_tcol events_cols[] = {
	INT("tuner_id", "tuner whose BPF program sent the event"),
	TEXT("tuner", "tuner name"),
	INT("scenario_id", "scenario index within the tuner"),
	TEXT("scenario", "scenario name"),
	INT("netns_cookie", "network namespace the event happened in (its cookie); 0 for the daemon's (global) netns"),
	INT("pid", "tgid of the task that caused it"),
	TEXT("comm", "its command name"),
	INT("payload_len", "bytes of tuner-specific payload"),
	TEXT("payload_hex", "the payload, lower-case hex (layout: the tuner's <name>_tuner.h)"),
};

static const struct bpftune_tcol decisions_cols[] = {
	INT("event_seq", "events.seq of the event being handled; NULL if the decision was not made for an event"),
	INT("tuner_id", "tuner that decided"),
	TEXT("tuner", "tuner name"),
	INT("scenario_id", "scenario index"),
	TEXT("scenario", "scenario name"),
	INT("netns_cookie", "netns of the event, 0 for the global one; NULL without an event"),
	TEXT("policy", "decision rule, e.g. raise-to-request, grow-near-limit, epsilon-greedy (at most 63 bytes)"),
	TEXT("inputs", "what the policy looked at, 'key=value ...' (at most 255 bytes)"),
	TEXT("action", "what it chose, e.g. none, raise, cc=bbr; a decision with no changes row (changes.decision_seq) changed nothing"),
	INT("tunable_index", "tunable it concerns; NULL if none"),
	TEXT("tunable", "sysctl name; NULL if none"),
	REAL("epsilon", "exploration rate of an exploring policy; NULL otherwise"),
	INT("explored", "1 the choice explored, 0 it was greedy; NULL if not an exploring policy"),
};

static const struct bpftune_tcol changes_cols[] = {
	INT("decision_seq", "decisions.seq of the decision that asked for it; NULL for rollbacks"),
	INT("event_seq", "events.seq of the event behind that decision; NULL if none"),
	INT("tuner_id", "tuner"),
	TEXT("tuner", "tuner name"),
	INT("scenario_id", "scenario index; NULL for rollbacks"),
	TEXT("scenario", "scenario name"),
	INT("tunable_index", "tunable index within the tuner"),
	TEXT("tunable", "sysctl name"),
	INT("netns_cookie", "netns written in; 0 for the daemon's (global) netns"),
	TEXT("netns", "the netns, as the log names it"),
	INT("num_values", "number of values"),
	TEXT("old_values", "values before, space-separated; NULL for rollbacks"),
	TEXT("new_values", "values after (asked for, capped), space-separated"),
	INT("old_0", "first value before"),
	INT("old_1", "second value before, if any"),
	INT("old_2", "third value before, if any"),
	INT("new_0", "first value after"),
	INT("new_1", "second value after, if any"),
	INT("new_2", "third value after, if any"),
	TEXT("reason", "why, as logged (at most 255 bytes)"),
	INT("errno", "0, or the errno the write failed with"),
	INT("applied", "1 if written; 0 if it failed or --observe kept it from being written (then errno is 0)"),
	INT("rollback", "1 if this restores an original value on exit (-R)"),
};

static const struct bpftune_tcol samples_tcp_cols[] = {
	NETNS_COOKIE,
	CTR("active_opens", SNMP, SNMP, "Tcp.ActiveOpens", "connect()s that sent a SYN"),
	CTR("passive_opens", SNMP, SNMP, "Tcp.PassiveOpens", "connections accepted from a SYN"),
	CTR("attempt_fails", SNMP, SNMP, "Tcp.AttemptFails", "connection attempts that failed"),
	CTR("estab_resets", SNMP, SNMP, "Tcp.EstabResets", "established connections reset"),
	GAUGE("curr_estab", SNMP, SNMP, "Tcp.CurrEstab", "connections ESTABLISHED or CLOSE-WAIT now"),
	CTR("in_segs", SNMP, SNMP, "Tcp.InSegs", "segments received"),
	CTR("out_segs", SNMP, SNMP, "Tcp.OutSegs", "segments sent, retransmissions excluded"),
	CTR("retrans_segs", SNMP, SNMP, "Tcp.RetransSegs", "segments retransmitted"),
	CTR("in_errs", SNMP, SNMP, "Tcp.InErrs", "bad segments received"),
	CTR("out_rsts", SNMP, SNMP, "Tcp.OutRsts", "RSTs sent"),
	CTR("in_csum_errors", SNMP, SNMP, "Tcp.InCsumErrors", "segments with a bad checksum"),
	CTR("syncookies_sent", NETSTAT, SNMP, "TcpExt.SyncookiesSent", "SYN cookies sent (SYN queue full)"),
	CTR("syncookies_recv", NETSTAT, SNMP, "TcpExt.SyncookiesRecv", "valid SYN cookies received"),
	CTR("syncookies_failed", NETSTAT, SNMP, "TcpExt.SyncookiesFailed", "invalid SYN cookies received"),
	CTR("listen_overflows", NETSTAT, SNMP, "TcpExt.ListenOverflows", "accept queue full (somaxconn, backlog)"),
	CTR("listen_drops", NETSTAT, SNMP, "TcpExt.ListenDrops", "SYNs dropped by listeners"),
	CTR("req_q_full_drop", NETSTAT, SNMP, "TcpExt.TCPReqQFullDrop", "SYNs dropped: SYN queue full, no cookies"),
	CTR("req_q_full_do_cookies", NETSTAT, SNMP, "TcpExt.TCPReqQFullDoCookies", "SYN queue full, answered with a cookie"),
	CTR("prune_called", NETSTAT, SNMP, "TcpExt.PruneCalled", "receive queues pruned under memory pressure"),
	CTR("rcv_pruned", NETSTAT, SNMP, "TcpExt.RcvPruned", "packets dropped from pruned receive queues"),
	CTR("rcv_collapsed", NETSTAT, SNMP, "TcpExt.TCPRcvCollapsed", "packets collapsed to save receive memory"),
	CTR("rcv_q_drop", NETSTAT, SNMP, "TcpExt.TCPRcvQDrop", "packets dropped: receive buffer full"),
	CTR("backlog_drop", NETSTAT, SNMP, "TcpExt.TCPBacklogDrop", "packets dropped: socket backlog full"),
	CTR("ofo_queue", NETSTAT, SNMP, "TcpExt.TCPOFOQueue", "packets queued out of order"),
	CTR("ofo_drop", NETSTAT, SNMP, "TcpExt.TCPOFODrop", "out-of-order packets dropped (no memory)"),
	CTR("memory_pressures", NETSTAT, SNMP, "TcpExt.TCPMemoryPressures", "times tcp_mem pressure was entered"),
	CTR("memory_pressures_ms", NETSTAT, SNMP, "TcpExt.TCPMemoryPressuresChrono", "milliseconds spent under tcp_mem pressure"),
	CTR("abort_on_memory", NETSTAT, SNMP, "TcpExt.TCPAbortOnMemory", "connections aborted: out of TCP memory"),
	CTR("timeouts", NETSTAT, SNMP, "TcpExt.TCPTimeouts", "retransmission timeouts"),
	CTR("loss_probes", NETSTAT, SNMP, "TcpExt.TCPLossProbes", "tail loss probes sent"),
	CTR("lost_retransmit", NETSTAT, SNMP, "TcpExt.TCPLostRetransmit", "retransmissions lost again"),
	CTR("fast_retrans", NETSTAT, SNMP, "TcpExt.TCPFastRetrans", "fast retransmissions"),
	CTR("slow_start_retrans", NETSTAT, SNMP, "TcpExt.TCPSlowStartRetrans", "retransmissions in slow start"),
	CTR("spurious_rtos", NETSTAT, SNMP, "TcpExt.TCPSpuriousRTOs", "timeouts found spurious (F-RTO)"),
	CTR("dsack_recv", NETSTAT, SNMP, "TcpExt.TCPDSACKRecv", "D-SACKs received"),
	CTR("delayed_acks", NETSTAT, SNMP, "TcpExt.DelayedACKs", "delayed ACKs sent"),
	CTR("zero_window_drop", NETSTAT, SNMP, "TcpExt.TCPZeroWindowDrop", "packets dropped: zero receive window"),
	CTR("to_zero_window_adv", NETSTAT, SNMP, "TcpExt.TCPToZeroWindowAdv", "receive window closed to zero"),
	CTR("want_zero_window_adv", NETSTAT, SNMP, "TcpExt.TCPWantZeroWindowAdv", "zero window wanted, not yet advertised"),
	GAUGE("sock_inuse", SOCKSTAT, SOCKSTAT, "TCP.inuse", "IPv4 TCP sockets in use"),
	GGAUGE("sock_orphan", SOCKSTAT, SOCKSTAT, "TCP.orphan", "orphaned TCP sockets, machine-wide"),
	GAUGE("sock_tw", SOCKSTAT, SOCKSTAT, "TCP.tw", "TCP sockets in TIME-WAIT"),
	GGAUGE("sock_alloc", SOCKSTAT, SOCKSTAT, "TCP.alloc", "TCP sockets allocated, machine-wide"),
	GGAUGE("mem_pages", SOCKSTAT, SOCKSTAT, "TCP.mem", "pages used by TCP, machine-wide (compare with net.ipv4.tcp_mem)"),
	GAUGE("sock6_inuse", SOCKSTAT6, SOCKSTAT, "TCP6.inuse", "IPv6 TCP sockets in use"),
	BPF_N("srtt_n", "tcp_srtt_us.n", "smoothed RTTs seen (tcp_buffer tuner, tcp_probe, sampled): of senders with data in flight"),
	BPF_MEAN("srtt_mean_us", "tcp_srtt_us.mean", "mean of those smoothed RTTs, microseconds; NULL if none"),
	BPF_N("srtt_max_us", "tcp_srtt_us.max", "largest of them, microseconds; NULL if none"),
	BPF_N("rcv_rtt_n", "tcp_rcv_rtt_us.n", "receivers' RTT estimates seen (tcp_rcv_space_adjust, sampled)"),
	BPF_MEAN("rcv_rtt_mean_us", "tcp_rcv_rtt_us.mean", "their mean, microseconds; NULL if none"),
	BPF_N("rcv_rtt_max_us", "tcp_rcv_rtt_us.max", "the largest, microseconds; NULL if none"),
	BPF_N("rcvbuf_n", "tcp_rcvbuf.n", "receive buffers seen at autotuning (tcp_rcv_space_adjust, sampled; SO_RCVBUF-sized sockets excluded)"),
	BPF_MEAN("rcvbuf_mean", "tcp_rcvbuf.mean", "their mean sk_rcvbuf, bytes; NULL if none"),
	BPF_N("rcvbuf_max", "tcp_rcvbuf.max", "the largest sk_rcvbuf, bytes; NULL if none"),
	BPF_N("rcvbuf_near_max", "tcp_rcvbuf_near_max.n", "of rcvbuf_n, those within the learning rate's delta of tcp_rmem[2]"),
	BPF_N("sndbuf_n", "tcp_sndbuf.n", "send buffers seen at incoming segments (tcp_probe, sampled; SO_SNDBUF-sized sockets excluded)"),
	BPF_MEAN("sndbuf_mean", "tcp_sndbuf.mean", "their mean sk_sndbuf, bytes; NULL if none"),
	BPF_N("sndbuf_max", "tcp_sndbuf.max", "the largest sk_sndbuf, bytes; NULL if none"),
	BPF_N("sndbuf_near_max", "tcp_sndbuf_near_max.n", "of sndbuf_n, those within the learning rate's delta of tcp_wmem[2]"),
};

static const struct bpftune_tcol samples_udp_cols[] = {
	NETNS_COOKIE,
	CTR("in_datagrams", SNMP, SNMP, "Udp.InDatagrams", "IPv4 datagrams delivered"),
	CTR("no_ports", SNMP, SNMP, "Udp.NoPorts", "datagrams to a port nobody listens on"),
	CTR("in_errors", SNMP, SNMP, "Udp.InErrors", "datagrams not delivered for other reasons"),
	CTR("out_datagrams", SNMP, SNMP, "Udp.OutDatagrams", "datagrams sent"),
	CTR("rcvbuf_errors", SNMP, SNMP, "Udp.RcvbufErrors", "datagrams dropped: receive buffer full (rmem)"),
	CTR("sndbuf_errors", SNMP, SNMP, "Udp.SndbufErrors", "sends failed: send buffer full (wmem)"),
	CTR("in_csum_errors", SNMP, SNMP, "Udp.InCsumErrors", "datagrams with a bad checksum"),
	CTR("ignored_multi", SNMP, SNMP, "Udp.IgnoredMulti", "broadcast/multicast datagrams nobody wanted"),
	CTR("mem_errors", SNMP, SNMP, "Udp.MemErrors", "datagrams dropped: udp_mem exhausted"),
	CTR("udp6_in_datagrams", SNMP6, KEYVAL, "Udp6InDatagrams", "IPv6 datagrams delivered"),
	CTR("udp6_no_ports", SNMP6, KEYVAL, "Udp6NoPorts", "IPv6 datagrams to a closed port"),
	CTR("udp6_in_errors", SNMP6, KEYVAL, "Udp6InErrors", "IPv6 datagrams not delivered"),
	CTR("udp6_out_datagrams", SNMP6, KEYVAL, "Udp6OutDatagrams", "IPv6 datagrams sent"),
	CTR("udp6_rcvbuf_errors", SNMP6, KEYVAL, "Udp6RcvbufErrors", "IPv6 datagrams dropped: receive buffer full"),
	CTR("udp6_sndbuf_errors", SNMP6, KEYVAL, "Udp6SndbufErrors", "IPv6 sends failed: send buffer full"),
	CTR("udp6_mem_errors", SNMP6, KEYVAL, "Udp6MemErrors", "IPv6 datagrams dropped: udp_mem exhausted"),
	GAUGE("sock_inuse", SOCKSTAT, SOCKSTAT, "UDP.inuse", "IPv4 UDP sockets in use"),
	GGAUGE("mem_pages", SOCKSTAT, SOCKSTAT, "UDP.mem", "pages used by UDP, machine-wide (compare with net.ipv4.udp_mem)"),
	GAUGE("sock6_inuse", SOCKSTAT6, SOCKSTAT, "UDP6.inuse", "IPv6 UDP sockets in use"),
};

#define NEIGH(pfx, file, what) \
	GAUGE(pfx "entries", file, STATHDR, "entries", what " table entries now"), \
	CTR(pfx "allocs", file, STATHDR, "allocs", what " entries allocated"), \
	CTR(pfx "destroys", file, STATHDR, "destroys", what " entries destroyed"), \
	CTR(pfx "hash_grows", file, STATHDR, "hash_grows", what " hash table resizes"), \
	CTR(pfx "lookups", file, STATHDR, "lookups", what " lookups"), \
	CTR(pfx "hits", file, STATHDR, "hits", what " lookups that found an entry"), \
	CTR(pfx "res_failed", file, STATHDR, "res_failed", what " resolutions that failed"), \
	CTR(pfx "periodic_gc_runs", file, STATHDR, "periodic_gc_runs", what " periodic garbage collections"), \
	CTR(pfx "forced_gc_runs", file, STATHDR, "forced_gc_runs", what " forced garbage collections (above gc_thresh2/3)"), \
	CTR(pfx "unresolved_discards", file, STATHDR, "unresolved_discards", what " packets dropped waiting for resolution"), \
	CTR(pfx "table_fulls", file, STATHDR, "table_fulls", what " allocations refused: table full (gc_thresh3)")

static const struct bpftune_tcol samples_neigh_cols[] = {
	NEIGH("arp_", ARP, "IPv4 ARP:"),
	NEIGH("ndisc_", NDISC, "IPv6 ND:"),
};

static const struct bpftune_tcol samples_netdev_cols[] = {
	NETNS_COOKIE,
	GCTR("softnet_processed", SOFTNET, SOFTNET, "0", "packets processed by NAPI/backlog, all CPUs"),
	GCTR("softnet_dropped", SOFTNET, SOFTNET, "1", "packets dropped: backlog full (netdev_max_backlog)"),
	GCTR("softnet_time_squeeze", SOFTNET, SOFTNET, "2", "net_rx_action stopped with work left (netdev_budget/budget_usecs)"),
	GCTR("softnet_received_rps", SOFTNET, SOFTNET, "9", "RPS inter-processor interrupts received"),
	GCTR("softnet_flow_limit_count", SOFTNET, SOFTNET, "10", "packets dropped by flow limit"),
	GGAUGE("softnet_backlog_len", SOFTNET, SOFTNET, "11", "packets in the per-CPU backlogs now (kernels >= 6.0)"),
	CTR("rx_bytes", NETDEV, NETDEV, "rx_bytes", "bytes received, every device but lo"),
	CTR("rx_packets", NETDEV, NETDEV, "rx_packets", "packets received"),
	CTR("rx_errs", NETDEV, NETDEV, "rx_errs", "receive errors"),
	CTR("rx_drop", NETDEV, NETDEV, "rx_drop", "received packets dropped"),
	CTR("rx_fifo", NETDEV, NETDEV, "rx_fifo", "receive FIFO overruns"),
	CTR("rx_frame", NETDEV, NETDEV, "rx_frame", "framing errors"),
	CTR("rx_multicast", NETDEV, NETDEV, "rx_multicast", "multicast packets received"),
	CTR("tx_bytes", NETDEV, NETDEV, "tx_bytes", "bytes sent, every device but lo"),
	CTR("tx_packets", NETDEV, NETDEV, "tx_packets", "packets sent"),
	CTR("tx_errs", NETDEV, NETDEV, "tx_errs", "transmit errors"),
	CTR("tx_drop", NETDEV, NETDEV, "tx_drop", "packets dropped on transmit"),
	CTR("tx_fifo", NETDEV, NETDEV, "tx_fifo", "transmit FIFO errors"),
	CTR("tx_colls", NETDEV, NETDEV, "tx_colls", "collisions"),
	CTR("tx_carrier", NETDEV, NETDEV, "tx_carrier", "carrier errors"),
};

static const struct bpftune_tcol samples_frag_cols[] = {
	NETNS_COOKIE,
	CTR("reasm_timeout", SNMP, SNMP, "Ip.ReasmTimeout", "IPv4 reassemblies timed out"),
	CTR("reasm_reqds", SNMP, SNMP, "Ip.ReasmReqds", "IPv4 fragments needing reassembly"),
	CTR("reasm_oks", SNMP, SNMP, "Ip.ReasmOKs", "IPv4 datagrams reassembled"),
	CTR("reasm_fails", SNMP, SNMP, "Ip.ReasmFails", "IPv4 reassembly failures (incl. ipfrag_high_thresh)"),
	CTR("frag_oks", SNMP, SNMP, "Ip.FragOKs", "IPv4 datagrams fragmented"),
	CTR("frag_fails", SNMP, SNMP, "Ip.FragFails", "IPv4 datagrams that needed but could not be fragmented"),
	CTR("frag_creates", SNMP, SNMP, "Ip.FragCreates", "IPv4 fragments created"),
	GAUGE("frag_inuse", SOCKSTAT, SOCKSTAT, "FRAG.inuse", "IPv4 reassembly queues now"),
	GAUGE("frag_memory", SOCKSTAT, SOCKSTAT, "FRAG.memory", "bytes held by IPv4 reassembly (compare with ipfrag_high_thresh)"),
	CTR("reasm6_timeout", SNMP6, KEYVAL, "Ip6ReasmTimeout", "IPv6 reassemblies timed out"),
	CTR("reasm6_reqds", SNMP6, KEYVAL, "Ip6ReasmReqds", "IPv6 fragments needing reassembly"),
	CTR("reasm6_oks", SNMP6, KEYVAL, "Ip6ReasmOKs", "IPv6 datagrams reassembled"),
	CTR("reasm6_fails", SNMP6, KEYVAL, "Ip6ReasmFails", "IPv6 reassembly failures"),
	CTR("frag6_oks", SNMP6, KEYVAL, "Ip6FragOKs", "IPv6 datagrams fragmented"),
	CTR("frag6_fails", SNMP6, KEYVAL, "Ip6FragFails", "IPv6 fragmentation failures"),
	CTR("frag6_creates", SNMP6, KEYVAL, "Ip6FragCreates", "IPv6 fragments created"),
	GAUGE("frag6_inuse", SOCKSTAT6, SOCKSTAT, "FRAG6.inuse", "IPv6 reassembly queues now"),
	GAUGE("frag6_memory", SOCKSTAT6, SOCKSTAT, "FRAG6.memory", "bytes held by IPv6 reassembly"),
};

#define PSI(pfx, file, what) \
	RGAUGE(pfx "some_avg10", file, PSI, "some.avg10", "% of time some tasks stalled on " what ", last 10 s"), \
	RGAUGE(pfx "some_avg60", file, PSI, "some.avg60", "% of time some tasks stalled on " what ", last 60 s"), \
	CTR(pfx "some_total_us", file, PSI, "some.total", "microseconds some tasks stalled on " what), \
	RGAUGE(pfx "full_avg10", file, PSI, "full.avg10", "% of time all non-idle tasks stalled on " what ", last 10 s"), \
	CTR(pfx "full_total_us", file, PSI, "full.total", "microseconds all non-idle tasks stalled on " what)

static const struct bpftune_tcol samples_system_cols[] = {
	RGAUGE("load1", LOADAVG, LOADAVG, "load1", "load average, 1 minute"),
	RGAUGE("load5", LOADAVG, LOADAVG, "load5", "load average, 5 minutes"),
	RGAUGE("load15", LOADAVG, LOADAVG, "load15", "load average, 15 minutes"),
	GAUGE("runnable", LOADAVG, LOADAVG, "runnable", "runnable tasks now"),
	GAUGE("threads", LOADAVG, LOADAVG, "threads", "tasks (threads) now"),
	CTR("cpu_user", STAT, KEYVAL, "cpu#0", "CPU time in user mode, all CPUs, USER_HZ ticks"),
	CTR("cpu_nice", STAT, KEYVAL, "cpu#1", "CPU time in niced user mode, ticks"),
	CTR("cpu_system", STAT, KEYVAL, "cpu#2", "CPU time in the kernel, ticks"),
	CTR("cpu_idle", STAT, KEYVAL, "cpu#3", "idle CPU time, ticks"),
	CTR("cpu_iowait", STAT, KEYVAL, "cpu#4", "idle waiting for I/O, ticks"),
	CTR("cpu_irq", STAT, KEYVAL, "cpu#5", "hard interrupts, ticks"),
	CTR("cpu_softirq", STAT, KEYVAL, "cpu#6", "soft interrupts (network receive), ticks"),
	CTR("cpu_steal", STAT, KEYVAL, "cpu#7", "stolen by the hypervisor, ticks"),
	CTR("ctxt", STAT, KEYVAL, "ctxt", "context switches"),
	CTR("intr", STAT, KEYVAL, "intr", "interrupts"),
	GAUGE("procs_running", STAT, KEYVAL, "procs_running", "tasks running now"),
	GAUGE("procs_blocked", STAT, KEYVAL, "procs_blocked", "tasks blocked on I/O now"),
	PSI("psi_cpu_", PSI_CPU, "CPU"),
	PSI("psi_memory_", PSI_MEM, "memory"),
	PSI("psi_io_", PSI_IO, "I/O"),
	GAUGE("mem_total_kb", MEMINFO, KEYVAL, "MemTotal", "MemTotal, kB"),
	GAUGE("mem_free_kb", MEMINFO, KEYVAL, "MemFree", "MemFree, kB"),
	GAUGE("mem_available_kb", MEMINFO, KEYVAL, "MemAvailable", "MemAvailable, kB"),
	GAUGE("buffers_kb", MEMINFO, KEYVAL, "Buffers", "Buffers, kB"),
	GAUGE("cached_kb", MEMINFO, KEYVAL, "Cached", "page cache, kB"),
	GAUGE("anon_kb", MEMINFO, KEYVAL, "AnonPages", "anonymous memory, kB"),
	GAUGE("shmem_kb", MEMINFO, KEYVAL, "Shmem", "shared memory, kB"),
	GAUGE("slab_kb", MEMINFO, KEYVAL, "Slab", "slab (kernel objects, sk_buffs), kB"),
	GAUGE("slab_unreclaimable_kb", MEMINFO, KEYVAL, "SUnreclaim", "unreclaimable slab, kB"),
	GAUGE("committed_as_kb", MEMINFO, KEYVAL, "Committed_AS", "memory committed, kB"),
};

static const struct bpftune_tcol health_cols[] = {
	INT("ringbuf_lost", "events the BPF side could not queue (ring buffer full), all tuners, cumulative"),
	INT("events_seen", "ring buffer events delivered to the daemon, cumulative"),
	INT("events_dropped", "of those, event rows dropped (writer queue full), cumulative"),
	INT("rows_queued", "rows accepted into the writer queue, cumulative"),
	INT("rows_dropped", "rows dropped, writer queue full, all tables, cumulative"),
	INT("rows_written", "rows committed to this file, cumulative, as of the previous flush"),
	INT("queue_depth", "rows waiting in the writer queue when this row was made"),
	INT("queue_capacity", "size of the writer queue, rows"),
	INT("queue_max_depth", "largest queue depth seen"),
	INT("flushes", "transactions committed, as of the previous flush"),
	INT("flush_rows", "rows in the previous flush"),
	INT("flush_latency_us", "how long the previous flush took (BEGIN to COMMIT)"),
	INT("flush_latency_max_us", "longest flush so far"),
	INT("writer_lag_us", "age of the oldest row of the previous flush when it was written"),
	INT("sample_latency_us", "how long this interval's samples took: every netns entered, /proc read, gauges taken, rows written"),
	INT("netns_known", "network namespaces besides the daemon's that the daemon can sample now (named in /run/netns, or with a task seen in them)"),
	INT("netns_sampled", "of those, sampled this interval (at most --sample-netns, in turns)"),
	INT("netns_errors", "of those sampled, namespaces that could not be entered (gone since they were listed), cumulative"),
	INT("cpu_user_us", "daemon CPU time in user mode, cumulative (all threads)"),
	INT("cpu_system_us", "daemon CPU time in the kernel, cumulative"),
	INT("rss_kb", "daemon resident memory now"),
	INT("db_bytes", "size of this file plus its WAL"),
};

const struct bpftune_ttable bpftune_telemetry_tables[BPFTUNE_T_MAX] = {
	[BPFTUNE_T_META] = TABLE("meta", 0,
		"Key/value facts about the file: schema_version (also PRAGMA user_version), run_id, host_id, created_by, created_wall.",
		meta_cols),
	[BPFTUNE_T_RUNS] = TABLE("runs", BPFTUNE_TT_COMMON,
		"One row per daemon run: the host, kernel, hardware and configuration. ts_uptime_us is the start.",
		runs_cols),
	[BPFTUNE_T_TUNERS] = TABLE("tuners", BPFTUNE_TT_COMMON,
		"One row per tuner started in the run.",
		tuners_cols),
	[BPFTUNE_T_TUNABLES] = TABLE("tunables", BPFTUNE_TT_COMMON,
		"One row per tunable of each tuner: its caps and its value when the run started.",
		tunables_cols),
	[BPFTUNE_T_STATES] = TABLE("states", BPFTUNE_TT_COMMON,
		"Tuner state transitions per network namespace: ACTIVE at start, MANUAL when an admin takes a tunable over (a label: the admin disagreed), GONE when a netns is destroyed.",
		states_cols),
	[BPFTUNE_T_EVENTS] = TABLE("events", BPFTUNE_TT_COMMON,
		"Every event the BPF side delivered through the ring buffer (events lost in the kernel are counted in health.ringbuf_lost). ts_uptime_us is the BPF-side timestamp, raised to the previous event's where events from different CPUs arrived out of order (by microseconds), so it never decreases in seq order.",
		events_cols),
	[BPFTUNE_T_DECISIONS] = TABLE("decisions", BPFTUNE_TT_COMMON,
		"Every evaluation a tuner made (bpftune_decision()), including those that changed nothing: state -> action. Join changes on changes.decision_seq = decisions.seq for the outcome.",
		decisions_cols),
	[BPFTUNE_T_CHANGES] = TABLE("changes", BPFTUNE_TT_COMMON,
		"Every tunable write: made, failed, held back by --observe, or a rollback on exit. A write that would change nothing is not made and has no row.",
		changes_cols),
	[BPFTUNE_T_SAMPLES_TCP] = TABLE("samples_tcp", BPFTUNE_TT_COMMON | BPFTUNE_TT_SAMPLES | BPFTUNE_TT_NETNS,
		"TCP counters and gauges per network namespace, every sample interval: from /proc/net/snmp, netstat and sockstat as seen in that netns, and the BPF-side RTT and buffer gauges the tcp_buffer tuner gathers there. NULL where this kernel lacks the field, or where no loaded tuner feeds the gauge.",
		samples_tcp_cols),
	[BPFTUNE_T_SAMPLES_UDP] = TABLE("samples_udp", BPFTUNE_TT_COMMON | BPFTUNE_TT_SAMPLES | BPFTUNE_TT_NETNS,
		"UDP counters and gauges (IPv4 and IPv6) per network namespace, every sample interval.",
		samples_udp_cols),
	[BPFTUNE_T_SAMPLES_NEIGH] = TABLE("samples_neigh", BPFTUNE_TT_COMMON | BPFTUNE_TT_SAMPLES,
		"Neighbour tables (ARP, IPv6 ND), summed over CPUs, every sample interval. Machine-wide (the kernel keeps one table for every netns): one row per interval.",
		samples_neigh_cols),
	[BPFTUNE_T_SAMPLES_NETDEV] = TABLE("samples_netdev", BPFTUNE_TT_COMMON | BPFTUNE_TT_SAMPLES | BPFTUNE_TT_NETNS,
		"Softnet (per-CPU receive backlog) counters summed over CPUs (machine-wide: in the daemon's netns row only), and the counters of the netns' devices summed, per network namespace, every sample interval.",
		samples_netdev_cols),
	[BPFTUNE_T_SAMPLES_FRAG] = TABLE("samples_frag", BPFTUNE_TT_COMMON | BPFTUNE_TT_SAMPLES | BPFTUNE_TT_NETNS,
		"IP fragmentation and reassembly (IPv4 and IPv6) per network namespace, every sample interval.",
		samples_frag_cols),
	[BPFTUNE_T_SAMPLES_SYSTEM] = TABLE("samples_system", BPFTUNE_TT_COMMON | BPFTUNE_TT_SAMPLES,
		"Load, CPU time, pressure stall information and memory, machine-wide, every sample interval. PSI columns are NULL where the kernel has no PSI.",
		samples_system_cols),
	[BPFTUNE_T_HEALTH] = TABLE("health", BPFTUNE_TT_COMMON,
		"The telemetry pipeline and the daemon itself, every sample interval and once at exit: what was lost, queue and flush figures, CPU and memory.",
		health_cols),
};

const char *bpftune_tcol_type_name(enum bpftune_tcol_type type)
{
	switch (type) {
	case BPFTUNE_TCOL_INTEGER:
		return "INTEGER";
	case BPFTUNE_TCOL_REAL:
		return "REAL";
	case BPFTUNE_TCOL_TEXT:
		return "TEXT";
	}
	return "?";
}

unsigned int bpftune_ttable_num_cols(const struct bpftune_ttable *t)
{
	return t->num_cols + ((t->flags & BPFTUNE_TT_COMMON) ?
			      bpftune_telemetry_num_common_cols : 0);
}

const struct bpftune_tcol *bpftune_ttable_col(const struct bpftune_ttable *t,
					      unsigned int i)
{
	if (t->flags & BPFTUNE_TT_COMMON) {
		if (i < bpftune_telemetry_num_common_cols)
			return &bpftune_telemetry_common_cols[i];
		i -= bpftune_telemetry_num_common_cols;
	}
	return i < t->num_cols ? &t->cols[i] : NULL;
}

/* snprintf into buf at *off; -ENOSPC once it no longer fits */
static int append(char *buf, size_t len, size_t *off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int append(char *buf, size_t len, size_t *off, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*off >= len)
		return -ENOSPC;
	va_start(ap, fmt);
	n = vsnprintf(buf + *off, len - *off, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len - *off)
		return -ENOSPC;
	*off += n;
	return 0;
}

/* names are SQL identifiers as they stand: [a-z_][a-z0-9_]* */
static bool ident_ok(const char *s)
{
	if (!s || !((*s >= 'a' && *s <= 'z') || *s == '_'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

int bpftune_telemetry_ddl(const struct bpftune_ttable *t, char *buf, size_t len)
{
	unsigned int i, n = bpftune_ttable_num_cols(t);
	size_t off = 0;
	int err;

	if (!ident_ok(t->name) || !n)
		return -EINVAL;
	err = append(buf, len, &off, "CREATE TABLE IF NOT EXISTS %s (", t->name);
	for (i = 0; !err && i < n; i++) {
		const struct bpftune_tcol *c = bpftune_ttable_col(t, i);

		if (!ident_ok(c->name))
			return -EINVAL;
		err = append(buf, len, &off, "%s%s %s%s", i ? ", " : "", c->name,
			     bpftune_tcol_type_name(c->type),
			     (c->flags & BPFTUNE_TCOL_NOT_NULL) ? " NOT NULL" : "");
	}
	err = err ?: append(buf, len, &off, ")");
	return err ?: (int)off;
}

int bpftune_telemetry_insert_sql(const struct bpftune_ttable *t, char *buf,
				 size_t len)
{
	unsigned int i, n = bpftune_ttable_num_cols(t);
	size_t off = 0;
	int err;

	if (!ident_ok(t->name) || !n)
		return -EINVAL;
	err = append(buf, len, &off, "INSERT INTO %s (", t->name);
	for (i = 0; !err && i < n; i++) {
		const struct bpftune_tcol *c = bpftune_ttable_col(t, i);

		if (!ident_ok(c->name))
			return -EINVAL;
		err = append(buf, len, &off, "%s%s", i ? ", " : "", c->name);
	}
	err = err ?: append(buf, len, &off, ") VALUES (");
	for (i = 0; !err && i < n; i++)
		err = append(buf, len, &off, "%s?", i ? ", " : "");
	err = err ?: append(buf, len, &off, ")");
	return err ?: (int)off;
}

int bpftune_telemetry_write_sql(FILE *f)
{
	char buf[16384];
	unsigned int i;
	int n;

	fprintf(f, "-- bpftune telemetry schema version %d\n",
		BPFTUNE_TELEMETRY_SCHEMA_VERSION);
	for (i = 0; i < BPFTUNE_T_MAX; i++) {
		n = bpftune_telemetry_ddl(&bpftune_telemetry_tables[i], buf, sizeof(buf));
		if (n < 0)
			return n;
		fprintf(f, "%s;\n", buf);
	}
	fprintf(f, "PRAGMA user_version = %d;\n", BPFTUNE_TELEMETRY_SCHEMA_VERSION);
	return ferror(f) ? -EIO : 0;
}

/* a table cell: '|' would end the cell */
static void md_cell(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '|')
			fputs("\\|", f);
		else
			fputc(*s, f);
	}
}

static const char *kind_name(const struct bpftune_tcol *c)
{
	bool global = c->flags & BPFTUNE_TCOL_GLOBAL;

	if (c->flags & BPFTUNE_TCOL_COUNTER)
		return global ? "counter, machine-wide" : "counter";
	if (c->fmt == BPFTUNE_PROC_BPF)
		return "over the interval";
	if (c->flags & BPFTUNE_TCOL_GAUGE)
		return global ? "gauge, machine-wide" : "gauge";
	return "";
}

static void md_source(FILE *f, const struct bpftune_tcol *c)
{
	switch (c->fmt) {
	case BPFTUNE_PROC_BPF:
		fprintf(f, "BPF gauge `%s`", c->key);
		break;
	case BPFTUNE_PROC_NETNS:
		fputs("the sampled netns", f);
		break;
	default:
		fprintf(f, "`%s` `%s`", c->file ? c->file : "", c->key ? c->key : "");
	}
}

int bpftune_telemetry_write_markdown(FILE *f)
{
	unsigned int i, j;

	fprintf(f,
"<!-- SPDX-License-Identifier: GPL-2.0-only -->\n"
"<!-- Generated from src/lib/telemetry/telemetry_schema.c by `make docs`: do not edit. -->\n"
"# bpftune telemetry tables (schema version %d)\n\n"
"The daemon writes one SQLite file per run to `/var/lib/bpftune/telemetry/`\n"
"(`--telemetry-dir`), named `<start time>-<run_id>.db`, in WAL mode: it can be\n"
"read while the daemon runs, e.g. `pandas.read_sql(\"SELECT * FROM changes\", sqlite3.connect(path))`.\n"
"`bpftune-telemetry export --csv DIR` writes one CSV per table, `dataset build` merges\n"
"runs and splits them by run, `plot` draws each run, `collect` runs workloads.\n\n"
"Every table except `meta` starts with the same four columns:\n\n"
"| column | type | meaning |\n|---|---|---|\n",
		BPFTUNE_TELEMETRY_SCHEMA_VERSION);
	for (i = 0; i < bpftune_telemetry_num_common_cols; i++) {
		const struct bpftune_tcol *c = &bpftune_telemetry_common_cols[i];

		fprintf(f, "| `%s` | %s | ", c->name, bpftune_tcol_type_name(c->type));
		md_cell(f, c->doc);
		fputs(" |\n", f);
	}
	fprintf(f,
"\nThe file stores its schema version as `PRAGMA user_version` and in `meta`.\n"
"Rows are written by a separate thread from a bounded queue (4096 rows), one\n"
"transaction at every sample interval and whenever half the queue is waiting:\n"
"when the queue is full rows are dropped, never the daemon slowed down; `health`\n"
"counts what was dropped and a gap in `seq` shows where. `--observe` records\n"
"decisions and the changes they asked for (`changes.applied` = 0) without\n"
"writing to the kernel. `--no-telemetry` turns all of this off.\n\n"
"## Samples\n\n"
"Samples (`samples_*`, `health`) are taken every `--sample-interval` milliseconds\n"
"(default %d). Counters are cumulative since boot (take differences for\n"
"rates), gauges are the value at sample time, and the columns marked *over the\n"
"interval* aggregate what the BPF side observed since that netns' previous row.\n\n"
"**Per network namespace.** The tables with a `netns_cookie` column get one row\n"
"per interval for the daemon's own netns (`netns_cookie` = 0) and one for each\n"
"other netns the daemon can reach: those named in `/run/netns` and those it\n"
"has seen a task of (an event, the netns tuner). The writer thread enters each\n"
"in turn and reads `/proc/net/*` there; no netns file descriptor is kept\n"
"between samples (an open one would keep a deleted netns alive). To bound the\n"
"cost, at most `--sample-netns` namespaces (default %d, at most %d; 0: only\n"
"the daemon's) are sampled per interval, in turns: with more, each one is\n"
"sampled every ceil(known / N) intervals, and its BPF gauges then cover the\n"
"time since its previous row. `health.netns_known` and `netns_sampled` say how\n"
"many there were. Columns marked *machine-wide* hold the same value in every\n"
"netns and are filled in the daemon's row only. One netns costs two setns(),\n"
"six /proc reads and four rows: about 0.3 ms of the writer thread.\n\n"
"**BPF-side gauges.** A tuner's BPF programs add observations to the shared\n"
"`bpftune_gauges` map, per netns (`bpftune_gauges_get()`, `bpftune_gauge_add()`\n"
"and `BPFTUNE_GAUGES_FED()` in `bpftune/bpftune.bpf.h`, the gauge ids in\n"
"`bpftune/bpftune.h`). The sampler takes and clears each netns' entry every\n"
"time it samples that netns, so `*_n` is a count over the interval, `*_mean`\n"
"and `*_max` its mean and maximum (NULL without observations). A gauge no\n"
"loaded tuner feeds is NULL throughout. The tcp_buffer tuner feeds the RTT and\n"
"buffer gauges of `samples_tcp` from hooks it samples anyway (about 200 calls\n"
"a second per hook machine-wide under load), so the counts are of sampled\n"
"calls: compare them with each other (near-max / n), not with packet counts.\n\n"
"**Idle cost.** Telemetry is on by default, and its sample timer is the\n"
"daemon's only periodic wake-up: one timerfd in the main loop (which lists the\n"
"namespaces and reads the ring buffer loss counters into buffers it keeps) and\n"
"one wake-up of the writer thread, which reads /proc into buffers kept from one\n"
"interval to the next and commits one transaction. The daemon allocates nothing\n"
"per interval itself (SQLite does, inside its page cache: about 28 mallocs per\n"
"interval measured). Measured on a 2-CPU host, idle, 1 s interval: the main\n"
"thread woke 1.2 times a second and the writer twice; an interval cost about\n"
"0.8 ms of CPU with only the daemon's netns sampled, plus about 0.3 ms per\n"
"other netns. With `--no-telemetry` an idle daemon does not wake at all. The\n"
"default keeps 1 s resolution for training data; where idle wake-ups matter\n"
"more than the samples, use a longer `--sample-interval` (events, decisions\n"
"and changes are still recorded as they happen, and flushed at the next\n"
"interval or when the queue is half full) or `--no-telemetry`.\n\n"
"**Retention.** At start the daemon removes the oldest earlier run files of\n"
"its directory until fewer than `--telemetry-keep` runs (default %d; 0: keep\n"
"all) remain, the new run taking the last place, and the remaining ones hold at\n"
"most `--telemetry-max-mb` megabytes (default %d; 0: no limit). Only files\n"
"named like a run's (`<start>-<run_id>.db` and its `-wal`/`-shm`), regular,\n"
"owned by the daemon's user and not open in any process (SQLite's lock on the\n"
"`-shm` file) are removed; a running run is never pruned, so one long run can\n"
"outgrow the budget until the next start.\n\n"
"Tables: ", BPFTUNE_SAMPLE_INTERVAL_MS, BPFTUNE_SAMPLE_NETNS_DEFAULT,
		BPFTUNE_SAMPLE_NETNS_MAX, BPFTUNE_TELEMETRY_KEEP_DEFAULT,
		BPFTUNE_TELEMETRY_MAX_MB_DEFAULT);
	for (i = 0; i < BPFTUNE_T_MAX; i++)
		fprintf(f, "%s[`%s`](#%s)", i ? ", " : "",
			bpftune_telemetry_tables[i].name, bpftune_telemetry_tables[i].name);
	fputs(".\n", f);
	for (i = 0; i < BPFTUNE_T_MAX; i++) {
		const struct bpftune_ttable *t = &bpftune_telemetry_tables[i];
		bool samples = t->flags & BPFTUNE_TT_SAMPLES;

		fprintf(f, "\n## %s\n\n%s\n\n", t->name, t->doc);
		if (t->flags & BPFTUNE_TT_COMMON)
			fputs("Columns after `run_id`, `host_id`, `seq`, `ts_uptime_us`:\n\n", f);
		fputs(samples ? "| column | type | kind | source | meaning |\n|---|---|---|---|---|\n" :
				"| column | type | meaning |\n|---|---|---|\n", f);
		for (j = 0; j < t->num_cols; j++) {
			const struct bpftune_tcol *c = &t->cols[j];

			fprintf(f, "| `%s` | %s | ", c->name, bpftune_tcol_type_name(c->type));
			if (samples) {
				fprintf(f, "%s | ", kind_name(c));
				md_source(f, c);
				fputs(" | ", f);
			}
			md_cell(f, c->doc);
			fputs(" |\n", f);
		}
	}
	return ferror(f) ? -EIO : 0;
}
