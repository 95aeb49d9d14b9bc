// SPDX-License-Identifier: GPL-2.0-only
/*
 * net_buffer tuner: the per-CPU receive backlog and the NET_RX budget.
 * All its sysctls are global (they exist in the initial netns only).
 *
 *  - netdev_max_backlog: raised by delta when packets are dropped because
 *    a CPU's backlog is full, as counted per CPU in /proc/net/softnet_stat
 *    (the BPF side's drop event only says when to look).  The CPUs that
 *    dropped get their bit in flow_limit_cpu_bitmap: with flow limiting a
 *    backlog more than half full drops from the largest flows first.
 *  - netdev_budget / netdev_budget_usecs: a receive round that used its
 *    whole packet budget raises the budget; one that ran out of time
 *    raises the time limit (hard cap NB_USECS_CAP) -- only when the kernel
 *    counted a squeeze (time_squeeze in softnet_stat) since the last look,
 *    and not when a single NAPI poll outlasted the whole limit (the limit
 *    is checked between polls: more time would not have helped).
 *  - Latency guard: every raise of the budget or its time limit adds
 *    (value, CPU pressure while it was in force: PSI "some", or the
 *    scheduler's run delay without PSI) to a correlation window.  When
 *    tasks waited longer as the rounds grew, step back one raise and hold.
 *  - net.core.high_order_alloc_disable = 1 is an old workaround for
 *    allocation stalls in page-fragment refills, which stopped waiting for
 *    reclaim long ago (4.x).  On a receive path that drops or squeezes, it
 *    only makes every packet carry more order-0 fragments: switched back
 *    off, once, unless TCP memory is under pressure (tcp_buffer's
 *    low-memory mode sets it on purpose then).
 *  - Shrink: what was raised steps back toward the value found before the
 *    first raise once no drop or squeeze has asked for it for
 *    NB_SHRINK_QUIET_MS; the flow-limit bits go back at once.
 *
 * Every decision is a pure function in net_buffer_policy.c (unit-tested);
 * this file reads the kernel, keeps the state and writes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpftune/libbpftune.h>
#include <bpftune/correlation.h>
#include <bpftune/gate.h>
#include <bpftune/kernel.h>
#include <bpftune/proc.h>

#include "net_buffer_policy.h"
#include "net_buffer_tuner.h"
#include "net_buffer_tables.h"
#include "net_buffer_tuner.skel.h"
#include "net_buffer_tuner.legacy.skel.h"

/* every net_buffer tunable: one value within [lo, hi], for the reason given */
#define NB_TUNABLE(sysctl, lo, hi, why) \
	{ .name = (sysctl), .num_values = 1, .min = (lo), .max = (hi), .cap_reason = (why) }

/* not const: init() sets the flow-limit mask from the CPUs present */
static struct bpftune_tunable_desc tunables[] = {
	[NB_MAX_BACKLOG] = NB_TUNABLE("net.core.netdev_max_backlog", 16, NB_BACKLOG_CAP,
		"packets queued per CPU: 32768 full-size frames are 4 ms of a 100 Gbit/s "
		"link and up to ~75 MB of memory per CPU; a longer queue only adds delay"),
	/* max: every CPU present, set in init() */
	[NB_FLOW_LIMIT] = NB_TUNABLE("net.core.flow_limit_cpu_bitmap", 0, 0,
		"one bit per CPU present (machines with up to 63 CPUs)"),
	[NB_BUDGET] = NB_TUNABLE("net.core.netdev_budget", NB_BUDGET_MIN, NB_BUDGET_CAP,
		"10 times the default of 300 packets per receive round; netdev_budget_usecs "
		"still bounds the round, more packets only delay everything else on the CPU"),
	[NB_BUDGET_USECS] = NB_TUNABLE("net.core.netdev_budget_usecs", NB_USECS_MIN, NB_USECS_CAP,
		"20 ms: a receive round longer than that delays every task on its CPU by as "
		"much (the default is 2 jiffies, 8 ms at HZ=250)"),
	[NB_HIGH_ORDER_OFF] = NB_TUNABLE("net.core.high_order_alloc_disable", 0, 1,
		"boolean"),
};

