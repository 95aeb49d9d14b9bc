// SPDX-License-Identifier: GPL-2.0-only
/*
 * ip_frag tuner, BPF side.  Every received packet passes net:
 * netif_receive_skb; IPv4 and IPv6 fragments are told apart by two header
 * bytes, and for a sample of them the reassembly memory of the device's netns is
 * compared with its high threshold.  Within delta of it: an event, in that
 * netns.  Tracepoint only (tp_btf, or raw_tp in legacy mode).
 */
#include <bpftune/bpftune.bpf.h>
#include "ip_frag_tuner.h"

#define ETH_P_IP		0x0800
#define ETH_P_IPV6		0x86DD
#define IP_MF_OFFSET		0x3fff	/* more fragments flag and offset */
#define NEXTHDR_FRAGMENT	44

/* the same (netns, threshold) again within this many ns is stale news */
#define REPEAT_GAP_NS		(50 * 1000 * 1000ULL)

struct bpftune_sampler rcv_sampler;

struct ip_frag_last_report last[2];

static __always_inline int repeated(struct ip_frag_last_report *l,
				    __u64 cookie, __s64 high)
{
	__u64 now = bpf_ktime_get_ns();

	if (l->cookie == cookie && l->high == high &&
	    now - l->ns < REPEAT_GAP_NS)
		return 1;
	l->cookie = cookie;
	l->high = high;
	l->ns = now;
	return 0;
}

static __always_inline int frag_check(struct sk_buff *skb)
{
	__u16 proto = BPF_CORE_READ(skb, protocol);
	struct ip_frag_event *e;
	struct bpftune_event *ev;
	struct fqdir *fqdir;
	unsigned char *data;
	__u32 family;
	struct net *net;
	__u64 cookie;
	__s64 mem, high;

	if (proto != bpf_htons(ETH_P_IP) && proto != bpf_htons(ETH_P_IPV6))
		return 0;
	/* the MAC header is pulled: data is the network header */
	data = BPF_CORE_READ(skb, data);
	if (!data)
		return 0;
	/*
	 * Two bytes tell a fragment; sample only fragments, so that other
	 * traffic on the host does not thin out what the tuner sees.
	 */
	if (proto == bpf_htons(ETH_P_IP)) {
		__be16 frag_off = 0;

		bpf_probe_read_kernel(&frag_off, sizeof(frag_off), data + 6);
		if (!(frag_off & bpf_htons(IP_MF_OFFSET)))
			return 0;
		family = IP_FRAG_V4;
	} else {
		__u8 nexthdr = 0;

		bpf_probe_read_kernel(&nexthdr, sizeof(nexthdr), data + 6);
		if (nexthdr != NEXTHDR_FRAGMENT)
			return 0;
		family = IP_FRAG_V6;
	}
	if (!bpftune_sample(&rcv_sampler))
		return 0;
	net = BPF_CORE_READ(skb, dev, nd_net.net);
	if (!net)
		return 0;
	if (family == IP_FRAG_V4)
		fqdir = BPF_CORE_READ(net, ipv4.fqdir);
	else
		fqdir = BPF_CORE_READ(net, ipv6.fqdir);
	if (!fqdir)
		return 0;
	mem = BPF_CORE_READ(fqdir, mem.counter);
	high = BPF_CORE_READ(fqdir, high_thresh);
	if (high <= 0 || !bpftune_near_limit(mem, high))
		return 0;
	cookie = bpftune_net_cookie(net);
	if (repeated(&last[family & 1], cookie, high))
		return 0;
	ev = bpftune_event_reserve(IP_FRAG_NEAR_THRESH, cookie);
	if (!ev)
		return 0;
	ev->payload_len = sizeof(*e);
	e = (struct ip_frag_event *)ev->payload;
	__builtin_memset(e, 0, sizeof(*e));
	e->mem = mem;
	e->high_thresh = high;
	e->low_thresh = BPF_CORE_READ(fqdir, low_thresh);
	e->family = family;
	bpftune_event_submit(ev);
	return 0;
}

BPFTUNE_TP(rcv, netif_receive_skb, struct sk_buff *skb)
{
	return frag_check(skb);
}
