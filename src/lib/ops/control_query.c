// SPDX-License-Identifier: GPL-2.0-only
/*
 * The answers to control socket queries, as text for people and as JSON
 * for programs.  "status" reads every value now, in every netns where we
 * changed it, rather than trusting what we last wrote: an admin may have
 * changed it behind our back.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/control.h"
#include "core/operate.h"
#include "ops/metrics.h"
#include "ops/config_daemon.h"
#include "core/sysctl.h"

#define VALUES_LEN	96

static const char *state_name(enum bpftune_state s)
{
	switch (s) {
	case BPFTUNE_STATE_ACTIVE:
		return "active";
	case BPFTUNE_STATE_MANUAL:
		return "manual";
	case BPFTUNE_STATE_GONE:
		return "gone";
	}
	return "?";
}

/* What we did to one tunable in one netns, from the tuner's change records. */
struct ns_view {
	uint64_t cookie;
	const struct bpftune_change *orig;	/* holds the original value */
	const struct bpftune_change *last;	/* holds the value we set last */
	unsigned int count;
};

/* Every netns where tunable @i was changed; caller frees. */
static struct ns_view *collect(const struct bpftune_tuner *t, unsigned int i,
			       unsigned int *num)
{
	const struct bpftune_change *c;
	struct ns_view *v = NULL, *nv;
	unsigned int n = 0, k;

	for (c = t->changes[i]; c; c = c->next) {
		for (k = 0; k < n; k++)
			if (v[k].cookie == c->netns_cookie)
				break;
		if (k == n) {
			nv = realloc(v, (n + 1) * sizeof(*v));
			if (!nv)
				break;
			v = nv;
			memset(&v[n], 0, sizeof(v[n]));
			v[n++].cookie = c->netns_cookie;
		}
		if (!v[k].orig || c->first_seq < v[k].orig->first_seq)
			v[k].orig = c;
		if (!v[k].last || c->last_seq > v[k].last->last_seq)
			v[k].last = c;
		v[k].count += c->count;
	}
	*num = n;
	return v;
}

/* The netns of @cookie by name for JSON ("global", "blue" or ""). */
static void netns_label(uint64_t cookie, struct bpftune_netns_id *id,
			bool *gone)
{
	*gone = bpftune_netns_identify(cookie, id) != 0;
	if (*gone) {
		memset(id, 0, sizeof(*id));
		id->global = bpftune_netns_is_global(cookie);
		id->cookie = cookie;
	}
}

#define for_each_tuner(t, id) \
	for ((id) = 0; (id) < BPFTUNE_MAX_TUNERS; (id)++) \
		if (((t) = bpftune_tuner_get(id)))

/*
 * Events refused per scenario (a payload shorter than the scenario
 * declares, or an unknown scenario): a text line per scenario that had
 * any, or a JSON array.
 */
static void rejected(struct bpftune_buf *o, bool json,
		     const struct bpftune_tuner *t)
{
	unsigned int s, n = 0;

	if (json)
		bpftune_buf_add(o, ",\"events_rejected\":[", 20);
	for (s = 0; s <= t->ops->num_scenarios; s++) {
		uint64_t count = bpftune_tuner_rejected(t, s);
		const char *name = s < t->ops->num_scenarios ?
				   t->ops->scenarios[s].name : "(unknown scenario)";

		if (!count)
			continue;
		if (!json) {
			bpftune_buf_printf(o, "  events refused for '%s': %llu (payload shorter than declared, or no such scenario)\n",
					   name, (unsigned long long)count);
			continue;
		}
		bpftune_buf_printf(o, "%s{\"scenario\":", n++ ? "," : "");
		bpftune_buf_json_str(o, name);
		bpftune_buf_printf(o, ",\"count\":%llu}", (unsigned long long)count);
	}
	if (json)
		bpftune_buf_add(o, "]", 1);
}

/* ---- help ----------------------------------------------------------------- */