#define SHRINK_EVERY_MS		(5 * 1000ULL)

struct grown {
	long orig;		/* before our first raise; -1 none */
	long raised_from;	/* before the last raise; -1 none */
	uint64_t need_ms;	/* last drop or squeeze that asked for it */
	uint64_t hold_until_ms;
	unsigned int trips;
	/* CPU wait since the last raise, for the latency guard */
	bool have_wait;
	double wait_start;	/* µs of wait (PSI) or ns (run delay) */
	uint64_t wait_start_ms;
};

struct nb_state {
	struct bpftune_tuner *tuner;
	struct grown grown[NB_NUM_TUNABLES];
	int limits_fd;
	long slack_ns;
	bool flow_limit;	/* the sysctl exists and the CPUs fit */
	bool high_order_done;
	unsigned int ncpus;
	uint64_t dropped[NB_MAX_CPUS];	/* softnet_stat baseline */
	uint64_t squeezed;
	const char *wait_source;
};

static int get1(struct nb_state *s, unsigned int tunable, long *v)
{
	return bpftune_tunable_get(s->tuner, tunable, NULL, v) == 1 ? 0 : -EIO;
}

/* ---- what the kernel counted -------------------------------------------- */

static bool tcp_under_pressure(void)
{
	bool pressure = false;
	long pages;

	return !bpftune_proc_protocol_memory("TCP", &pages, &pressure) && pressure;
}

/* ---- the BPF side's view of the limits ---------------------------------- */

static void limits_update(struct nb_state *s)
{
	struct net_buffer_limits l = { .slack_ns = s->slack_ns };
	long budget, usecs;
	__u32 zero = 0;

	if (s->limits_fd < 0 || get1(s, NB_BUDGET, &budget) ||
	    get1(s, NB_BUDGET_USECS, &usecs))
		return;
	l.budget = budget > 0 ? (__u32)budget : 0;
	l.budget_usecs = usecs > 0 ? (__u32)usecs : 0;
	bpf_map_update_elem(s->limits_fd, &zero, &l, BPF_ANY);
}

/* ---- grown values and the shrink timer ---------------------------------- */

static void timer_update(struct nb_state *s)
{
	bool want = false;
	unsigned int i;

	for (i = 0; i < NB_NUM_TUNABLES; i++)
		want |= s->grown[i].orig >= 0;
	bpftune_timer_keep(s->tuner, want, SHRINK_EVERY_MS);
}

static int set_grown(struct nb_state *s, const struct bpftune_event *ev,
		     unsigned int tunable, unsigned int scenario, long old,
		     long want, const char *reason)
{
	struct grown *g = &s->grown[tunable];
	int ret;

	ret = bpftune_tunable_set(s->tuner, tunable, ev, scenario, &want, 1,
				  reason);
	if (ret == 1) {
		if (g->orig < 0 && scenario != NET_BUFFER_SHRINK)
			g->orig = old;
		g->raised_from = scenario == NET_BUFFER_SHRINK ||
				 scenario == NET_BUFFER_LATENCY_GUARD ? -1 : old;
		if (tunable == NB_BUDGET || tunable == NB_BUDGET_USECS)
			limits_update(s);
	}
	timer_update(s);
	return ret;
}

