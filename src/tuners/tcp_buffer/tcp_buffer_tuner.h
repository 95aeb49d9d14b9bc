/* SPDX-License-Identifier: GPL-2.0-only */
/* tcp_buffer tuner: types shared by tcp_buffer_tuner.bpf.c and .c */
#ifndef BPFTUNE_TCP_BUFFER_TUNER_H
#define BPFTUNE_TCP_BUFFER_TUNER_H

/* Scenarios: the first ones are also the ids of the BPF side's events. */
enum tcp_buffer_scenario {
	TCP_BUFFER_RMEM_NEAR_MAX,	/* a receive buffer came near tcp_rmem[2] */
	TCP_BUFFER_WMEM_NEAR_MAX,	/* a send buffer came near tcp_wmem[2] */
	TCP_BUFFER_MEM_PRESSURE,	/* TCP memory near tcp_mem[1] or over */
	TCP_BUFFER_MEM_EXHAUSTED,	/* the kernel refused socket memory */
	TCP_BUFFER_RCVBUF_NO_AUTOTUNE,	/* buffer-limited, autotuning off */
	TCP_BUFFER_SYN_QUEUE,		/* half-open requests piling up */
	/* decided in userspace only */
	TCP_BUFFER_MEM_RECOVERED,	/* pressure gone: undo low-memory mode */
	TCP_BUFFER_LATENCY_GUARD,	/* raising a max raised the RTT */
	TCP_BUFFER_SYN_FLOOD,		/* SYNs that do not become connections */
	TCP_BUFFER_SYN_FLOOD_OVER,	/* syncookies no longer used */
	TCP_BUFFER_NUM_SCENARIOS,
};

/*
 * Gauges the BPF side feeds for the samples_tcp table, per netns (their
 * declaration: tcp_buffer_tables.c).
 */
enum tcp_buffer_gauge {
	TCP_BUFFER_GAUGE_SRTT_US,	/* srtt of a sender with data in flight */
	TCP_BUFFER_GAUGE_RCV_RTT_US,	/* a receiver's RTT estimate */
	TCP_BUFFER_GAUGE_RCVBUF,	/* sk_rcvbuf, bytes */
	TCP_BUFFER_GAUGE_RCVBUF_NEAR_MAX, /* sk_rcvbuf within delta of tcp_rmem[2] */
	TCP_BUFFER_GAUGE_SNDBUF,	/* sk_sndbuf, bytes */
	TCP_BUFFER_GAUGE_SNDBUF_NEAR_MAX, /* sk_sndbuf within delta of tcp_wmem[2] */
	TCP_BUFFER_NUM_GAUGES,
};

/* Event payload (at most BPFTUNE_PAYLOAD_LEN bytes). */
struct tcp_buffer_event {
	__s64 limit[3];		/* tcp_rmem/tcp_wmem seen by the hook */
	__s64 mem[3];		/* tcp_mem (pages) */
	__s64 allocated;	/* TCP memory in use (pages) */
	__u32 value;		/* sk_rcvbuf, sk_sndbuf, or listener qlen */
	__u32 rtt_us;		/* rcv RTT (receiver) or srtt (sender) */
	__u32 backlog;		/* listener's accept backlog */
	__u32 max_syn_backlog;
	__u32 rate_kbps;	/* receive rate (receiver), delivery rate (sender) */
	__u16 port;		/* listener's port */
	__u8 syncookies;
	__u8 pressure;		/* kernel's tcp_memory_pressure is set */
	__u8 moderate_rcvbuf;
	__u8 rcv_wscale;	/* receiver: its window scale, fixed at its SYN */
	__u8 pad[2];
	__u32 min_rtt_us;	/* the socket's smallest RTT seen (0: none) */
	__u32 rcv_wnd;		/* receiver: its advertised window (bytes) */
	__u32 pad2;
};

/* Per-netns SYN counters kept by the BPF side (map syn_stats). */
struct tcp_buffer_syn_stats {
	__u64 completed;	/* handshakes that became sockets */
	__u64 synack_retrans;	/* requests whose SYN-ACK had to be resent */
};

#endif
