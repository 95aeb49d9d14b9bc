/* SPDX-License-Identifier: GPL-2.0-only */
/* tcp_conn tuner: types shared by tcp_conn_tuner.bpf.c and tcp_conn_tuner.c */
#ifndef BPFTUNE_TCP_CONN_TUNER_H
#define BPFTUNE_TCP_CONN_TUNER_H

#define TCP_CONN_CC_MAX		4	/* cubic, bbr, htcp, dctcp */
#define TCP_CONN_CC_NAME	16	/* TCP_CA_NAME_MAX */
#define TCP_CONN_DESTS		8192	/* destinations the BPF side keeps */

enum tcp_conn_scenario {
	TCP_CONN_SCENARIO_LOSS,		/* lossy connection moved to bbr */
	TCP_CONN_SCENARIO_CHOICE,	/* per-destination choice, and its outcome */
};

/* Its telemetry tables (tcp_conn_tables.c) */
enum tcp_conn_table {
	TCP_CONN_TABLE_OUTCOMES,	/* a row per reported connection */
	TCP_CONN_TABLE_LOSSY,		/* a row per connection moved to bbr */
};

/* How a connection got its congestion control. */
enum tcp_conn_how {
	TCP_CONN_DEFAULT,		/* left alone: the netns default */
	TCP_CONN_GREEDY,		/* the destination's cheapest algorithm */
	TCP_CONN_EXPLORE,		/* picked at random (probability epsilon) */
};

/*
 * A destination: the remote address under a prefix mask, in one netns,
 * so that neither two namespaces nor two unrelated hosts share an entry.
 * IPv4-mapped IPv6 addresses count as IPv4.
 */
struct tcp_conn_dest {
	__u64 netns_cookie;
	__u32 family;			/* AF_INET or AF_INET6 */
	__u32 prefix;			/* bits of addr kept */
	__u32 addr[4];			/* network order, masked */
};

/* Written by userspace before any connection is touched (array, one entry). */
struct tcp_conn_config {
	__u32 num_cc;			/* names[0 .. num_cc - 1] are usable */
	__s32 bbr;			/* index of bbr, -1 if not available */
	__s32 dctcp;			/* index of dctcp (needs ECN), or -1 */
	__u32 epsilon_64k;		/* exploration probability * 65536 */
	__u32 min_conns;		/* connections before choosing */
	__u32 loss_per_mille;		/* retransmitted segments that make a connection lossy */
	__u32 loss_min_segs;		/* data segments sent before judging */
	__u32 learn_min_bytes;		/* bytes acked for an outcome to teach anything */
	__u32 prefix4, prefix6;
	char names[TCP_CONN_CC_MAX][TCP_CONN_CC_NAME];
};

/* Per destination, kept by the BPF side. */
struct tcp_conn_dest_stats {
	__u64 conns;			/* connections established */
};

/* Per destination, written by userspace: the current greedy choice. */
struct tcp_conn_choice {
	__s32 greedy;			/* index into names, -1: none yet */
};

/* TCP_CONN_SCENARIO_LOSS payload */
struct tcp_conn_loss {
	struct tcp_conn_dest dest;
	__u32 laddr[4];			/* local address, network order */
	__u16 lport, rport;		/* host order */
	__u32 retrans;			/* total retransmitted segments */
	__u32 segs_out;			/* data segments sent */
	__u32 srtt_us;
	char from[TCP_CONN_CC_NAME];	/* algorithm it had */
};

/* TCP_CONN_SCENARIO_CHOICE payload: sent when the connection closes */
struct tcp_conn_done {
	struct tcp_conn_dest dest;
	__u8 how;			/* enum tcp_conn_how */
	__u8 ecn;			/* ECN was negotiated */
	__u8 lossy;			/* moved to bbr on loss meanwhile */
	__u8 pad;
	__u32 srtt_us;
	__u32 min_rtt_us;
	__u32 retrans;
	__u32 segs_out;
	__u64 duration_us;		/* established to close */
	__u64 delivery_rate;		/* bytes/s, last rate sample */
	__u64 bytes_acked;
	char cc[TCP_CONN_CC_NAME];	/* algorithm it ended with */
};

#endif
