// SPDX-License-Identifier: GPL-2.0-only
/*
 * Checking a plugin's telemetry declaration before the plugin runs.  A
 * plugin is trusted code, but its declaration becomes SQL, file paths
 * the sampler opens and indexes into the BPF gauges: every field is
 * checked, and the first problem is reported naming the table and the
 * column, so that the daemon can refuse the plugin with a message its
 * author understands.  Pure: unit- and fuzz-tested.
 */
#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "telemetry/telemetry_schema.h"

static int fail(char *why, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (why && len) {
		va_start(ap, fmt);
		vsnprintf(why, len, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* printable in a message: a bad name may hold anything */
static const char *shown(const char *s)
{
	if (!s)
		return "(null)";
	return bpftune_telemetry_ident_ok(s) ? s : "(not [a-z][a-z0-9_]*)";
}

static bool text_ok(const char *s)
{
	return s && *s && strlen(s) < 1024;
}

/* a name: an identifier, no SQL keyword; @what is "table", "column" */
static int name_check(const char *name, const char *what, char *why, size_t len)
{
	if (!name)
		return fail(why, len, "%s without a name", what);
	if (!bpftune_telemetry_ident_ok(name))
		return fail(why, len, "%s name '%.64s' is not [a-z][a-z0-9_]* of at most %d bytes",
			    what, name, BPFTUNE_TABLE_NAME_MAX);
	if (bpftune_telemetry_sql_keyword(name))
		return fail(why, len, "%s name '%s' is an SQL keyword", what, name);
	return 0;
}

bool bpftune_telemetry_core_name(const char *name)
{
	unsigned int i;

	if (!name || !strncmp(name, "sqlite_", 7))
		return true;
	for (i = 0; i < BPFTUNE_T_MAX; i++)
		if (!strcmp(name, bpftune_core_tables[i].name))
			return true;
	return false;
}

static bool reserved_col(const char *name, bool per_netns)
{
	unsigned int i;

	for (i = 0; i < BPFTUNE_NUM_COMMON_COLS; i++)
		if (!strcmp(name, bpftune_common_cols[i].name))
			return true;
	return per_netns && !strcmp(name, bpftune_netns_cookie_col.name);
}

int bpftune_telemetry_proc_check(const struct bpftune_col_desc *c, char *why, size_t len)
{
	const char *f = c->proc.file;

	if (!f || strncmp(f, "/proc/", 6) || strstr(f, "/../") ||
	    strstr(f, "/./") || strstr(f, "//") || strlen(f) >= 64 ||
	    f[strlen(f) - 1] == '/')
		return fail(why, len, "/proc file '%.64s' is not a plain path under /proc/ (at most 63 bytes)",
			    f ? f : "(null)");
	if (c->proc.format < BPFTUNE_PROC_SNMP || c->proc.format > BPFTUNE_PROC_LOADAVG)
		return fail(why, len, "unknown /proc format %d", (int)c->proc.format);
	if (!c->proc.key || !*c->proc.key || strlen(c->proc.key) >= 64)
		return fail(why, len, "no /proc key (or one over 63 bytes)");
	if (c->kind != BPFTUNE_KIND_COUNTER && c->kind != BPFTUNE_KIND_GAUGE)
		return fail(why, len, "a /proc column is a counter or a gauge");
	if (c->type == BPFTUNE_COL_TEXT)
		return fail(why, len, "a /proc column is a number");
	return 0;
}

static int gauge_check(const struct bpftune_col_desc *c,
		       const struct bpftune_telemetry_desc *d, char *why, size_t len)
{
	if (c->gauge.id >= d->num_gauges)
		return fail(why, len, "gauge %u is not declared (the plugin declares %u)",
			    c->gauge.id, d->num_gauges);
	if (c->gauge.agg < BPFTUNE_GAUGE_N || c->gauge.agg > BPFTUNE_GAUGE_MAX)
		return fail(why, len, "unknown gauge aggregate %d (N, SUM, MEAN or MAX)",
			    (int)c->gauge.agg);
	if (c->gauge.agg == BPFTUNE_GAUGE_MEAN && c->type != BPFTUNE_COL_REAL)
		return fail(why, len, "a gauge's mean is REAL");
	if (c->kind != BPFTUNE_KIND_GAUGE)
		return fail(why, len, "a gauge column is of kind gauge");
	return 0;
}

/* what a column is and where it comes from */
static int col_source_check(const struct bpftune_col_desc *c,
			    const struct bpftune_table_desc *t,
			    const struct bpftune_telemetry_desc *d,
			    char *why, size_t len)
{
	bool sampled = t->flags & BPFTUNE_TABLE_SAMPLED;

	switch (c->source) {
	case BPFTUNE_SRC_ROW:
		if (sampled && !t->sample)
			return fail(why, len, "written by rows, but the sampled table has no sample callback");
		return 0;
	case BPFTUNE_SRC_PROC:
		if (!sampled)
			return fail(why, len, "a /proc column in a table that is not sampled");
		if (bpftune_telemetry_proc_check(c, why, len))
			return -EINVAL;
		if ((t->flags & BPFTUNE_TABLE_PER_NETNS) && strncmp(c->proc.file, "/proc/net/", 10) &&
		    !(c->flags & BPFTUNE_COL_MACHINE_WIDE))
			return fail(why, len, "%s is the same in every netns: mark the column machine-wide",
				    c->proc.file);
		return 0;
	case BPFTUNE_SRC_GAUGE:
		if (!sampled)
			return fail(why, len, "a gauge column in a table that is not sampled");
		return gauge_check(c, d, why, len);
	}
	return fail(why, len, "unknown source %d (ROW, PROC or GAUGE)", (int)c->source);
}

static int col_check(const struct bpftune_col_desc *c,
		     const struct bpftune_table_desc *t,
		     const struct bpftune_telemetry_desc *d, char *why, size_t len)
{
	bool per_netns = t->flags & BPFTUNE_TABLE_PER_NETNS;
	int err;

	err = name_check(c->name, "column", why, len);
	if (err)
		return err;
	if (reserved_col(c->name, per_netns))
		return fail(why, len, "'%s' is a column the daemon adds itself", c->name);
	if (!bpftune_col_type_name(c->type))
		return fail(why, len, "unknown type %d (INTEGER, REAL or TEXT)", (int)c->type);
	if (c->kind < BPFTUNE_KIND_LABEL || c->kind > BPFTUNE_KIND_DISTRIBUTION)
		return fail(why, len, "unknown kind %d (LABEL, COUNTER, GAUGE or DISTRIBUTION)",
			    (int)c->kind);
	if (c->type == BPFTUNE_COL_TEXT && c->kind != BPFTUNE_KIND_LABEL)
		return fail(why, len, "a TEXT column is a label: it cannot be drawn as a %s",
			    bpftune_col_kind_name(c->kind));
	if (c->flags & ~BPFTUNE_COL_PLUGIN_FLAGS)
		return fail(why, len, "unknown flags 0x%x", c->flags & ~BPFTUNE_COL_PLUGIN_FLAGS);
	if ((c->flags & BPFTUNE_COL_MACHINE_WIDE) &&
	    (!per_netns || !(t->flags & BPFTUNE_TABLE_SAMPLED)))
		return fail(why, len, "machine-wide, but the table is not sampled per netns");
	if ((c->flags & BPFTUNE_COL_NOT_NULL) && c->source != BPFTUNE_SRC_ROW)
		return fail(why, len, "NOT NULL, but /proc and gauge values may be missing");
	if (c->unit && (!*c->unit || strlen(c->unit) > 32))
		return fail(why, len, "unit empty or over 32 bytes");
	if (!text_ok(c->description))
		return fail(why, len, "no description (or one over 1023 bytes)");
	return col_source_check(c, t, d, why, len);
}

static int cols_check(const struct bpftune_table_desc *t,
		      const struct bpftune_telemetry_desc *d, char *why, size_t len)
{
	unsigned int i, j, max = (t->flags & BPFTUNE_TABLE_SAMPLED) ?
				 BPFTUNE_SAMPLED_MAX_COLS : BPFTUNE_EVENT_MAX_COLS;
	char sub[256];

	if (!t->num_cols || !t->cols || t->num_cols > max)
		return fail(why, len, "table '%s': %u columns (1 to %u)", t->name,
			    t->num_cols, max);
	for (i = 0; i < t->num_cols; i++) {
		const struct bpftune_col_desc *c = &t->cols[i];

		if (col_check(c, t, d, sub, sizeof(sub)))
			return fail(why, len, "table '%s' column %u '%s': %s", t->name,
				    i, shown(c->name), sub);
		for (j = 0; j < i; j++)
			if (!strcmp(c->name, t->cols[j].name))
				return fail(why, len, "table '%s' column '%s': declared twice",
					    t->name, c->name);
	}
	return 0;
}

static int table_check(const struct bpftune_table_desc *t,
		       const struct bpftune_telemetry_desc *d, char *why, size_t len)
{
	char sub[256];

	if (name_check(t->name, "table", sub, sizeof(sub)))
		return fail(why, len, "%s", sub);
	if (bpftune_telemetry_core_name(t->name))
		return fail(why, len, "table '%s': the name of one of the daemon's own tables",
			    t->name);
	if (t->flags & ~BPFTUNE_TABLE_PLUGIN_FLAGS)
		return fail(why, len, "table '%s': unknown flags 0x%x", t->name,
			    t->flags & ~BPFTUNE_TABLE_PLUGIN_FLAGS);
	if (!text_ok(t->description))
		return fail(why, len, "table '%s': no description", t->name);
	if (t->sample && !(t->flags & BPFTUNE_TABLE_SAMPLED))
		return fail(why, len, "table '%s': a sample callback, but the table is not sampled",
			    t->name);
	return cols_check(t, d, why, len);
}

/* a reward input read from a gauge names one the plugin declares */
static int outcome_gauges_check(const struct bpftune_policy_desc *p,
				const struct bpftune_telemetry_desc *d, char *why, size_t len)
{
	unsigned int i;

	for (i = 0; p->outcome && i < p->outcome->num_reward; i++) {
		const struct bpftune_col_desc *c = &p->outcome->reward[i].col;

		if (c->source == BPFTUNE_SRC_GAUGE && c->gauge.id >= d->num_gauges)
			return fail(why, len, "policy '%s' outcome: reward input '%s' reads gauge %u, not declared (the plugin declares %u)",
				    p->name, c->name, c->gauge.id, d->num_gauges);
	}
	return 0;
}

static int gauges_check(const struct bpftune_telemetry_desc *d, char *why, size_t len)
{
	unsigned int i, j;
	char sub[256];

	if (d->num_gauges > BPFTUNE_GAUGE_SLOTS || (d->num_gauges && !d->gauges))
		return fail(why, len, "%u gauges (at most %d)", d->num_gauges,
			    BPFTUNE_GAUGE_SLOTS);
	for (i = 0; i < d->num_gauges; i++) {
		const struct bpftune_gauge_desc *g = &d->gauges[i];

		if (name_check(g->name, "gauge", sub, sizeof(sub)))
			return fail(why, len, "gauge %u: %s", i, sub);
		if (!text_ok(g->description))
			return fail(why, len, "gauge %u '%s': no description", i, g->name);
		if (g->unit && (!*g->unit || strlen(g->unit) > 32))
			return fail(why, len, "gauge %u '%s': unit empty or over 32 bytes",
				    i, g->name);
		for (j = 0; j < i; j++)
			if (!strcmp(g->name, d->gauges[j].name))
				return fail(why, len, "gauge '%s': declared twice", g->name);
	}
	return 0;
}

/* each policy's table, made for a plugin of a one-letter name */
static int policies_check(const struct bpftune_telemetry_desc *d, char *why, size_t len)
{
	struct bpftune_outcome_table ot;
	struct bpftune_policy_table pt;
	unsigned int i, j;

	if (d->num_policies > BPFTUNE_PLUGIN_MAX_POLICIES || (d->num_policies && !d->policies))
		return fail(why, len, "%u policies (at most %d)", d->num_policies,
			    BPFTUNE_PLUGIN_MAX_POLICIES);
	for (i = 0; i < d->num_policies; i++) {
		const struct bpftune_policy_desc *p = &d->policies[i];

		if (bpftune_policy_name_check(p, why, len))
			return -EINVAL;
		for (j = 0; j <= i; j++) {
			const char *other = j < i ? d->policies[j].name :
					    bpftune_admin_policy.name;

			if (!strcmp(p->name, other))
				return fail(why, len, "policy '%s': declared twice (or the core's)",
					    p->name);
		}
		if (bpftune_policy_table("x", p, &pt) || table_check(&pt.t, d, why, len))
			return -EINVAL;
		if (bpftune_outcome_check(p, why, len) || outcome_gauges_check(p, d, why, len))
			return -EINVAL;
		if (p->outcome && (bpftune_outcome_table("x", p, &ot) ||
				   table_check(&ot.t, d, why, len)))
			return -EINVAL;
	}
	return 0;
}

int bpftune_telemetry_check(const struct bpftune_telemetry_desc *d,
			    char *why, size_t len)
{
	unsigned int i, j;
	int err;

	if (!d)
		return 0;
	if (d->num_tables > BPFTUNE_PLUGIN_MAX_TABLES || (d->num_tables && !d->tables))
		return fail(why, len, "%u tables (at most %d)", d->num_tables,
			    BPFTUNE_PLUGIN_MAX_TABLES);
	err = gauges_check(d, why, len);
	if (!err)
		err = policies_check(d, why, len);
	for (i = 0; !err && i < d->num_tables; i++) {
		err = table_check(&d->tables[i], d, why, len);
		for (j = 0; !err && j < i; j++)
			if (!strcmp(d->tables[i].name, d->tables[j].name))
				err = fail(why, len, "table '%s': declared twice",
					   d->tables[i].name);
	}
	return err;
}

/* the value of a row's @i-th written column matches it */
static int value_check(const struct bpftune_col_desc *c, const struct bpftune_value *v,
		       char *why, size_t len)
{
	bool null = !v->type || (v->type == BPFTUNE_COL_TEXT && !v->s);

	if (null)
		return (c->flags & BPFTUNE_COL_NOT_NULL) ?
		       fail(why, len, "NULL in a NOT NULL column") : 0;
	if (v->type == c->type ||
	    (v->type == BPFTUNE_COL_INTEGER && c->type == BPFTUNE_COL_REAL))
		return 0;
	if (!bpftune_col_type_name(v->type))
		return fail(why, len, "value of unknown type %d", (int)v->type);
	return fail(why, len, "a %s value, the column is %s", bpftune_col_type_name(v->type),
		    bpftune_col_type_name(c->type));
}

int bpftune_telemetry_row_check(const struct bpftune_table_desc *t,
				const struct bpftune_value *values,
				unsigned int num_values, char *why, size_t len)
{
	unsigned int i, n = 0;
	char sub[128];

	for (i = 0; i < t->num_cols; i++)
		n += t->cols[i].source == BPFTUNE_SRC_ROW;
	if (n != num_values || (n && !values))
		return fail(why, len, "%u values for %u columns", num_values, n);
	for (i = 0, n = 0; i < t->num_cols; i++) {
		const struct bpftune_col_desc *c = &t->cols[i];

		if (c->source != BPFTUNE_SRC_ROW)
			continue;
		if (value_check(c, &values[n], sub, sizeof(sub)))
			return fail(why, len, "value %u ('%s'): %s", n, c->name, sub);
		n++;
	}
	return 0;
}
