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
	TCP_CONN_MODEL,			/* the learned model's pick (tcp_conn_model.h) */
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

/*
 * What a destination's reported connections (the rows of
 * tcp_conn_outcomes) say about it, kept by the BPF side at each report:
 * the features of the learned model, by enum tcp_conn_feature.  An EWMA
 * starts at its first sample, then moves by a quarter of each new one:
 * (3 * old + new) / 4 in integers, as bpftune-telemetry learn computes it.
 */
enum tcp_conn_feature {
	TCP_CONN_F_HIST,		/* connections reported so far */
	TCP_CONN_F_SRTT,		/* EWMA of the smoothed RTT at close, us */
	TCP_CONN_F_MIN_RTT,		/* lowest non-zero minimum RTT, us */
	TCP_CONN_F_RETRANS,		/* EWMA of retransmitted per mille segments sent */
	TCP_CONN_F_RATE,		/* EWMA of the delivery rate, bytes/s */
	TCP_CONN_F_MAX,
};
#define TCP_CONN_F_SLOTS	8	/* >= TCP_CONN_F_MAX, a power of 2 */

/* Per destination, kept by the BPF side. */
struct tcp_conn_dest_stats {
	__u64 conns;			/* connections established */
	__u64 f[TCP_CONN_F_MAX];	/* enum tcp_conn_feature */
};

/*
 * A learned decision tree, as the sockops program walks it (array map
 * conn_model, one entry): written by tcp_conn_strategy.c from a model
 * file.  A node with feature < 0 is a leaf: action is the index into
 * tcp_conn_config.names.  Otherwise x[feature] <= threshold goes left.
 */
#define TCP_CONN_MODEL_NODES	255
#define TCP_CONN_MODEL_SLOTS	256	/* > NODES, a power of 2: masked indexes */
#define TCP_CONN_MODEL_DEPTH	8	/* edges from the root to a leaf, at most */

struct tcp_conn_model_node {
	__u64 threshold;
	__s16 left, right;
	__s8 feature;			/* enum tcp_conn_feature, -1: a leaf */
	__s8 action;
	__u8 pad[2];
};

struct tcp_conn_model_map {
	__u32 num_nodes;		/* 0: no model, the hand rule decides */
	__u32 generation;		/* bumped at every model loaded */
	__u64 lo[TCP_CONN_F_SLOTS];	/* training ranges: outside, the hand rule */
	__u64 hi[TCP_CONN_F_SLOTS];
	struct tcp_conn_model_node nodes[TCP_CONN_MODEL_SLOTS];
};

/* The cost of the model's evaluation (array map model_stats, one entry). */
struct tcp_conn_model_stats {
	__u64 evals;			/* connections the model was asked about */
	__u64 eval_ns;			/* time in the walk, range check included */
	__u64 picks;			/* answered with an algorithm */
	__u64 out_of_range;		/* features outside the training ranges */
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
	__u8 model_miss;		/* the model was out of its ranges */
	/* the choice's odds (tcp_conn_policy.h, tcp_conn_propensity()) */
	__u8 candidates;		/* algorithms exploration drew from */
	__s8 greedy;			/* the destination's greedy one then, -1 */
	__s8 chosen;			/* the algorithm set then, -1: none */
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
