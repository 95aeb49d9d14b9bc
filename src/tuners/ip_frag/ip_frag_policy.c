// SPDX-License-Identifier: GPL-2.0-only
/* ip_frag's decisions (ip_frag_policy.h): pure, unit-tested. */
#include <limits.h>
#include <bpftune/grow.h>

#include "ip_frag_policy.h"

static const char *const actions[] = {
	[IPF_RAISE]	 = "raise",
	[IPF_CHANGED]	 = "none: threshold changed since the event",
	[IPF_HELD]	 = "none: held by the flood guard",
	[IPF_AT_CAP]	 = "none: at the cap",
	[IPF_STEP_BACK]	 = "step back",
	[IPF_SHRINK]	 = "shrink",
	[IPF_IN_USE]	 = "none: reassembly memory still in use",
	[IPF_GIVEN_BACK] = "none",
};

static const struct bpftune_guard_params flood_guard = {
	.min_samples = IPF_GUARD_MIN_SAMPLES, .min_r = IPF_GUARD_MIN_R,
	.min_rise = IPF_GUARD_MIN_RISE,
	.hold_ms = IPF_GUARD_HOLD_MS, .hold_max_ms = IPF_GUARD_HOLD_MAX_MS,
};

const char *ipf_verdict_action(enum ipf_verdict v)
{
	return (unsigned int)v < sizeof(actions) / sizeof(actions[0]) ?
	       actions[v] : "none";
}

enum ipf_verdict ipf_near_precheck(long cur, long event_high)
{
	return cur != event_high ? IPF_CHANGED : IPF_RAISE;
}

enum ipf_verdict ipf_near_decide(long cur, uint64_t now_ms,
				 uint64_t hold_until_ms, unsigned int rate,
				 long *want)
{
	*want = 0;
	if (hold_until_ms > now_ms)
		return IPF_HELD;
	if (cur >= FRAG_CAP)
		return IPF_AT_CAP;
	/* past the cap the library clamps, and says so */
	*want = bpftune_grow_step(cur, LONG_MAX, rate);
	return IPF_RAISE;
}

static uint64_t since(uint64_t now, uint64_t before)
{
	return now >= before ? now - before : 0;
}

bool ipf_fail_share(const struct ipf_counters *base,
		    const struct ipf_counters *now, double *share)
{
	uint64_t reqds = since(now->reqds, base->reqds);

	if (!reqds)
		return false;
	*share = (double)since(now->fails, base->fails) / (double)reqds;
	return true;
}

bool ipf_flood_trips(const struct bpftune_corr *w, long cur, long raised_from,
		     unsigned int trips, unsigned int rate,
		     struct bpftune_guard_verdict *v)
{
	return bpftune_guard_trips(&flood_guard, w, cur, raised_from, FRAG_MIN,
				   trips, rate, v);
}

bool ipf_shrink_due(long orig, uint64_t now_ms, uint64_t need_ms)
{
	return orig >= 0 && bpftune_quiet_for(now_ms, need_ms, IPF_SHRINK_QUIET_MS);
}

enum ipf_verdict ipf_shrink_decide(const struct ipf_shrink_in *in, long *want)
{
	*want = bpftune_shrink_step(in->cur, in->orig, in->rate);
	if (in->have_low && *want < in->low)
		*want = in->low;
	if (*want >= in->cur)
		return IPF_GIVEN_BACK;
	/* still in use: the lower threshold would be near its limit */
	if (in->mem < 0 || in->mem + bpftune_delta_for_rate(*want, in->rate) >= *want)
		return IPF_IN_USE;
	return IPF_SHRINK;
}
