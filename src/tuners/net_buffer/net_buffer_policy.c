// SPDX-License-Identifier: GPL-2.0-only
/* net_buffer's decisions (net_buffer_policy.h): pure, unit-tested. */
#include <limits.h>
#include <linux/types.h>
#include <bpftune/grow.h>

#include "net_buffer_policy.h"
#include "net_buffer_tuner.h"

static const char *const actions[] = {
	[NBV_RAISE]	 = "raise",
	[NBV_AT_CAP]	 = "none: at the cap",
	[NBV_NO_DROP]	 = "none: no drop counted since the last look",
	[NBV_CHANGED]	 = "none: limits changed since the event",
	[NBV_NO_SQUEEZE] = "none: the kernel counted no squeeze since the last look",
	[NBV_HELD]	 = "none: held by the wait guard",
	[NBV_ONE_POLL]	 = "none: a single NAPI poll outlasted the limit; a longer one would not help",
	[NBV_STEP_BACK]	 = "step back",
	[NBV_ENABLE]	 = "enable",
	[NBV_LOWMEM]	 = "none: TCP memory under pressure (low-memory mode)",
	[NBV_SET]	 = "set",
	[NBV_SHRINK]	 = "shrink",
	[NBV_DONE]	 = "none",
};

static const struct bpftune_guard_params wait_guard = {
	.min_samples = NET_BUFFER_GUARD_MIN_SAMPLES,
	.min_r = NET_BUFFER_GUARD_MIN_R,
	.min_rise = NET_BUFFER_GUARD_MIN_RISE,
	.hold_ms = NET_BUFFER_GUARD_HOLD_MS,
	.hold_max_ms = NET_BUFFER_GUARD_HOLD_MAX_MS,
};

const char *nb_verdict_action(enum nb_verdict v)
{
	return (unsigned int)v < sizeof(actions) / sizeof(actions[0]) ?
	       actions[v] : "none";
}

uint64_t nb_backlog_drops(const uint64_t *now, const uint64_t *before,
			  unsigned int n, uint64_t *mask)
{
	uint64_t total = 0;
	unsigned int cpu;

	*mask = 0;
	for (cpu = 0; cpu < n && cpu < NB_MAX_CPUS; cpu++) {
		if (now[cpu] > before[cpu]) {
			total += now[cpu] - before[cpu];
			*mask |= 1ULL << cpu;
		}
	}
	return total;
}

enum nb_verdict nb_backlog_decide(uint64_t drops, long cur, unsigned int rate,
				  long *want)
{
	*want = 0;
	if (!drops)
		return NBV_NO_DROP;
	if (cur >= NB_BACKLOG_CAP)
		return NBV_AT_CAP;
	/* past the cap the library clamps, and says so */
	*want = bpftune_grow_step(cur, LONG_MAX, rate);
	return NBV_RAISE;
}

enum nb_verdict nb_flow_limit_decide(long flow, uint64_t mask, long present,
				     long *want)
{
	*want = flow | (long)(mask & (uint64_t)present);
	return *want == flow ? NBV_DONE : NBV_SET;
}

static long squeeze_cap(unsigned int tunable)
{
	return tunable == NB_BUDGET ? NB_BUDGET_CAP : NB_USECS_CAP;
}

enum nb_verdict nb_squeeze_decide(const struct nb_squeeze_in *in, long *want)
{
	long cur = in->tunable == NB_BUDGET ? in->budget : in->usecs;

	*want = 0;
	if (in->ev_budget != in->budget || in->ev_usecs != in->usecs)
		return NBV_CHANGED;
	if (!in->squeezes)
		return NBV_NO_SQUEEZE;
	if (in->hold_until_ms > in->now_ms)
		return NBV_HELD;
	if (cur >= squeeze_cap(in->tunable))
		return NBV_AT_CAP;
	/* the limit is checked between polls: one poll outlasting it all */
	if (in->tunable == NB_BUDGET_USECS && in->polls <= 1 &&
	    in->round_ns > (uint64_t)in->usecs * 1000)
		return NBV_ONE_POLL;
	*want = bpftune_grow_step(cur, LONG_MAX, in->rate);
	return NBV_RAISE;
}

bool nb_wait_guard_trips(const struct bpftune_corr *w, unsigned int tunable,
			 long cur, long raised_from, unsigned int trips,
			 unsigned int rate, struct bpftune_guard_verdict *v)
{
	return bpftune_guard_trips(&wait_guard, w, cur, raised_from,
				   tunable == NB_BUDGET ? NB_BUDGET_MIN : NB_USECS_MIN,
				   trips, rate, v);
}

enum nb_verdict nb_high_order_decide(bool have_off, long off, bool tcp_pressure)
{
	if (!have_off || off != 1)
		return NBV_DONE;
	return tcp_pressure ? NBV_LOWMEM : NBV_ENABLE;
}

bool nb_shrink_due(long orig, uint64_t now_ms, uint64_t need_ms)
{
	return orig >= 0 && bpftune_quiet_for(now_ms, need_ms, NB_SHRINK_QUIET_MS);
}

enum nb_verdict nb_shrink_decide(unsigned int tunable, long cur, long orig,
				 unsigned int rate, long *want)
{
	if (tunable == NB_FLOW_LIMIT) {
		*want = orig;
		return orig == cur ? NBV_DONE : NBV_SHRINK;
	}
	*want = bpftune_shrink_step(cur, orig, rate);
	return *want >= cur ? NBV_DONE : NBV_SHRINK;
}
