// SPDX-License-Identifier: GPL-2.0-only
/* tcp_buffer's decisions (see tcp_buffer_policy.h). */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include <bpftune/correlation.h>
#include <bpftune/grow.h>

#include "tcp_buffer_policy.h"
#include "tcp_buffer_mem_plan.h"

static long delta(long value, unsigned int rate)
{
	return bpftune_delta_for_rate(value, rate);
}

/* ---- buffers -------------------------------------------------------------- */

enum tb_buf_verdict tb_buf_precheck(bool have_live, const long live[3],
				    long event_max)
{
	if (!have_live)
		return TB_BUF_UNREADABLE;
	if (live[2] != event_max)
		return TB_BUF_MAX_CHANGED;
	return TB_BUF_GROW;
}

enum tb_buf_verdict tb_buf_decide(const struct tb_buf_in *in, long want[3])
{
	long limit, step;

	if (in->lowmem)
		return TB_BUF_LOWMEM;
	if (in->pressure || (in->tcp_mem1 > 0 &&
			     in->tcp_pages + delta(in->tcp_mem1, in->rate) >= in->tcp_mem1))
		return TB_BUF_PRESSURE;
	if (in->held)
		return TB_BUF_HELD;
	if (in->live[2] >= in->cap)
		return TB_BUF_AT_CAP;
	limit = tb_bdp_limit(in->bdp);
	if (in->live[2] >= limit)
		return TB_BUF_ABOVE_BDP;
	step = delta(in->live[2], in->rate);
	/* up to the bound; a raise of less than a quarter step is not worth one */
	if (in->live[2] + step > limit)
		step = limit - in->live[2];
	if (step < delta(in->live[2], in->rate) / 4)
		return TB_BUF_ABOVE_BDP;
	memcpy(want, in->live, 3 * sizeof(*want));
	want[2] = in->live[2] + step;
	return TB_BUF_GROW;
}

long tb_bdp_limit(long bdp)
{
	if (bdp <= 0 || bdp > LONG_MAX / TB_BUF_BDP_FACTOR)
		return LONG_MAX;
	return bdp * TB_BUF_BDP_FACTOR > TB_BUF_BDP_FLOOR ?
	       bdp * TB_BUF_BDP_FACTOR : TB_BUF_BDP_FLOOR;
}

long tb_bdp_bytes(unsigned int rate_kbps, unsigned int rtt_us)
{
	return (long)((uint64_t)rate_kbps * rtt_us / 8000);
}

/* ---- window scale ---------------------------------------------------------- */

unsigned int tb_wscale_for(long space)
{
	int log2 = -1;

	while (space > 0 && log2 < 62) {
		space >>= 1;
		log2++;
	}
	if (log2 - 15 <= 0)
		return 0;
	return log2 - 15 < TB_WSCALE_MAX ? (unsigned int)(log2 - 15) : TB_WSCALE_MAX;
}

long tb_wscale_window(unsigned int wscale)
{
	return 65535L << (wscale < TB_WSCALE_MAX ? wscale : TB_WSCALE_MAX);
}

bool tb_wscale_bound(unsigned int wscale, long max)
{
	return tb_wscale_window(wscale) < max / 2;
}

const char *tb_buf_action(enum tb_buf_verdict v)
{
	switch (v) {
	case TB_BUF_GROW:
		return "raise";
	case TB_BUF_UNREADABLE:
		return "none: cannot read the live value";
	case TB_BUF_MAX_CHANGED:
		return "none: max changed since the event";
	case TB_BUF_LOWMEM:
		return "none: low-memory mode";
	case TB_BUF_PRESSURE:
		return "none: TCP memory near pressure";
	case TB_BUF_HELD:
		return "none: held by the latency guard";
	case TB_BUF_AT_CAP:
		return "none: at the cap";
	case TB_BUF_ABOVE_BDP:
		return "none: max already 4x the measured BDP (and the kernel's default)";
	}
	return "none";
}

/* ---- the latency guard ---------------------------------------------------- */

