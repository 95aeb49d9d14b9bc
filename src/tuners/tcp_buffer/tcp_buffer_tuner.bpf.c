// SPDX-License-Identifier: GPL-2.0-only
/*
 * tcp_buffer tuner, BPF side.  Reports, in the netns where it happens:
 *  - a socket's receive/send buffer within delta of tcp_rmem[2]/tcp_wmem[2]
 *    (or a buffer-limited receiver with autotuning switched off);
 *  - TCP memory near tcp_mem[1], and allocations the kernel refused;
 *  - half-open connections whose SYN-ACK had to be sent again, and counts
 *    handshakes that completed, per netns, for the SYN flood test.
 * Only tracepoints are required; hot ones are sampled.  Userspace decides.
 */
#include <bpftune/bpftune.bpf.h>
#include <bpftune/tick_gate.bpf.h>
#include "tcp_buffer_tuner.h"

#ifndef SOCK_SNDBUF_LOCK
#define SOCK_SNDBUF_LOCK	1
#define SOCK_RCVBUF_LOCK	2
#endif
#ifndef IPPROTO_TCP
#define IPPROTO_TCP		6
#endif

/* at most one memory event per this many ns: userspace reads the rest */
#define MEM_EVENT_GAP_NS	(20 * 1000 * 1000ULL)
/* at most one SYN queue event per this many ns */
#define SYN_EVENT_GAP_NS	(100 * 1000 * 1000ULL)
/* the same limit in the same netns is reported again after this long */
#define REPEAT_GAP_NS		(20 * 1000 * 1000ULL)

struct bpftune_sampler rcvgrow_sampler;
struct bpftune_sampler exceed_sampler;
struct bpftune_sampler synreq_sampler;
__u64 rcvbuf_tick;	/* bpftune_tick_gate_open() of the hot hooks */
/* the window gates' flags (gate.h): set while closed if the link is kept */
__u32 rcvbuf_gate_closed;
__u32 probe_gate_closed;
__u64 probe_tick;

/* tcp_rcvbuf_grow (6.17+) fired: it replaces the rcvbuf check below */
__u32 rcvgrow_seen;
__u64 mem_event_ns;	/* pressure reports and refusals are limited apart */
__u64 exceed_event_ns;
__u64 syn_event_ns;

/*
 * Last limit reported per hook: userspace raises it on the first report,
 * so the same (netns, limit) again within REPEAT_GAP_NS is stale news.
 */
struct bpftune_last_report rmem_last;
struct bpftune_last_report wmem_last;

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);	/* netns cookie */
	__type(value, struct tcp_buffer_syn_stats);
} syn_stats SEC(".maps");

/*
 * The tcp_sock of a TCP socket, or NULL.  A struct sock * cast to struct
 * tcp_sock * does not verify in fentry on 6.1; bpf_skc_to_tcp_sock() does,
 * in every BTF-typed program.  Legacy (kprobe/raw_tp) arguments are plain
 * numbers, read with probes: the cast is all they need.
 */
static __always_inline struct tcp_sock *tcp_sk_of(struct sock *sk)
{
#ifdef BPFTUNE_LEGACY
	return (struct tcp_sock *)sk;
#else
	return bpf_skc_to_tcp_sock(sk);
#endif
}

/*
 * RTT and rate of a socket, for the latency guard.  A receiver's srtt only
 * moves when it sends data: use its own receive-side RTT estimate and the
 * bytes it took in during that RTT.  A sender: srtt and the last delivery
 * rate sample.
 */
static __always_inline void tcp_rtt_rate(struct sock *sk, int receiver,
					 struct tcp_buffer_event *e)
{
	__u64 bytes = 0, us = 0;
	__u32 rtt = 0;
	struct tcp_sock *tp = tcp_sk_of(sk);

	if (!tp)
		return;
	if (receiver) {
		rtt = BPF_CORE_READ(tp, rcv_rtt_est.rtt_us) >> 3;
		bytes = BPF_CORE_READ(tp, rcvq_space.space);
		us = rtt;
		e->rcv_wnd = BPF_CORE_READ(tp, rcv_wnd);
		/*
		 * its window can never exceed 65535 << rcv_wscale (the
		 * bitfield's byte offset is relative to tp: read from there)
		 */
		e->rcv_wscale = BPF_CORE_READ_BITFIELD_PROBED(tp, rx_opt.rcv_wscale);
	} else {
		bytes = (__u64)BPF_CORE_READ(tp, rate_delivered) *
			BPF_CORE_READ(tp, mss_cache);
		us = BPF_CORE_READ(tp, rate_interval_us);
	}
	if (!rtt)
		rtt = BPF_CORE_READ(tp, srtt_us) >> 3;
	e->rtt_us = rtt;
	/* the path's RTT without the queueing a bigger buffer adds */
	e->min_rtt_us = BPF_CORE_READ(tp, rtt_min.s[0].v);
	if (us)
		e->rate_kbps = bytes * 8000 / us;
}

