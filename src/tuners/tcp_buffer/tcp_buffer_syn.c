// SPDX-License-Identifier: GPL-2.0-only
/*
 * tcp_buffer: the SYN backlog and syncookies.  tcp_max_syn_backlog grows
 * when SYNs are dropped past 3/4 of it and the handshakes complete; a
 * flood (requests that stall, confirmed twice) never grows it, and turns
 * syncookies on if they were off, until the flood has been over for a
 * while.  Reads and writes here; the decisions are in tcp_buffer_policy.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <bpf/bpf.h>

#include <bpftune/proc.h>

#include "tcp_buffer.h"

/* SYN evaluation: at most once per interval */
#define SYN_EVAL_MS		1000
/* syncookies we enabled go back after this long without a cookie sent */
#define SYNCOOKIES_QUIET_MS	(10 * 1000ULL)

/* The counters of the netns of @ev: TcpExt there, and the BPF side's. */
static int read_syn_counters(struct tb_state *s, const struct bpftune_event *ev,
			     struct tb_syn_counters *c)
{
	static const char *const keys[] = {
		"TcpExt.SyncookiesSent", "TcpExt.SyncookiesRecv",
		"TcpExt.SyncookiesFailed", "TcpExt.ListenDrops",
		"TcpExt.ListenOverflows", "TcpExt.TCPReqQFullDrop",
	};
	struct tcp_buffer_syn_stats st = { 0 };
	uint64_t v[BPFTUNE_ARRAY_SIZE(keys)];
	uint64_t cookie = ev->netns_cookie;
	int found;

	memset(c, 0, sizeof(*c));
	found = bpftune_proc_netstat(ev, keys, v, BPFTUNE_ARRAY_SIZE(keys));
	if (found <= 0)
		return found ? found : -ENOENT;
	c->cookies_sent = v[0];
	c->cookies_recv = v[1];
	c->cookies_failed = v[2];
	c->listen_drops = v[3];
	c->listen_overflows = v[4];
	c->reqq_drops = v[5];
	/* the BPF side keys the global netns by its real cookie */
	if (!cookie)
		cookie = bpftune_global_netns_cookie();
	if (s->syn_map_fd >= 0 &&
	    !bpf_map_lookup_elem(s->syn_map_fd, &cookie, &st)) {
		c->completed = st.completed;
		c->synack_retrans = st.synack_retrans;
	}
	return 0;
}

#define SYN_NUM_INPUTS	11

/* in the order tcp_buffer_tables.c declares them (syn_inputs) */
static void syn_inputs(const struct tcp_buffer_event *e,
		       const struct tb_syn_in *in, unsigned int votes,
		       struct bpftune_value *v)
{
	const struct tb_syn_delta *d = &in->d;
	const int64_t x[SYN_NUM_INPUTS] = {
		e->port, e->value, e->backlog, in->max_syn, in->syncookies,
		(int64_t)d->completed, (int64_t)d->stalled, (int64_t)d->sent,
		(int64_t)d->recv, (int64_t)d->drops, votes,
	};
	unsigned int i;

	for (i = 0; i < SYN_NUM_INPUTS; i++)
		v[i] = BPFTUNE_VALUE_INT(x[i]);
}

/* Apply @v: syncookies on for a flood, or a longer backlog. */
static void syn_apply(struct tb_state *s, const struct bpftune_event *ev,
		      const struct tcp_buffer_event *e, struct tb_netns *n,
		      const struct tb_syn_in *in, enum tb_syn_verdict v, long want)
{
	const struct tb_syn_delta *d = &in->d;
	char reason[320];

	if (v == TB_SYN_FLOOD_COOKIES) {
		snprintf(reason, sizeof(reason),
			 "SYN flood on port %u: %" PRIu64 " SYNs dropped or left half-open against %" PRIu64 " completed handshakes; syncookies serve real clients without queueing the flood (the backlog is not grown for it)",
			 e->port, tb_syn_bad(d), d->completed + d->recv);
		if (tb_set1(s, ev, TB_SYNCOOKIES, TCP_BUFFER_SYN_FLOOD, 1, reason) == 1) {
			n->syncookies_saved = in->syncookies;
			tb_timer_update(s);
		}
	} else if (v == TB_SYN_GROW) {
		snprintf(reason, sizeof(reason),
			 "listener on port %u: %u half-open requests, %" PRIu64 " SYNs dropped past 3/4 of tcp_max_syn_backlog, and the handshakes complete (%" PRIu64 " completed, %" PRIu64 " stalled): legitimate load",
			 e->port, e->value, d->drops, d->completed, d->stalled);
		tb_set1(s, ev, TB_MAX_SYN_BACKLOG, TCP_BUFFER_SYN_QUEUE, want, reason);
	}
}

