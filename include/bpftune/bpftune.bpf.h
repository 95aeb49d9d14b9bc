/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * BPF side of a tuner: the shared ring buffer, the values the daemon writes
 * into every object before load, hook macros that build a full and a legacy
 * variant from one source, event helpers and adaptive sampling.
 *
 * Build every tuner.bpf.c twice: once as is (full: tp_btf and fentry) and
 * once with -DBPFTUNE_LEGACY (raw_tp and kprobe).  Always read kernel memory
 * with BPF_CORE_READ(): raw_tp and kprobe arguments are not BTF-typed, so a
 * direct dereference only verifies in the full variant.
 *
 * Program names: "<hook>__<variant>" groups alternatives for one hook; the
 * daemon enables the best one the kernel supports.  A hook whose name starts
 * with "opt_" is optional: the tuner runs without it.
 */
#ifndef BPFTUNE_BPFTUNE_BPF_H
#define BPFTUNE_BPFTUNE_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include <bpftune/bpftune.h>
#include <bpftune/sampling.h>

/* The one ring buffer: created by the first object, reused by the rest. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, BPFTUNE_RINGBUF_SIZE);
} bpftune_ringbuf SEC(".maps");

/*
 * Gauges for the telemetry samples, per plugin and netns (see struct
 * bpftune_gauges): created by the first object, shared by the rest like
 * the ring buffer.  A plugin declares its gauges in ops->telemetry.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, BPFTUNE_GAUGES_MAX_ENTRIES);
	__type(key, struct bpftune_gauges_key);
	__type(value, struct bpftune_gauges);
} bpftune_gauges SEC(".maps");

/* Set by the daemon before load (see bpftune_bpf_load()). */
const volatile __u32 bpftune_tuner_id = 0;
const volatile __u32 bpftune_daemon_tgid = 0;
const volatile __u32 bpftune_learning_rate = BPFTUNE_LEARNING_RATE_DEFAULT;

/* Events that could not be reserved because the ring buffer was full. */
__u64 bpftune_ringbuf_lost = 0;

/*
 * 1 while the daemon runs with --observe: written by the library before
 * load and whenever a reload changes it.  Read it with bpftune_observing().
 */
__u32 bpftune_observe_flag = 0;

/*
 * A program that changes something itself (bpf_setsockopt() on a
 * connection, ...) decides and reports as always, but changes nothing
 * while this is true: --observe promises that nothing is written.
 */
static __always_inline int bpftune_observing(void)
{
	return bpftune_observe_flag != 0;
}

#ifdef BPFTUNE_LEGACY
#define BPFTUNE_TP(name, tp, args...)	SEC("raw_tp/" #tp) int BPF_PROG(name, ##args)
#define BPFTUNE_FN(name, fn, args...)	SEC("kprobe/" #fn) int BPF_KPROBE(name, ##args)
#else
#define BPFTUNE_TP(name, tp, args...)	SEC("tp_btf/" #tp) int BPF_PROG(name, ##args)
#define BPFTUNE_FN(name, fn, args...)	SEC("fentry/" #fn) int BPF_PROG(name, ##args)
#endif

/*
 * Delta for "near the limit" and for the step: value >> (6 - rate), i.e.
 * 1/64 of the value at rate 0 up to 1/4 at rate 4.
 */
static __always_inline __u64 bpftune_delta(__u64 value)
{
	__u32 rate = bpftune_learning_rate;

	if (rate > BPFTUNE_LEARNING_RATE_MAX)
		rate = BPFTUNE_LEARNING_RATE_MAX;
	return value >> (6 - rate);
}

static __always_inline int bpftune_near_limit(__u64 value, __u64 limit)
{
	return limit && value + bpftune_delta(limit) >= limit;
}

/* the same news again within its gap: drop it (bpftune_report_repeats()) */
static __always_inline int bpftune_repeated(struct bpftune_last_report *last,
					    __u64 cookie, __s64 value,
					    __u64 gap_ns)
{
	return bpftune_report_repeats(last, cookie, value, gap_ns,
				      bpf_ktime_get_ns());
}

static __always_inline __u64 bpftune_net_cookie(struct net *net)
{
	if (!net)
		return 0;
	if (bpf_core_field_exists(net->net_cookie))
		return BPF_CORE_READ(net, net_cookie);
	return BPF_CORE_READ(net, ns.inum);
}

static __always_inline __u64 bpftune_sk_netns_cookie(struct sock *sk)
{
	return bpftune_net_cookie(BPF_CORE_READ(sk, __sk_common.skc_net.net));
}

