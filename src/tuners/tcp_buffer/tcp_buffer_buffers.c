// SPDX-License-Identifier: GPL-2.0-only
/*
 * tcp_buffer: the buffer maxima tcp_rmem[2] / tcp_wmem[2] with the latency
 * guard, and receive autotuning.  Reads and writes here; the decisions
 * are in tcp_buffer_policy.c.
 */
#include <stdio.h>
#include <string.h>

#include <bpftune/correlation.h>
#include <bpftune/proc.h>

#include "tcp_buffer.h"

static const char *buf_name(unsigned int tunable)
{
	return tunable == TB_RMEM ? "tcp_rmem" : "tcp_wmem";
}

/* what the guard looked at, for the decision's inputs (NULL: not yet) */
static void guard_inputs(const struct tb_guard_verdict *v, struct bpftune_value *in)
{
	if (v->have_fit) {
		in[TB_IN_GUARD_R] = BPFTUNE_VALUE_REAL(v->r);
		in[TB_IN_GUARD_RISE] = BPFTUNE_VALUE_REAL(v->rise);
		in[TB_IN_GUARD_SAMPLES] = BPFTUNE_VALUE_INT(v->samples);
	}
	if (v->have_gain)
		in[TB_IN_GUARD_GAIN] = BPFTUNE_VALUE_REAL(v->gain);
}

/*
 * The windows of (max, RTT) and (max, throughput) of @tunable in @n's
 * netns get what was seen at the max now in force; when RTT rose with
 * the max while throughput stood still, step back and hold.
 */
static bool guard_trips(struct tb_state *s, const struct bpftune_event *ev,
			unsigned int tunable, struct tb_netns *n,
			const long *cur, struct bpftune_value *inputs)
{
	struct tb_guard *g = &n->guard[tunable];
	struct tb_guard_verdict v;
	struct bpftune_corr *c, *rc;
	char reason[320], gains[64] = "";
	uint64_t now = bpftune_now_ms();
	bool trips;

	/* throughput windows take the slots past the tunables */
	c = bpftune_corr_for(s->tuner, tunable, n->ns.cookie);
	rc = bpftune_corr_for(s->tuner, TB_NUM_TUNABLES + tunable, n->ns.cookie);
	if (!c || !rc)
		return false;
	tb_guard_feed(g, c, rc, cur[2], now);
	trips = tb_guard_check(g, c, rc, cur, bpftune_learning_rate(), now, &v);
	guard_inputs(&v, inputs);
	if (!trips)
		return false;
	if (v.have_gain)
		snprintf(gains, sizeof(gains), ", throughput %+.0f%%", v.gain * 100);
	bpftune_decide_values(s->tuner, ev, TCP_BUFFER_LATENCY_GUARD, tunable,
			      "latency-guard", inputs, TB_BUF_NUM_INPUTS, "step back");
	snprintf(reason, sizeof(reason),
		 "RTT rose with the %s max (r=%.2f over %u samples at %u settings; line fitted across them: RTT +%.0f%%%s of the mean): more buffer only added queueing; stepping back and holding for %llu s",
		 buf_name(tunable), v.r, v.samples, bpftune_corr_settings(c),
		 v.rise * 100, gains,
		 (unsigned long long)v.hold_ms / 1000);
	bpftune_corr_reset(c);
	bpftune_corr_reset(rc);
	bpftune_tunable_set(s->tuner, tunable, ev, TCP_BUFFER_LATENCY_GUARD,
			    v.back, 3, reason);
	return true;
}

/*
 * A receiver whose window scale, fixed at its SYN under a smaller max,
 * cannot use the tcp_rmem max just raised to @max: the raise helps the
 * connections set up from now on, not this one.  Said once per netns and
 * scale.
 */
static void wscale_note(const struct bpftune_event *ev, struct tb_netns *n,
			unsigned int wscale, long max)
{
	char where[128];
	long rmem_max = 0;

	if (wscale > 15 || !tb_wscale_bound(wscale, max) ||
	    (n->wscale_told & (1u << wscale)))
		return;
	n->wscale_told |= 1u << wscale;
	if (bpftune_proc_sysctl(NULL, "net.core.rmem_max", &rmem_max, 1) != 1 ||
	    rmem_max < max)
		rmem_max = max;
	bpftune_log(LOG_NOTICE,
		    "tuner tcp_buffer: a receiver in %s is bound by its window scale: scale %u, fixed at its SYN under a smaller tcp_rmem max, caps its window at %ld bytes, below the %ld bytes a max of %ld allows; the raise helps connections set up from now on (scale %u)",
		    bpftune_netns_describe(ev->netns_cookie, where, sizeof(where)),
		    wscale, tb_wscale_window(wscale), max / 2, max,
		    tb_wscale_for(rmem_max));
}