void tb_guard_observe(struct tb_guard *g, unsigned int rtt_us,
		      unsigned int rate_kbps)
{
	if (rtt_us) {
		g->rtt_sum += rtt_us;
		g->rtt_n++;
	}
	if (rate_kbps) {
		g->rate_sum += rate_kbps;
		g->rate_n++;
	}
}

void tb_guard_feed(struct tb_guard *g, struct bpftune_corr *rtt_w,
		   struct bpftune_corr *rate_w, long max, uint64_t now_ms)
{
	bool settled = !g->since_ms || now_ms >= g->since_ms + TB_GUARD_MIN_DWELL_MS;

	if (settled && g->rtt_n)
		bpftune_corr_add(rtt_w, max, g->rtt_sum / g->rtt_n);
	if (settled && g->rate_n)
		bpftune_corr_add(rate_w, max, g->rate_sum / g->rate_n);
	g->rtt_sum = g->rate_sum = 0;
	g->rtt_n = g->rate_n = 0;
}

void tb_guard_raised(struct tb_guard *g, long from, uint64_t now_ms)
{
	g->raised_from = from;
	g->since_ms = now_ms;
}

static const struct bpftune_guard_params tb_guard_params = {
	.min_samples = TB_GUARD_MIN_SAMPLES,
	.min_r = TB_GUARD_MIN_R,
	.min_rise = TB_GUARD_MIN_RISE,
	.hold_ms = TB_GUARD_HOLD_MS,
	.hold_max_ms = TB_GUARD_HOLD_MAX_MS,
	.min_gain = TB_GUARD_MIN_GAIN,
};

bool tb_guard_check(struct tb_guard *g, const struct bpftune_corr *rtt_w,
		    const struct bpftune_corr *rate_w, const long cur[3],
		    unsigned int rate, uint64_t now_ms,
		    struct tb_guard_verdict *v)
{
	const struct bpftune_guard_input in = {
		.cost = rtt_w, .benefit = rate_w, .cur = cur[2],
		.raised_from = g->raised_from, .floor = cur[1],
		.trips = g->trips, .rate = rate,
	};
	struct bpftune_guard_result res;
	bool trips = bpftune_guard_check(&tb_guard_params, &in, &res);

	memset(v, 0, sizeof(*v));
	v->have_fit = res.have_fit;
	v->have_gain = res.have_gain;
	v->r = res.v.r;
	v->rise = res.rise;
	v->gain = res.gain;
	v->samples = res.samples;
	if (!trips)
		return false;
	memcpy(v->back, cur, sizeof(v->back));
	/* the max before our last raise may be below today's default */
	v->back[2] = res.v.back > cur[1] ? res.v.back : cur[1];
	v->hold_ms = res.v.hold_ms;
	g->hold_until_ms = now_ms + v->hold_ms;
	g->trips++;
	g->raised_from = 0;
	g->since_ms = now_ms;
	return true;
}

/* ---- tcp_mem and low-memory mode ------------------------------------------ */

void tb_mem_decide(const struct tb_mem_in *in, struct tb_mem_out *out)
{
	const long *cur = in->cur;
	bool near;
	unsigned int i;

	memset(out, 0, sizeof(*out));
	/* what TCP holds plus a quarter of what is still available */
	out->ceiling = in->avail > 0 ? in->pages + in->avail / 4 : cur[2];
	if (out->ceiling > in->cap)
		out->ceiling = in->cap;
	out->at_max = in->pages + delta(cur[2], in->rate) >= cur[2];
	out->exhausted = in->refused || out->at_max;
	near = in->pages + delta(cur[1], in->rate) >= cur[1];
	if (!near && !in->refused && !in->pressure && !out->at_max) {
		out->verdict = TB_MEM_BELOW;
		return;
	}
	/* a max that cannot grow because it is above the cap is no shortage */
	if (tcp_mem_over_cap(cur, in->cap, out->want)) {
		out->verdict = TB_MEM_OVER_CAP;
		return;
	}
	if (cur[2] < out->ceiling) {
		for (i = 0; i < 3; i++)
			out->want[i] = cur[i] + delta(cur[i], in->rate);
		if (out->want[2] > out->ceiling)
			out->want[2] = out->ceiling;
		if (out->want[1] > out->want[2])
			out->want[1] = out->want[2];
		if (out->want[0] > out->want[1])
			out->want[0] = out->want[1];
		out->verdict = TB_MEM_GROW;
	} else {
		out->verdict = TB_MEM_AT_CEILING;
	}
	/* really short: refused, within delta of the hard limit, or no room */
	out->lowmem = (out->exhausted || out->verdict == TB_MEM_AT_CEILING) &&
		      (in->refused || !in->undone_at || in->pages > in->undone_at);
}

