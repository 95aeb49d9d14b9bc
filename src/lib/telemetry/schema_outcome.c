// SPDX-License-Identifier: GPL-2.0-only
/*
 * A policy's outcome as typed data (telemetry.h, struct
 * bpftune_outcome_desc): its check, its table outcomes_<plugin>_<policy>
 * (made here for the daemon's registry and the docs alike), and the pure
 * arithmetic of a row -- counter rates, the reward, the propensity of the
 * chosen action.  outcome.c does the reading and the timing.  Pure code.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "telemetry/telemetry_schema.h"

#define CTX(n, t, k, fl, u, d)						\
	{ .name = (n), .type = BPFTUNE_COL_##t, .kind = BPFTUNE_KIND_##k,	\
	  .flags = (fl) | BPFTUNE_COL_NO_PLOT, .unit = (u), .description = (d) }

static const struct bpftune_col_desc context_cols[BPFTUNE_OUTCOME_CONTEXT_COLS] = {
	CTX("decision_seq", INTEGER, LABEL, BPFTUNE_COL_NOT_NULL, NULL,
	    "decisions.seq of the decision this is the outcome of"),
	CTX("decided", TEXT, LABEL, BPFTUNE_COL_NOT_NULL, NULL,
	    "the action it chose, one of the policy's actions"),
	CTX("propensity", REAL, GAUGE, 0, NULL,
	    "probability the policy chose that action: 1 for a deterministic policy"),
	CTX("observed", INTEGER, LABEL, 0, NULL,
	    "1 if decided under --observe (nothing applied), else 0"),
	CTX("horizon_ms", INTEGER, GAUGE, 0, "ms",
	    "the declared horizon: how long after the decision the outcome is read"),
	CTX("after_ms", INTEGER, GAUGE, 0, "ms",
	    "the time actually between the decision and the outcome's reading"),
	CTX("before_ms", INTEGER, GAUGE, 0, "ms",
	    "the window a counter's before-rate covers; NULL without an earlier reading"),
};

static int fail(char *why, size_t len, const char *what, const char *name)
{
	if (why && len)
		snprintf(why, len, "policy '%.48s' outcome: %s", name ? name : "(null)", what);
	return -EINVAL;
}

static double absd(double d);

static int input_of(const struct bpftune_policy_desc *p, const char *name)
{
	unsigned int i;

	for (i = 0; i < p->num_inputs; i++)
		if (!strcmp(p->inputs[i].name, name))
			return i;
	return -ENOENT;
}

/* a gauge's mean over each window (its id against the plugin's: schema_check.c) */
static int gauge_reward_check(const struct bpftune_policy_desc *p,
			      const struct bpftune_reward_input *r, char *why, size_t len)
{
	const struct bpftune_col_desc *c = &r->col;

	if (r->ref)
		return fail(why, len, "a gauge reward input has no ref", p->name);
	if (c->gauge.id >= BPFTUNE_GAUGE_SLOTS || c->gauge.agg != BPFTUNE_GAUGE_MEAN ||
	    c->type != BPFTUNE_COL_REAL || c->kind != BPFTUNE_KIND_GAUGE)
		return fail(why, len, "a gauge reward input is a REAL mean of a gauge slot",
			    p->name);
	if (!p->outcome->horizon_s)
		return fail(why, len, "a gauge reward input needs a horizon", p->name);
	return 0;
}