static __always_inline __u64 bpftune_current_netns_cookie(void)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();

	return bpftune_net_cookie(BPF_CORE_READ(task, nsproxy, net_ns));
}

/*
 * Reserve an event with its header filled in but for pid and comm; NULL if
 * the buffer is full.  For program types that cannot call
 * bpf_get_current_pid_tgid()/comm() (sockops on some kernels).
 */
static __always_inline struct bpftune_event *
bpftune_event_alloc(__u32 scenario_id, __u64 netns_cookie)
{
	struct bpftune_event *ev;

	ev = bpf_ringbuf_reserve(&bpftune_ringbuf, sizeof(*ev), 0);
	if (!ev) {
		__sync_fetch_and_add(&bpftune_ringbuf_lost, 1);
		return NULL;
	}
	ev->tuner_id = bpftune_tuner_id;
	ev->scenario_id = scenario_id;
	ev->netns_cookie = netns_cookie;
	ev->ts_uptime_ns = bpf_ktime_get_boot_ns();
	ev->payload_len = 0;
	return ev;
}

/* Reserve an event with its whole header filled in; NULL if full. */
static __always_inline struct bpftune_event *
bpftune_event_reserve(__u32 scenario_id, __u64 netns_cookie)
{
	struct bpftune_event *ev = bpftune_event_alloc(scenario_id, netns_cookie);

	if (!ev)
		return NULL;
	ev->pid = bpf_get_current_pid_tgid() >> 32;
	bpf_get_current_comm(ev->comm, sizeof(ev->comm));
	return ev;
}

static __always_inline void bpftune_event_submit(struct bpftune_event *ev)
{
	bpf_ringbuf_submit(ev, 0);
}

/*
 * This plugin's gauges in a netns, created on first use; NULL if the map
 * is full of busier ones.  Look them up once per hook call, then add.
 */
static __always_inline struct bpftune_gauges *bpftune_gauges_get(__u64 netns_cookie)
{
	struct bpftune_gauges_key key = {
		.netns_cookie = netns_cookie, .tuner_id = bpftune_tuner_id,
	};
	struct bpftune_gauges *g, zero = {};

	g = bpf_map_lookup_elem(&bpftune_gauges, &key);
	if (g)
		return g;
	bpf_map_update_elem(&bpftune_gauges, &key, &zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(&bpftune_gauges, &key);
}

/*
 * One observation of gauge @id (the plugin's own numbering, as declared
 * in its ops->telemetry).  n and sum are exact; max is not atomic:
 * two CPUs raising it at the same instant may keep the smaller value.
 */
static __always_inline void bpftune_gauge_add(struct bpftune_gauges *g,
					      __u32 id, __u64 value)
{
	struct bpftune_gauge *s;

	if (!g || id >= BPFTUNE_GAUGE_SLOTS)
		return;
	s = &g->g[id];
	__sync_fetch_and_add(&s->n, 1);
	__sync_fetch_and_add(&s->sum, value);
	if (value > s->max)
		s->max = value;
}

/* Is this call the task of the daemon itself (its own sysctl writes)? */
static __always_inline int bpftune_from_daemon(void)
{
	return (bpf_get_current_pid_tgid() >> 32) == bpftune_daemon_tgid;
}

/*
 * Adaptive sampling: declare one sampler per hot hook as a global
 *	struct bpftune_sampler my_hook_sampler;
 * and return early unless bpftune_sample(&my_hook_sampler).  The daemon
 * finds every global of this type and prints its counters at exit.
 *
 * The path of a call that is not processed is what a hot hook costs: it
 * reads the jiffies and a random number (per-CPU state) and compares them
 * with two fields other CPUs only read.  The first call of each clock tick
 * also reads the clock and closes the window when it is over; a processed
 * call counts itself and the N - 1 calls it stands for.  Races between
 * CPUs only blur the counters; they never break the maths.
 */
static __always_inline int bpftune_sample(struct bpftune_sampler *s)
{
	__u64 tick = bpf_jiffies64();
	__u32 r = bpf_get_prandom_u32();
	__u32 every;

	if (tick != s->tick) {
		s->tick = tick;
		bpftune_sampler_tick(s, bpf_ktime_get_ns());
	}
	if (r < s->skip)
		return 0;
	every = s->every ? s->every : 1;
	__sync_fetch_and_add(&s->calls, every);
	__sync_fetch_and_add(&s->window_calls, every);
	__sync_fetch_and_add(&s->sampled, 1);
	return 1;
}

char LICENSE[] SEC("license") = "GPL";

#endif /* BPFTUNE_BPFTUNE_BPF_H */