const char *tb_mem_action(enum tb_mem_verdict v)
{
	switch (v) {
	case TB_MEM_BELOW:
		return "none: below the pressure threshold";
	case TB_MEM_GROW:
		return "raise";
	case TB_MEM_AT_CEILING:
		return "none: at the ceiling";
	case TB_MEM_OVER_CAP:
		return "lower the max to the cap, raise the thresholds";
	}
	return "none";
}

void tb_lowmem_shrink(const long cur[3], long saved_max, unsigned int rate,
		      long want[3])
{
	long floor = (saved_max > 0 ? saved_max : cur[2]) / 4;

	/* no less than the default size or a quarter of the original */
	if (floor < cur[1])
		floor = cur[1];
	memcpy(want, cur, 3 * sizeof(*want));
	want[2] = cur[2] - delta(cur[2], rate);
	if (want[2] < floor)
		want[2] = floor;
}

/*
 * Since 6.0 the kernel counts TCP memory (tcp_memory_allocated, the pages
 * of /proc/net/protocols) through per-CPU caches: each CPU keeps up to
 * mem_pcpu_rsv pages (1 MiB by default) charged or uncharged before they
 * reach the global count.  With no socket left the count can stay up to
 * mem_pcpu_rsv pages a CPU above zero, so with tcp_mem[1] below about
 * 4/3 of that reserve "clear of tcp_mem[1] by delta" need never hold
 * once the sockets are gone, and low-memory mode could stay forever.
 *
 * The allowance is at most delta, the margin calm asks for: calm then
 * still needs the kernel's own count below tcp_mem[1] and the kernel out
 * of pressure.  Real pressure is never declared calm because of it: past
 * tcp_mem[1] the kernel enters pressure at its next allocation, measured
 * on this very count, and once in pressure it leaves only when the count
 * falls below tcp_mem[0].  What the allowance gives up is the margin
 * alone, and only as much of it as the count cannot resolve anyway.
 * With it, the count of an idle TCP is calm for every tcp_mem[1] above
 * the reserve.  (The kernel's own pressure flag, which calm waits for
 * too, clears only with tcp_mem[0] above what the count keeps: below
 * that the kernel cannot tell idle from pressure either, and its next
 * pressure event grows tcp_mem.)
 */
long tb_mem_calm_allowance(long mem1, long pcpu_reserve, unsigned int rate)
{
	long margin = delta(mem1, rate);

	if (pcpu_reserve <= 0)
		return 0;
	return pcpu_reserve < margin ? pcpu_reserve : margin;
}

bool tb_mem_calm(long pages, bool pressure, long mem1, long pcpu_reserve,
		 unsigned int rate)
{
	long allowance = tb_mem_calm_allowance(mem1, pcpu_reserve, rate);

	return !pressure && pages - allowance + delta(mem1, rate) < mem1;
}

/* ---- the SYN queue and syncookies ----------------------------------------- */

static uint64_t sub(uint64_t now, uint64_t before)
{
	return now >= before ? now - before : 0;
}

