// SPDX-License-Identifier: GPL-2.0-only
/*
 * A slow receive path for the tests: a tc classifier that spends a few
 * tens of microseconds on every packet, so that the CPU draining a
 * backlog falls behind the senders (backlog drops) and its receive rounds
 * run into their budget or time limit (squeezes).
 *
 *	tc qdisc add dev veth0 clsact
 *	tc filter add dev veth0 ingress bpf direct-action obj slow_rx.bpf.o sec tc
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#define TC_ACT_OK	0
#define SPIN_LOOPS	32768

/* what the spinning computed, so that it is not optimised away */
__u64 packets, sink;

static long spin(__u64 i, void *ctx)
{
	__u64 *acc = ctx;

	*acc = *acc * 6364136223846793005ULL + i;
	return 0;
}

SEC("tc")
int slow_rx(struct __sk_buff *skb)
{
	__u64 acc = skb->len;

	bpf_loop(SPIN_LOOPS, spin, &acc, 0);
	sink = acc;
	__sync_fetch_and_add(&packets, 1);
	return TC_ACT_OK;
}

char LICENSE[] SEC("license") = "GPL";
