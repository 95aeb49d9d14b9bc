// SPDX-License-Identifier: GPL-2.0-only
/*
 * Per-connection congestion control from a sockops program (attached to
 * the daemon's cgroup; the same program in the full and legacy builds).
 *
 * - Established: count the connection for its destination.  With a
 *   learned model loaded (conn_model), walk its tree over the
 *   destination's history and set the algorithm it picks; features
 *   outside its training ranges leave the choice to the hand rule: once
 *   the destination has min_conns connections, set the destination's
 *   greedy algorithm, or with probability epsilon a random one (dctcp
 *   only where the connection negotiated ECN: without it dctcp falls
 *   back to reno).
 * - Retransmission: once data_segs_out >= loss_min_segs and more than
 *   loss_per_mille of them were retransmitted, move the connection to bbr
 *   and tell userspace.  Then stop listening to its retransmissions.
 * - Close: report what the connection had and how it did (RTT, delivery
 *   rate) for the per-destination cost, and fold it into the
 *   destination's history (the model's features).  Connections we did
 *   not place are reported only when they carried enough data, and
 *   sampled.
 */
#include <bpftune/bpftune.bpf.h>
#include "tcp_conn_tuner.h"
#include "tcp_conn_model_walk.h"

#define AF_INET		2
#define AF_INET6	10
#define SOL_TCP		6
#define TCP_CONGESTION	13
#define TCP_ECN_OK	1

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tcp_conn_config);
} conn_config SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, TCP_CONN_DESTS);
	__type(key, struct tcp_conn_dest);
	__type(value, struct tcp_conn_dest_stats);
} dest_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, TCP_CONN_DESTS);
	__type(key, struct tcp_conn_dest);
	__type(value, struct tcp_conn_choice);
} dest_choice SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tcp_conn_model_map);
} conn_model SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tcp_conn_model_stats);
} model_stats SEC(".maps");

struct conn_state {
	__u64 start_ns;
	struct tcp_conn_dest dest;
	__u8 how;
	__u8 ecn;
	__u8 lossy;
	__u8 model_miss;
	__u8 candidates;		/* struct tcp_conn_done */
	__s8 greedy;
	__s8 chosen;
};

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct conn_state);
} conn_store SEC(".maps");

/* close reports of connections we left alone: one in N when they come fast */
struct bpftune_sampler done_sampler;

static __always_inline struct tcp_conn_config *conn_cfg(void)
{
	__u32 zero = 0;
	struct tcp_conn_config *cfg = bpf_map_lookup_elem(&conn_config, &zero);

	return cfg && cfg->num_cc ? cfg : NULL;
}

static __always_inline __u32 mask32(__u32 bits)
{
	if (bits >= 32)
		return 0xffffffff;
	if (!bits)
		return 0;
	return bpf_htonl(~0U << (32 - bits));
}

/* Destination key of the connection; 0 if not worth keying (loopback). */
static __always_inline int dest_key(struct bpf_sock_ops *ops,
				    const struct tcp_conn_config *cfg,
				    struct tcp_conn_dest *d)
{
	__u32 a0, a1, a2, a3, prefix;
	int i;

	__builtin_memset(d, 0, sizeof(*d));
	d->netns_cookie = bpf_get_netns_cookie(ops);
	if (ops->family == AF_INET) {
		a0 = ops->remote_ip4;
		d->family = AF_INET;
	} else if (ops->family == AF_INET6) {
		/* one 32-bit load each: the verifier refuses wider ctx loads */
		a0 = ops->remote_ip6[0];
		barrier_var(a0);
		a1 = ops->remote_ip6[1];
		barrier_var(a1);
		a2 = ops->remote_ip6[2];
		barrier_var(a2);
		a3 = ops->remote_ip6[3];
		if (!a0 && !a1 && a2 == bpf_htonl(0xffff)) {
			a0 = a3;
			d->family = AF_INET;
		} else {
			if (!a0 && !a1 && !a2 && a3 == bpf_htonl(1))
				return 0;	/* ::1 */
			d->family = AF_INET6;
			d->addr[1] = a1;
			d->addr[2] = a2;
			d->addr[3] = a3;
		}
	} else {
		return 0;
	}
	d->addr[0] = a0;
	if (d->family == AF_INET) {
		if ((bpf_ntohl(a0) >> 24) == 127)
			return 0;
		prefix = cfg->prefix4 > 32 ? 32 : cfg->prefix4;
		d->addr[0] &= mask32(prefix);
		d->prefix = prefix;
		return 1;
	}
	prefix = cfg->prefix6 > 128 ? 128 : cfg->prefix6;
	d->prefix = prefix;
	for (i = 0; i < 4; i++) {
		__u32 bits = prefix > 32 * i ? prefix - 32 * i : 0;

		d->addr[i] &= mask32(bits);
	}
	return 1;
}

