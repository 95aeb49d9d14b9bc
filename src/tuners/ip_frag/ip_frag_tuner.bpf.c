// SPDX-License-Identifier: GPL-2.0-only
/*
 * ip_frag tuner, BPF side.  For a sample of the IPv4 and IPv6 fragments
 * received, the reassembly memory of their netns is compared with its high
 * threshold.  Within delta of it: an event, in that netns.
 *
 * Where function hooks work (fentry, or kprobe in legacy mode) the hook is
 * inet_frag_find(), the reassembly queue lookup of every fragment (IPv4,
 * IPv6 and netfilter's defragmentation alike), which hands over the fqdir
 * whose memory counts: only fragments run a program.  On a
 * tracepoint-only kernel every received packet passes net:
 * netif_receive_skb, where fragments are told apart by two header bytes:
 * a program on every packet, for the rare fragment.
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

/*
 * skb->protocol and skb->data, which lie a few bytes apart in struct
 * sk_buff: one read of the span instead of two (every packet pays for
 * each read: in legacy mode each is a helper call).  The offsets are the
 * running kernel's (CO-RE); two plain reads if the span is ever larger.
 */
#define SKB_SPAN_MAX		48

static __always_inline void skb_proto_data(struct sk_buff *skb, __u16 *proto,
					   unsigned char **data)
{
	__u32 off_p = bpf_core_field_offset(struct sk_buff, protocol);
	__u32 off_d = bpf_core_field_offset(struct sk_buff, data);
	__u8 span[SKB_SPAN_MAX];

	if (off_d < off_p || off_d - off_p > SKB_SPAN_MAX - sizeof(*data) ||
	    bpf_probe_read_kernel(span, off_d - off_p + sizeof(*data),
				  (void *)skb + off_p)) {
		*proto = BPF_CORE_READ(skb, protocol);
		*data = BPF_CORE_READ(skb, data);
		return;
	}
	__builtin_memcpy(proto, span, sizeof(*proto));
	__builtin_memcpy(data, span + (off_d - off_p), sizeof(*data));
}

/* A fragment of @family for @fqdir of @net: an event if memory is near high. */
static __always_inline int fqdir_check(struct net *net, struct fqdir *fqdir,
				       __u32 family)
{
	struct ip_frag_event *e;
	struct bpftune_event *ev;
	__s64 mem, high;
	__u64 cookie;

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

static __always_inline int skb_frag_check(struct sk_buff *skb)
{
	struct fqdir *fqdir;
	unsigned char *data;
	__be16 word = 0;
	__u32 family;
	struct net *net;
	__u16 proto;

	skb_proto_data(skb, &proto, &data);
	if ((proto != bpf_htons(ETH_P_IP) && proto != bpf_htons(ETH_P_IPV6)) ||
	    !data)
		return 0;
	/*
	 * The MAC header is pulled: data is the network header.  Bytes 6-7
	 * tell a fragment: IPv4's flags and fragment offset, IPv6's next
	 * header (byte 6).  Only fragments are sampled, so that other
	 * traffic on the host does not thin out what the tuner sees.
	 */
	if (bpf_probe_read_kernel(&word, sizeof(word), data + 6))
		return 0;
	if (proto == bpf_htons(ETH_P_IP)) {
		if (!(word & bpf_htons(IP_MF_OFFSET)))
			return 0;
		family = IP_FRAG_V4;
	} else {
		if (*(__u8 *)&word != NEXTHDR_FRAGMENT)
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
	return fqdir_check(net, fqdir, family);
}

/*
 * A fragment looks up its reassembly queue in @fqdir.  Its family is that
 * of the netns's IPv4 or IPv6 fqdir; netfilter's own (conntrack's IPv6
 * defragmentation) has no tunable of ours and is left alone.
 */
static __always_inline int fqdir_frag_check(struct fqdir *fqdir)
{
	struct net *net;
	__u32 family;

	if (!fqdir || !bpftune_sample(&rcv_sampler))
		return 0;
	net = BPF_CORE_READ(fqdir, net);
	if (!net)
		return 0;
	if (fqdir == BPF_CORE_READ(net, ipv4.fqdir))
		family = IP_FRAG_V4;
	else if (fqdir == BPF_CORE_READ(net, ipv6.fqdir))
		family = IP_FRAG_V6;
	else
		return 0;
	return fqdir_check(net, fqdir, family);
}

BPFTUNE_FN(rcv__fn, inet_frag_find, struct fqdir *fqdir, void *key)
{
	return fqdir_frag_check(fqdir);
}

BPFTUNE_TP(rcv__tp, netif_receive_skb, struct sk_buff *skb)
{
	return skb_frag_check(skb);
}
