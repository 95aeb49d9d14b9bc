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
 * a program on every packet, for the rare fragment: the library attaches
 * it only while fragments are dropped or reassembled (its gate, in
 * ip_frag_tuner.c), and the drop program below sees a limit reached.
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

struct bpftune_last_report last[2];

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
	if (bpftune_repeated(&last[family & 1], cookie, high, REPEAT_GAP_NS))
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

/*
 * @nh, the network header of a packet of @proto: a fragment's family, or
 * -1.  Bytes 6-7 tell a fragment: IPv4's flags and fragment offset,
 * IPv6's next header (byte 6).
 */
static __always_inline int frag_family(__u16 proto, unsigned char *nh)
{
	__be16 word = 0;

	if ((proto != bpf_htons(ETH_P_IP) && proto != bpf_htons(ETH_P_IPV6)) ||
	    !nh || bpf_probe_read_kernel(&word, sizeof(word), nh + 6))
		return -1;
	if (proto == bpf_htons(ETH_P_IP))
		return word & bpf_htons(IP_MF_OFFSET) ? IP_FRAG_V4 : -1;
	return *(__u8 *)&word == NEXTHDR_FRAGMENT ? IP_FRAG_V6 : -1;
}

/* a fragment @skb of @family: compare the memory of its netns */
static __always_inline int skb_fqdir_check(struct sk_buff *skb, __u32 family)
{
	struct fqdir *fqdir;
	struct net *net;

	net = BPF_CORE_READ(skb, dev, nd_net.net);
	if (!net)
		return 0;
	if (family == IP_FRAG_V4)
		fqdir = BPF_CORE_READ(net, ipv4.fqdir);
	else
		fqdir = BPF_CORE_READ(net, ipv6.fqdir);
	/* a stale skb->dev (a queued fragment's) leads nowhere consistent */
	if (!fqdir || BPF_CORE_READ(fqdir, net) != net)
		return 0;
	return fqdir_check(net, fqdir, family);
}

static __always_inline int skb_frag_check(struct sk_buff *skb)
{
	unsigned char *data;
	__u16 proto;
	int family;

	skb_proto_data(skb, &proto, &data);
	/*
	 * The MAC header is pulled: data is the network header.  Only
	 * fragments are sampled, so that other traffic on the host does not
	 * thin out what the tuner sees.
	 */
	family = frag_family(proto, data);
	if (family < 0 || !bpftune_sample(&rcv_sampler))
		return 0;
	return skb_fqdir_check(skb, family);
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

/*
 * Fragments dropped (skb:kfree_skb), every mode: the rare path that opens
 * the gate of rcv__tp (frag_drops) and, since a fragment dropped with the
 * memory over the threshold is the limit reached, reports it itself: a
 * burst from calm that fills the memory before the gate's next check is
 * still seen.  On 6.1 the fragments of every reassembled datagram pass
 * here too when it is freed.  A fragment that timed out in its queue is
 * counted only: its skb->dev is the queue's rbnode by then (any other
 * stale dev fails skb_fqdir_check()'s fqdir->net test).
 */
__u64 frag_drops;

BPFTUNE_TP(drop, kfree_skb, struct sk_buff *skb, void *location,
	   enum skb_drop_reason reason)
{
	__u16 proto = BPF_CORE_READ(skb, protocol);
	__u16 nh;
	int family;

	if (proto != bpf_htons(ETH_P_IP) && proto != bpf_htons(ETH_P_IPV6))
		return 0;
	nh = BPF_CORE_READ(skb, network_header);
	if (nh == (__u16)~0U)
		return 0;
	family = frag_family(proto, BPF_CORE_READ(skb, head) + nh);
	if (family < 0)
		return 0;
	__sync_fetch_and_add(&frag_drops, 1);
	if (bpf_core_enum_value_exists(enum skb_drop_reason,
				       SKB_DROP_REASON_FRAG_REASM_TIMEOUT) &&
	    reason == bpf_core_enum_value(enum skb_drop_reason,
					  SKB_DROP_REASON_FRAG_REASM_TIMEOUT))
		return 0;
	return skb_fqdir_check(skb, family);
}
