// SPDX-License-Identifier: GPL-2.0-only
/*
 * The producer: an observer on the daemon's thread that turns what the
 * tuners see and do into rows -- events, decisions (linked to their
 * event), changes (linked to their decision), rollbacks, state changes
 * -- and a started tuner into its tuners, tunables and states rows.  It
 * only copies into the queue; it also tells the sampler which network
 * namespaces it has seen a task of, and which are gone.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/observer.h"
#include "telemetry/tm.h"
#include "core/sysctl.h"

/* linking a decision to its event, and a change to its decision */
static struct {
	const struct bpftune_event *ev;
	uint64_t ts_ns, seq;
} cur_event;
static struct {
	uint64_t seq, event_seq;
} last_decision[BPFTUNE_MAX_TUNERS];
static uint64_t last_event_us;

static const char *scenario_name(const struct bpftune_tuner *t, unsigned int s)
{
	return s < t->ops->num_scenarios ? t->ops->scenarios[s].name : NULL;
}

static void on_event(const struct bpftune_tuner *t, const struct bpftune_event *ev)
{
	uint64_t ts = ev->ts_uptime_ns / 1000;
	struct row *r;
	uint32_t len;

	atomic_fetch_add_explicit(&tq_stats.events_seen, 1, memory_order_relaxed);
	if (!bpftune_netns_is_global(ev->netns_cookie))
		tm_netns_seen(ev->netns_cookie, ev->pid);
	/*
	 * Events reserved on different CPUs can reach us out of timestamp
	 * order by microseconds: keep the column non-decreasing in seq order.
	 */
	if (ts < last_event_us)
		ts = last_event_us;
	last_event_us = ts;
	r = tq_reserve(BPFTUNE_T_EVENTS, ROW_EVENT, t, ts ?: 1);
	/* the seq is stable here: only this thread produces events */
	cur_event.ev = ev;
	cur_event.ts_ns = ev->ts_uptime_ns;
	cur_event.seq = tq_last_seq(BPFTUNE_T_EVENTS);
	if (!r)
		return;
	len = ev->payload_len < BPFTUNE_PAYLOAD_LEN ? ev->payload_len : BPFTUNE_PAYLOAD_LEN;
	r->u.event.scenario_id = ev->scenario_id;
	tm_scopy(r->u.event.scenario, sizeof(r->u.event.scenario),
		 scenario_name(t, ev->scenario_id));
	r->u.event.cookie = bpftune_netns_is_global(ev->netns_cookie) ? 0 : ev->netns_cookie;
	r->u.event.pid = ev->pid;
	memcpy(r->u.event.comm, ev->comm, BPFTUNE_COMM_LEN);
	r->u.event.comm[BPFTUNE_COMM_LEN] = '\0';
	r->u.event.payload_len = len;
	memcpy(r->u.event.payload, ev->payload, len);
	tq_commit();
}

/* the typed inputs, after the decision (whose seq tq_last_seq() holds) */
static void decision_inputs(const struct bpftune_tuner *t, const struct bpftune_event *ev,
			    const struct bpftune_decision *d, uint64_t event_seq)
{
	int tunable = d->tunable >= 0 && (unsigned int)d->tunable < t->ops->num_tunables ?
		      d->tunable : -1;
	struct tm_decision_ctx ctx = {
		.decision_seq = tq_last_seq(BPFTUNE_T_DECISIONS),
		.event_seq = event_seq,
		.cookie = ev && !bpftune_netns_is_global(ev->netns_cookie) ? ev->netns_cookie : 0,
		.scenario = scenario_name(t, d->scenario) ?: "",
		.tunable = tunable >= 0 ? t->ops->tunables[tunable].name : "",
		.action = d->action ? d->action : "none",
	};

	if (d->values)
		tm_reg_policy_row(t, d, &ctx);
	tm_outcome_decision(t, d, ev, &ctx);
}

static void on_decision(const struct bpftune_tuner *t, const struct bpftune_event *ev,
			const struct bpftune_decision *d)
{
	struct row_decision *rd;
	uint64_t event_seq = 0;
	struct row *r;

	if (ev && ev == cur_event.ev && ev->ts_uptime_ns == cur_event.ts_ns)
		event_seq = cur_event.seq;
	r = tq_reserve(BPFTUNE_T_DECISIONS, ROW_DECISION, t, 0);
	if (t->id < BPFTUNE_MAX_TUNERS) {
		last_decision[t->id].seq = tq_last_seq(BPFTUNE_T_DECISIONS);
		last_decision[t->id].event_seq = event_seq;
	}
	if (!r) {
		decision_inputs(t, ev, d, event_seq);
		return;
	}
	rd = &r->u.decision;
	rd->event_seq = event_seq;
	rd->has_event = ev != NULL;
	rd->cookie = ev && !bpftune_netns_is_global(ev->netns_cookie) ? ev->netns_cookie : 0;
	rd->scenario_id = d->scenario;
	tm_scopy(rd->scenario, sizeof(rd->scenario), scenario_name(t, d->scenario));
	tm_scopy(rd->policy, sizeof(rd->policy), d->policy);
	tm_scopy(rd->inputs, sizeof(rd->inputs), d->inputs);
	tm_scopy(rd->action, sizeof(rd->action), d->action ? d->action : "none");
	rd->tunable_index = d->tunable >= 0 &&
			    (unsigned int)d->tunable < t->ops->num_tunables ? d->tunable : -1;
	tm_scopy(rd->tunable, sizeof(rd->tunable), rd->tunable_index >= 0 ?
		 t->ops->tunables[rd->tunable_index].name : NULL);
	rd->epsilon = d->epsilon;
	rd->explored = d->explored;
	tq_commit();
	decision_inputs(t, ev, d, event_seq);
}

