// SPDX-License-Identifier: GPL-2.0-only
/*
 * A slow receive path for the tests: a tc classifier that holds every
 * packet for COST_NS of wall-clock time (it spins until bpf_ktime_get_ns()
 * has moved that far), so the CPU draining a backlog falls behind the
 * sender and its receive rounds run into their budget or time limit.
 *
 * The cost is time, not a number of iterations, so it is the same on a
 * fast host, a loaded one and a TCG guest: a backlog poll (64 packets)
 * takes at least 3.2 ms, and a NET_RX round with a full backlog runs
 * into any netdev_budget_usecs up to 20 ms after a handful of polls, long
 * before it could use a netdev_budget of 3000 packets (150 ms).
 *
 *	tc qdisc add dev veth0 clsact
 *	tc filter add dev veth0 ingress bpf direct-action obj slow_rx.bpf.o sec tc
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#define TC_ACT_OK	0
#define COST_NS		50000ULL
#define MAX_SPINS	(1U << 23)	/* bpf_loop's limit */

/* what the spinning computed, so that it is not optimised away */
__u64 packets, sink;

struct spin_state {
	__u64 until;
	__u64 acc;
};

static long spin(__u64 i, void *ctx)
{
	struct spin_state *s = ctx;

	s->acc = s->acc * 6364136223846793005ULL + i;
	return bpf_ktime_get_ns() >= s->until;	/* 1 ends the loop */
}

SEC("tc")
int slow_rx(struct __sk_buff *skb)
{
	struct spin_state s = {
		.until = bpf_ktime_get_ns() + COST_NS,
		.acc = skb->len,
	};

	bpf_loop(MAX_SPINS, spin, &s, 0);
	sink = s.acc;
	__sync_fetch_and_add(&packets, 1);
	return TC_ACT_OK;
}

char LICENSE[] SEC("license") = "GPL";
