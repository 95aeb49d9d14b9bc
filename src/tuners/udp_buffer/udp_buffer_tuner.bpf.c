// SPDX-License-Identifier: GPL-2.0-only
/*
 * udp_buffer tuner, BPF side.  Reports, in the netns where it happens:
 *  - a UDP socket that dropped a datagram because its receive buffer was
 *    full, unless the application sized that buffer itself (SO_RCVBUF);
 *  - UDP memory the kernel refused (udp_mem).
 * Tracepoints only (tp_btf, or raw_tp in legacy mode); drops can come by
 * the million, so both hooks are sampled and repeats are filtered.
 */
#include <bpftune/bpftune.bpf.h>
#include "udp_buffer_tuner.h"

#ifndef SOCK_RCVBUF_LOCK
#define SOCK_RCVBUF_LOCK	2
#endif
#define IPPROTO_UDP		17
#define IPPROTO_UDPLITE		136
#define ENOMEM			12
#define ENOBUFS			105

/* the same report again within this many ns is stale news */
#define REPEAT_GAP_NS		(20 * 1000 * 1000ULL)

struct bpftune_sampler fail_sampler;
struct bpftune_sampler rcvq_sampler;
struct bpftune_sampler exceed_sampler;

struct bpftune_last_report rcvbuf_last;
struct bpftune_last_report mem_last;

static __always_inline int is_udp(struct sock *sk)
{
	__u16 proto = BPF_CORE_READ(sk, sk_protocol);

	return proto == IPPROTO_UDP || proto == IPPROTO_UDPLITE;
}

static __always_inline void read_udp_mem(struct sock *sk,
					 struct udp_buffer_event *e)
{
	struct proto *prot = BPF_CORE_READ(sk, __sk_common.skc_prot);
	long *mem = BPF_CORE_READ(prot, sysctl_mem);

	e->allocated = BPF_CORE_READ(prot, memory_allocated, counter);
	if (!mem || bpf_probe_read_kernel(e->udp_mem, sizeof(e->udp_mem), mem))
		e->udp_mem[0] = e->udp_mem[1] = e->udp_mem[2] = 0;
}

/* udp_mem[2], the limit a refusal ran into: a raise makes it news again */
static __always_inline long udp_mem_max(struct sock *sk)
{
	struct proto *prot = BPF_CORE_READ(sk, __sk_common.skc_prot);
	long *mem = BPF_CORE_READ(prot, sysctl_mem);
	long max = 0;

	if (mem)
		bpf_probe_read_kernel(&max, sizeof(max), mem + 2);
	return max;
}

static __always_inline int report(struct sock *sk, __u32 scenario, int rc,
				  long allocated)
{
	struct udp_buffer_event *e;
	struct bpftune_event *ev;

	ev = bpftune_event_reserve(scenario, bpftune_sk_netns_cookie(sk));
	if (!ev)
		return 0;
	ev->payload_len = sizeof(*e);
	e = (struct udp_buffer_event *)ev->payload;
	__builtin_memset(e, 0, sizeof(*e));
	read_udp_mem(sk, e);
	if (allocated)
		e->allocated = allocated;
	e->rcvbuf = BPF_CORE_READ(sk, sk_rcvbuf);
	e->rmem_alloc = BPF_CORE_READ(sk, sk_backlog.rmem_alloc.counter);
	e->rc = rc;
	e->port = BPF_CORE_READ(sk, __sk_common.skc_num);
	e->family = BPF_CORE_READ(sk, __sk_common.skc_family);
	bpftune_event_submit(ev);
	return 0;
}

/*
 * A datagram could not be queued.  -ENOMEM: the socket's buffer is full;
 * -ENOBUFS: UDP memory (udp_mem) refused it.  A socket whose buffer the
 * application set (SO_RCVBUF) is its own business: nothing is sent.
 */
static __always_inline int queue_failed(int rc, struct sock *sk)
{
	if (!sk || !bpftune_sample(&fail_sampler))
		return 0;
	if (rc == -ENOBUFS) {
		if (bpftune_repeated(&mem_last, bpftune_sk_netns_cookie(sk),
				     udp_mem_max(sk), REPEAT_GAP_NS))
			return 0;
		return report(sk, UDP_BUFFER_MEM_EXHAUSTED, rc, 0);
	}
	if (rc != -ENOMEM)
		return 0;
	if (BPF_CORE_READ_BITFIELD_PROBED(sk, sk_userlocks) & SOCK_RCVBUF_LOCK)
		return 0;
	if (bpftune_repeated(&rcvbuf_last, bpftune_sk_netns_cookie(sk),
			     BPF_CORE_READ(sk, sk_rcvbuf), REPEAT_GAP_NS))
		return 0;
	return report(sk, UDP_BUFFER_RCVBUF_FULL, rc, 0);
}

BPFTUNE_TP(queue_fail, udp_fail_queue_rcv_skb, int rc, struct sock *sk)
{
	return queue_failed(rc, sk);
}

/*
 * sock_queue_rcv_skb() found the queue full: UDP-Lite and encapsulating
 * sockets (and other protocols, ignored) come this way.
 */
BPFTUNE_TP(opt_rcvq, sock_rcvqueue_full, struct sock *sk, struct sk_buff *skb)
{
	if (!is_udp(sk) || !bpftune_sample(&rcvq_sampler))
		return 0;
	if (BPF_CORE_READ_BITFIELD_PROBED(sk, sk_userlocks) & SOCK_RCVBUF_LOCK)
		return 0;
	if (bpftune_repeated(&rcvbuf_last, bpftune_sk_netns_cookie(sk),
			     BPF_CORE_READ(sk, sk_rcvbuf), REPEAT_GAP_NS))
		return 0;
	return report(sk, UDP_BUFFER_RCVBUF_FULL, -ENOMEM, 0);
}

/* The kernel refused UDP socket memory: over udp_mem. */
BPFTUNE_TP(opt_exceed, sock_exceed_buf_limit, struct sock *sk,
	   struct proto *prot, long allocated, int kind)
{
	if (!is_udp(sk) || !bpftune_sample(&exceed_sampler))
		return 0;
	if (bpftune_repeated(&mem_last, bpftune_sk_netns_cookie(sk),
			     udp_mem_max(sk), REPEAT_GAP_NS))
		return 0;
	return report(sk, UDP_BUFFER_MEM_EXHAUSTED, -ENOBUFS, allocated);
}