static void fill_change(struct row *r, const struct bpftune_tuner *t,
			unsigned int tunable, uint64_t cookie, const long *old,
			const long *new, unsigned int n, const char *reason)
{
	struct row_change *c = &r->u.change;

	if (n > BPFTUNE_MAX_VALUES)
		n = BPFTUNE_MAX_VALUES;
	c->tunable_index = tunable;
	tm_scopy(c->tunable, sizeof(c->tunable), t && tunable < t->ops->num_tunables ?
		 t->ops->tunables[tunable].name : NULL);
	c->cookie = bpftune_netns_is_global(cookie) ? 0 : cookie;
	bpftune_netns_describe(cookie, c->netns, sizeof(c->netns));
	c->n = n;
	c->has_old = old != NULL;
	if (old)
		memcpy(c->old, old, n * sizeof(*old));
	memcpy(c->new, new, n * sizeof(*new));
	tm_scopy(c->reason, sizeof(c->reason), reason);
}

static void on_change(const struct bpftune_tuner *t, unsigned int tunable,
		      uint64_t cookie, unsigned int scenario, const long *old,
		      const long *new, unsigned int n, const char *reason, int err)
{
	struct row *r = tq_reserve(BPFTUNE_T_CHANGES, ROW_CHANGE, t, 0);
	struct row_change *c;

	if (!r)
		return;
	fill_change(r, t, tunable, cookie, old, new, n, reason);
	c = &r->u.change;
	c->decision_seq = c->event_seq = 0;
	if (t->id < BPFTUNE_MAX_TUNERS) {
		c->decision_seq = last_decision[t->id].seq;
		c->event_seq = last_decision[t->id].event_seq;
	}
	c->scenario_id = scenario;
	tm_scopy(c->scenario, sizeof(c->scenario), scenario_name(t, scenario));
	/* -ECANCELED with --observe: decided, deliberately not written */
	if (err == -ECANCELED && bpftune_observe_only()) {
		c->err = 0;
		c->applied = false;
	} else {
		c->err = err < 0 ? -err : err;
		c->applied = !err;
	}
	c->rollback = false;
	tq_commit();
}

/* the tuner and tunable index managing @sysctl, if a loaded tuner does */
static const struct bpftune_tuner *tuner_of(const char *sysctl, unsigned int *index)
{
	unsigned int id, i;

	for (id = 0; id < BPFTUNE_MAX_TUNERS; id++) {
		const struct bpftune_tuner *t = bpftune_tuner_get(id);

		for (i = 0; t && i < t->ops->num_tunables; i++)
			if (!strcmp(t->ops->tunables[i].name, sysctl)) {
				*index = i;
				return t;
			}
	}
	return NULL;
}

static void on_rollback(const char *sysctl, uint64_t cookie, const long *restored,
			unsigned int n, int err)
{
	unsigned int index = 0;
	const struct bpftune_tuner *t = tuner_of(sysctl, &index);
	struct row *r = tq_reserve(BPFTUNE_T_CHANGES, ROW_CHANGE, t, 0);
	struct row_change *c;

	if (!r)
		return;
	fill_change(r, t, index, cookie, NULL, restored, n,
		    "rollback: original value restored on exit");
	c = &r->u.change;
	tm_scopy(c->tunable, sizeof(c->tunable), sysctl);
	c->decision_seq = 0;
	c->event_seq = 0;
	c->scenario_id = -1;
	c->scenario[0] = '\0';
	c->err = err < 0 ? -err : err;
	c->applied = !err;
	c->rollback = true;
	tq_commit();
}

static const char *state_name(enum bpftune_state s)
{
	switch (s) {
	case BPFTUNE_STATE_ACTIVE:
		return "ACTIVE";
	case BPFTUNE_STATE_MANUAL:
		return "MANUAL";
	case BPFTUNE_STATE_GONE:
		return "GONE";
	}
	return "?";
}

static void on_state(const struct bpftune_tuner *t, uint64_t cookie,
		     enum bpftune_state state, const char *cause)
{
	struct row *r;