static void high_order_check(struct nb_state *s, const struct bpftune_event *ev,
			     const char *why)
{
	struct bpftune_value inputs[2];
	enum nb_verdict v;
	char reason[320];
	long off = 0;
	bool have;

	if (s->high_order_done)
		return;
	have = !get1(s, NB_HIGH_ORDER_OFF, &off);
	/* read once more than needed when it is off: then never again */
	v = nb_high_order_decide(have, off, tcp_under_pressure());
	if (v == NBV_DONE) {
		s->high_order_done = true;
		return;
	}
	inputs[0] = BPFTUNE_VALUE_INT(off);
	inputs[1] = BPFTUNE_VALUE_TEXT(why);
	bpftune_decide_values(s->tuner, ev, NET_BUFFER_HIGH_ORDER, NB_HIGH_ORDER_OFF,
			      "re-enable-high-order", inputs, 2, nb_verdict_action(v));
	if (v != NBV_ENABLE)
		return;
	snprintf(reason, sizeof(reason),
		 "the receive path is busy (%s) and TCP memory is not under pressure: order-0 skb pages only add per-packet work, and page-fragment refills no longer wait for reclaim",
		 why);
	bpftune_tunable_set(s->tuner, NB_HIGH_ORDER_OFF, ev,
			    NET_BUFFER_HIGH_ORDER, &(long){ 0 }, 1, reason);
	s->high_order_done = true;
}

/* ---- backlog drops ------------------------------------------------------ */

static void cpu_list(uint64_t mask, char *buf, size_t len)
{
	unsigned int cpu;
	size_t off = 0;

	buf[0] = '\0';
	for (cpu = 0; cpu < NB_MAX_CPUS && off < len; cpu++)
		if (mask & (1ULL << cpu))
			off += snprintf(buf + off, len - off, "%s%u", off ? "," : "",
					cpu);
	if (!off)
		snprintf(buf, len, "none");
}

/* record grow-backlog's verdict @v */
static void backlog_decide(struct bpftune_tuner *t, const struct bpftune_event *ev,
			   const struct bpftune_value *inputs, enum nb_verdict v)
{
	bpftune_decide_values(t, ev, NET_BUFFER_BACKLOG_DROP, NB_MAX_BACKLOG,
			      "grow-backlog", inputs, 5, nb_verdict_action(v));
}

static void backlog_drop(struct bpftune_tuner *t, void *priv,
			 const struct bpftune_event *ev)
{
	const struct net_buffer_event *e = (const void *)ev->payload;
	struct nb_state *s = priv;
	uint64_t now[NB_MAX_CPUS], mask, total;
	struct bpftune_value inputs[5];
	char reason[320], cpus[128];
	struct grown *g = &s->grown[NB_MAX_BACKLOG];
	long cur, flow, want;
	enum nb_verdict v;

	if (bpftune_proc_softnet(1, now, NB_MAX_CPUS) < 0 || get1(s, NB_MAX_BACKLOG, &cur))
		return;
	total = nb_backlog_drops(now, s->dropped, NB_MAX_CPUS, &mask);
	memcpy(s->dropped, now, sizeof(s->dropped));
	cpu_list(mask, cpus, sizeof(cpus));
	inputs[0] = BPFTUNE_VALUE_INT(cur);
	inputs[1] = BPFTUNE_VALUE_INT(total);
	inputs[2] = BPFTUNE_VALUE_TEXT(cpus);
	inputs[3] = BPFTUNE_VALUE_INT(e->drops);
	inputs[4] = BPFTUNE_VALUE_INT(e->cpu);
	v = nb_backlog_decide(total, cur, bpftune_learning_rate(), &want);
	if (v == NBV_NO_DROP) {
		backlog_decide(t, ev, inputs, v);
		return;
	}
	g->need_ms = bpftune_now_ms();
	s->grown[NB_FLOW_LIMIT].need_ms = g->need_ms;
	high_order_check(s, ev, "backlog drops");
	backlog_decide(t, ev, inputs, v);
	if (v == NBV_RAISE) {
		snprintf(reason, sizeof(reason),
			 "%" PRIu64 " packets dropped with the receive backlog of CPU %s full",
			 total, cpus);
		set_grown(s, ev, NB_MAX_BACKLOG, NET_BUFFER_BACKLOG_DROP, cur, want,
			  reason);
	}
	if (!s->flow_limit || get1(s, NB_FLOW_LIMIT, &flow))
		return;
	v = nb_flow_limit_decide(flow, mask, tunables[NB_FLOW_LIMIT].max, &want);
	if (v != NBV_SET)
		return;
	bpftune_decide_values(t, ev, NET_BUFFER_BACKLOG_DROP, NB_FLOW_LIMIT,
			      "flow-limit-on-drop", inputs, 5, nb_verdict_action(v));
	snprintf(reason, sizeof(reason),
		 "CPU %s dropped packets for a full backlog: flow limiting there drops from the largest flows first, so small flows still get through",
		 cpus);
	set_grown(s, ev, NB_FLOW_LIMIT, NET_BUFFER_BACKLOG_DROP, flow, want, reason);
}