static __always_inline struct net *sk_net(struct sock *sk)
{
	return BPF_CORE_READ(sk, __sk_common.skc_net.net);
}

/*
 * What the buffer checks of one hook call need of a socket and its netns,
 * each read once (in legacy mode every read is a helper call).  A socket
 * the application sized (SO_RCVBUF/SO_SNDBUF: locked) is not tcp_rmem's or
 * tcp_wmem's business: its buffer and the limit are left unread.
 */
struct buf_view {	/* a local type: no CO-RE read may start at its fields */
	struct net *net;
	__u64 cookie;		/* netns cookie */
	__u32 buf;		/* sk_rcvbuf or sk_sndbuf */
	__u32 max;		/* tcp_rmem[2] or tcp_wmem[2] */
	__u8 locked;
	__u8 moderate;		/* tcp_moderate_rcvbuf (receive side) */
};

static __always_inline void rcv_view(struct sock *sk, struct buf_view *v)
{
	struct net *net = sk_net(sk);

	v->net = net;
	v->cookie = bpftune_net_cookie(net);
	v->locked = !!(BPF_CORE_READ_BITFIELD_PROBED(sk, sk_userlocks) &
		       SOCK_RCVBUF_LOCK);
	if (v->locked)
		return;
	v->buf = BPF_CORE_READ(sk, sk_rcvbuf);
	v->max = BPF_CORE_READ(net, ipv4.sysctl_tcp_rmem[2]);
	v->moderate = BPF_CORE_READ(net, ipv4.sysctl_tcp_moderate_rcvbuf);
}

static __always_inline void snd_view(struct sock *sk, struct buf_view *v)
{
	struct net *net = sk_net(sk);

	v->net = net;
	v->cookie = bpftune_net_cookie(net);
	v->locked = !!(BPF_CORE_READ_BITFIELD_PROBED(sk, sk_userlocks) &
		       SOCK_SNDBUF_LOCK);
	if (v->locked)
		return;
	v->buf = BPF_CORE_READ(sk, sk_sndbuf);
	v->max = BPF_CORE_READ(net, ipv4.sysctl_tcp_wmem[2]);
}

/*
 * Gauges of a receiver at a receive-buffer adjustment: its RTT estimate,
 * and, unless the application sized it (SO_RCVBUF), sk_rcvbuf and whether
 * it is near tcp_rmem[2].
 */
static __always_inline void rcv_gauges(struct sock *sk, struct buf_view *v)
{
	struct bpftune_gauges *g;
	struct tcp_sock *tp = tcp_sk_of(sk);
	__u32 rtt;

	if (!tp)
		return;
	g = bpftune_gauges_get(v->cookie);
	if (!g)
		return;
	rtt = BPF_CORE_READ(tp, rcv_rtt_est.rtt_us) >> 3;
	if (rtt)
		bpftune_gauge_add(g, TCP_BUFFER_GAUGE_RCV_RTT_US, rtt);
	if (v->locked)
		return;
	bpftune_gauge_add(g, TCP_BUFFER_GAUGE_RCVBUF, v->buf);
	if (bpftune_near_limit(v->buf, v->max))
		bpftune_gauge_add(g, TCP_BUFFER_GAUGE_RCVBUF_NEAR_MAX, 1);
}

/*
 * Gauges of an established socket at an incoming segment: srtt if it has
 * data in flight (a pure receiver's srtt is the handshake's), and, unless
 * sized by SO_SNDBUF, sk_sndbuf and whether it is near tcp_wmem[2].
 */
static __always_inline void snd_gauges(struct sock *sk, struct buf_view *v)
{
	struct bpftune_gauges *g;
	struct tcp_sock *tp = tcp_sk_of(sk);

	if (!tp)
		return;
	g = bpftune_gauges_get(v->cookie);
	if (!g)
		return;
	if (BPF_CORE_READ(tp, packets_out))
		bpftune_gauge_add(g, TCP_BUFFER_GAUGE_SRTT_US,
				  BPF_CORE_READ(tp, srtt_us) >> 3);
	if (v->locked)
		return;
	bpftune_gauge_add(g, TCP_BUFFER_GAUGE_SNDBUF, v->buf);
	if (bpftune_near_limit(v->buf, v->max))
		bpftune_gauge_add(g, TCP_BUFFER_GAUGE_SNDBUF_NEAR_MAX, 1);
}

