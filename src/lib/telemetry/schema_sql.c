// SPDX-License-Identifier: GPL-2.0-only
/*
 * From a table declaration to SQL: the full column list (the common
 * columns, netns_cookie for a per-netns table, then the declared ones),
 * CREATE TABLE and INSERT statements, and the names a column or table
 * may have.  Pure: unit-tested, linked by the docs generator.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/appendf.h"
#include "telemetry/telemetry_schema.h"

static unsigned int num_lead(const struct bpftune_table_desc *t)
{
	unsigned int n = (t->flags & BPFTUNE_TABLE_NO_COMMON) ? 0 : BPFTUNE_NUM_COMMON_COLS;

	return n + !!(t->flags & BPFTUNE_TABLE_PER_NETNS);
}

unsigned int bpftune_table_first_declared(const struct bpftune_table_desc *t)
{
	return num_lead(t);
}

unsigned int bpftune_table_num_cols(const struct bpftune_table_desc *t)
{
	return num_lead(t) + t->num_cols;
}

const struct bpftune_col_desc *bpftune_table_col(const struct bpftune_table_desc *t,
						 unsigned int i)
{
	if (!(t->flags & BPFTUNE_TABLE_NO_COMMON)) {
		if (i < BPFTUNE_NUM_COMMON_COLS)
			return &bpftune_common_cols[i];
		i -= BPFTUNE_NUM_COMMON_COLS;
	}
	if (t->flags & BPFTUNE_TABLE_PER_NETNS) {
		if (i == 0)
			return &bpftune_netns_cookie_col;
		i--;
	}
	return i < t->num_cols && t->cols ? &t->cols[i] : NULL;
}

const char *bpftune_col_type_name(enum bpftune_col_type type)
{
	switch (type) {
	case BPFTUNE_COL_INTEGER:
		return "INTEGER";
	case BPFTUNE_COL_REAL:
		return "REAL";
	case BPFTUNE_COL_TEXT:
		return "TEXT";
	}
	return NULL;
}

const char *bpftune_col_kind_name(enum bpftune_col_kind kind)
{
	switch (kind) {
	case BPFTUNE_KIND_LABEL:
		return "label";
	case BPFTUNE_KIND_COUNTER:
		return "counter";
	case BPFTUNE_KIND_GAUGE:
		return "gauge";
	case BPFTUNE_KIND_DISTRIBUTION:
		return "distribution";
	}
	return "";
}

const char *bpftune_col_draw(const struct bpftune_col_desc *c)
{
	if (c->flags & BPFTUNE_COL_NO_PLOT)
		return NULL;
	switch (c->kind) {
	case BPFTUNE_KIND_COUNTER:
		return "rate";
	case BPFTUNE_KIND_GAUGE:
		return "value";
	case BPFTUNE_KIND_DISTRIBUTION:
		return "cdf";
	default:
		return NULL;
	}
}

static const char *const agg_names[] = {
	[BPFTUNE_GAUGE_N] = "count", [BPFTUNE_GAUGE_SUM] = "sum",
	[BPFTUNE_GAUGE_MEAN] = "mean", [BPFTUNE_GAUGE_MAX] = "max",
};

void bpftune_col_source(const struct bpftune_col_desc *c,
			const struct bpftune_telemetry_desc *owner,
			char *buf, size_t len)
{
	const char *gauge = NULL;

	switch (c->source) {
	case BPFTUNE_SRC_PROC:
		snprintf(buf, len, "%s %s", c->proc.file ? c->proc.file : "?",
			 c->proc.key ? c->proc.key : "?");
		return;
	case BPFTUNE_SRC_GAUGE:
		if (owner && c->gauge.id < owner->num_gauges && owner->gauges)
			gauge = owner->gauges[c->gauge.id].name;
		snprintf(buf, len, "BPF gauge %s, %s", gauge ? gauge : "?",
			 c->gauge.agg <= BPFTUNE_GAUGE_MAX && c->gauge.agg ?
			 agg_names[c->gauge.agg] : "?");
		return;
	default:
		snprintf(buf, len, "row");
	}
}

bool bpftune_telemetry_ident_ok(const char *s)
{
	size_t n = 0;

	if (!s || !(*s >= 'a' && *s <= 'z'))
		return false;
	for (; *s; s++, n++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return n <= BPFTUNE_TABLE_NAME_MAX;
}

/* SQLite's keywords (sqlite.org/lang_keywords.html) and row-id aliases */
static const char *const keywords[] = {
	"_rowid_", "abort", "action", "add", "after", "all", "alter", "always",
	"analyze", "and", "as", "asc", "attach", "autoincrement", "before",
	"begin", "between", "by", "cascade", "case", "cast", "check", "collate",
	"column", "commit", "conflict", "constraint", "create", "cross",
	"current", "current_date", "current_time", "current_timestamp",
	"database", "default", "deferrable", "deferred", "delete", "desc",
	"detach", "distinct", "do", "drop", "each", "else", "end", "escape",
	"except", "exclude", "exclusive", "exists", "explain", "fail", "filter",
	"first", "following", "for", "foreign", "from", "full", "generated",
	"glob", "group", "groups", "having", "if", "ignore", "immediate", "in",
	"index", "indexed", "initially", "inner", "insert", "instead",
	"intersect", "into", "is", "isnull", "join", "key", "last", "left",
	"like", "limit", "match", "materialized", "natural", "no", "not",
	"nothing", "notnull", "null", "nulls", "of", "offset", "oid", "on", "or",
	"order", "others", "outer", "over", "partition", "plan", "pragma",
	"preceding", "primary", "query", "raise", "range", "recursive",
	"references", "regexp", "reindex", "release", "rename", "replace",
	"restrict", "returning", "right", "rollback", "row", "rowid", "rows",
	"savepoint", "select", "set", "table", "temp", "temporary", "then",
	"ties", "to", "transaction", "trigger", "unbounded", "union", "unique",
	"update", "using", "vacuum", "values", "view", "virtual", "when",
	"where", "window", "with", "without",
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

bool bpftune_telemetry_sql_keyword(const char *s)
{
	return s && bsearch(&s, keywords, BPFTUNE_TELEMETRY_ARRAY_SIZE(keywords),
			    sizeof(keywords[0]), cmp_str);
}

/* names go into SQL as they stand: each must be a plain identifier */
static bool names_ok(const struct bpftune_table_desc *t)
{
	unsigned int i, n = bpftune_table_num_cols(t);

	if (!bpftune_telemetry_ident_ok(t->name) || !n)
		return false;
	for (i = 0; i < n; i++) {
		const struct bpftune_col_desc *c = bpftune_table_col(t, i);

		if (!c || !bpftune_telemetry_ident_ok(c->name) ||
		    !bpftune_col_type_name(c->type))
			return false;
	}
	return true;
}

int bpftune_telemetry_ddl(const struct bpftune_table_desc *t, char *buf, size_t len)
{
	unsigned int i, n = bpftune_table_num_cols(t);
	size_t off = 0;
	int err;

	if (!names_ok(t))
		return -EINVAL;
	err = bpftune_appendf(buf, len, &off, "CREATE TABLE IF NOT EXISTS %s (", t->name);
	for (i = 0; !err && i < n; i++) {
		const struct bpftune_col_desc *c = bpftune_table_col(t, i);

		err = bpftune_appendf(buf, len, &off, "%s%s %s%s", i ? ", " : "", c->name,
			     bpftune_col_type_name(c->type),
			     (c->flags & BPFTUNE_COL_NOT_NULL) ? " NOT NULL" : "");
	}
	err = err ?: bpftune_appendf(buf, len, &off, ")");
	return err ?: (int)off;
}

int bpftune_telemetry_insert_sql(const struct bpftune_table_desc *t, char *buf,
				 size_t len)
{
	unsigned int i, n = bpftune_table_num_cols(t);
	size_t off = 0;
	int err;

	if (!names_ok(t))
		return -EINVAL;
	err = bpftune_appendf(buf, len, &off, "INSERT INTO %s (", t->name);
	for (i = 0; !err && i < n; i++)
		err = bpftune_appendf(buf, len, &off, "%s%s", i ? ", " : "",
			     bpftune_table_col(t, i)->name);
	err = err ?: bpftune_appendf(buf, len, &off, ") VALUES (");
	for (i = 0; !err && i < n; i++)
		err = bpftune_appendf(buf, len, &off, "%s?", i ? ", " : "");
	err = err ?: bpftune_appendf(buf, len, &off, ")");
	return err ?: (int)off;
}