/* ---- squeezes ----------------------------------------------------------- */

static const char *knob(unsigned int tunable)
{
	return tunable == NB_BUDGET ? "netdev_budget" : "netdev_budget_usecs";
}

/*
 * The CPU wait seen while @cur was in force goes into the window; when it
 * rises with the value, step back to before the last raise and hold.
 */
static bool guard_trips(struct nb_state *s, const struct bpftune_event *ev,
			unsigned int tunable, long cur, struct bpftune_value *inputs)
{
	struct grown *g = &s->grown[tunable];
	struct bpftune_guard_verdict v;
	struct bpftune_corr *w;
	uint64_t t = bpftune_now_ms();
	char reason[320];
	double wait, rate;

	if (bpftune_proc_cpu_wait(&wait, NULL))
		return false;
	w = bpftune_corr_for(s->tuner, tunable, 0);
	if (!w)
		return false;
	if (g->have_wait &&
	    bpftune_counter_rate(g->wait_start, g->wait_start_ms, wait, t, &rate)) {
		bpftune_corr_add(w, (double)cur, rate);
		inputs[NB_IN_WAIT_PER_MS] = BPFTUNE_VALUE_REAL(rate);
		inputs[NB_IN_WAIT_SOURCE] = BPFTUNE_VALUE_TEXT(s->wait_source);
		inputs[NB_IN_GUARD_SAMPLES] = BPFTUNE_VALUE_INT(w->n);
	}
	g->have_wait = true;
	g->wait_start = wait;
	g->wait_start_ms = t;
	if (!nb_wait_guard_trips(w, tunable, cur, g->raised_from, g->trips,
				 bpftune_learning_rate(), &v))
		return false;
	g->hold_until_ms = t + v.hold_ms;
	g->trips++;
	bpftune_decide_values(s->tuner, ev, NET_BUFFER_LATENCY_GUARD, tunable, "wait-guard",
			      inputs, NB_BUDGET_NUM_INPUTS, nb_verdict_action(NBV_STEP_BACK));
	snprintf(reason, sizeof(reason),
		 "CPU wait (%s) rose with %s (r=%.2f over %u samples at %u settings): longer receive rounds were delaying tasks; stepping back and holding for %llu s",
		 s->wait_source, knob(tunable), v.r, w->n, bpftune_corr_settings(w),
		 (unsigned long long)v.hold_ms / 1000);
	bpftune_corr_reset(w);
	g->have_wait = false;
	set_grown(s, ev, tunable, NET_BUFFER_LATENCY_GUARD, cur, v.back, reason);
	return true;
}

static void budget_decide(struct bpftune_tuner *t, const struct bpftune_event *ev,
			  unsigned int tunable, const struct bpftune_value *inputs,
			  enum nb_verdict v)
{
	bpftune_decide_values(t, ev, ev->scenario_id, tunable, "grow-budget", inputs,
			      NB_BUDGET_NUM_INPUTS, nb_verdict_action(v));
}