/* tcp_mem and the memory TCP holds, both in pages */
static __always_inline void read_tcp_mem(struct sock *sk,
					 struct tcp_buffer_event *e)
{
	struct proto *prot = BPF_CORE_READ(sk, __sk_common.skc_prot);
	unsigned long *pressure = BPF_CORE_READ(prot, memory_pressure);
	long *mem = BPF_CORE_READ(prot, sysctl_mem);
	unsigned long p = 0;

	e->allocated = BPF_CORE_READ(prot, memory_allocated, counter);
	if (!mem || bpf_probe_read_kernel(e->mem, sizeof(e->mem), mem))
		e->mem[0] = e->mem[1] = e->mem[2] = 0;
	if (pressure)
		bpf_probe_read_kernel(&p, sizeof(p), pressure);
	e->pressure = p != 0;
}

static __always_inline struct tcp_buffer_event *
reserve(__u32 scenario, __u64 cookie, struct bpftune_event **evp)
{
	struct bpftune_event *ev;

	ev = bpftune_event_reserve(scenario, cookie);
	*evp = ev;
	if (!ev)
		return NULL;
	ev->payload_len = sizeof(struct tcp_buffer_event);
	__builtin_memset(ev->payload, 0, sizeof(struct tcp_buffer_event));
	return (struct tcp_buffer_event *)ev->payload;
}

static __always_inline int mem_event_due(__u64 *last)
{
	__u64 now = bpf_ktime_get_ns();

	if (now - *last < MEM_EVENT_GAP_NS)
		return 0;
	*last = now;
	return 1;
}

/* TCP memory near the pressure threshold: reported, rate-limited */
static __always_inline int mem_pressure_report(struct tcp_buffer_event *m,
					       __u64 cookie)
{
	struct tcp_buffer_event *e;
	struct bpftune_event *ev;

	if (m->mem[1] <= 0 || m->allocated <= 0 ||
	    !bpftune_near_limit(m->allocated, m->mem[1]) ||
	    !mem_event_due(&mem_event_ns))
		return 0;
	e = reserve(TCP_BUFFER_MEM_PRESSURE, cookie, &ev);
	if (e) {
		__builtin_memcpy(e, m, sizeof(*m));
		bpftune_event_submit(ev);
	}
	return 1;
}

/*
 * Receive side: the buffer autotuning (DRS) grew near tcp_rmem[2], or it
 * is off and the socket is limited by its fixed buffer.  Sockets sized by
 * SO_RCVBUF are the application's business, not tcp_rmem's.
 */
static __always_inline int rcvbuf_check(struct sock *sk, struct buf_view *v)
{
	struct net *net = v->net;
	struct tcp_buffer_event *e;
	struct bpftune_event *ev;
	__u32 scenario, queued;

	if (v->locked)
		return 0;
	if (v->moderate) {
		if (!bpftune_near_limit(v->buf, v->max))
			return 0;
		scenario = TCP_BUFFER_RMEM_NEAR_MAX;
	} else {
		queued = BPF_CORE_READ(sk, sk_backlog.rmem_alloc.counter);
		if (v->buf >= v->max || !bpftune_near_limit(queued, v->buf))
			return 0;
		scenario = TCP_BUFFER_RCVBUF_NO_AUTOTUNE;
	}
	if (bpftune_repeated(&rmem_last, v->cookie, v->max, REPEAT_GAP_NS))
		return 0;
	e = reserve(scenario, v->cookie, &ev);
	if (!e)
		return 0;
	e->value = v->buf;
	e->limit[0] = BPF_CORE_READ(net, ipv4.sysctl_tcp_rmem[0]);
	e->limit[1] = BPF_CORE_READ(net, ipv4.sysctl_tcp_rmem[1]);
	e->limit[2] = v->max;
	e->moderate_rcvbuf = v->moderate;
	tcp_rtt_rate(sk, 1, e);
	read_tcp_mem(sk, e);
	bpftune_event_submit(ev);
	return 0;
}