static int q_help(bool json, struct bpftune_buf *o)
{
	unsigned int q;

	if (json) {
		bpftune_buf_add(o, "{\"queries\":[", 12);
		for (q = 0; q < BPFTUNE_Q_MAX; q++) {
			bpftune_buf_printf(o, "%s{\"name\":", q ? "," : "");
			bpftune_buf_json_str(o, bpftune_query_name(q));
			bpftune_buf_add(o, ",\"description\":", 15);
			bpftune_buf_json_str(o, bpftune_query_help(q));
			bpftune_buf_printf(o, ",\"json\":%s}",
					   bpftune_query_has_json(q) ? "true" : "false");
		}
		bpftune_buf_add(o, "]}\n", 3);
		return 0;
	}
	bpftune_buf_printf(o, "queries (bpftune -q QUERY [--json]; JSON also as jQUERY):\n");
	for (q = 0; q < BPFTUNE_Q_MAX; q++)
		bpftune_buf_printf(o, "  %-10s %s%s\n", bpftune_query_name(q),
				   bpftune_query_help(q),
				   bpftune_query_has_json(q) ? "" : " (no JSON form)");
	return 0;
}

/* ---- tuners --------------------------------------------------------------- */

static long bpf_rate(const struct bpftune_tuner *t)
{
	struct bpftune_bpf_config c;

	if (bpftune_tuner_read_config(t, &c, NULL))
		return -1;
	return c.learning_rate;
}

static double attached_pct(const struct bpftune_gate_info *g)
{
	return g->total_ms ? 100.0 * (double)g->attached_ms / (double)g->total_ms :
	       (g->attached ? 100.0 : 0.0);
}

/* the pressure gates of @t's hot hooks (gate.h), in JSON */
static void gates_json(struct bpftune_buf *o, const struct bpftune_tuner *t)
{
	struct bpftune_gate_info g;
	unsigned int i;

	bpftune_buf_add(o, ",\"gates\":[", 10);
	for (i = 0; !bpftune_gate_info(t, i, &g); i++) {
		bpftune_buf_printf(o, "%s{\"hook\":", i ? "," : "");
		bpftune_buf_json_str(o, g.hook);
		bpftune_buf_add(o, ",\"gated_by\":", 12);
		bpftune_buf_json_str(o, g.what);
		bpftune_buf_printf(o, ",\"kind\":\"%s\",\"attached\":%s,\"attaches\":%llu,\"detaches\":%llu,\"attached_ms\":%llu,\"total_ms\":%llu,\"attached_percent\":%.3f,\"last_reason\":",
				   g.kind, g.attached ? "true" : "false",
				   (unsigned long long)g.attaches,
				   (unsigned long long)g.detaches,
				   (unsigned long long)g.attached_ms,
				   (unsigned long long)g.total_ms, attached_pct(&g));
		bpftune_buf_json_str(o, g.why);
		bpftune_buf_printf(o, ",\"mode\":\"%s\",\"attach_detach_us\":%llu,\"cost_samples\":%u",
				   g.pinned ? "pinned" : "detach",
				   (unsigned long long)g.cycle_us, g.cost_samples);
		if (g.every_ms)
			bpftune_buf_printf(o, ",\"every_ms\":%u,\"cost_percent\":%.3f",
					   g.every_ms, (double)g.cost_ppm / 10000.0);
		bpftune_buf_add(o, ",\"wake\":", 8);
		bpftune_buf_json_str(o, g.wake);
		bpftune_buf_printf(o, ",\"asleep\":%s,\"sleeps\":%llu,\"asleep_ms\":%llu,\"sleep_after_ms\":%llu",
				   g.nap.asleep ? "true" : "false", (unsigned long long)g.nap.sleeps,
				   (unsigned long long)g.nap.asleep_ms,
				   (unsigned long long)g.nap.sleep_after_ms);
		bpftune_buf_add(o, "}", 1);
	}
	bpftune_buf_add(o, "]", 1);
}