static void squeeze(struct bpftune_tuner *t, void *priv,
		    const struct bpftune_event *ev)
{
	const struct net_buffer_event *e = (const void *)ev->payload;
	struct nb_state *s = priv;
	unsigned int tunable = ev->scenario_id == NET_BUFFER_BUDGET_SQUEEZE ?
			       NB_BUDGET : NB_BUDGET_USECS;
	struct nb_squeeze_in in = {
		.tunable = tunable, .ev_budget = e->budget, .ev_usecs = e->budget_usecs,
		.polls = e->polls, .round_ns = e->round_ns,
		.rate = bpftune_learning_rate(),
	};
	uint64_t now[NB_MAX_CPUS], total = 0;
	struct grown *g = &s->grown[tunable];
	struct bpftune_value inputs[NB_BUDGET_NUM_INPUTS] = { 0 };
	char reason[320];
	enum nb_verdict v;
	unsigned int cpu;
	long cur, want;

	if (bpftune_proc_softnet(2, now, NB_MAX_CPUS) < 0 || get1(s, NB_BUDGET, &in.budget) ||
	    get1(s, NB_BUDGET_USECS, &in.usecs))
		return;
	for (cpu = 0; cpu < NB_MAX_CPUS; cpu++)
		total += now[cpu];
	in.squeezes = total > s->squeezed ? total - s->squeezed : 0;
	s->squeezed = total;
	cur = tunable == NB_BUDGET ? in.budget : in.usecs;
	inputs[NB_IN_WORK] = BPFTUNE_VALUE_INT(e->work);
	inputs[NB_IN_POLLS] = BPFTUNE_VALUE_INT(e->polls);
	inputs[NB_IN_ROUND_US] = BPFTUNE_VALUE_INT(e->round_ns / 1000);
	inputs[NB_IN_CPU] = BPFTUNE_VALUE_INT(e->cpu);
	inputs[NB_IN_BUDGET] = BPFTUNE_VALUE_INT(in.budget);
	inputs[NB_IN_BUDGET_USECS] = BPFTUNE_VALUE_INT(in.usecs);
	inputs[NB_IN_SQUEEZES] = BPFTUNE_VALUE_INT(in.squeezes);
	in.now_ms = bpftune_now_ms();
	in.hold_until_ms = g->hold_until_ms;
	v = nb_squeeze_decide(&in, &want);
	if (v == NBV_CHANGED)
		limits_update(s);
	if (v == NBV_CHANGED || v == NBV_NO_SQUEEZE) {
		budget_decide(t, ev, tunable, inputs, v);
		return;
	}
	g->need_ms = in.now_ms;
	high_order_check(s, ev, "receive rounds squeezed");
	if (v != NBV_RAISE) {
		budget_decide(t, ev, tunable, inputs, v);
		return;
	}
	if (guard_trips(s, ev, tunable, cur, inputs))
		return;
	budget_decide(t, ev, tunable, inputs, v);
	if (tunable == NB_BUDGET)
		snprintf(reason, sizeof(reason),
			 "a receive round on CPU %u processed %u packets, its whole budget, with more waiting (%" PRIu64 " squeezes counted)",
			 e->cpu, e->work, in.squeezes);
	else
		snprintf(reason, sizeof(reason),
			 "a receive round on CPU %u ran %llu us in %u NAPI polls, into its time limit, with more waiting (%" PRIu64 " squeezes counted)",
			 e->cpu, (unsigned long long)e->round_ns / 1000, e->polls,
			 in.squeezes);
	set_grown(s, ev, tunable, ev->scenario_id, cur, want, reason);
}

/* ---- the timer: shrink what is no longer needed -------------------------- */