static __always_inline int rcvbuf_adjust(struct sock *sk)
{
	struct tcp_buffer_event m = {};
	struct buf_view v = {};

	if (rcvbuf_gate_closed || !bpftune_tick_gate_open(&rcvbuf_tick))
		return 0;
	rcv_view(sk, &v);
	rcv_gauges(sk, &v);
	/* a receive-only host sees TCP memory pressure here */
	read_tcp_mem(sk, &m);
	if (mem_pressure_report(&m, v.cookie))
		return 0;
	/* with tcp_rcvbuf_grow seen, only the autotuning-off case is left */
	if (rcvgrow_seen && v.moderate)
		return 0;
	return rcvbuf_check(sk, &v);
}

BPFTUNE_TP(rcvbuf__tp, tcp_rcv_space_adjust, struct sock *sk)
{
	return rcvbuf_adjust(sk);
}

BPFTUNE_FN(rcvbuf__fn, tcp_rcv_space_adjust, struct sock *sk)
{
	return rcvbuf_adjust(sk);
}

/* 6.17+: fires only when autotuning wants a bigger receive buffer */
BPFTUNE_TP(opt_rcvgrow, tcp_rcvbuf_grow, struct sock *sk, int time)
{
	struct buf_view v = {};

	if (!rcvgrow_seen)
		rcvgrow_seen = 1;
	if (!bpftune_sample(&rcvgrow_sampler))
		return 0;
	rcv_view(sk, &v);
	return rcvbuf_check(sk, &v);
}

/*
 * A sample of a TCP sender's calls (at most one per tick: the caller
 * holds the tick gate): the send buffer of a sender near tcp_wmem[2], and
 * TCP memory near the pressure threshold.  The gauges and tcp_mem concern
 * every socket, so no per-socket filter comes first.
 */
static __always_inline int snd_sample(struct sock *sk)
{
	struct tcp_buffer_event *e, m = {};
	struct bpftune_event *ev;
	struct buf_view v = {};
	struct net *net;

	snd_view(sk, &v);
	snd_gauges(sk, &v);
	read_tcp_mem(sk, &m);
	if (mem_pressure_report(&m, v.cookie))
		return 0;
	if (v.locked || !bpftune_near_limit(v.buf, v.max) ||
	    bpftune_repeated(&wmem_last, v.cookie, v.max, REPEAT_GAP_NS))
		return 0;
	e = reserve(TCP_BUFFER_WMEM_NEAR_MAX, v.cookie, &ev);
	if (!e)
		return 0;
	net = v.net;
	__builtin_memcpy(e, &m, sizeof(m));
	e->value = v.buf;
	e->limit[0] = BPF_CORE_READ(net, ipv4.sysctl_tcp_wmem[0]);
	e->limit[1] = BPF_CORE_READ(net, ipv4.sysctl_tcp_wmem[1]);
	e->limit[2] = v.max;
	tcp_rtt_rate(sk, 0, e);
	bpftune_event_submit(ev);
	return 0;
}

/*
 * 6.3+: every sendmsg of every socket.  A bulk sender writes far less
 * often than segments come in (iperf3: one write per four packets), so
 * this, where it exists, replaces the tcp_probe program below.
 */
BPFTUNE_TP(probe__send, sock_send_length, struct sock *sk, int ret, int flags)
{
	__u64 tick;

	if (probe_gate_closed || bpftune_tick_gate_closed(&probe_tick, &tick) || !sk ||
	    BPF_CORE_READ(sk, sk_protocol) != IPPROTO_TCP)
		return 0;
	probe_tick = tick;
	return snd_sample(sk);
}

/* Older kernels: every incoming segment of an established socket. */
BPFTUNE_TP(probe__seg, tcp_probe, struct sock *sk, const struct sk_buff *skb)
{
	if (probe_gate_closed || !bpftune_tick_gate_open(&probe_tick))
		return 0;
	return snd_sample(sk);
}

/* The kernel refused a TCP socket memory (over tcp_mem, or its share). */
BPFTUNE_TP(exceed, sock_exceed_buf_limit, struct sock *sk, struct proto *prot,
	   long allocated, int kind)
{
	struct tcp_buffer_event *e;
	struct bpftune_event *ev;

	if (BPF_CORE_READ(sk, sk_protocol) != IPPROTO_TCP)
		return 0;
	if (!bpftune_sample(&exceed_sampler) ||
	    !mem_event_due(&exceed_event_ns))
		return 0;
	e = reserve(TCP_BUFFER_MEM_EXHAUSTED, bpftune_sk_netns_cookie(sk), &ev);
	if (!e)
		return 0;
	read_tcp_mem(sk, e);
	e->allocated = allocated;
	bpftune_event_submit(ev);
	return 0;
}

