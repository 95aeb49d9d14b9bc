// SPDX-License-Identifier: GPL-2.0-only
/*
 * Loss on a link for the tests (there is no netem here): a tc classifier
 * that drops about 5 % of the IPv4 TCP packets carrying data.  Handshakes
 * and pure ACKs pass, so connections come up and only data is lost.
 *
 *	tc qdisc add dev veth0 clsact
 *	tc filter add dev veth0 egress bpf direct-action obj loss.bpf.o sec tc
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define ETH_P_IP	0x0800
#define IPPROTO_TCP_NR	6
#define TC_ACT_OK	0
#define TC_ACT_SHOT	2
#define DROP_PER_MILLE	50

/* packets dropped and passed, for the test's own diagnostics */
__u64 dropped, passed;

SEC("tc")
int drop_data(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data;
	void *end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = data + sizeof(*eth);
	struct tcphdr *tcp;
	__u32 ihl, payload;

	if ((void *)(ip + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP) ||
	    ip->protocol != IPPROTO_TCP_NR)
		return TC_ACT_OK;
	ihl = ip->ihl * 4;
	if (ihl < sizeof(*ip))
		return TC_ACT_OK;
	tcp = (void *)ip + ihl;
	if ((void *)(tcp + 1) > end)
		return TC_ACT_OK;
	payload = bpf_ntohs(ip->tot_len);
	if (payload <= ihl + tcp->doff * 4)
		return TC_ACT_OK;
	if (bpf_get_prandom_u32() % 1000 < DROP_PER_MILLE) {
		__sync_fetch_and_add(&dropped, 1);
		return TC_ACT_SHOT;
	}
	__sync_fetch_and_add(&passed, 1);
	return TC_ACT_OK;
}

char LICENSE[] SEC("license") = "GPL";