	if (state == BPFTUNE_STATE_GONE && !bpftune_netns_is_global(cookie))
		tm_netns_gone(cookie);
	r = tq_reserve(BPFTUNE_T_STATES, ROW_STATE, t, 0);
	if (!r)
		return;
	r->u.state.cookie = bpftune_netns_is_global(cookie) ? 0 : cookie;
	if (r->u.state.cookie)
		bpftune_netns_describe(cookie, r->u.state.netns, sizeof(r->u.state.netns));
	else
		tm_scopy(r->u.state.netns, sizeof(r->u.state.netns), "every netns");
	tm_scopy(r->u.state.state, sizeof(r->u.state.state), state_name(state));
	tm_scopy(r->u.state.cause, sizeof(r->u.state.cause), cause);
	tq_commit();
}

static void on_gate(const struct bpftune_tuner *t, const struct bpftune_gate_change *c)
{
	struct row *r = tq_reserve(BPFTUNE_T_GATES, ROW_GATE, t, 0);
	struct row_gate *g;

	if (!r)
		return;
	g = &r->u.gate;
	tm_scopy(g->hook, sizeof(g->hook), c->hook);
	tm_scopy(g->what, sizeof(g->what), c->what);
	tm_scopy(g->kind, sizeof(g->kind), c->kind);
	tm_scopy(g->reason, sizeof(g->reason), c->reason);
	g->attached = c->attached;
	g->has_reading = c->has_reading;
	g->reading = c->reading;
	g->attaches = c->attaches;
	g->detaches = c->detaches;
	g->attached_ms = c->attached_ms;
	tq_commit();
}

static struct bpftune_observer observer = {
	.event = on_event,
	.gate = on_gate,
	.change = on_change,
	.decision = on_decision,
	.state = on_state,
	.rollback = on_rollback,
};

void tm_observe_start(void)
{
	bpftune_observer_add(&observer);
}

void tm_observe_stop(void)
{
	bpftune_observer_remove(&observer);
	tm_outcome_stop();
}

/* the refusal says it comes from telemetry */
static int plugin_check(const struct bpftune_tuner *t, char *why, size_t len)
{
	char own[512] = "";
	int err = bpftune_telemetry_tuner_check(t, own, sizeof(own));

	if (err)
		snprintf(why, len, "telemetry: %s", own);
	return err;
}

/* for the whole run, telemetry on or off: declarations are always checked */
static struct bpftune_observer plugins = {
	.tuner_check = plugin_check,
	.tuner_added = bpftune_telemetry_tuner_added,
	.tuner_removed = bpftune_telemetry_tuner_removed,
};

void bpftune_telemetry_watch_plugins(void)
{
	static bool watching;

	if (!watching)
		bpftune_observer_add(&plugins);
	watching = true;
}

static void tuner_row(const struct bpftune_tuner *t)
{
	const struct bpftune_tuner_ops *ops = t->ops;
	struct row *r = tq_reserve(BPFTUNE_T_TUNERS, ROW_TUNER, t, 0);
	unsigned int i;
	size_t off = 0;

	if (!r)
		return;
	tm_scopy(r->u.tuner.description, TM_TEXT_LEN, ops->description);
	tm_scopy(r->u.tuner.file, TM_TEXT_LEN, t->file);
	r->u.tuner.num_tunables = ops->num_tunables;
	r->u.tuner.scenarios[0] = '\0';
	for (i = 0; i < ops->num_scenarios && off < TM_TEXT_LEN; i++) {
		int n = snprintf(r->u.tuner.scenarios + off, TM_TEXT_LEN - off,
				 "%s%u=%s", i ? "; " : "", i, ops->scenarios[i].name);

		off += n > 0 ? (size_t)n : 0;
	}
	tq_commit();
}

static void tunable_row(const struct bpftune_tuner *t, unsigned int i)
{
	const struct bpftune_tunable_desc *d = &t->ops->tunables[i];
	struct row *r = tq_reserve(BPFTUNE_T_TUNABLES, ROW_TUNABLE, t, 0);
	struct row_tunable *u;
	int err;

	if (!r)
		return;
	u = &r->u.tunable;
	u->index = i;
	tm_scopy(u->tunable, sizeof(u->tunable), d->name);
	tm_scopy(u->cap_reason, sizeof(u->cap_reason), d->cap_reason);
	u->namespaced = d->flags & BPFTUNE_TUNABLE_NAMESPACED;
	u->num_values = d->num_values > BPFTUNE_MAX_VALUES ?
			BPFTUNE_MAX_VALUES : d->num_values;
	u->min = d->min;
	u->max = d->max;
	if (d->flags & BPFTUNE_TUNABLE_STRING)
		err = -EINVAL;
	else
		err = bpftune_sysctl_read(-1, d->name, u->initial, u->num_values);
	u->read_err = err < 0 ? -err : (err != (int)u->num_values ? EINVAL : 0);
	tq_commit();
}

void bpftune_telemetry_tuner_added(const struct bpftune_tuner *t)
{
	unsigned int i;

	if (!tm.on)
		return;
	tm_reg_activate(t);
	if (!tm.started)
		return;
	tuner_row(t);
	for (i = 0; i < t->ops->num_tunables; i++)
		tunable_row(t, i);
	on_state(t, 0, t->state, "started");
}
