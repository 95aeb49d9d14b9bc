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
 * designated initialisers in BPFTUNE_TUNER(), typed skeleton glue.  3: a
 * policy declares its outcome (struct bpftune_policy_desc.outcome), a
 * decision may give its propensity (struct bpftune_decision).  4: library
 * functions that served one tuner only went into that tuner (a plugin of
 * ABI 3 may import them: it is refused by this number, not by dlopen()).
 * 5: struct bpftune_gate has a flag (the library indexes a tuner's gates
 * by its size).  6: struct bpftune_gate has the tracepoints that wake
 * it (@wake).
 */
#define BPFTUNE_ABI_VERSION	6

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
 * Gauges: values the BPF side of a plugin observes (a socket's smoothed
 * RTT, its buffer sizes) and adds to the telemetry samples rows of the
 * network namespace it saw them in.  Each plugin has BPFTUNE_GAUGE_SLOTS
 * of its own per netns, numbered by the plugin (its ops->telemetry
 * declares their names, bpftune/telemetry.h); each slot keeps the number
 * of observations, their sum and their maximum since the sampler last
 * took them (every sample interval), and the plugin's sampled tables
 * read them as the count, sum, mean or max over the interval.  Feed them
 * with bpftune_gauges_get()/bpftune_gauge_add() (bpftune.bpf.h).
 */
#define BPFTUNE_GAUGE_SLOTS		8	/* per plugin and netns */
#define BPFTUNE_GAUGES_MAX_ENTRIES	1024	/* (netns, plugin) pairs; LRU */

struct bpftune_gauge {
	__u64 n;	/* observations */
	__u64 sum;	/* their sum */
	__u64 max;	/* the largest */
};

/* Key of the shared map bpftune_gauges: a plugin's gauges in one netns. */
struct bpftune_gauges_key {
	__u64 netns_cookie;
	__u32 tuner_id;
	__u32 pad;		/* 0 */
};

/* Value of the shared map bpftune_gauges. */
struct bpftune_gauges {
	struct bpftune_gauge g[BPFTUNE_GAUGE_SLOTS];
};

/*
 * A BPF program's last report of one kind (a global of the object), so
 * that the same news within a short gap is not sent again:
 * bpftune_repeated() in bpftune.bpf.h.  Userspace sees it through the
 * skeleton's globals.
 */
struct bpftune_last_report {
	__u64 cookie;	/* netns cookie (0 for a global limit) */
	__s64 value;	/* the limit or reading reported */
	__u64 ns;	/* bpf_ktime_get_ns() of the report */
	__u64 gap;	/* the gap now in force (0: the caller's) */
};

/* the longest a report that keeps coming back is held back */
#define BPFTUNE_REPEAT_GAP_MAX_NS	(500 * 1000 * 1000ULL)

/*
 * 1 if (cookie, value) at time now repeats the last report within its
 * gap: drop it.  Else 0, and *last holds this report.  The same news
 * back right after its gap (within twice the gap) means userspace saw it
 * and declined: the gap doubles, up to BPFTUNE_REPEAT_GAP_MAX_NS (or
 * gap_ns if larger), so a declined limit costs a few events a second,
 * not one per gap.  News after a longer quiet starts at gap_ns again.
 * Racing CPUs may both report; userspace acts on the first only.
 */
static inline int bpftune_report_repeats(struct bpftune_last_report *last,
					 __u64 cookie, __s64 value,
					 __u64 gap_ns, __u64 now)
{
	__u64 gap = last->gap > gap_ns ? last->gap : gap_ns;
	__u64 max = gap_ns > BPFTUNE_REPEAT_GAP_MAX_NS ?
		    gap_ns : BPFTUNE_REPEAT_GAP_MAX_NS;
	int same = last->cookie == cookie && last->value == value;
	__u64 since = now - last->ns;

	if (same && since < gap)
		return 1;
	if (same && since < 2 * gap)
		gap = 2 * gap < max ? 2 * gap : max;
	else
		gap = gap_ns;
	last->cookie = cookie;
	last->value = value;
	last->ns = now;
	last->gap = gap;
	return 0;
}

#endif /* BPFTUNE_BPFTUNE_H */