/* the gates asleep, or how long calm before they may sleep */
static void gate_sleep_text(struct bpftune_buf *o, const struct bpftune_gate_info *g)
{
	const struct bpftune_gate_nap_info *n = &g->nap;

	if (n->asleep)
		bpftune_buf_printf(o, "; asleep now, woken on %s", g->wake);
	else
		bpftune_buf_printf(o, "; may sleep after %.0f s calm, woken on %s",
				   n->sleep_after_ms / 1000.0, g->wake);
	bpftune_buf_printf(o, ", %.1f %% of the time (%llu %s)",
			   g->total_ms ? 100.0 * n->asleep_ms / g->total_ms : 0.0,
			   (unsigned long long)n->sleeps, n->sleeps == 1 ? "sleep" : "sleeps");
}

static void gates_text(struct bpftune_buf *o, const struct bpftune_tuner *t)
{
	struct bpftune_gate_info g;
	unsigned int i;

	for (i = 0; !bpftune_gate_info(t, i, &g); i++) {
		bpftune_buf_printf(o, "  hook %s: gated by %s (%s gate), %s %.1f %% of the time, now %s (%llu %s; last: %s)",
				   g.hook, g.what, g.kind, g.pinned ? "open" : "attached",
				   attached_pct(&g),
				   g.pinned ? (g.attached ? "open" : "closed") :
				   (g.attached ? "attached" : "detached"),
				   (unsigned long long)g.attaches,
				   g.pinned ? (g.attaches == 1 ? "opening" : "openings") :
				   (g.attaches == 1 ? "attach" : "attaches"), g.why);
		if (g.cost_samples)
			bpftune_buf_printf(o, "; attach + detach %.2f ms of CPU", g.cycle_us / 1000.0);
		if (g.pinned && g.every_ms)
			bpftune_buf_printf(o, ": link kept, gated in the program, a window every %u ms",
					   g.every_ms);
		else if (g.pinned)
			bpftune_buf_printf(o, ": link kept, gated in the program");
		else if (g.every_ms)
			bpftune_buf_printf(o, ", a window every %u ms: %.3f %% of a CPU",
					   g.every_ms, (double)g.cost_ppm / 10000.0);
		if (g.wake)
			gate_sleep_text(o, &g);
		bpftune_buf_add(o, "\n", 1);
	}
}

/* the netns states and strategies of @t, in JSON */
static void tuner_json_lists(struct bpftune_buf *o, const struct bpftune_tuner *t)
{
	const struct bpftune_netns_state *ns;
	uint64_t activations;
	unsigned int i;
	bool active;

	bpftune_buf_add(o, ",\"netns\":[", 10);
	for (ns = t->netns, i = 0; ns; ns = ns->next, i++) {
		struct bpftune_netns_id nid;
		bool gone;

		netns_label(ns->cookie, &nid, &gone);
		bpftune_buf_printf(o, "%s{\"netns\":", i ? "," : "");
		bpftune_buf_json_str(o, nid.name);
		bpftune_buf_printf(o, ",\"cookie\":%llu,\"state\":\"%s\"}",
				   (unsigned long long)ns->cookie,
				   gone && ns->state == BPFTUNE_STATE_ACTIVE ?
				   "gone" : state_name(ns->state));
	}
	bpftune_buf_add(o, "],\"strategies\":[", 16);
	for (i = 0; i < bpftune_strategy_count(t); i++) {
		const char *s = bpftune_strategy_name(t, i, &active, &activations);

		bpftune_buf_printf(o, "%s{\"name\":", i ? "," : "");
		bpftune_buf_json_str(o, s);
		bpftune_buf_printf(o, ",\"active\":%s,\"activations\":%llu}",
				   active ? "true" : "false",
				   (unsigned long long)activations);
	}
	bpftune_buf_printf(o, "],\"strategy_switches\":%llu",
			   (unsigned long long)bpftune_strategy_switches(t));
	gates_json(o, t);
	bpftune_buf_add(o, "}", 1);
}