void tb_buffer_near_max(struct bpftune_tuner *t, void *priv,
			const struct bpftune_event *ev)
{
	const struct tcp_buffer_event *e = (const void *)ev->payload;
	unsigned int scenario = ev->scenario_id;
	unsigned int tunable = scenario == TCP_BUFFER_RMEM_NEAR_MAX ? TB_RMEM : TB_WMEM;
	struct tb_state *s = priv;
	struct tb_buf_in in = {
		.pressure = e->pressure, .tcp_pages = e->allocated,
		.tcp_mem1 = e->mem[1], .cap = TB_BUF_CAP,
		.rate = bpftune_learning_rate(),
	};
	struct bpftune_value inputs[TB_BUF_NUM_INPUTS] = { 0 };
	char reason[256];
	enum tb_buf_verdict v;
	struct tb_netns *n;
	long want[3];
	int ret;

	n = bpftune_netns_table_get(s->tuner, ev);
	if (!n)
		return;
	ret = bpftune_tunable_get(t, tunable, ev, in.live);
	/*
	 * The receive side's growth is bounded by what its path holds (its
	 * rate times its RTT).  A new connection has measured neither yet:
	 * the netns's last measurement stands in, or each new connection
	 * would raise the max unbounded.
	 */
	if (tunable == TB_RMEM) {
		in.bdp = tb_bdp_bytes(e->rate_kbps, e->rtt_us);
		if (in.bdp)
			n->rmem_bdp = in.bdp;
		else
			in.bdp = n->rmem_bdp;
	}
	inputs[TB_IN_BUFFER] = BPFTUNE_VALUE_INT(e->value);
	inputs[TB_IN_EVENT_MAX] = BPFTUNE_VALUE_INT(e->limit[2]);
	if (ret == 3)
		inputs[TB_IN_LIVE_MAX] = BPFTUNE_VALUE_INT(in.live[2]);
	inputs[TB_IN_RTT_US] = BPFTUNE_VALUE_INT(e->rtt_us);
	inputs[TB_IN_MIN_RTT_US] = BPFTUNE_VALUE_INT(e->min_rtt_us);
	inputs[TB_IN_RATE_KBPS] = BPFTUNE_VALUE_INT(e->rate_kbps);
	if (in.bdp)
		inputs[TB_IN_BDP] = BPFTUNE_VALUE_INT(in.bdp);
	inputs[TB_IN_RCV_WND] = BPFTUNE_VALUE_INT(e->rcv_wnd);
	if (tunable == TB_RMEM)
		inputs[TB_IN_RCV_WSCALE] = BPFTUNE_VALUE_INT(e->rcv_wscale);
	inputs[TB_IN_TCP_PAGES] = BPFTUNE_VALUE_INT(e->allocated);
	inputs[TB_IN_TCP_MEM1] = BPFTUNE_VALUE_INT(e->mem[1]);
	inputs[TB_IN_PRESSURE] = BPFTUNE_VALUE_INT(e->pressure);
	v = tb_buf_precheck(ret == 3, in.live, e->limit[2]);
	if (v != TB_BUF_GROW) {
		bpftune_decide_values(s->tuner, ev, scenario, tunable, "grow-near-limit",
				      inputs, TB_BUF_NUM_INPUTS, tb_buf_action(v));
		return;
	}
	tb_guard_observe(&n->guard[tunable], e->rtt_us, e->rate_kbps);
	in.lowmem = s->lowmem || n->lowmem;
	in.held = n->guard[tunable].hold_until_ms > bpftune_now_ms();
	v = tb_buf_decide(&in, want);
	if (v != TB_BUF_GROW) {
		bpftune_decide_values(s->tuner, ev, scenario, tunable, "grow-near-limit",
				      inputs, TB_BUF_NUM_INPUTS, tb_buf_action(v));
		return;
	}
	if (guard_trips(s, ev, tunable, n, in.live, inputs))
		return;
	bpftune_decide_values(s->tuner, ev, scenario, tunable, "grow-near-limit",
			      inputs, TB_BUF_NUM_INPUTS, tb_buf_action(v));
	snprintf(reason, sizeof(reason),
		 "a socket's %s buffer (%u bytes) came within %.4g%% of the %s max",
		 tunable == TB_RMEM ? "receive" : "send", e->value,
		 100.0 / (1 << (6 - bpftune_learning_rate())), buf_name(tunable));
	if (bpftune_tunable_set(s->tuner, tunable, ev, scenario, want, 3,
				reason) != 1)
		return;
	tb_guard_raised(&n->guard[tunable], in.live[2], bpftune_now_ms());
	if (tunable == TB_RMEM)
		wscale_note(ev, n, e->rcv_wscale, want[2]);
}

/* Autotuning off and a receiver full up to its fixed buffer. */
void tb_rcvbuf_no_autotune(struct bpftune_tuner *t, void *priv,
			   const struct bpftune_event *ev)
{
	const struct tcp_buffer_event *e = (const void *)ev->payload;
	struct tb_state *s = priv;
	const struct bpftune_value inputs[] = {
		BPFTUNE_VALUE_INT(e->value), BPFTUNE_VALUE_INT(e->limit[2]),
		BPFTUNE_VALUE_INT(e->moderate_rcvbuf),
	};
	long moderate;

	if (bpftune_tunable_get(t, TB_MODERATE_RCVBUF, ev, &moderate) != 1 ||
	    moderate) {
		bpftune_decide_values(s->tuner, ev, ev->scenario_id, TB_MODERATE_RCVBUF,
				      "enable-autotuning", inputs, BPFTUNE_ARRAY_SIZE(inputs),
				      "none: autotuning is on");
		return;
	}
	bpftune_decide_values(s->tuner, ev, ev->scenario_id, TB_MODERATE_RCVBUF,
			      "enable-autotuning", inputs, BPFTUNE_ARRAY_SIZE(inputs),
			      "enable");
	tb_set1(s, ev, TB_MODERATE_RCVBUF, ev->scenario_id, 1,
		"a receiver's queue filled its fixed buffer while receive autotuning was off; autotuning sizes it within tcp_rmem");
}