static __always_inline struct tcp_buffer_syn_stats *syn_stats_of(__u64 cookie)
{
	struct tcp_buffer_syn_stats *s, zero = {};

	s = bpf_map_lookup_elem(&syn_stats, &cookie);
	if (s)
		return s;
	bpf_map_update_elem(&syn_stats, &cookie, &zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(&syn_stats, &cookie);
}

/* Half-open requests queued at a listener. */
static __always_inline __u32 listener_qlen(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk_of(sk);

	return tp ? BPF_CORE_READ(tp, inet_conn.icsk_accept_queue.qlen.counter) : 0;
}

/*
 * Report a listener's SYN queue when it is at least half full (@arriving
 * 0: a SYN-ACK was resent), or near where the kernel drops SYNs (@arriving
 * 1: a SYN is coming in).
 */
static __always_inline int syn_queue_report(struct sock *lsk, int arriving)
{
	struct net *net = sk_net(lsk);
	struct tcp_buffer_event *e;
	struct bpftune_event *ev;
	__u32 qlen, backlog, max_syn, limit;
	__u8 cookies;
	__u64 now;

	qlen = listener_qlen(lsk);
	backlog = BPF_CORE_READ(lsk, sk_max_ack_backlog);
	max_syn = BPF_CORE_READ(net, ipv4.sysctl_max_syn_backlog);
	cookies = BPF_CORE_READ(net, ipv4.sysctl_tcp_syncookies);
	/* without syncookies the kernel drops new peers past 3/4 of max_syn */
	limit = backlog;
	if (!cookies && max_syn - (max_syn >> 2) < limit)
		limit = max_syn - (max_syn >> 2);
	if (arriving ? !bpftune_near_limit(qlen, limit) : qlen < limit / 2)
		return 0;
	now = bpf_ktime_get_ns();
	if (now - syn_event_ns < SYN_EVENT_GAP_NS)
		return 0;
	syn_event_ns = now;
	e = reserve(TCP_BUFFER_SYN_QUEUE, bpftune_sk_netns_cookie(lsk), &ev);
	if (!e)
		return 0;
	e->value = qlen;
	e->backlog = backlog;
	e->max_syn_backlog = max_syn;
	e->syncookies = cookies;
	e->port = BPF_CORE_READ(lsk, __sk_common.skc_num);
	bpftune_event_submit(ev);
	return 0;
}

/*
 * A SYN-ACK sent again: the peer of a half-open connection has not
 * answered in a second or more.  Count such requests (the first resend
 * of each only: a slow peer may need several) per netns.
 */
BPFTUNE_TP(synack, tcp_retransmit_synack, const struct sock *sk,
	   const struct request_sock *req)
{
	struct sock *lsk = (struct sock *)sk;
	struct tcp_buffer_syn_stats *s;

	if (!BPF_CORE_READ(req, num_retrans)) {
		s = syn_stats_of(bpftune_sk_netns_cookie(lsk));
		if (s)
			__sync_fetch_and_add(&s->synack_retrans, 1);
	}
	return syn_queue_report(lsk, 0);
}

/*
 * Every SYN at a listener (no tracepoint for it: optional function hook).
 * Sees a queue near the drop threshold before any SYN-ACK is resent.
 */
BPFTUNE_FN(opt_synreq, tcp_conn_request, struct request_sock_ops *rsk_ops,
	   const struct tcp_request_sock_ops *af_ops, struct sock *sk,
	   struct sk_buff *skb)
{
	if (!bpftune_sample(&synreq_sampler))
		return 0;
	return syn_queue_report(sk, 1);
}

/* A passive open completed: the listener's clone becomes SYN_RECV. */
BPFTUNE_TP(state, inet_sock_set_state, const struct sock *sk,
	   const int oldstate, const int newstate)
{
	struct tcp_buffer_syn_stats *s;

	if (oldstate != TCP_LISTEN || newstate != TCP_SYN_RECV)
		return 0;
	if (BPF_CORE_READ(sk, sk_protocol) != IPPROTO_TCP)
		return 0;
	s = syn_stats_of(bpftune_sk_netns_cookie((struct sock *)sk));
	if (s)
		__sync_fetch_and_add(&s->completed, 1);
	return 0;
}