static void tuner_json(struct bpftune_buf *o, const struct bpftune_tuner *t,
		       const char *mode, bool first)
{
	unsigned int hooks = t->num_links + bpftune_strategy_links(t) +
			     bpftune_gate_links(t);

	bpftune_buf_printf(o, "%s{\"name\":", first ? "" : ",");
	bpftune_buf_json_str(o, t->ops->name);
	bpftune_buf_add(o, ",\"description\":", 15);
	bpftune_buf_json_str(o, t->ops->description);
	bpftune_buf_add(o, ",\"kind\":", 8);
	bpftune_buf_json_str(o, bpftune_kind_name(t->ops->kind));
	bpftune_buf_add(o, ",\"file\":", 8);
	bpftune_buf_json_str(o, t->file);
	rejected(o, true, t);
	bpftune_buf_printf(o, ",\"id\":%u,\"state\":\"%s\",\"mode\":\"%s\",\"hooks\":%u,\"events\":%llu,\"events_ignored\":%llu,\"learning_rate\":%u,\"bpf_learning_rate\":%ld",
			   t->id, state_name(t->state), mode, hooks,
			   (unsigned long long)t->events,
			   (unsigned long long)t->events_ignored,
			   bpftune_learning_rate(), bpf_rate(t));
	tuner_json_lists(o, t);
}

static void tuner_text(struct bpftune_buf *o, const struct bpftune_tuner *t,
		       const char *mode)
{
	unsigned int hooks = t->num_links + bpftune_strategy_links(t) +
			     bpftune_gate_links(t);
	unsigned int rate = bpftune_learning_rate(), i;
	const struct bpftune_netns_state *ns;
	long brate = bpf_rate(t);
	uint64_t activations;
	char where[160];
	bool active;

	bpftune_buf_printf(o, "%s: %s, %s objects, %u hook%s, %llu events (%llu ignored), %s%s\n",
			   t->ops->name, state_name(t->state), mode, hooks,
			   hooks == 1 ? "" : "s", (unsigned long long)t->events,
			   (unsigned long long)t->events_ignored,
			   t->handle ? "file " : "core mechanism, always on",
			   t->handle ? t->file : "");
	bpftune_buf_printf(o, "  %s: %s\n", bpftune_kind_name(t->ops->kind),
			   t->ops->description ? t->ops->description : "");
	rejected(o, false, t);
	bpftune_buf_printf(o, "  learning rate: %u here, %ld in its BPF programs%s\n",
			   rate, brate, brate == (long)rate ? "" : " (MISMATCH)");
	for (ns = t->netns; ns; ns = ns->next)
		bpftune_buf_printf(o, "  %s: %s\n",
				   bpftune_netns_describe(ns->cookie, where, sizeof(where)),
				   state_name(ns->state));
	for (i = 0; i < bpftune_strategy_count(t); i++) {
		const char *s = bpftune_strategy_name(t, i, &active, &activations);

		bpftune_buf_printf(o, "  strategy %s: %s, active %llu time%s\n", s,
				   active ? "active" : "inactive",
				   (unsigned long long)activations,
				   activations == 1 ? "" : "s");
	}
	gates_text(o, t);
}

static int q_tuners(bool json, const struct bpftune_daemon_info *info,
		    struct bpftune_buf *o)
{
	unsigned int rate = bpftune_learning_rate(), id, n = 0;
	const char *mode = info->legacy ? "legacy" : "full";
	struct bpftune_tuner *t;

	if (json)
		bpftune_buf_printf(o, "{\"learning_rate\":%u,\"delta_percent\":%.4f,\"mode\":\"%s\",\"tuners\":[",
				   rate, 100.0 / (1 << (6 - rate)), mode);
	else
		bpftune_buf_printf(o, "learning rate %u: delta %.4g%% of the value (%s BPF objects)\n",
				   rate, 100.0 / (1 << (6 - rate)), mode);
	for_each_tuner(t, id) {
		if (json)
			tuner_json(o, t, mode, !n++);
		else
			tuner_text(o, t, mode);
	}
	bpftune_buf_add(o, json ? "]}\n" : "", json ? 3 : 0);
	return 0;
}

/* ---- tunables ------------------------------------------------------------- */

