// SPDX-License-Identifier: GPL-2.0-only
/*
 * Decision policies as typed data.  A plugin declares its policies and
 * their inputs (telemetry.h, struct bpftune_policy_desc); each becomes a
 * per-event table of its own, decisions_<plugin>_<policy>, laid out as
 * the context of the decision (its decisions.seq, event, scenario,
 * tunable and action) followed by one column per input.  The tables are
 * made here from the declarations -- for the daemon's registry and for
 * the docs alike -- so they are documented, created, written, shipped
 * and exported like any other declared table.  Pure code.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "telemetry/telemetry_schema.h"

#define CTX(n, t, fl, d)						\
	{ .name = (n), .type = BPFTUNE_COL_##t, .kind = BPFTUNE_KIND_LABEL, \
	  .flags = (fl), .description = (d) }

static const struct bpftune_col_desc context_cols[BPFTUNE_POLICY_CONTEXT_COLS] = {
	CTX("decision_seq", INTEGER, BPFTUNE_COL_NOT_NULL,
	    "decisions.seq of the decision these are the inputs of"),
	CTX("event_seq", INTEGER, 0,
	    "events.seq of the event it was made for; NULL if none"),
	CTX("scenario", TEXT, 0, "scenario name"),
	CTX("tunable", TEXT, 0, "the sysctl it concerns; NULL if none"),
	CTX("decided", TEXT, BPFTUNE_COL_NOT_NULL,
	    "what it chose (decisions.action); 'none' and the like included"),
};

/* the core's own policy, recorded for every plugin that has policies */
static const struct bpftune_col_desc admin_inputs[] = {
	BPFTUNE_COL_LABEL("wanted", "the value(s) the tuner wanted, comma-separated"),
	BPFTUNE_COL_LABEL("bound", "the admin's bound that held it: 'max' or 'min'"),
	BPFTUNE_COL_LABEL("bound_value", "that bound's value(s), comma-separated"),
	BPFTUNE_COL_LABEL("refused", "why it was refused outright: 'scope' (netns out of scope) or 'touch' (touch = no)"),
	BPFTUNE_COL_LABEL("source", "the config file and line that said so"),
};

const struct bpftune_policy_desc bpftune_admin_policy =
	BPFTUNE_POLICY("admin-policy",
		       "the config file (bpftune.conf) held a tunable at an admin's bound or refused a change",
		       admin_inputs);

static int fail(char *why, size_t len, const char *what, const char *name)
{
	if (why && len)
		snprintf(why, len, "policy '%.48s': %s", name ? name : "(null)", what);
	return -EINVAL;
}

int bpftune_policy_name_check(const struct bpftune_policy_desc *p, char *why,
			      size_t len)
{
	const char *s = p->name;

	if (!s || !*s || strlen(s) > BPFTUNE_TABLE_NAME_MAX || *s < 'a' || *s > 'z')
		return fail(why, len, "name is not [a-z][a-z0-9-]*", s);
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-'))
			return fail(why, len, "name is not [a-z][a-z0-9-]*", p->name);
	if (!p->description || !*p->description || strlen(p->description) > 200)
		return fail(why, len, "no description (or one over 200 bytes)", p->name);
	if (p->num_inputs > BPFTUNE_POLICY_MAX_INPUTS || (p->num_inputs && !p->inputs))
		return fail(why, len, "too many inputs (at most 27)", p->name);
	return 0;
}

int bpftune_policy_table_name(const char *kind, const char *plugin,
			      const char *policy, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s_%s_%s", kind, plugin, policy);
	char *c;

	if (n < 0 || (size_t)n >= len || n > BPFTUNE_TABLE_NAME_MAX)
		return -ENAMETOOLONG;
	for (c = buf; *c; c++)
		if (*c == '-')
			*c = '_';
	return 0;
}

/* policy @k of @d: its own, then the admin's (when it has any) */
const struct bpftune_policy_desc *bpftune_policy_at(const struct bpftune_telemetry_desc *d,
						    unsigned int k)
{
	if (!d || !d->num_policies || k > d->num_policies)
		return NULL;
	return k < d->num_policies ? &d->policies[k] : &bpftune_admin_policy;
}

int bpftune_policy_index(const struct bpftune_telemetry_desc *d, const char *name)
{
	const struct bpftune_policy_desc *p;
	unsigned int k;

	for (k = 0; name && (p = bpftune_policy_at(d, k)); k++)
		if (!strcmp(p->name, name))
			return k;
	return -ENOENT;
}

int bpftune_policy_table(const char *plugin, const struct bpftune_policy_desc *p,
			 struct bpftune_policy_table *out)
{
	unsigned int i;

