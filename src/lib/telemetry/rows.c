// SPDX-License-Identifier: GPL-2.0-only
/*
 * Writing the queued rows: one function per kind of row, each binding
 * the columns of its table by name (checked by bind.c), and a plugin's
 * per-event rows bound in their declared order.
 */
#include <errno.h>
#include <stdio.h>

#include "telemetry/tm.h"

static void values_text(const long *v, unsigned int n, char *buf, size_t len)
{
	size_t off = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < n && off < len; i++) {
		int w = snprintf(buf + off, len - off, "%s%ld", i ? " " : "", v[i]);

		off += w > 0 ? (size_t)w : 0;
	}
}

static void b_values(struct binder *b, bool old, bool have, const long *v,
		     unsigned int n)
{
	static const char *const names[2][BPFTUNE_MAX_VALUES] = {
		{ "old_0", "old_1", "old_2" }, { "new_0", "new_1", "new_2" },
	};
	const char *const *nm = names[old ? 0 : 1];
	unsigned int i;

	for (i = 0; i < BPFTUNE_MAX_VALUES; i++)
		b_int_or_null(b, nm[i], have && i < n, have && i < n ? v[i] : 0);
}

static void bind_tuner(struct binder *b, const struct row *r)
{
	b_int(b, "tuner_id", r->tuner_id);
	b_text(b, "tuner", r->tuner);
	b_text(b, "description", r->u.tuner.description);
	b_text(b, "file", r->u.tuner.file);
	b_int(b, "num_tunables", r->u.tuner.num_tunables);
	b_text(b, "scenarios", r->u.tuner.scenarios);
}

static void bind_tunable(struct binder *b, const struct row *r, char *vals, size_t len)
{
	const struct row_tunable *u = &r->u.tunable;
	bool ok = !u->read_err;

	values_text(u->initial, u->num_values, vals, len);
	b_int(b, "tuner_id", r->tuner_id);
	b_text(b, "tuner", r->tuner);
	b_int(b, "tunable_index", u->index);
	b_text(b, "tunable", u->tunable);
	b_int(b, "namespaced", u->namespaced);
	b_int(b, "num_values", u->num_values);
	b_int(b, "min", u->min);
	b_int(b, "max", u->max);
	b_text(b, "cap_reason", u->cap_reason);
	b_text(b, "initial_values", ok ? vals : NULL);
	b_int_or_null(b, "initial_0", ok && u->num_values > 0, u->initial[0]);
	b_int_or_null(b, "initial_1", ok && u->num_values > 1, u->initial[1]);
	b_int_or_null(b, "initial_2", ok && u->num_values > 2, u->initial[2]);
	b_int(b, "read_errno", u->read_err);
}

static void bind_state(struct binder *b, const struct row *r)
{
	b_int(b, "tuner_id", r->tuner_id);
	b_text(b, "tuner", r->tuner);
	b_int(b, "netns_cookie", r->u.state.cookie);
	b_text(b, "netns", r->u.state.netns);
	b_text(b, "state", r->u.state.state);
	b_text(b, "cause", r->u.state.cause);
}