static int q_tunables(bool json, struct bpftune_buf *o)
{
	struct bpftune_tuner *t;
	unsigned int id, i, n = 0;

	if (json)
		bpftune_buf_add(o, "{\"tunables\":[", 13);
	for_each_tuner(t, id) {
		for (i = 0; i < t->ops->num_tunables; i++) {
			const struct bpftune_tunable_desc *d = &t->ops->tunables[i];
			bool ns = d->flags & BPFTUNE_TUNABLE_NAMESPACED;
			bool str = d->flags & BPFTUNE_TUNABLE_STRING;

			if (!json) {
				bpftune_buf_printf(o, "%s %s: %s, %u value%s, %s; cap %ld..%ld: %s\n",
						   t->ops->name, d->name, str ? "string" : "integer",
						   d->num_values, d->num_values == 1 ? "" : "s",
						   ns ? "per netns" : "global",
						   d->min, d->max,
						   d->cap_reason ? d->cap_reason : "(no reason given)");
				continue;
			}
			bpftune_buf_printf(o, "%s{\"tuner\":", n++ ? "," : "");
			bpftune_buf_json_str(o, t->ops->name);
			bpftune_buf_add(o, ",\"sysctl\":", 10);
			bpftune_buf_json_str(o, d->name);
			bpftune_buf_printf(o, ",\"type\":\"%s\",\"values\":%u,\"namespaced\":%s,\"min\":%ld,\"max\":%ld,\"cap_reason\":",
					   str ? "string" : "integer", d->num_values,
					   ns ? "true" : "false", d->min, d->max);
			bpftune_buf_json_str(o, d->cap_reason);
			bpftune_buf_add(o, "}", 1);
		}
	}
	if (json)
		bpftune_buf_add(o, "]}\n", 3);
	return 0;
}

/* ---- status ---------------------------------------------------------------- */

struct live {
	int err;
	unsigned int n;
	long v[BPFTUNE_MAX_VALUES];
	char str[VALUES_LEN];
};

/* Read the value now, in the netns of @cookie. */
static void read_live(const struct bpftune_tunable_desc *d, uint64_t cookie,
		      struct live *l)
{
	int fd = bpftune_netns_is_global(cookie) ? -1 :
		 bpftune_netns_fd_for_cookie(cookie);

	memset(l, 0, sizeof(*l));
	if (fd < -1) {
		l->err = fd;
		return;
	}
	if (d->flags & BPFTUNE_TUNABLE_STRING) {
		l->err = bpftune_sysctl_read_string(fd, d->name, l->str, sizeof(l->str));
		l->err = l->err < 0 ? l->err : 0;
		return;
	}
	l->err = bpftune_sysctl_read(fd, d->name, l->v, d->num_values);
	if (l->err >= 0) {
		l->n = l->err;
		l->err = 0;
		bpftune_values_text(l->v, l->n, " ", l->str, sizeof(l->str));
	}
}