static int reward_check(const struct bpftune_policy_desc *p,
			const struct bpftune_reward_input *r, char *why, size_t len)
{
	const struct bpftune_col_desc *c = &r->col;
	int i;

	if (!c->name || !bpftune_telemetry_ident_ok(c->name) ||
	    strlen(c->name) + 7 > BPFTUNE_TABLE_NAME_MAX)
		return fail(why, len, "a reward input's name is not [a-z][a-z0-9_]* (at most 41 bytes)",
			    p->name);
	if (!(r->weight != 0) || !(absd(r->weight) <= 1e6))
		return fail(why, len, "a reward input's weight is zero, NaN or over 1e6", p->name);
	if (c->source == BPFTUNE_SRC_PROC && r->ref)
		return fail(why, len, "a /proc reward input has no ref", p->name);
	if (c->source == BPFTUNE_SRC_PROC)
		return bpftune_telemetry_proc_check(c, why, len);
	if (c->source == BPFTUNE_SRC_GAUGE)
		return gauge_reward_check(p, r, why, len);
	if (c->source != BPFTUNE_SRC_ROW)
		return fail(why, len, "a reward input is a /proc column, a gauge or a decision input",
			    p->name);
	i = input_of(p, c->name);
	if (i < 0 || p->inputs[i].type == BPFTUNE_COL_TEXT)
		return fail(why, len, "a reward input names no INTEGER or REAL input of the policy",
			    p->name);
	if (p->outcome->horizon_s)
		return fail(why, len, "a reward from the decision's inputs needs horizon 0", p->name);
	if (r->ref && ((i = input_of(p, r->ref)) < 0 || p->inputs[i].type == BPFTUNE_COL_TEXT))
		return fail(why, len, "a reward input's ref names no INTEGER or REAL input", p->name);
	return 0;
}

int bpftune_outcome_check(const struct bpftune_policy_desc *p, char *why, size_t len)
{
	const struct bpftune_outcome_desc *o = p->outcome;
	unsigned int i, j;
	int err;

	if (!o)
		return 0;
	if (!o->num_actions || o->num_actions > BPFTUNE_OUTCOME_MAX_ACTIONS || !o->actions)
		return fail(why, len, "1 to 16 actions", p->name);
	for (i = 0; i < o->num_actions; i++) {
		if (!o->actions[i] || !*o->actions[i] || strlen(o->actions[i]) > 47)
			return fail(why, len, "an action is empty or over 47 bytes", p->name);
		for (j = 0; j < i; j++)
			if (!strcmp(o->actions[i], o->actions[j]))
				return fail(why, len, "an action is listed twice", p->name);
	}
	if (o->horizon_s > BPFTUNE_OUTCOME_MAX_HORIZON_S)
		return fail(why, len, "horizon over 600 s", p->name);
	if (!o->num_reward || o->num_reward > BPFTUNE_OUTCOME_MAX_REWARD || !o->reward)
		return fail(why, len, "1 to 8 reward inputs", p->name);
	if (!o->reward_doc || !*o->reward_doc || strlen(o->reward_doc) > 200)
		return fail(why, len, "no reward_doc (or one over 200 bytes)", p->name);
	if (o->explore_choices > o->num_actions)
		return fail(why, len, "explore_choices over the number of actions", p->name);
	for (i = 0; i < o->num_reward; i++) {
		err = reward_check(p, &o->reward[i], why, len);
		if (err)
			return err;
		for (j = 0; j < i; j++)
			if (!strcmp(o->reward[i].col.name, o->reward[j].col.name))
				return fail(why, len, "a reward input is listed twice", p->name);
	}
	return 0;
}

/* "a | b | c" of @o's actions into @buf (an action may hold a comma) */
static void actions_text(const struct bpftune_outcome_desc *o, char *buf, size_t len)
{
	size_t used = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < o->num_actions && used + 1 < len; i++) {
		int n = snprintf(buf + used, len - used, "%s%s", i ? " | " : "", o->actions[i]);

		used += n > 0 ? (size_t)n : 0;
	}
}

/* what a before or after column holds, by where its input comes from */
static const char *reading(const struct bpftune_reward_input *r, bool after)
{
	if (r->col.source == BPFTUNE_SRC_GAUGE)
		return after ? "mean of the observations over the horizon after the decision" :
		       "mean of the observations over the horizon before the decision";
	if (r->col.source != BPFTUNE_SRC_PROC)
		return after ? "the decision's input" : r->ref ? "its reference input" :
		       "NULL (no before)";
	if (r->col.kind == BPFTUNE_KIND_GAUGE)
		return after ? "read at the horizon" : "read at the decision";
	return after ? "per second over the horizon" :
	       "per second over the window before the decision (before_ms)";
}

