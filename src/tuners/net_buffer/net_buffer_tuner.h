/* SPDX-License-Identifier: GPL-2.0-only */
/* net_buffer tuner: types shared by net_buffer_tuner.bpf.c and .c */
#ifndef BPFTUNE_NET_BUFFER_TUNER_H
#define BPFTUNE_NET_BUFFER_TUNER_H

/* inputs of grow-budget and wait-guard (net_buffer_tables.c) */
enum nb_budget_input {
	NB_IN_WORK, NB_IN_POLLS, NB_IN_ROUND_US, NB_IN_CPU, NB_IN_BUDGET,
	NB_IN_BUDGET_USECS, NB_IN_SQUEEZES, NB_IN_WAIT_PER_MS, NB_IN_WAIT_SOURCE,
	NB_IN_GUARD_SAMPLES, NB_BUDGET_NUM_INPUTS,
};

enum net_buffer_scenario {
	NET_BUFFER_BACKLOG_DROP,	/* a per-CPU backlog was full (BPF) */
	NET_BUFFER_BUDGET_SQUEEZE,	/* a receive round ran out of packets (BPF) */
	NET_BUFFER_TIME_SQUEEZE,	/* a receive round ran out of time (BPF) */
	/* decided in userspace only */
	NET_BUFFER_LATENCY_GUARD,	/* longer rounds made tasks wait */
	NET_BUFFER_SHRINK,		/* no longer needed: one step back */
	NET_BUFFER_HIGH_ORDER,		/* order-0 workaround costs a busy rx path */
	NET_BUFFER_NUM_SCENARIOS,
};

/*
 * The CPU wait guard (userspace; the unit tests use the same numbers):
 * at least 4 budget settings, r >= 0.8, and wait rising across them by
 * half its mean trip it; the hold is a minute, doubled per trip up to 16.
 */
#define NET_BUFFER_GUARD_MIN_SAMPLES	4
#define NET_BUFFER_GUARD_MIN_R		0.8
#define NET_BUFFER_GUARD_MIN_RISE	0.5
#define NET_BUFFER_GUARD_HOLD_MS	(60 * 1000ULL)
#define NET_BUFFER_GUARD_HOLD_MAX_MS	(16 * NET_BUFFER_GUARD_HOLD_MS)

/* Event payload */
struct net_buffer_event {
	__u64 drops;		/* backlog drops counted by the BPF side so far */
	__u64 round_ns;		/* squeeze: how long the receive round ran */
	__u32 work;		/* squeeze: packets the round processed */
	__u32 polls;		/* squeeze: NAPI polls in the round */
	__u32 cpu;
	__u32 budget;		/* limits the BPF side compared against */
	__u32 budget_usecs;
	__u32 pad;
};

/* Written by userspace (map "limits"): what a round is allowed. */
struct net_buffer_limits {
	__u32 budget;		/* netdev_budget */
	__u32 budget_usecs;	/* netdev_budget_usecs */
	__u64 slack_ns;		/* the kernel's time limit is in jiffies */
};

/* Per-CPU receive round being watched (map "rounds"). */
struct net_buffer_round {
	__u64 start_ns;
	__u32 work;
	__u32 polls;
	__u32 tracking;
	__u32 pad;
};

/*
 * Which limit ended a receive round, given what the round did and what
 * it was allowed: budget first (the kernel checks both after each poll,
 * and a round that used its whole budget ends whatever the clock says).
 * Pure: shared with the unit tests.
 */
static inline __u32 net_buffer_squeeze_kind(__u32 work, __u64 round_ns,
					    __u32 budget, __u32 budget_usecs,
					    __u64 slack_ns)
{
	__u64 limit_ns = (__u64)budget_usecs * 1000;

	if (budget && work >= budget)
		return NET_BUFFER_BUDGET_SQUEEZE;
	if (budget_usecs && round_ns + slack_ns >= limit_ns)
		return NET_BUFFER_TIME_SQUEEZE;
	return NET_BUFFER_NUM_SCENARIOS;	/* neither */
}

#endif