	if (bpftune_policy_name_check(p, NULL, 0) ||
	    bpftune_policy_table_name("decisions", plugin, p->name, out->name,
				      sizeof(out->name)))
		return -EINVAL;
	snprintf(out->description, sizeof(out->description),
		 "Decisions of %s's policy %s, one row each, inputs typed: %s.",
		 plugin, p->name, p->description);
	memcpy(out->cols, context_cols, sizeof(context_cols));
	/* features for training, not signals: the samples tables draw those */
	for (i = 0; i < p->num_inputs; i++) {
		out->cols[BPFTUNE_POLICY_CONTEXT_COLS + i] = p->inputs[i];
		out->cols[BPFTUNE_POLICY_CONTEXT_COLS + i].flags |= BPFTUNE_COL_NO_PLOT;
	}
	out->t = (struct bpftune_table_desc){
		.name = out->name, .description = out->description,
		.flags = BPFTUNE_TABLE_PER_NETNS, .cols = out->cols,
		.num_cols = BPFTUNE_POLICY_CONTEXT_COLS + p->num_inputs,
	};
	return 0;
}

/* after the policies' tables, the outcome tables of those that have one */
static int outcomes_expand(const char *plugin, struct bpftune_telemetry_x *x,
			   char *why, size_t len)
{
	const struct bpftune_policy_desc *p;
	unsigned int i, k;

	for (k = 0; k < BPFTUNE_X_MAX_POLICIES; k++)
		x->outcome_table[k] = -1;
	for (k = 0; (p = bpftune_policy_at(&x->d, k)); k++) {
		if (!p->outcome)
			continue;
		if (bpftune_outcome_check(p, why, len))
			return -EINVAL;
		if (bpftune_outcome_table(plugin, p, &x->outcome[k]))
			return fail(why, len, "its table name outcomes_<plugin>_<policy> is over 48 bytes",
				    p->name);
		for (i = 0; i < x->d.num_tables; i++)
			if (!strcmp(x->tables[i].name, x->outcome[k].name))
				return fail(why, len, "its outcome table's name is taken", p->name);
		x->outcome_table[k] = x->d.num_tables;
		x->tables[x->d.num_tables++] = x->outcome[k].t;
	}
	return 0;
}

int bpftune_telemetry_expand(const char *plugin, const struct bpftune_telemetry_desc *d,
			     struct bpftune_telemetry_x *x, char *why, size_t len)
{
	const struct bpftune_policy_desc *p;
	unsigned int i, k;

	memset(x, 0, sizeof(*x));
	if (!d)
		return 0;
	if (d->num_tables > BPFTUNE_PLUGIN_MAX_TABLES ||
	    d->num_policies > BPFTUNE_PLUGIN_MAX_POLICIES)
		return -EINVAL;
	x->d = *d;
	x->d.tables = x->tables;
	x->num_plugin_tables = d->num_tables;
	if (d->num_tables)
		memcpy(x->tables, d->tables, d->num_tables * sizeof(*d->tables));
	for (k = 0; (p = bpftune_policy_at(d, k)); k++) {
		if (bpftune_policy_name_check(p, why, len))
			return -EINVAL;
		if (bpftune_policy_table(plugin, p, &x->policy[k]))
			return fail(why, len, "its table name decisions_<plugin>_<policy> is over 48 bytes",
				    p->name);
		for (i = 0; i < x->d.num_tables; i++)
			if (!strcmp(x->tables[i].name, x->policy[k].name))
				return fail(why, len, "its table's name is taken", p->name);
		x->tables[x->d.num_tables++] = x->policy[k].t;
	}
	return outcomes_expand(plugin, x, why, len);
}

static int text_put(char *buf, size_t len, size_t *used, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int text_put(char *buf, size_t len, size_t *used, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*used >= len)
		return -ENOSPC;
	va_start(ap, fmt);
	n = vsnprintf(buf + *used, len - *used, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	*used += (size_t)n < len - *used ? (size_t)n : len - *used - 1;
	return (size_t)n < len ? 0 : -ENOSPC;
}

int bpftune_policy_inputs_text(const struct bpftune_policy_desc *p,
			       const struct bpftune_value *v, unsigned int n,
			       char *buf, size_t len)
{
	size_t used = 0;
	unsigned int i;
	int err = 0;

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	for (i = 0; i < n && i < p->num_inputs && !err; i++) {
		const char *sep = used ? " " : "";
		const char *name = p->inputs[i].name;

		if (v[i].type == BPFTUNE_COL_INTEGER)
			err = text_put(buf, len, &used, "%s%s=%lld", sep, name, (long long)v[i].i);
		else if (v[i].type == BPFTUNE_COL_REAL)
			err = text_put(buf, len, &used, "%s%s=%.6g", sep, name, v[i].d);
		else if (v[i].type == BPFTUNE_COL_TEXT && v[i].s)
			err = text_put(buf, len, &used, "%s%s=%s", sep, name, v[i].s);
	}
	return err;
}