static void shrink_one(struct nb_state *s, const struct bpftune_event *ev,
		       unsigned int tunable,
		       uint64_t now)
{
	struct grown *g = &s->grown[tunable];
	struct bpftune_value inputs[3];
	char reason[256];
	enum nb_verdict v;
	long cur, want;

	if (!nb_shrink_due(g->orig, now, g->need_ms))
		return;
	if (get1(s, tunable, &cur))
		return;
	v = nb_shrink_decide(tunable, cur, g->orig, bpftune_learning_rate(), &want);
	if (v == NBV_DONE) {
		g->orig = -1;
		return;
	}
	inputs[0] = BPFTUNE_VALUE_INT(cur);
	inputs[1] = BPFTUNE_VALUE_INT(g->orig);
	inputs[2] = BPFTUNE_VALUE_INT(now - g->need_ms);
	bpftune_decide_values(s->tuner, ev, NET_BUFFER_SHRINK, tunable, "shrink-when-quiet",
			      inputs, 3, nb_verdict_action(v));
	snprintf(reason, sizeof(reason),
		 "no drop or squeeze has needed it for %llu s: %s %ld",
		 (unsigned long long)(now - g->need_ms) / 1000,
		 tunable == NB_FLOW_LIMIT ? "back to" : "one step back toward",
		 g->orig);
	set_grown(s, ev, tunable, NET_BUFFER_SHRINK, cur, want, reason);
	if (want == g->orig)
		g->orig = -1;
}

static void net_buffer_timer(struct bpftune_tuner *t, void *priv)
{
	uint64_t now = bpftune_now_ms();
	struct nb_state *s = priv;
	struct bpftune_event ev;
	unsigned int i;

	bpftune_event_init(&ev, t, NET_BUFFER_SHRINK, 0, 0);
	for (i = 0; i < NB_HIGH_ORDER_OFF; i++)
		shrink_one(s, &ev, i, now);
	timer_update(s);
}

/* ---- plumbing ----------------------------------------------------------- */

static void forget(struct nb_state *s)
{
	unsigned int i;

	for (i = 0; i < NB_NUM_TUNABLES; i++) {
		s->grown[i].orig = -1;
		s->grown[i].raised_from = -1;
	}
}

/* Stopped by the admin (its sysctls are global): nothing to shrink back. */
static void net_buffer_netns_state(struct bpftune_tuner *t, void *priv,
				   uint64_t cookie, enum bpftune_state state)
{
	struct nb_state *s = priv;

	(void)t;
	if (state != BPFTUNE_STATE_MANUAL || cookie)
		return;
	forget(s);
	timer_update(s);
}

/* softnet_stat baselines, the wait source, the BPF side's limits */
static void baselines(struct nb_state *s)
{
	uint64_t sq[NB_MAX_CPUS];
	unsigned int cpu;
	double wait;

	if (bpftune_proc_cpu_wait(&wait, &s->wait_source))
		s->wait_source = NULL;
	if (bpftune_proc_softnet(1, s->dropped, NB_MAX_CPUS) < 0)
		memset(s->dropped, 0, sizeof(s->dropped));
	if (bpftune_proc_softnet(2, sq, NB_MAX_CPUS) >= 0)
		for (cpu = 0; cpu < NB_MAX_CPUS; cpu++)
			s->squeezed += sq[cpu];
	limits_update(s);
}

/*
 * The gate of the round-following pair (softirq_entry + napi_poll, on
 * every NET_RX softirq and NAPI poll): the kernel counts every squeezed
 * round (budget or time) in time_squeeze and every backlog drop in
 * dropped, so a round near its limits moves the sum first; the pair is
 * attached only then, and detached after 10 calm seconds.
 */
static int softnet_pressure(struct bpftune_tuner *t, void *priv, uint64_t *value)
{
	uint64_t sum[NB_MAX_CPUS];
	unsigned int cpu;

	(void)t;
	(void)priv;
	*value = 0;
	/* dropped (column 1) + time_squeeze (column 2), one read */
	if (bpftune_proc_softnet_sum(1u << 1 | 1u << 2, sum, NB_MAX_CPUS) < 0)
		return -EIO;
	for (cpu = 0; cpu < NB_MAX_CPUS; cpu++)
		*value += sum[cpu];
	return 0;
}

static const struct bpftune_gate gates[] = {
	{
		.hook = "rx_entry rx_poll",
		.kind = BPFTUNE_GATE_COUNTER,
		.what = "softnet_stat time_squeeze+dropped",
		.read = softnet_pressure,
		.flag = "rx_gate_closed",
		/* nothing to look at while no packet arrives */
		.wake = "netif_receive_skb",
	},
};