static void status_one(struct bpftune_buf *o, bool json, bool first,
		       const struct bpftune_tuner *t,
		       const struct bpftune_tunable_desc *d, uint64_t cookie,
		       const struct ns_view *v)
{
	enum bpftune_state st = bpftune_tuner_netns_state(t, cookie);
	char where[160], orig[VALUES_LEN], set[VALUES_LEN];
	struct bpftune_netns_id nid;
	struct live l;
	bool gone;

	read_live(d, cookie, &l);
	if (v) {
		bpftune_values_text(v->orig->old_values, v->orig->num_values, " ", orig, sizeof(orig));
		bpftune_values_text(v->last->new_values, v->last->num_values, " ", set, sizeof(set));
	}
	if (!json) {
		bpftune_buf_printf(o, "    %s: ",
				   bpftune_netns_describe(cookie, where, sizeof(where)));
		if (l.err)
			bpftune_buf_printf(o, "cannot read: %s", l.err == -ESRCH ?
					   "netns gone" : strerror(-l.err));
		else
			bpftune_buf_printf(o, "%s", l.str);
		if (v)
			bpftune_buf_printf(o, " (bpftune set %s, was %s; %u change%s%s)",
					   set, orig, v->count, v->count == 1 ? "" : "s",
					   !l.err && strcmp(set, l.str) ? "; changed since" : "");
		if (st != BPFTUNE_STATE_ACTIVE)
			bpftune_buf_printf(o, " [tuner %s here]", state_name(st));
		bpftune_buf_add(o, "\n", 1);
		return;
	}
	netns_label(cookie, &nid, &gone);
	bpftune_buf_printf(o, "%s{\"netns\":", first ? "" : ",");
	bpftune_buf_json_str(o, nid.global ? "global" : nid.name);
	bpftune_buf_printf(o, ",\"cookie\":%llu,\"tuner_state\":\"%s\",\"value\":",
			   (unsigned long long)(nid.global ? bpftune_global_netns_cookie() : cookie),
			   state_name(st));
	if (l.err)
		bpftune_buf_add(o, "null", 4);
	else if (d->flags & BPFTUNE_TUNABLE_STRING)
		bpftune_buf_json_str(o, l.str);
	else
		bpftune_buf_json_values(o, l.v, l.n);
	if (l.err) {
		bpftune_buf_add(o, ",\"error\":", 9);
		bpftune_buf_json_str(o, l.err == -ESRCH ? "netns gone" : strerror(-l.err));
	}
	if (v) {
		bpftune_buf_add(o, ",\"original\":", 12);
		bpftune_buf_json_values(o, v->orig->old_values, v->orig->num_values);
		bpftune_buf_add(o, ",\"set\":", 7);
		bpftune_buf_json_values(o, v->last->new_values, v->last->num_values);
		bpftune_buf_printf(o, ",\"changes\":%u,\"changed_since\":%s", v->count,
				   !l.err && strcmp(set, l.str) ? "true" : "false");
	}
	bpftune_buf_add(o, "}", 1);
}

static int q_status(bool json, struct bpftune_buf *o)
{
	struct bpftune_tuner *t;
	unsigned int id, i, k, n = 0, nv;
	unsigned int rate = bpftune_learning_rate();

	if (json)
		bpftune_buf_printf(o, "{\"learning_rate\":%u,\"delta_percent\":%.4f,\"tuners\":[",
				   rate, 100.0 / (1 << (6 - rate)));
	else
		bpftune_buf_printf(o, "learning rate %u (delta %.4g%%); values read now\n",
				   rate, 100.0 / (1 << (6 - rate)));
	for_each_tuner(t, id) {
		if (json) {
			bpftune_buf_printf(o, "%s{\"name\":", n++ ? "," : "");
			bpftune_buf_json_str(o, t->ops->name);
			bpftune_buf_add(o, ",\"kind\":", 8);
			bpftune_buf_json_str(o, bpftune_kind_name(t->ops->kind));
			rejected(o, true, t);
			bpftune_buf_printf(o, ",\"state\":\"%s\"", state_name(t->state));
			gates_json(o, t);
			bpftune_buf_add(o, ",\"tunables\":[", 13);
		} else {
			bpftune_buf_printf(o, "%s %s (%s)\n",
					   bpftune_kind_name(t->ops->kind),
					   t->ops->name, state_name(t->state));
			rejected(o, false, t);
			gates_text(o, t);
		}
		for (i = 0; i < t->ops->num_tunables; i++) {
			const struct bpftune_tunable_desc *d = &t->ops->tunables[i];
			struct ns_view *v = collect(t, i, &nv);
			const struct ns_view *gv = NULL;

			for (k = 0; k < nv; k++)
				if (bpftune_netns_is_global(v[k].cookie))
					gv = &v[k];
			if (json) {
				bpftune_buf_printf(o, "%s{\"sysctl\":", i ? "," : "");
				bpftune_buf_json_str(o, d->name);
				bpftune_buf_printf(o, ",\"namespaced\":%s",
						   d->flags & BPFTUNE_TUNABLE_NAMESPACED ?
						   "true" : "false");
				bpftune_config_status_line(o, d->name, true);
				bpftune_buf_add(o, ",\"netns\":[", 10);
			} else {
				bpftune_buf_printf(o, "  %s\n", d->name);
				bpftune_config_status_line(o, d->name, false);
			}
			/* the global value always, then each netns we changed */
			status_one(o, json, true, t, d, 0, gv);
			for (k = 0; k < nv; k++)
				if (!bpftune_netns_is_global(v[k].cookie))
					status_one(o, json, false, t, d, v[k].cookie, &v[k]);
			if (json)
				bpftune_buf_add(o, "]}", 2);
			free(v);
		}
		if (json)
			bpftune_buf_add(o, "]}", 2);
	}
	if (json)
		bpftune_buf_add(o, "]}\n", 3);
	return 0;
}