/*
 * pid and comm from the task: sockops programs may not call
 * bpf_get_current_pid_tgid()/comm() on every kernel.
 */
static __always_inline struct bpftune_event *conn_event(__u32 scenario,
							 __u64 cookie)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct bpftune_event *ev;

	ev = bpftune_event_alloc(scenario, cookie);
	if (!ev)
		return NULL;
	ev->pid = BPF_CORE_READ(task, tgid);
	BPF_CORE_READ_STR_INTO(&ev->comm, task, comm);
	return ev;
}

static __always_inline int set_cc(struct bpf_sock_ops *ops,
				  struct tcp_conn_config *cfg, __s32 idx)
{
	__u32 i = idx;

	if (idx < 0 || idx >= (__s32)cfg->num_cc)
		return -1;
	/* --observe: chosen and reported, the connection keeps its algorithm */
	if (bpftune_observing())
		return 0;
	/* keep the mask: clang drops it when it can prove the range itself */
	barrier_var(i);
	i &= TCP_CONN_CC_MAX - 1;
	return bpf_setsockopt(ops, SOL_TCP, TCP_CONGESTION, cfg->names[i],
			      TCP_CONN_CC_NAME);
}

/*
 * The learned model's algorithm for a connection to a destination with
 * history @stats: an index into cfg->names, or -1 (no model, features
 * outside its training ranges: @st->model_miss, or dctcp without ECN).
 */
static __always_inline __s32 model_pick(struct tcp_conn_config *cfg,
					struct tcp_conn_dest_stats *stats,
					struct conn_state *st)
{
	struct tcp_conn_model_stats *ms;
	struct tcp_conn_model_map *m;
	__u64 x[TCP_CONN_F_SLOTS] = {}, t0;
	__u32 zero = 0, i;
	int idx;

	m = bpf_map_lookup_elem(&conn_model, &zero);
	ms = bpf_map_lookup_elem(&model_stats, &zero);
	if (!m || !ms || !m->num_nodes)
		return -1;
	t0 = bpf_ktime_get_ns();
	for (i = 0; i < TCP_CONN_F_MAX; i++)
		x[i] = stats->f[i];
	idx = tcp_conn_model_walk(m, x);
	__sync_fetch_and_add(&ms->eval_ns, bpf_ktime_get_ns() - t0);
	__sync_fetch_and_add(&ms->evals, 1);
	if (idx == TCP_CONN_WALK_RANGE) {
		__sync_fetch_and_add(&ms->out_of_range, 1);
		st->model_miss = 1;
		return -1;
	}
	if (idx < 0 || idx >= (int)cfg->num_cc || (idx == cfg->dctcp && !st->ecn))
		return -1;
	__sync_fetch_and_add(&ms->picks, 1);
	return idx;
}