void tb_syn_queue(struct bpftune_tuner *t, void *priv,
		  const struct bpftune_event *ev)
{
	const struct tcp_buffer_event *e = (const void *)ev->payload;
	struct tb_state *s = priv;
	struct tb_syn_in in = {
		.qlen = e->value, .backlog = e->backlog,
		.rate = bpftune_learning_rate(),
	};
	uint64_t now = bpftune_now_ms();
	struct tb_syn_counters c;
	enum tb_syn_verdict v;
	struct bpftune_value inputs[SYN_NUM_INPUTS];
	unsigned int votes;
	struct tb_netns *n;
	long want = 0;
	bool flood;

	n = bpftune_netns_table_get(t, ev);
	if (!n)
		return;
	n->busy_ms = now;
	if (n->have_syn && now - n->syn_eval_ms < SYN_EVAL_MS)
		return;		/* not an evaluation: counters need time */
	if (read_syn_counters(s, ev, &c) < 0)
		return;
	if (!n->have_syn) {
		/* first look: a baseline from the counters' start */
		memset(&n->syn, 0, sizeof(n->syn));
		n->have_syn = true;
	}
	tb_syn_delta(&c, &n->syn, &in.d);
	n->syn = c;
	n->syn_eval_ms = now;
	if (bpftune_tunable_get(t, TB_SYNCOOKIES, ev, &in.syncookies) != 1 ||
	    bpftune_tunable_get(t, TB_MAX_SYN_BACKLOG, ev, &in.max_syn) != 1)
		return;
	votes = n->flood_votes;
	syn_inputs(e, &in, votes, inputs);
	v = tb_syn_decide(&in, &n->flood_votes, &want);
	flood = tb_syn_is_flood(v);
	bpftune_decide_values(t, ev, flood ? TCP_BUFFER_SYN_FLOOD : TCP_BUFFER_SYN_QUEUE,
			      flood ? TB_SYNCOOKIES : TB_MAX_SYN_BACKLOG,
			      flood ? "syn-flood" : "grow-syn-backlog", inputs,
			      SYN_NUM_INPUTS, tb_syn_action(v));
	syn_apply(s, ev, e, n, &in, v, want);
}

/*
 * Syncookies we turned on go back to what they were once the flood is
 * over: no cookie sent, no new request stalled and no listener queue half
 * full for SYNCOOKIES_QUIET_MS.
 */
static void syncookies_check(struct tb_state *s, struct tb_netns *n, uint64_t now)
{
	struct bpftune_event ev;
	struct tb_syn_counters c;
	struct bpftune_value inputs[2];
	char reason[256];
	bool idle;

	bpftune_event_init(&ev, s->tuner, TCP_BUFFER_SYN_FLOOD_OVER, n->ns.cookie,
			   n->ns.pid);
	if (read_syn_counters(s, &ev, &c) < 0)
		return;
	idle = tb_syncookies_idle(&c, &n->syn, &n->busy_ms, now, SYNCOOKIES_QUIET_MS);
	n->syn = c;
	if (!idle)
		return;
	inputs[0] = BPFTUNE_VALUE_INT(now - n->busy_ms);
	inputs[1] = BPFTUNE_VALUE_INT(n->syncookies_saved);
	bpftune_decide_values(s->tuner, &ev, TCP_BUFFER_SYN_FLOOD_OVER, TB_SYNCOOKIES,
			      "syncookies-idle", inputs, 2, "restore");
	snprintf(reason, sizeof(reason),
		 "no syncookie sent, no half-open request stalled and no listener queue half full for %" PRIu64 " s: the flood is over, back to the previous setting",
		 (now - n->busy_ms) / 1000);
	tb_set1(s, &ev, TB_SYNCOOKIES, TCP_BUFFER_SYN_FLOOD_OVER,
		n->syncookies_saved, reason);
	n->syncookies_saved = -1;
}

void tb_syn_timer(struct tb_state *s)
{
	uint64_t now = bpftune_now_ms();
	struct tb_netns *n;

	bpftune_netns_table_for_each(s->tuner, n)
		if (n->syncookies_saved >= 0)
			syncookies_check(s, n, now);
}