/* ---- summary --------------------------------------------------------------- */

static int q_summary(bool json, struct bpftune_buf *o)
{
	struct bpftune_tuner *t;
	unsigned int id, i, n = 0, total = 0;

	if (json)
		bpftune_buf_add(o, "{\"changes\":[", 12);
	for_each_tuner(t, id) {
		for (i = 0; i < t->ops->num_tunables; i++) {
			const struct bpftune_tunable_desc *d = &t->ops->tunables[i];
			const struct bpftune_change *c;

			for (c = t->changes[i]; c; c = c->next) {
				char sold[VALUES_LEN], snew[VALUES_LEN], where[160];
				struct bpftune_netns_id nid;
				bool gone;

				total++;
				bpftune_values_text(c->old_values, c->num_values, " ", sold, sizeof(sold));
				bpftune_values_text(c->new_values, c->num_values, " ", snew, sizeof(snew));
				if (!json) {
					bpftune_buf_printf(o, "tuner %s, scenario '%s': %s changed %u time%s in %s: %s -> %s\n",
							   t->ops->name, t->ops->scenarios[c->scenario].name,
							   d->name, c->count, c->count == 1 ? "" : "s",
							   bpftune_netns_describe(c->netns_cookie, where, sizeof(where)),
							   sold, snew);
					continue;
				}
				netns_label(c->netns_cookie, &nid, &gone);
				bpftune_buf_printf(o, "%s{\"tuner\":", n++ ? "," : "");
				bpftune_buf_json_str(o, t->ops->name);
				bpftune_buf_add(o, ",\"scenario\":", 12);
				bpftune_buf_json_str(o, t->ops->scenarios[c->scenario].name);
				bpftune_buf_add(o, ",\"sysctl\":", 10);
				bpftune_buf_json_str(o, d->name);
				bpftune_buf_add(o, ",\"netns\":", 9);
				bpftune_buf_json_str(o, nid.global ? "global" : nid.name);
				bpftune_buf_printf(o, ",\"cookie\":%llu,\"count\":%u,\"old\":",
						   (unsigned long long)(nid.global ?
						   bpftune_global_netns_cookie() : c->netns_cookie),
						   c->count);
				bpftune_buf_json_values(o, c->old_values, c->num_values);
				bpftune_buf_add(o, ",\"new\":", 7);
				bpftune_buf_json_values(o, c->new_values, c->num_values);
				bpftune_buf_add(o, "}", 1);
			}
		}
	}
	if (json) {
		bpftune_buf_add(o, "],\"tuners\":[", 12);
		n = 0;
		for_each_tuner(t, id) {
			bpftune_buf_printf(o, "%s{\"name\":", n++ ? "," : "");
			bpftune_buf_json_str(o, t->ops->name);
			bpftune_buf_printf(o, ",\"events\":%llu,\"events_ignored\":%llu}",
					   (unsigned long long)t->events,
					   (unsigned long long)t->events_ignored);
		}
		bpftune_buf_add(o, "]}\n", 3);
		return 0;
	}
	if (!total)
		bpftune_buf_printf(o, "no sysctl was changed\n");
	for_each_tuner(t, id)
		bpftune_buf_printf(o, "tuner %s: %llu events, %llu ignored\n", t->ops->name,
				   (unsigned long long)t->events,
				   (unsigned long long)t->events_ignored);
	return 0;
}

