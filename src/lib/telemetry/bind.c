// SPDX-License-Identifier: GPL-2.0-only
/*
 * The writer's SQLite side: creating a table (with its declaration rows
 * in telemetry_tables and telemetry_columns) and binding rows.  Every
 * bind names its column and is checked against the declaration, so a
 * writer out of step with a table's columns is reported, never silently
 * shifted into the wrong ones.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "telemetry/tm.h"

uint64_t tm_write_errors;

static bool b_next(struct binder *b, const char *name)
{
	const struct bpftune_col_desc *c = bpftune_table_col(b->e->d, b->i);

	if (b->bad)
		return false;
	if (!c || (name && strcmp(c->name, name))) {
		b->bad = name ? name : "(a value)";
		return false;
	}
	b->i++;
	return true;
}

void b_int(struct binder *b, const char *name, int64_t v)
{
	if (b_next(b, name))
		sqlite3_bind_int64(b->st, b->i, v);
}

void b_null(struct binder *b, const char *name)
{
	if (b_next(b, name))
		sqlite3_bind_null(b->st, b->i);
}

void b_int_or_null(struct binder *b, const char *name, bool have, int64_t v)
{
	if (have)
		b_int(b, name, v);
	else
		b_null(b, name);
}

void b_real(struct binder *b, const char *name, double v)
{
	if (b_next(b, name))
		sqlite3_bind_double(b->st, b->i, v);
}

/* empty strings are stored as NULL */
void b_text(struct binder *b, const char *name, const char *s)
{
	if (!b_next(b, name))
		return;
	if (s && *s)
		sqlite3_bind_text(b->st, b->i, s, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(b->st, b->i);
}

void b_value(struct binder *b, const struct bpftune_value *v)
{
	if (!b_next(b, NULL))
		return;
	switch (v->type) {
	case BPFTUNE_COL_INTEGER:
		sqlite3_bind_int64(b->st, b->i, v->i);
		break;
	case BPFTUNE_COL_REAL:
		sqlite3_bind_double(b->st, b->i, v->d);
		break;
	case BPFTUNE_COL_TEXT:
		if (v->s)
			sqlite3_bind_text(b->st, b->i, v->s, -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(b->st, b->i);
		break;
	default:
		sqlite3_bind_null(b->st, b->i);
	}
}

/*
 * A table's INSERT is prepared at its first row, not when the table is
 * created: most tables of a run get no row for long (decisions, outcomes,
 * a plugin's events), and a prepared statement holds kilobytes of the
 * writer's memory (all of them: 350 KB of an idle daemon's RSS).
 */
static sqlite3_stmt *insert_stmt(struct treg *e)
{
	char sql[16384];

	if (e->ins || !e->created || e->prepare_failed)
		return e->ins;
	if (bpftune_telemetry_insert_sql(e->d, sql, sizeof(sql)) < 0 ||
	    sqlite3_prepare_v3(tm.db, sql, -1, SQLITE_PREPARE_PERSISTENT,
			       &e->ins, NULL) != SQLITE_OK) {
		e->prepare_failed = true;
		bpftune_log(LOG_WARNING, "telemetry: cannot prepare %s: %s",
			    e->d->name, sqlite3_errmsg(tm.db));
	}
	return e->ins;
}

void b_begin(struct binder *b, struct treg *e, uint64_t seq, uint64_t ts_us)
{
	b->e = e;
	b->st = insert_stmt(e);
	b->i = 0;
	b->bad = NULL;
	if (e->d->flags & BPFTUNE_TABLE_NO_COMMON)
		return;
	b_text(b, "run_id", tm.run_id);
	b_text(b, "host_id", tm.host_id);
	b_int(b, "seq", seq);
	b_int(b, "ts_uptime_us", ts_us);
}

int b_done(struct binder *b)
{
	struct treg *e = b->e;
	int rc;

	if (!b->st || b->bad || b->i != bpftune_table_num_cols(e->d)) {
		if (b->st && !e->bind_error_logged) {
			const struct bpftune_col_desc *c = bpftune_table_col(e->d, b->i);

			e->bind_error_logged = true;
			bpftune_log(LOG_ERR, "telemetry: table %s: writer binds '%s' where the declaration has '%s'",
				    e->d->name, b->bad ? b->bad : "(nothing)",
				    c ? c->name : "(no more columns)");
		}
		if (b->st)
			sqlite3_reset(b->st);
		return -EIO;
	}
	rc = sqlite3_step(b->st);
	sqlite3_reset(b->st);
	if (rc != SQLITE_DONE) {
		tm_write_errors++;
		tm_note_db(rc);
		return -EIO;
	}
	return 0;
}

/* ---- creating a table ----------------------------------------------------- */

static int write_decl_column(const struct treg *e, unsigned int pos, uint64_t ts)
{
	struct treg *cols = &tm_tables[BPFTUNE_T_COLUMNS];
	const struct bpftune_col_desc *c = bpftune_table_col(e->d, pos);
	char src[160];
	struct binder b;

	bpftune_col_source(c, tm_reg_desc(e), src, sizeof(src));
	if (c == &bpftune_netns_cookie_col)
		snprintf(src, sizeof(src), "%s",
			 (e->d->flags & BPFTUNE_TABLE_SAMPLED) ? "the sampled netns" :
			 "the event's netns");
	b_begin(&b, cols, ++cols->writer_seq, ts);
	b_text(&b, "table_name", e->d->name);
	b_int(&b, "position", pos);
	b_text(&b, "column_name", c->name);
	b_text(&b, "type", bpftune_col_type_name(c->type));
	b_text(&b, "kind", c->kind ? bpftune_col_kind_name(c->kind) : NULL);
	b_text(&b, "draw", bpftune_col_draw(c));
	b_text(&b, "unit", c->unit);
	b_text(&b, "description", c->description);
	b_text(&b, "source", pos < BPFTUNE_NUM_COMMON_COLS &&
	       !(e->d->flags & BPFTUNE_TABLE_NO_COMMON) ? "core" : src);
	b_int(&b, "machine_wide", !!(c->flags & BPFTUNE_COL_MACHINE_WIDE));
	b_int(&b, "overview", !!(c->flags & BPFTUNE_COL_OVERVIEW));
	b_int(&b, "not_null", !!(c->flags & BPFTUNE_COL_NOT_NULL));
	return b_done(&b);
}

/* its rows in telemetry_tables and telemetry_columns (meta has none) */
static int write_decl(const struct treg *e)
{
	struct treg *tables = &tm_tables[BPFTUNE_T_TABLES];
	unsigned int i, n = bpftune_table_num_cols(e->d);
	uint64_t ts = tm_now_us();
	struct binder b;
	int err;

	if (e->d->flags & BPFTUNE_TABLE_NO_COMMON)
		return 0;
	b_begin(&b, tables, ++tables->writer_seq, ts);
	b_text(&b, "table_name", e->d->name);
	b_text(&b, "owner", tm_reg_owner(e));
	b_text(&b, "description", e->d->description);
	b_int(&b, "sampled", !!(e->d->flags & BPFTUNE_TABLE_SAMPLED));
	b_int(&b, "per_netns", !!(e->d->flags & BPFTUNE_TABLE_PER_NETNS));
	b_int(&b, "num_columns", n);
	err = b_done(&b);
	for (i = 0; !err && i < n; i++)
		err = write_decl_column(e, i, ts);
	return err;
}

int tm_table_create(struct treg *e)
{
	char sql[16384];

	if (e->created)
		return 0;
	if (bpftune_telemetry_ddl(e->d, sql, sizeof(sql)) < 0 || tm_exec(sql))
		return -EIO;
	e->created = true;
	/* the declaration tables describe themselves once both exist */
	if (e - tm_tables == BPFTUNE_T_TABLES)
		return 0;
	if (e - tm_tables == BPFTUNE_T_COLUMNS) {
		int err = write_decl(&tm_tables[BPFTUNE_T_TABLES]);

		return err ?: write_decl(e);
	}
	return tm_tables[BPFTUNE_T_COLUMNS].created ? write_decl(e) : 0;
}

void tm_table_finalize(struct treg *e)
{
	sqlite3_finalize(e->ins);
	e->ins = NULL;
	e->created = false;
	e->prepare_failed = false;
}