void tb_syn_delta(const struct tb_syn_counters *now,
		  const struct tb_syn_counters *before, struct tb_syn_delta *d)
{
	d->stalled = sub(now->synack_retrans, before->synack_retrans);
	d->completed = sub(now->completed, before->completed);
	d->sent = sub(now->cookies_sent, before->cookies_sent);
	d->recv = sub(now->cookies_recv, before->cookies_recv);
	/* SYNs dropped for a full SYN queue, not for a full accept queue */
	d->drops = sub(sub(now->listen_drops, before->listen_drops),
		       sub(now->listen_overflows, before->listen_overflows));
}

uint64_t tb_syn_bad(const struct tb_syn_delta *d)
{
	return d->stalled + d->drops + (d->sent > d->recv ? d->sent - d->recv : 0);
}

enum tb_syn_verdict tb_syn_decide(const struct tb_syn_in *in,
				  unsigned int *votes, long *want)
{
	const struct tb_syn_delta *d = &in->d;
	uint64_t bad = tb_syn_bad(d);
	long threshold;

	/*
	 * Evidence of a flood: SYNs dropped, SYN-ACKs or cookies never
	 * answered, against fewer than 1 in TB_SYN_FLOOD_RATIO handshakes
	 * completing.  Completions clear the votes; a quiet window leaves
	 * them: slow but real clients complete, a flood needs two votes.
	 */
	if (bad >= TB_SYN_FLOOD_MIN &&
	    bad > TB_SYN_FLOOD_RATIO * (d->completed + d->recv)) {
		if (++*votes < TB_SYN_FLOOD_VOTES)
			return TB_SYN_FLOOD_SUSPECTED;
		return in->syncookies ? TB_SYN_FLOOD_COOKIES_ON : TB_SYN_FLOOD_COOKIES;
	}
	if (d->completed + d->recv)
		*votes = 0;
	/* legitimate load: max_syn_backlog only matters without syncookies */
	if (in->syncookies)
		return TB_SYN_COOKIES_ON;
	/* new peers are dropped past 3/4 of max_syn_backlog */
	threshold = in->max_syn - in->max_syn / 4;
	if (!d->completed)
		return TB_SYN_NO_COMPLETION;
	if (!d->drops && in->qlen + delta(threshold, in->rate) < threshold)
		return TB_SYN_NOT_NEAR;
	if (threshold >= (long)in->backlog)
		return TB_SYN_BACKLOG_LIMIT;
	*want = in->max_syn + delta(in->max_syn, in->rate);
	return TB_SYN_GROW;
}

const char *tb_syn_action(enum tb_syn_verdict v)
{
	switch (v) {
	case TB_SYN_FLOOD_SUSPECTED:
		return "none: flood suspected, not yet confirmed";
	case TB_SYN_FLOOD_COOKIES_ON:
		return "none: flood, syncookies already on";
	case TB_SYN_FLOOD_COOKIES:
		return "syncookies on, no backlog growth";
	case TB_SYN_COOKIES_ON:
		return "none: syncookies on, the listen backlog bounds the queue";
	case TB_SYN_NO_COMPLETION:
		return "none: no handshake completed";
	case TB_SYN_NOT_NEAR:
		return "none: no SYN dropped and the queue is not near the drop threshold";
	case TB_SYN_BACKLOG_LIMIT:
		return "none: the listen backlog is the limit, not max_syn_backlog";
	case TB_SYN_GROW:
		return "raise";
	}
	return "none";
}

bool tb_syn_is_flood(enum tb_syn_verdict v)
{
	return v == TB_SYN_FLOOD_SUSPECTED || v == TB_SYN_FLOOD_COOKIES_ON ||
	       v == TB_SYN_FLOOD_COOKIES;
}

bool tb_syncookies_idle(const struct tb_syn_counters *now,
			const struct tb_syn_counters *before,
			uint64_t *busy_ms, uint64_t now_ms, uint64_t quiet_ms)
{
	if (now->cookies_sent != before->cookies_sent ||
	    now->synack_retrans != before->synack_retrans)
		*busy_ms = now_ms;
	return now_ms - *busy_ms >= quiet_ms;
}
