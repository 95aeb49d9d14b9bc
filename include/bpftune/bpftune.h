/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Types shared by the BPF side and the userspace side of every tuner.
 *
 * Everything here must compile both with vmlinux.h (BPF) and with the
 * normal libc headers (userspace), so only fixed-width __u* types are used.
 */
#ifndef BPFTUNE_BPFTUNE_H
#define BPFTUNE_BPFTUNE_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/*
 * Bumped whenever struct bpftune_event or the plugin ABI changes.  2: the
 * library owns the life cycle (struct bpftune_tuner_ops with private
 * state, per-scenario payload sizes and handlers, netns_state, timer),
 * designated initialisers in BPFTUNE_TUNER(), typed skeleton glue.
 */
#define BPFTUNE_ABI_VERSION	2

#define BPFTUNE_MAX_TUNERS	64
#define BPFTUNE_MAX_VALUES	3	/* e.g. tcp_rmem has min/default/max */
#define BPFTUNE_COMM_LEN	16
#define BPFTUNE_PAYLOAD_LEN	96
#define BPFTUNE_RINGBUF_SIZE	(256 * 1024)

/* Learning rate 0..4 maps to a delta of 1/64 .. 1/4 (1.5625 % .. 25 %). */
#define BPFTUNE_LEARNING_RATE_MAX	4
#define BPFTUNE_LEARNING_RATE_DEFAULT	4

/*
 * Header of every event a BPF program puts into the shared ring buffer.
 * tuner_id is written into each object by the daemon before it is loaded,
 * so the daemon can dispatch the event to the tuner that owns it.
 */
struct bpftune_event {
	__u32 tuner_id;
	__u32 scenario_id;
	__u64 netns_cookie;	/* net->net_cookie, or the netns inode if absent */
	__u64 ts_uptime_ns;	/* CLOCK_BOOTTIME */
	__u32 pid;		/* tgid of the task that caused the event */
	__u32 payload_len;
	char comm[BPFTUNE_COMM_LEN];
	__u8 payload[BPFTUNE_PAYLOAD_LEN];
};

/*
 * Gauges: values the BPF side of a tuner observes (a socket's smoothed
 * RTT, its buffer sizes) and adds to the telemetry samples rows of the
 * network namespace it saw them in.  Each slot keeps, per netns, the
 * number of observations, their sum and their maximum since the sampler
 * last took them (every sample interval): the samples tables get the
 * count, mean and max over the interval.  Feed them with
 * bpftune_gauges_get()/bpftune_gauge_add() and declare which ones an
 * object feeds with BPFTUNE_GAUGES_FED() (bpftune.bpf.h).  The columns
 * they fill are declared in the telemetry schema (docs/telemetry.md).
 * New gauges take free slots: the value layout stays the same.
 */
enum bpftune_gauge_id {
	BPFTUNE_GAUGE_TCP_SRTT_US,	/* srtt of a sender with data in flight */
	BPFTUNE_GAUGE_TCP_RCV_RTT_US,	/* a receiver's RTT estimate */
	BPFTUNE_GAUGE_TCP_RCVBUF,	/* sk_rcvbuf, bytes */
	BPFTUNE_GAUGE_TCP_RCVBUF_NEAR_MAX, /* sk_rcvbuf within delta of tcp_rmem[2] */
	BPFTUNE_GAUGE_TCP_SNDBUF,	/* sk_sndbuf, bytes */
	BPFTUNE_GAUGE_TCP_SNDBUF_NEAR_MAX, /* sk_sndbuf within delta of tcp_wmem[2] */
	BPFTUNE_NUM_GAUGES,
};

#define BPFTUNE_GAUGE_SLOTS		8	/* >= BPFTUNE_NUM_GAUGES */
#define BPFTUNE_GAUGES_MAX_NETNS	1024	/* LRU: the least recent goes */
#define BPFTUNE_GAUGE_BIT(id)		(1ULL << (id))

struct bpftune_gauge {
	__u64 n;	/* observations */
	__u64 sum;	/* their sum */
	__u64 max;	/* the largest */
};

/* Value of the shared map bpftune_gauges, keyed by netns cookie. */
struct bpftune_gauges {
	struct bpftune_gauge g[BPFTUNE_GAUGE_SLOTS];
};

#endif /* BPFTUNE_BPFTUNE_H */