static struct bpftune_col_desc reward_col(const struct bpftune_reward_input *r,
					  char *name, char *desc, bool after)
{
	struct bpftune_col_desc c = {
		.type = BPFTUNE_COL_REAL, .kind = BPFTUNE_KIND_GAUGE,
		.flags = BPFTUNE_COL_NO_PLOT,
	};
	bool rate = r->col.source == BPFTUNE_SRC_PROC && r->col.kind == BPFTUNE_KIND_COUNTER;
	const char *in = r->ref && !after ? r->ref : r->col.name;

	snprintf(name, BPFTUNE_TABLE_NAME_MAX + 1, "%s_%s", r->col.name,
		 after ? "after" : "before");
	snprintf(desc, 256, "%.120s, %s (reward weight %g%s%s)", r->col.description,
		 reading(r, after), r->weight, in != r->col.name ? "; input " : "",
		 in != r->col.name ? in : "");
	c.name = name;
	c.description = desc;
	c.unit = rate ? "/s" : r->col.unit;
	return c;
}

int bpftune_outcome_table(const char *plugin, const struct bpftune_policy_desc *p,
			  struct bpftune_outcome_table *out)
{
	const struct bpftune_outcome_desc *o = p->outcome;
	unsigned int i, n = BPFTUNE_OUTCOME_CONTEXT_COLS;
	char acts[200];

	if (!o || bpftune_outcome_check(p, NULL, 0) ||
	    bpftune_policy_table_name("outcomes", plugin, p->name, out->name,
				      sizeof(out->name)))
		return -EINVAL;
	actions_text(o, acts, sizeof(acts));
	snprintf(out->description, sizeof(out->description),
		 "Outcomes of %s's policy %s (%s), one row per decision, %u s after it. Actions: %s. Reward: %s.",
		 plugin, p->name, o->explore_choices ? "stochastic" : "deterministic",
		 o->horizon_s, acts, o->reward_doc);
	memcpy(out->cols, context_cols, sizeof(context_cols));
	for (i = 0; i < o->num_reward; i++) {
		out->cols[n] = reward_col(&o->reward[i], out->col_names[2 * i],
					  out->col_descs[2 * i], false);
		out->cols[n + 1] = reward_col(&o->reward[i], out->col_names[2 * i + 1],
					      out->col_descs[2 * i + 1], true);
		n += 2;
	}
	out->cols[n++] = (struct bpftune_col_desc)CTX("reward", REAL, GAUGE, 0, NULL,
		"the reward: weighted mean of the reward inputs' terms (docs/telemetry.md); NULL if one is missing");
	out->t = (struct bpftune_table_desc){
		.name = out->name, .description = out->description,
		.flags = BPFTUNE_TABLE_PER_NETNS, .cols = out->cols, .num_cols = n,
	};
	return 0;
}

/* ---- a row's arithmetic ----------------------------------------------------- */

static double absd(double d)
{
	return d < 0 ? -d : d;
}

static double maxd(double a, double b)
{
	return a > b ? a : b;
}

int bpftune_outcome_rate(double v0, double v1, uint64_t dt_us, double *rate)
{
	if (!dt_us || v1 < v0)		/* no time, or a counter reset */
		return -ERANGE;
	*rate = (v1 - v0) * 1e6 / (double)dt_us;
	return 0;
}

int bpftune_outcome_reward(const struct bpftune_outcome_desc *o,
			   const struct bpftune_outcome_reading *r, double *reward)
{
	double sum = 0, wsum = 0;
	unsigned int i;

	for (i = 0; i < o->num_reward; i++) {
		const struct bpftune_reward_input *in = &o->reward[i];
		double w = in->weight, scale;

		if (!r->has_after[i])
			return -ENODATA;
		if (in->col.source == BPFTUNE_SRC_ROW && !in->ref) {
			sum += w * r->after[i];
		} else {
			if (!r->has_before[i])
				return -ENODATA;
			scale = maxd(maxd(absd(r->after[i]), absd(r->before[i])), 1.0);
			sum += w * (r->after[i] - r->before[i]) / scale;
		}
		wsum += absd(w);
	}
	if (!(wsum > 0))
		return -EINVAL;
	*reward = sum / wsum;
	return 0;
}

double bpftune_outcome_propensity(const struct bpftune_outcome_desc *o,
				  double given, double epsilon, int explored)
{
	double k;

	if (given > 0 && given <= 1)
		return given;
	if (!o || !o->explore_choices || epsilon < 0 || epsilon > 1 || explored < 0)
		return 1.0;
	k = o->explore_choices;
	return explored ? epsilon / k : 1.0 - epsilon + epsilon / k;
}