static __always_inline int established(struct bpf_sock_ops *ops)
{
	struct tcp_conn_config *cfg = conn_cfg();
	struct tcp_conn_dest_stats *stats, fresh = { .conns = 0 };
	struct tcp_conn_choice *choice;
	struct tcp_conn_dest dest;
	struct conn_state *st;
	struct tcp_sock *tp;
	struct bpf_sock *sk;
	__u32 flags, r;
	__u32 candidates, no_dctcp;
	__s32 idx = -1, greedy;
	__u64 conns;

	sk = ops->sk;
	/* loopback is not worth keying: no storage, no callbacks */
	if (!cfg || !sk || !dest_key(ops, cfg, &dest))
		return 1;
	st = bpf_sk_storage_get(&conn_store, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
	if (!st)
		return 1;
	st->start_ns = bpf_ktime_get_ns();
	st->dest = dest;
	tp = bpf_skc_to_tcp_sock(sk);
	st->ecn = tp && (tp->ecn_flags & TCP_ECN_OK);

	stats = bpf_map_lookup_elem(&dest_stats, &st->dest);
	if (!stats) {
		bpf_map_update_elem(&dest_stats, &st->dest, &fresh, BPF_NOEXIST);
		stats = bpf_map_lookup_elem(&dest_stats, &st->dest);
		if (!stats)
			return 1;
	}
	conns = __sync_fetch_and_add(&stats->conns, 1) + 1;
	st->candidates = 0;	/* nothing drawn unless set below */
	st->greedy = -1;
	idx = model_pick(cfg, stats, st);
	if (idx >= 0) {
		st->how = TCP_CONN_MODEL;
		if (set_cc(ops, cfg, idx)) {
			st->how = TCP_CONN_DEFAULT;
			idx = -1;
		}
	} else if (conns > cfg->min_conns) {
		/* dctcp is a candidate only on a connection that has ECN */
		no_dctcp = cfg->dctcp >= 0 && !st->ecn;
		candidates = cfg->num_cc - no_dctcp;
		/* the greedy one, also when exploring: the choice's odds */
		choice = bpf_map_lookup_elem(&dest_choice, &st->dest);
		greedy = choice ? choice->greedy : -1;
		if (greedy == cfg->dctcp && !st->ecn)
			greedy = -1;
		st->candidates = candidates;
		st->greedy = greedy;
		r = bpf_get_prandom_u32();
		if ((r & 0xffff) < cfg->epsilon_64k && candidates > 1) {
			/* uniform among the candidates, stepping over dctcp */
			idx = (r >> 16) % candidates;
			if (no_dctcp && idx >= cfg->dctcp)
				idx++;
			st->how = TCP_CONN_EXPLORE;
		} else if (greedy >= 0) {
			idx = greedy;
			st->how = TCP_CONN_GREEDY;
		}
		if (idx < 0 || set_cc(ops, cfg, idx)) {
			st->how = TCP_CONN_DEFAULT;
			idx = -1;
		}
	}
	st->chosen = idx;
	flags = BPF_SOCK_OPS_STATE_CB_FLAG;
	if (cfg->bbr >= 0 && idx != cfg->bbr)
		flags |= BPF_SOCK_OPS_RETRANS_CB_FLAG;
	bpf_sock_ops_cb_flags_set(ops, ops->bpf_sock_ops_cb_flags | flags);
	return 1;
}

static __always_inline int retransmitted(struct bpf_sock_ops *ops)
{
	struct tcp_conn_config *cfg = conn_cfg();
	char cc[TCP_CONN_CC_NAME] = {};
	struct bpftune_event *ev;
	struct tcp_conn_loss *l;
	struct conn_state *st;
	struct bpf_sock *sk;
	__u32 segs, retrans;

	sk = ops->sk;
	if (!cfg || !sk || cfg->bbr < 0)
		return 1;
	segs = ops->data_segs_out;
	retrans = ops->total_retrans;
	if (segs < cfg->loss_min_segs ||
	    (__u64)retrans * 1000 <= (__u64)cfg->loss_per_mille * segs)
		return 1;
	st = bpf_sk_storage_get(&conn_store, sk, 0, 0);
	if (!st || st->lossy || !st->dest.family)
		return 1;
	/* done with this connection's retransmissions either way */
	st->lossy = 1;
	bpf_sock_ops_cb_flags_set(ops, ops->bpf_sock_ops_cb_flags &
				  ~BPF_SOCK_OPS_RETRANS_CB_FLAG);
	if (bpf_getsockopt(ops, SOL_TCP, TCP_CONGESTION, cc, sizeof(cc)) ||
	    (cc[0] == 'b' && cc[1] == 'b' && cc[2] == 'r' && !cc[3]) ||
	    set_cc(ops, cfg, cfg->bbr)) {
		st->lossy = 0;
		return 1;
	}
	ev = conn_event(TCP_CONN_SCENARIO_LOSS, st->dest.netns_cookie);
	if (!ev)
		return 1;
	l = (struct tcp_conn_loss *)ev->payload;
	l->dest = st->dest;
	if (st->dest.family == AF_INET) {
		l->laddr[0] = ops->local_ip4;
	} else {
		/* 32-bit ctx loads only, as in dest_key() */
		l->laddr[0] = ops->local_ip6[0];
		barrier_var(l->laddr[0]);
		l->laddr[1] = ops->local_ip6[1];
		barrier_var(l->laddr[1]);
		l->laddr[2] = ops->local_ip6[2];
		barrier_var(l->laddr[2]);
		l->laddr[3] = ops->local_ip6[3];
	}
	l->lport = ops->local_port;
	/* the port is in network order, in the upper half on little endian */
	l->rport = bpf_ntohl(ops->remote_port) & 0xffff;
	l->retrans = retrans;
	l->segs_out = segs;
	l->srtt_us = ops->srtt_us >> 3;
	__builtin_memcpy(l->from, cc, sizeof(l->from));
	ev->payload_len = sizeof(*l);
	bpftune_event_submit(ev);
	return 1;
}

static __always_inline __u64 ewma(__u64 old, __u64 x, __u64 n)
{
	return n ? (3 * old + x) / 4 : x;
}

/* fold a reported connection into its destination's history */
static __always_inline void learn_history(const struct tcp_conn_done *d)
{
	/*
	 * the key on the stack: d is ring buffer memory, which verifiers
	 * before 6.2 or so refuse as a map key (6.1: "R2 type=alloc_mem
	 * expected=fp, ...")
	 */
	struct tcp_conn_dest dest = d->dest;
	struct tcp_conn_dest_stats *s = bpf_map_lookup_elem(&dest_stats, &dest);
	__u64 n, pm = 0;

	if (!s)
		return;
	n = s->f[TCP_CONN_F_HIST];
	if (d->segs_out)
		pm = (__u64)d->retrans * 1000 / d->segs_out;
	s->f[TCP_CONN_F_SRTT] = ewma(s->f[TCP_CONN_F_SRTT], d->srtt_us, n);
	s->f[TCP_CONN_F_RETRANS] = ewma(s->f[TCP_CONN_F_RETRANS], pm, n);
	s->f[TCP_CONN_F_RATE] = ewma(s->f[TCP_CONN_F_RATE], d->delivery_rate, n);
	if (d->min_rtt_us && (!s->f[TCP_CONN_F_MIN_RTT] ||
			      d->min_rtt_us < s->f[TCP_CONN_F_MIN_RTT]))
		s->f[TCP_CONN_F_MIN_RTT] = d->min_rtt_us;
	s->f[TCP_CONN_F_HIST] = n + 1;
}

static __always_inline int closing(struct bpf_sock_ops *ops)
{
	struct tcp_conn_config *cfg = conn_cfg();
	struct bpftune_event *ev;
	struct tcp_conn_done *d;
	struct conn_state *st;
	struct tcp_sock *tp;
	struct bpf_sock *sk;
	__u64 rate = 0, interval;

	sk = ops->sk;
	if (!cfg || !sk)
		return 1;
	st = bpf_sk_storage_get(&conn_store, sk, 0, 0);
	if (!st || !st->dest.family)
		return 1;
	if (st->how == TCP_CONN_DEFAULT &&
	    (ops->bytes_acked < cfg->learn_min_bytes || !bpftune_sample(&done_sampler)))
		return 1;
	ev = conn_event(TCP_CONN_SCENARIO_CHOICE, st->dest.netns_cookie);
	if (!ev)
		return 1;
	d = (struct tcp_conn_done *)ev->payload;
	__builtin_memset(d, 0, sizeof(*d));
	__builtin_memcpy(&d->dest, &st->dest, sizeof(d->dest));
	st->dest.family = 0;	/* one report per connection */
	d->how = st->how;
	d->ecn = st->ecn;
	d->lossy = st->lossy;
	d->candidates = st->candidates;
	d->greedy = st->greedy;
	d->chosen = st->chosen;
	d->model_miss = st->model_miss;
	d->srtt_us = ops->srtt_us >> 3;
	d->retrans = ops->total_retrans;
	d->segs_out = ops->data_segs_out;
	d->bytes_acked = ops->bytes_acked;
	d->duration_us = (bpf_ktime_get_ns() - st->start_ns) / 1000;
	interval = ops->rate_interval_us;
	if (interval)
		rate = (__u64)ops->rate_delivered * ops->mss_cache * 1000000 / interval;
	d->delivery_rate = rate;
	tp = bpf_skc_to_tcp_sock(sk);
	if (tp)
		d->min_rtt_us = tp->rtt_min.s[0].v;
	bpf_getsockopt(ops, SOL_TCP, TCP_CONGESTION, d->cc, sizeof(d->cc));
	learn_history(d);
	ev->payload_len = sizeof(*d);
	bpftune_event_submit(ev);
	return 1;
}

SEC("sockops")
int conn_sockops(struct bpf_sock_ops *ops)
{
	switch (ops->op) {
	case BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB:
	case BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB:
		return established(ops);
	case BPF_SOCK_OPS_RETRANS_CB:
		return retransmitted(ops);
	case BPF_SOCK_OPS_STATE_CB:
		if (ops->args[1] == BPF_TCP_CLOSE)
			return closing(ops);
		return 1;
	default:
		return 1;
	}
}
