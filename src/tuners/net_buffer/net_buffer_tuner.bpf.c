// SPDX-License-Identifier: GPL-2.0-only
/*
 * net_buffer tuner, BPF side.  Tracepoints only (tp_btf, or raw_tp in
 * legacy mode):
 *  - skb:kfree_skb with drop reason CPU_BACKLOG: a packet found its
 *    per-CPU backlog full (netdev_max_backlog).  Sampled, at most one
 *    event per BACKLOG_GAP_NS.
 *  - irq:softirq_entry and napi:napi_poll: the first NET_RX round of
 *    each clock tick is followed on its CPU (packets and
 *    NAPI polls, time taken); at the poll where a round has used its
 *    whole netdev_budget, or run into netdev_budget_usecs, it is
 *    reported, at most once per SQUEEZE_GAP_NS, less often while the
 *    limit stays what it was (bpftune_repeated()).
 * The drop-reason value comes from the running kernel's BTF (CO-RE), so
 * the same object works wherever the enum has CPU_BACKLOG (5.19+).
 */
#include <bpftune/bpftune.bpf.h>
#include <bpftune/tick_gate.bpf.h>
#include "net_buffer_tuner.h"

#define BACKLOG_GAP_NS		(50 * 1000 * 1000ULL)
#define SQUEEZE_GAP_NS		(100 * 1000 * 1000ULL)
#define NET_RX_VEC		3	/* NET_RX_SOFTIRQ */

struct bpftune_sampler drop_sampler;

__u64 backlog_drops;
__u64 backlog_event_ns;
/* last squeeze reported per kind, with the limit it ran into */
struct bpftune_last_report squeeze_last[2];
/*
 * Rounds being followed now, on any CPU.  napi_poll fires for every poll:
 * while no round is followed (almost always) it returns without looking
 * its CPU's round up.
 */
__s64 rounds_tracked;
/* rounds start being followed at most once a tick (tick_gate.bpf.h) */
__u64 round_tick;
/* the gate's flag (gate.h): set, the receive-round programs return at once */
__u32 rx_gate_closed;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct net_buffer_limits);
} limits SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct net_buffer_round);
} rounds SEC(".maps");

static __always_inline int due(__u64 *last, __u64 gap)
{
	__u64 now = bpf_ktime_get_ns();

	if (now - *last < gap)
		return 0;
	*last = now;
	return 1;
}

static __always_inline struct net_buffer_event *
reserve(__u32 scenario, struct bpftune_event **evp)
{
	struct net_buffer_event *e;
	struct bpftune_event *ev;

	/* the tunables are global: the event is the global netns's */
	ev = bpftune_event_reserve(scenario, 0);
	*evp = ev;
	if (!ev)
		return NULL;
	ev->payload_len = sizeof(*e);
	e = (struct net_buffer_event *)ev->payload;
	__builtin_memset(e, 0, sizeof(*e));
	e->cpu = bpf_get_smp_processor_id();
	return e;
}

BPFTUNE_TP(drop, kfree_skb, struct sk_buff *skb, void *location,
	   enum skb_drop_reason reason)
{
	struct net_buffer_event *e;
	struct bpftune_event *ev;

	if (!bpf_core_enum_value_exists(enum skb_drop_reason,
					SKB_DROP_REASON_CPU_BACKLOG) ||
	    reason != bpf_core_enum_value(enum skb_drop_reason,
					  SKB_DROP_REASON_CPU_BACKLOG))
		return 0;
	__sync_fetch_and_add(&backlog_drops, 1);
	if (!bpftune_sample(&drop_sampler) ||
	    !due(&backlog_event_ns, BACKLOG_GAP_NS))
		return 0;
	e = reserve(NET_BUFFER_BACKLOG_DROP, &ev);
	if (!e)
		return 0;
	e->drops = backlog_drops;
	bpftune_event_submit(ev);
	return 0;
}

static __always_inline struct net_buffer_round *this_round(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&rounds, &zero);
}

/* the round followed on this CPU is over: stop following it */
static __always_inline void round_stop(struct net_buffer_round *r)
{
	if (!r->tracking)
		return;
	r->tracking = 0;
	__sync_fetch_and_add(&rounds_tracked, -1);
}

/*
 * A NET_RX round begins.  A round followed earlier on this CPU that was
 * not squeezed ends here (there is no softirq_exit program: one program
 * less on every softirq of every kind).
 */
BPFTUNE_TP(rx_entry, softirq_entry, unsigned int vec_nr)
{
	struct net_buffer_round *r;
	int start;

	if (rx_gate_closed || vec_nr != NET_RX_VEC)
		return 0;
	/*
	 * The first round of each tick is followed: a helper call less than
	 * the adaptive sampler on every softirq, and no more rounds (at most
	 * HZ a second) than the sampler and the tick gate let through before.
	 */
	start = bpftune_tick_gate_open(&round_tick);
	if (!start && !rounds_tracked)
		return 0;
	r = this_round();
	if (!r)
		return 0;
	if (!start) {
		round_stop(r);
		return 0;
	}
	r->start_ns = bpf_ktime_get_ns();
	r->work = 0;
	r->polls = 0;
	if (!r->tracking)
		__sync_fetch_and_add(&rounds_tracked, 1);
	r->tracking = 1;
	return 0;
}

static __always_inline void squeeze_report(struct net_buffer_round *r,
					   const struct net_buffer_limits *l,
					   __u32 kind, __u64 dur)
{
	struct net_buffer_event *e;
	int time = kind == NET_BUFFER_TIME_SQUEEZE;
	struct bpftune_event *ev;

	/* a limit userspace left as it was: its squeezes come back slower */
	if (bpftune_repeated(&squeeze_last[time], 0,
			     time ? l->budget_usecs : l->budget, SQUEEZE_GAP_NS))
		return;
	e = reserve(kind, &ev);
	if (!e)
		return;
	e->round_ns = dur;
	e->work = r->work;
	e->polls = r->polls;
	e->budget = l->budget;
	e->budget_usecs = l->budget_usecs;
	bpftune_event_submit(ev);
}

/*
 * A NAPI poll of a followed round.  The kernel checks its two limits
 * after each poll and ends the round at the first one reached: so does
 * this, with the round's work and time so far.  A poll long after the
 * limit is not of the round followed (NAPI threads and busy polling call
 * it outside NET_RX): the round is dropped unreported.
 */
BPFTUNE_TP(rx_poll, napi_poll, struct napi_struct *napi, int work, int budget)
{
	struct net_buffer_limits *l;
	struct net_buffer_round *r;
	__u32 zero = 0, kind;
	__u64 dur;

	if (rx_gate_closed || !rounds_tracked)
		return 0;
	r = this_round();
	if (!r || !r->tracking || work < 0)
		return 0;
	r->work += work;
	r->polls++;
	l = bpf_map_lookup_elem(&limits, &zero);
	if (!l)
		return 0;
	dur = bpf_ktime_get_ns() - r->start_ns;
	kind = net_buffer_squeeze_kind(r->work, dur, l->budget,
				       l->budget_usecs, l->slack_ns);
	if (kind != NET_BUFFER_BUDGET_SQUEEZE && kind != NET_BUFFER_TIME_SQUEEZE)
		return 0;
	round_stop(r);
	if (kind == NET_BUFFER_TIME_SQUEEZE &&
	    dur > 2 * ((__u64)l->budget_usecs * 1000 + l->slack_ns))
		return 0;
	squeeze_report(r, l, kind, dur);
	return 0;
}