static void bind_event(struct binder *b, const struct row *r, char *hex)
{
	const struct row_event *e = &r->u.event;
	unsigned int i;

	for (i = 0; i < e->payload_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", e->payload[i]);
	hex[2 * e->payload_len] = '\0';
	b_int(b, "tuner_id", r->tuner_id);
	b_text(b, "tuner", r->tuner);
	b_int(b, "scenario_id", e->scenario_id);
	b_text(b, "scenario", e->scenario);
	b_int(b, "netns_cookie", (int64_t)e->cookie);
	b_int(b, "pid", e->pid);
	b_text(b, "comm", e->comm);
	b_int(b, "payload_len", e->payload_len);
	b_text(b, "payload_hex", hex);
}

static void bind_decision(struct binder *b, const struct row *r)
{
	const struct row_decision *d = &r->u.decision;

	b_int_or_null(b, "event_seq", d->event_seq, d->event_seq);
	b_int(b, "tuner_id", r->tuner_id);
	b_text(b, "tuner", r->tuner);
	b_int(b, "scenario_id", d->scenario_id);
	b_text(b, "scenario", d->scenario);
	b_int_or_null(b, "netns_cookie", d->has_event, (int64_t)d->cookie);
	b_text(b, "policy", d->policy);
	b_text(b, "inputs", d->inputs);
	b_text(b, "action", d->action);
	b_int_or_null(b, "tunable_index", d->tunable_index >= 0, d->tunable_index);
	b_text(b, "tunable", d->tunable);
	if (d->epsilon >= 0)
		b_real(b, "epsilon", d->epsilon);
	else
		b_null(b, "epsilon");
	b_int_or_null(b, "explored", d->explored >= 0, d->explored);
}

static void bind_change(struct binder *b, const struct row *r, char vals[2][96])
{
	const struct row_change *c = &r->u.change;
	bool tuner = r->tuner_id != TM_NO_TUNER;

	values_text(c->old, c->n, vals[0], sizeof(vals[0]));
	values_text(c->new, c->n, vals[1], sizeof(vals[1]));
	b_int_or_null(b, "decision_seq", c->decision_seq, c->decision_seq);
	b_int_or_null(b, "event_seq", c->event_seq, c->event_seq);
	b_int_or_null(b, "tuner_id", tuner, r->tuner_id);
	b_text(b, "tuner", r->tuner);
	b_int_or_null(b, "scenario_id", c->scenario_id >= 0, c->scenario_id);
	b_text(b, "scenario", c->scenario);
	b_int_or_null(b, "tunable_index", tuner, c->tunable_index);
	b_text(b, "tunable", c->tunable);
	b_int(b, "netns_cookie", (int64_t)c->cookie);
	b_text(b, "netns", c->netns);
	b_int(b, "num_values", c->n);
	b_text(b, "old_values", c->has_old ? vals[0] : NULL);
	b_text(b, "new_values", vals[1]);
	b_values(b, true, c->has_old, c->old, c->n);
	b_values(b, false, true, c->new, c->n);
	b_text(b, "reason", c->reason);
	b_int(b, "errno", c->err);
	b_int(b, "applied", c->applied);
	b_int(b, "rollback", c->rollback);
}

static void bind_gate(struct binder *b, const struct row *r)
{
	const struct row_gate *g = &r->u.gate;

	b_int(b, "tuner_id", r->tuner_id);
	b_text(b, "tuner", r->tuner);
	b_text(b, "hook", g->hook);
	b_text(b, "gated_by", g->what);
	b_text(b, "kind", g->kind);
	b_text(b, "action", g->attached ? "attached" : "detached");
	b_text(b, "reason", g->reason);
	b_int_or_null(b, "reading", g->has_reading, (int64_t)g->reading);
	b_int(b, "attaches", (int64_t)g->attaches);
	b_int(b, "detaches", (int64_t)g->detaches);
	b_int(b, "attached_ms", (int64_t)g->attached_ms);
}

static void bind_plugin(struct binder *b, const struct row *r)
{
	const struct row_plugin *p = &r->u.plugin;
	unsigned int i;

	if (b->e->d->flags & BPFTUNE_TABLE_PER_NETNS)
		b_int(b, "netns_cookie", (int64_t)p->cookie);
	for (i = 0; i < p->n; i++) {
		struct bpftune_value v = { .type = p->type[i] };

		if (v.type == BPFTUNE_COL_TEXT)
			v.s = p->text + p->v[i].text_off;
		else if (v.type == BPFTUNE_COL_REAL)
			v.d = p->v[i].d;
		else
			v.i = p->v[i].i;
		b_value(b, &v);
	}
}

int tm_write_row(const struct row *r)
{
	char hex[2 * BPFTUNE_PAYLOAD_LEN + 1], vals[2][96];
	struct treg *e = &tm_tables[r->table];
	struct binder b;

	if (tm_table_create(e))
		return -EIO;
	b_begin(&b, e, r->seq, r->ts_us);
	switch (r->kind) {
	case ROW_TUNER:
		bind_tuner(&b, r);
		break;
	case ROW_TUNABLE:
		bind_tunable(&b, r, vals[0], sizeof(vals[0]));
		break;
	case ROW_STATE:
		bind_state(&b, r);
		break;
	case ROW_EVENT:
		bind_event(&b, r, hex);
		break;
	case ROW_DECISION:
		bind_decision(&b, r);
		break;
	case ROW_CHANGE:
		bind_change(&b, r, vals);
		break;
	case ROW_PLUGIN:
		bind_plugin(&b, r);
		break;
	case ROW_GATE:
		bind_gate(&b, r);
		break;
	}
	return b_done(&b);
}