/* ---- rollback -------------------------------------------------------------- */

static int q_rollback(bool json, struct bpftune_buf *o)
{
	struct bpftune_tuner *t;
	unsigned int id, i, k, n = 0, nv;

	if (json)
		bpftune_buf_add(o, "{\"rollback\":[", 13);
	for_each_tuner(t, id) {
		for (i = 0; i < t->ops->num_tunables; i++) {
			const struct bpftune_tunable_desc *d = &t->ops->tunables[i];
			struct ns_view *v = collect(t, i, &nv);

			for (k = 0; k < nv; k++) {
				enum bpftune_state st = bpftune_tuner_netns_state(t, v[k].cookie);
				char vals[VALUES_LEN], pfx[320], cmd[512], where[160];
				struct bpftune_netns_id nid;
				const char *note = NULL;
				bool gone;

				bpftune_values_text(v[k].orig->old_values, v[k].orig->num_values,
						    " ", vals, sizeof(vals));
				netns_label(v[k].cookie, &nid, &gone);
				bpftune_netns_exec_prefix(v[k].cookie, pfx, sizeof(pfx));
				snprintf(cmd, sizeof(cmd), "%ssysctl -w %s=\"%s\"", pfx,
					 d->name, vals);
				if (gone)
					note = "netns gone";
				else if (!nid.global && !nid.name[0])
					note = "netns has no name: run the command inside it";
				else if (st == BPFTUNE_STATE_MANUAL)
					note = "the admin has set it since: -R leaves it";
				if (json) {
					bpftune_buf_printf(o, "%s{\"tuner\":", n++ ? "," : "");
					bpftune_buf_json_str(o, t->ops->name);
					bpftune_buf_add(o, ",\"sysctl\":", 10);
					bpftune_buf_json_str(o, d->name);
					bpftune_buf_add(o, ",\"netns\":", 9);
					bpftune_buf_json_str(o, nid.global ? "global" : nid.name);
					bpftune_buf_printf(o, ",\"cookie\":%llu,\"value\":",
							   (unsigned long long)v[k].cookie);
					bpftune_buf_json_values(o, v[k].orig->old_values, v[k].orig->num_values);
					bpftune_buf_add(o, ",\"command\":", 11);
					bpftune_buf_json_str(o, cmd);
					bpftune_buf_add(o, ",\"note\":", 8);
					bpftune_buf_json_str(o, note);
					bpftune_buf_add(o, "}", 1);
				} else if (note) {
					n++;
					bpftune_buf_printf(o, "# %s: %s: %s\n",
							   bpftune_netns_describe(v[k].cookie, where, sizeof(where)),
							   note, cmd);
				} else {
					n++;
					bpftune_buf_printf(o, "%s\n", cmd);
				}
			}
			free(v);
		}
	}
	if (json)
		bpftune_buf_add(o, "]}\n", 3);
	else if (!n)
		bpftune_buf_printf(o, "# no sysctl was changed: nothing to restore\n");
	return 0;
}

int bpftune_query_answer(const struct bpftune_request *req,
			 const struct bpftune_daemon_info *info,
			 struct bpftune_buf *out)
{
	switch (req->query) {
	case BPFTUNE_Q_HELP:
		return q_help(req->json, out);
	case BPFTUNE_Q_TUNERS:
		return q_tuners(req->json, info, out);
	case BPFTUNE_Q_TUNABLES:
		return q_tunables(req->json, out);
	case BPFTUNE_Q_STATUS:
		return q_status(req->json, out);
	case BPFTUNE_Q_SUMMARY:
		return q_summary(req->json, out);
	case BPFTUNE_Q_ROLLBACK:
		return q_rollback(req->json, out);
	case BPFTUNE_Q_METRICS:
		return bpftune_metrics_format(out);
	case BPFTUNE_Q_CONFIG:
		return bpftune_config_format(out, req->json);
	default:
		bpftune_buf_printf(out, BPFTUNE_CTL_ERROR_PREFIX "unknown query\n");
		return -EINVAL;
	}
}