static int net_buffer_init(struct bpftune_tuner *t, void *priv)
{
	struct nb_state *s = priv;
	long hz = 0, flow, n;

	s->tuner = t;
	forget(s);
	n = sysconf(_SC_NPROCESSORS_CONF);
	s->ncpus = n > 0 ? (unsigned int)n : 1;
	/* a long holds the mask: CPUs 0..62 */
	s->flow_limit = s->ncpus < NB_MAX_CPUS &&
			bpftune_proc_sysctl(NULL, tunables[NB_FLOW_LIMIT].name,
					    &flow, 1) == 1;
	if (s->ncpus < NB_MAX_CPUS)
		tunables[NB_FLOW_LIMIT].max = (long)((1ULL << s->ncpus) - 1);
	/* the kernel's time limit is whole jiffies: allow one for rounding */
	s->slack_ns = bpftune_kernel_tick_ns();
	if (s->slack_ns <= 0)
		s->slack_ns = 10000000;	/* HZ=100, the coarsest: no squeeze missed */
	hz = 1000000000L / s->slack_ns;
	s->limits_fd = bpf_map__fd(BPFTUNE_SKEL_MAP(t, net_buffer_tuner_bpf, limits));
	baselines(s);
	bpftune_log(LOG_INFO, "tuner net_buffer: caps: netdev_max_backlog %d, netdev_budget %d, netdev_budget_usecs %d; flow limit %s; HZ %ld; wait guard %s",
		    NB_BACKLOG_CAP, NB_BUDGET_CAP, NB_USECS_CAP,
		    s->flow_limit ? "on drops" : "unavailable", hz,
		    s->wait_source ? s->wait_source : "unavailable (no PSI, no schedstat)");
	if (!s->wait_source)
		s->wait_source = "none";
	return 0;
}

static const struct bpftune_scenario_desc scenarios[] = {
	[NET_BUFFER_BACKLOG_DROP] = {
		.name = "backlog full",
		.description = "packets were dropped because a CPU's receive backlog (netdev_max_backlog) was full",
		.payload_size = sizeof(struct net_buffer_event),
		.handle = backlog_drop,
	},
	[NET_BUFFER_BUDGET_SQUEEZE] = {
		.name = "receive budget exhausted",
		.description = "a receive round used its whole netdev_budget with packets left",
		.payload_size = sizeof(struct net_buffer_event),
		.handle = squeeze,
	},
	[NET_BUFFER_TIME_SQUEEZE] = {
		.name = "receive time exhausted",
		.description = "a receive round ran into netdev_budget_usecs with packets left",
		.payload_size = sizeof(struct net_buffer_event),
		.handle = squeeze,
	},
	[NET_BUFFER_LATENCY_GUARD] = {
		.name = "longer receive rounds delayed tasks",
		.description = "CPU wait time rose together with the receive budget: step back and hold",
	},
	[NET_BUFFER_SHRINK] = {
		.name = "receive limits no longer needed",
		.description = "no drop or squeeze has asked for the raised limits for a while: one step back",
	},
	[NET_BUFFER_HIGH_ORDER] = {
		.name = "order-0 skb pages on a busy receive path",
		.description = "high_order_alloc_disable only adds per-packet work where refills no longer stall",
	},
};

BPFTUNE_TUNER(net_buffer_tuner_bpf,
	.name = "net_buffer",
	.description = "per-CPU receive backlog, flow limit and the NET_RX budget, with a CPU wait guard",
	BPFTUNE_TUNABLES(tunables),
	BPFTUNE_SCENARIOS(scenarios),
	BPFTUNE_GATES(gates),
	.priv_size = sizeof(struct nb_state),
	.init = net_buffer_init,
	.netns_state = net_buffer_netns_state,
	.timer = net_buffer_timer,
	.telemetry = &net_buffer_telemetry);
