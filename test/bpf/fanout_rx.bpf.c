// SPDX-License-Identifier: GPL-2.0-only
/*
 * Several NAPI contexts with work on one CPU, for the tests of the
 * NET_RX time limit.  The kernel checks netdev_budget_usecs between NAPI
 * polls, and polls each scheduled NAPI context once per round: with a
 * single backlog a round is a single poll.  So this tc program, on the
 * ingress of the device whose packets RPS brings to the CPU under test,
 * redirects them round-robin to the egress of FANOUT veth devices with
 * ifindex FANOUT_IFINDEX.. in the same netns.  Their peers run in NAPI
 * mode (GRO on), so each veth_xmit() schedules the peer's NAPI context on
 * this same CPU: a round then polls FANOUT contexts, each with up to 64
 * packets that slow_rx.bpf.c holds for 50 us -- FANOUT x 3.2 ms.
 *
 *	tc filter add dev DEV ingress bpf direct-action obj fanout_rx.bpf.o sec tc
 */
#include "vmlinux.h"
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#define TC_ACT_OK	0
#define ETH_P_IP	0x0800
#define IPPROTO_UDP_	17
#define IP_PROTO_OFF	(14 + 9)	/* Ethernet header + ip->protocol */
#define FANOUT		4
#define FANOUT_IFINDEX	101	/* fo1..fo4 are created with index 101..104 */

__u64 next;

SEC("tc")
int fanout_rx(struct __sk_buff *skb)
{
	__u8 proto;
	__u32 i;

	/* ARP and the rest go on as usual: only UDP over IPv4 fans out */
	if (skb->protocol != bpf_htons(ETH_P_IP) ||
	    bpf_skb_load_bytes(skb, IP_PROTO_OFF, &proto, 1) ||
	    proto != IPPROTO_UDP_)
		return TC_ACT_OK;
	i = __sync_fetch_and_add(&next, 1) % FANOUT;
	return bpf_redirect(FANOUT_IFINDEX + i, 0);
}

char LICENSE[] SEC("license") = "GPL";
