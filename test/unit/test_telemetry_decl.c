// SPDX-License-Identifier: GPL-2.0-only
/*
 * Telemetry declarations: what a plugin may declare (schema_check.c),
 * the SQL generated from a declaration (schema_sql.c), the documents
 * (schema_doc.c), and the core's and in-tree plugins' own declarations.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "telemetry/telemetry_schema.h"
#include "declarers.h"
#include "unit.h"

static const struct bpftune_col_desc demo_cols[] = {
	BPFTUNE_COL_INT("a", COUNTER, "packets", "an int"),
	{ .name = "b_2", .type = BPFTUNE_COL_TEXT, .kind = BPFTUNE_KIND_LABEL,
	  .flags = BPFTUNE_COL_NOT_NULL, .description = "text" },
	BPFTUNE_COL_FLOAT("c", GAUGE, NULL, "a real"),
};

static const struct bpftune_table_desc demo = {
	.name = "demo", .flags = BPFTUNE_TABLE_NO_COMMON, .description = "demo",
	.cols = demo_cols, .num_cols = 3,
};

static const struct bpftune_table_desc demo_common = {
	.name = "demo", .description = "demo", .cols = demo_cols, .num_cols = 1,
};

static const struct bpftune_table_desc demo_netns = {
	.name = "demo", .flags = BPFTUNE_TABLE_PER_NETNS, .description = "demo",
	.cols = demo_cols, .num_cols = 2,
};

/* ---- SQL ------------------------------------------------------------------ */

static void test_ddl_exact(void **state)
{
	char buf[512];
	int n;

	(void)state;
	n = bpftune_telemetry_ddl(&demo, buf, sizeof(buf));
	assert_string_equal(buf, "CREATE TABLE IF NOT EXISTS demo (a INTEGER, b_2 TEXT NOT NULL, c REAL)");
	assert_int_equal(n, strlen(buf));
	n = bpftune_telemetry_ddl(&demo_common, buf, sizeof(buf));
	assert_string_equal(buf, "CREATE TABLE IF NOT EXISTS demo (run_id TEXT NOT NULL, "
			    "host_id TEXT NOT NULL, seq INTEGER NOT NULL, "
			    "ts_uptime_us INTEGER NOT NULL, a INTEGER)");
	assert_int_equal(n, strlen(buf));
	/* a per-netns table: netns_cookie after the common columns */
	n = bpftune_telemetry_ddl(&demo_netns, buf, sizeof(buf));
	assert_string_equal(buf, "CREATE TABLE IF NOT EXISTS demo (run_id TEXT NOT NULL, "
			    "host_id TEXT NOT NULL, seq INTEGER NOT NULL, "
			    "ts_uptime_us INTEGER NOT NULL, netns_cookie INTEGER NOT NULL, "
			    "a INTEGER, b_2 TEXT NOT NULL)");
	assert_int_equal(n, strlen(buf));
	assert_int_equal(bpftune_table_num_cols(&demo_netns), 7);
	assert_int_equal(bpftune_table_first_declared(&demo_netns), 5);
	assert_ptr_equal(bpftune_table_col(&demo_netns, 4), &bpftune_netns_cookie_col);
	assert_ptr_equal(bpftune_table_col(&demo_netns, 5), &demo_cols[0]);
	assert_null(bpftune_table_col(&demo_netns, 7));
}

static void test_insert_exact(void **state)
{
	char buf[512];

	(void)state;
	assert_true(bpftune_telemetry_insert_sql(&demo, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "INSERT INTO demo (a, b_2, c) VALUES (?, ?, ?)");
	assert_true(bpftune_telemetry_insert_sql(&demo_common, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "INSERT INTO demo (run_id, host_id, seq, ts_uptime_us, a) "
			    "VALUES (?, ?, ?, ?, ?)");
	assert_true(bpftune_telemetry_insert_sql(&demo_netns, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "INSERT INTO demo (run_id, host_id, seq, ts_uptime_us, "
			    "netns_cookie, a, b_2) VALUES (?, ?, ?, ?, ?, ?, ?)");
}

/* every length short of the full statement fails cleanly, never overflows */
static void test_generate_short_buffers(void **state)
{
	char full[512], buf[512];
	int n, len;

	(void)state;
	n = bpftune_telemetry_ddl(&demo_netns, full, sizeof(full));
	for (len = 0; len <= n; len++) {
		memset(buf, 'X', sizeof(buf));
		assert_int_equal(bpftune_telemetry_ddl(&demo_netns, buf, len), -ENOSPC);
		assert_int_equal(buf[len], 'X');
	}
	assert_int_equal(bpftune_telemetry_ddl(&demo_netns, buf, n + 1), n);
	n = bpftune_telemetry_insert_sql(&demo_netns, full, sizeof(full));
	for (len = 0; len <= n; len++)
		assert_int_equal(bpftune_telemetry_insert_sql(&demo_netns, buf, len), -ENOSPC);
}

static void test_bad_identifiers_refused(void **state)
{
	static const struct bpftune_col_desc bad_cols[] = {
		BPFTUNE_COL_INT("x; DROP TABLE runs", GAUGE, NULL, "x"),
	};
	static const struct bpftune_col_desc bad_type[] = {
		{ .name = "t", .type = 7, .description = "x" },
	};
	static const struct bpftune_table_desc bad_col = {
		.name = "ok", .cols = bad_cols, .num_cols = 1,
	};
	static const struct bpftune_table_desc bad_name = {
		.name = "Runs", .cols = demo_cols, .num_cols = 1,
	};
	static const struct bpftune_table_desc bad_t = {
		.name = "ok", .cols = bad_type, .num_cols = 1,
	};
	static const struct bpftune_table_desc empty = {
		.name = "empty", .flags = BPFTUNE_TABLE_NO_COMMON,
	};
	char buf[256];

	(void)state;
	assert_int_equal(bpftune_telemetry_ddl(&bad_col, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(bpftune_telemetry_insert_sql(&bad_col, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(bpftune_telemetry_ddl(&bad_name, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(bpftune_telemetry_ddl(&bad_t, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(bpftune_telemetry_ddl(&empty, buf, sizeof(buf)), -EINVAL);
}

static void test_names(void **state)
{
	char long_name[BPFTUNE_TABLE_NAME_MAX + 2];

	(void)state;
	assert_true(bpftune_telemetry_ident_ok("in_segs"));
	assert_true(bpftune_telemetry_ident_ok("a0"));
	assert_false(bpftune_telemetry_ident_ok("_a"));
	assert_false(bpftune_telemetry_ident_ok("0a"));
	assert_false(bpftune_telemetry_ident_ok("a-b"));
	assert_false(bpftune_telemetry_ident_ok("A"));
	assert_false(bpftune_telemetry_ident_ok(""));
	assert_false(bpftune_telemetry_ident_ok(NULL));
	memset(long_name, 'a', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	assert_false(bpftune_telemetry_ident_ok(long_name));
	long_name[BPFTUNE_TABLE_NAME_MAX] = '\0';
	assert_true(bpftune_telemetry_ident_ok(long_name));
	/* the list is searched by bisection: first, last and middle entries */
	assert_true(bpftune_telemetry_sql_keyword("_rowid_"));
	assert_true(bpftune_telemetry_sql_keyword("abort"));
	assert_true(bpftune_telemetry_sql_keyword("without"));
	assert_true(bpftune_telemetry_sql_keyword("order"));
	assert_true(bpftune_telemetry_sql_keyword("rowid"));
	assert_true(bpftune_telemetry_sql_keyword("rows"));
	assert_true(bpftune_telemetry_sql_keyword("oid"));
	assert_true(bpftune_telemetry_sql_keyword("key"));
	assert_false(bpftune_telemetry_sql_keyword("keys"));
	assert_false(bpftune_telemetry_sql_keyword("backlog"));
	assert_false(bpftune_telemetry_sql_keyword(NULL));
	assert_true(bpftune_telemetry_core_name("events"));
	assert_true(bpftune_telemetry_core_name("telemetry_columns"));
	assert_true(bpftune_telemetry_core_name("sqlite_stat1"));
	assert_false(bpftune_telemetry_core_name("samples_tcp"));
}

/* ---- checking declarations ----------------------------------------------- */

static void no_sample(struct bpftune_tuner *t, struct bpftune_sample *s)
{
	(void)t;
	(void)s;
}

/* a valid plugin declaration: a per-event table, a sampled one, gauges */
static struct bpftune_col_desc ev_cols[3];
static struct bpftune_col_desc smp_cols[4];
static struct bpftune_table_desc tabs[2];
static struct bpftune_gauge_desc gauges[2];
static struct bpftune_telemetry_desc decl;

static void decl_reset(void)
{
	static const struct bpftune_col_desc e[] = {
		BPFTUNE_COL_INT("pid", LABEL, NULL, "who"),
		BPFTUNE_COL_LABEL("comm", "its name"),
		BPFTUNE_COL_INT("backlog", DISTRIBUTION, "connections", "asked for"),
	};
	static const struct bpftune_col_desc s[] = {
		BPFTUNE_COL_PROC_COUNTER("in_segs", 0, "segments", "/proc/net/snmp", SNMP,
					 "Tcp.InSegs", "segments in"),
		BPFTUNE_COL_PROC_GAUGE("mem", BPFTUNE_COL_MACHINE_WIDE, "pages",
				       "/proc/net/sockstat", SOCKSTAT, "TCP.mem", "TCP memory"),
		BPFTUNE_COL_GAUGE("rtt_mean_us", 1, MEAN, 0, "us", "mean RTT"),
		BPFTUNE_COL_INT("cpu", LABEL, NULL, "a CPU"),
	};

	memcpy(ev_cols, e, sizeof(e));
	memcpy(smp_cols, s, sizeof(s));
	tabs[0] = (struct bpftune_table_desc){
		.name = "demo_events", .description = "one per event",
		.flags = BPFTUNE_TABLE_PER_NETNS, .cols = ev_cols, .num_cols = 3,
	};
	tabs[1] = (struct bpftune_table_desc){
		.name = "demo_samples", .description = "every interval",
		.flags = BPFTUNE_TABLE_SAMPLED | BPFTUNE_TABLE_PER_NETNS,
		.cols = smp_cols, .num_cols = 4, .sample = no_sample,
	};
	gauges[0] = (struct bpftune_gauge_desc){ "g_n", NULL, "a count" };
	gauges[1] = (struct bpftune_gauge_desc){ "g_rtt", "us", "an RTT" };
	decl = (struct bpftune_telemetry_desc){
		.tables = tabs, .num_tables = 2, .gauges = gauges, .num_gauges = 2,
	};
}

/* the declaration is refused, the message holding @a and @b */
static void refused(const char *a, const char *b)
{
	char why[512] = "";

	if (bpftune_telemetry_check(&decl, why, sizeof(why)) != -EINVAL)
		fail_msg("accepted; expected a refusal with '%s'", a);
	if (!strstr(why, a) || (b && !strstr(why, b)))
		fail_msg("'%s' does not say '%s' / '%s'", why, a, b ? b : "");
	decl_reset();
}

static void test_check_valid(void **state)
{
	char why[512] = "";
	unsigned int i;

	(void)state;
	decl_reset();
	assert_int_equal(bpftune_telemetry_check(&decl, why, sizeof(why)), 0);
	assert_int_equal(bpftune_telemetry_check(NULL, why, sizeof(why)), 0);
	for (i = 0; i < UNIT_NUM_DECLARERS; i++)
		if (bpftune_telemetry_check(unit_declarers[i].desc, why, sizeof(why)))
			fail_msg("in-tree plugin %s: %s", unit_declarers[i].name, why);
}

static void test_check_columns(void **state)
{
	(void)state;
	decl_reset();
	ev_cols[1].type = 99;
	refused("table 'demo_events' column 1 'comm': unknown type 99", "INTEGER, REAL or TEXT");
	ev_cols[0].kind = 0;
	refused("column 0 'pid': unknown kind 0", NULL);
	ev_cols[1].kind = BPFTUNE_KIND_COUNTER;
	refused("'comm': a TEXT column is a label", NULL);
	ev_cols[2].name = "pid";
	refused("table 'demo_events' column 'pid': declared twice", NULL);
	ev_cols[2].name = "seq";
	refused("'seq' is a column the daemon adds itself", NULL);
	ev_cols[2].name = "netns_cookie";
	refused("'netns_cookie' is a column the daemon adds itself", NULL);
	ev_cols[2].name = "Backlog";
	refused("column name 'Backlog' is not [a-z][a-z0-9_]*", "demo_events");
	ev_cols[2].name = "order";
	refused("column name 'order' is an SQL keyword", NULL);
	ev_cols[2].name = NULL;
	refused("column without a name", "demo_events");
	ev_cols[2].description = "";
	refused("'backlog': no description", NULL);
	ev_cols[2].flags = 1 << 9;
	refused("'backlog': unknown flags 0x200", NULL);
	ev_cols[2].unit = "";
	refused("'backlog': unit empty", NULL);
	ev_cols[2].flags = BPFTUNE_COL_MACHINE_WIDE;
	refused("'backlog': machine-wide, but the table is not sampled per netns", NULL);
	tabs[0].num_cols = 0;
	refused("table 'demo_events': 0 columns (1 to 32)", NULL);
	tabs[0].num_cols = BPFTUNE_EVENT_MAX_COLS + 1;
	refused("table 'demo_events': 33 columns (1 to 32)", NULL);
	tabs[0].cols = NULL;
	refused("table 'demo_events': 3 columns", NULL);
}

static void test_check_sources(void **state)
{
	(void)state;
	decl_reset();
	ev_cols[2] = smp_cols[0];
	refused("'in_segs': a /proc column in a table that is not sampled", NULL);
	ev_cols[2] = smp_cols[2];
	refused("'rtt_mean_us': a gauge column in a table that is not sampled", NULL);
	tabs[1].sample = NULL;
	refused("'cpu': written by rows, but the sampled table has no sample callback", NULL);
	tabs[0].sample = no_sample;
	refused("table 'demo_events': a sample callback, but the table is not sampled", NULL);
	smp_cols[0].proc.file = "proc/net/snmp";
	refused("'in_segs': /proc file 'proc/net/snmp' is not a plain path", NULL);
	smp_cols[0].proc.file = "/proc/net/../../etc/shadow";
	refused("is not a plain path under /proc/", NULL);
	smp_cols[0].proc.file = "/proc/net/";
	refused("is not a plain path under /proc/", NULL);
	smp_cols[0].proc.file = "/proc/stat";
	refused("'in_segs': /proc/stat is the same in every netns: mark the column machine-wide", NULL);
	smp_cols[0].proc.format = 0;
	refused("'in_segs': unknown /proc format 0", NULL);
	smp_cols[0].proc.key = "";
	refused("'in_segs': no /proc key", NULL);
	smp_cols[0].kind = BPFTUNE_KIND_DISTRIBUTION;
	refused("'in_segs': a /proc column is a counter or a gauge", NULL);
	smp_cols[0].flags = BPFTUNE_COL_NOT_NULL;
	refused("'in_segs': NOT NULL, but /proc and gauge values may be missing", NULL);
	smp_cols[0].source = 7;
	refused("'in_segs': unknown source 7", NULL);
	smp_cols[2].gauge.id = 2;
	refused("'rtt_mean_us': gauge 2 is not declared (the plugin declares 2)", NULL);
	smp_cols[2].gauge.agg = 9;
	refused("'rtt_mean_us': unknown gauge aggregate 9", NULL);
	smp_cols[2].type = BPFTUNE_COL_INTEGER;
	refused("'rtt_mean_us': a gauge's mean is REAL", NULL);
	smp_cols[2].kind = BPFTUNE_KIND_COUNTER;
	refused("'rtt_mean_us': a gauge column is of kind gauge", NULL);
}

static void test_check_tables(void **state)
{
	struct bpftune_table_desc many[BPFTUNE_PLUGIN_MAX_TABLES + 1];
	unsigned int i;

	(void)state;
	decl_reset();
	tabs[1].name = "demo_events";
	refused("table 'demo_events': declared twice", NULL);
	tabs[1].name = "events";
	refused("table 'events': the name of one of the daemon's own tables", NULL);
	tabs[1].name = "sqlite_master";
	refused("table 'sqlite_master': the name of one of the daemon's own tables", NULL);
	tabs[1].name = "select";
	refused("table name 'select' is an SQL keyword", NULL);
	tabs[1].name = "demo samples";
	refused("table name 'demo samples' is not", NULL);
	tabs[1].flags |= 1 << 5;
	refused("table 'demo_samples': unknown flags 0x20", NULL);
	tabs[1].flags |= BPFTUNE_TABLE_NO_COMMON;
	refused("table 'demo_samples': unknown flags", NULL);
	tabs[1].description = NULL;
	refused("table 'demo_samples': no description", NULL);
	for (i = 0; i < BPFTUNE_TELEMETRY_ARRAY_SIZE(many); i++)
		many[i] = tabs[0];
	decl.tables = many;
	decl.num_tables = BPFTUNE_TELEMETRY_ARRAY_SIZE(many);
	refused("17 tables (at most 16)", NULL);
	decl.tables = NULL;
	refused("2 tables (at most 16)", NULL);
	decl.num_gauges = BPFTUNE_GAUGE_SLOTS + 1;
	refused("9 gauges (at most 8)", NULL);
	gauges[1].name = "g_n";
	refused("gauge 'g_n': declared twice", NULL);
	gauges[1].name = "G";
	refused("gauge 1: gauge name 'G' is not", NULL);
	gauges[0].description = NULL;
	refused("gauge 0 'g_n': no description", NULL);
}

static void test_row_check(void **state)
{
	struct bpftune_value v[4] = {
		BPFTUNE_VALUE_INT(42), BPFTUNE_VALUE_TEXT("python3"), BPFTUNE_VALUE_INT(2048),
	};
	char why[160];

	(void)state;
	decl_reset();
	assert_int_equal(bpftune_telemetry_row_check(&tabs[0], v, 3, why, sizeof(why)), 0);
	/* NULLs: a NULL value, a NULL text pointer */
	v[0] = BPFTUNE_VALUE_NULL;
	v[1] = BPFTUNE_VALUE_TEXT(NULL);
	assert_int_equal(bpftune_telemetry_row_check(&tabs[0], v, 3, why, sizeof(why)), 0);
	ev_cols[0].flags = BPFTUNE_COL_NOT_NULL;
	assert_int_equal(bpftune_telemetry_row_check(&tabs[0], v, 3, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "value 0 ('pid'): NULL in a NOT NULL column");
	decl_reset();
	assert_int_equal(bpftune_telemetry_row_check(&tabs[0], v, 2, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "2 values for 3 columns");
	assert_int_equal(bpftune_telemetry_row_check(&tabs[0], v, 4, why, sizeof(why)), -EINVAL);
	assert_int_equal(bpftune_telemetry_row_check(&tabs[0], NULL, 3, why, sizeof(why)), -EINVAL);
	v[2] = BPFTUNE_VALUE_TEXT("many");
	assert_int_equal(bpftune_telemetry_row_check(&tabs[0], v, 3, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "value 2 ('backlog'): a TEXT value, the column is INTEGER");
	v[2] = BPFTUNE_VALUE_REAL(1.5);
	assert_int_equal(bpftune_telemetry_row_check(&tabs[0], v, 3, why, sizeof(why)), -EINVAL);
	v[2] = (struct bpftune_value){ .type = 12 };
	assert_int_equal(bpftune_telemetry_row_check(&tabs[0], v, 3, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "value 2 ('backlog'): value of unknown type 12");
	/* an INTEGER for a REAL column; a sampled table's row columns only */
	ev_cols[2].type = BPFTUNE_COL_REAL;
	v[2] = BPFTUNE_VALUE_INT(3);
	assert_int_equal(bpftune_telemetry_row_check(&tabs[0], v, 3, why, sizeof(why)), 0);
	assert_int_equal(bpftune_telemetry_row_check(&tabs[1], v, 1, why, sizeof(why)), 0);
	assert_int_equal(bpftune_telemetry_row_check(&tabs[1], v, 4, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "4 values for 1 columns");
}

/* ---- the real declarations ------------------------------------------------ */

static void check_table(const struct bpftune_table_desc *t, bool plugin)
{
	char ddl[16384], ins[16384];
	unsigned int j, k, placeholders, n = bpftune_table_num_cols(t);

	assert_non_null(t->description);
	assert_true(bpftune_telemetry_ddl(t, ddl, sizeof(ddl)) > 0);
	assert_true(bpftune_telemetry_insert_sql(t, ins, sizeof(ins)) > 0);
	for (placeholders = 0, k = 0; ins[k]; k++)
		placeholders += ins[k] == '?';
	assert_int_equal(placeholders, n);
	for (j = 0; j < n; j++) {
		const struct bpftune_col_desc *c = bpftune_table_col(t, j);

		assert_true(c->description && *c->description);
		for (k = 0; k < j; k++)
			assert_string_not_equal(c->name, bpftune_table_col(t, k)->name);
		/* drawn columns are numbers; sampled ones name their source */
		if (bpftune_col_draw(c))
			assert_int_not_equal(c->type, BPFTUNE_COL_TEXT);
		if (plugin && j >= bpftune_table_first_declared(t))
			assert_int_not_equal(c->kind, 0);
		if ((t->flags & BPFTUNE_TABLE_SAMPLED) && !t->sample &&
		    j >= bpftune_table_first_declared(t))
			assert_int_not_equal(c->source, BPFTUNE_SRC_ROW);
	}
}

static void test_real_declarations(void **state)
{
	const char *names[BPFTUNE_TELEMETRY_MAX_TABLES];
	unsigned int i, j, k, n = 0;

	(void)state;
	for (i = 0; i < BPFTUNE_T_MAX; i++) {
		check_table(&bpftune_core_tables[i], false);
		names[n++] = bpftune_core_tables[i].name;
		/* meta alone has no run_id/seq/ts_uptime_us */
		assert_int_equal(!!(bpftune_core_tables[i].flags & BPFTUNE_TABLE_NO_COMMON),
				 i == BPFTUNE_T_META);
	}
	for (i = 0; i < UNIT_NUM_DECLARERS; i++)
		for (j = 0; j < unit_declarers[i].desc->num_tables; j++) {
			check_table(&unit_declarers[i].desc->tables[j], true);
			names[n++] = unit_declarers[i].desc->tables[j].name;
		}
	/* no two tables of the core and the in-tree plugins share a name */
	for (i = 0; i < n; i++)
		for (k = 0; k < i; k++)
			assert_string_not_equal(names[i], names[k]);
	/* the domain tables are the plugins': the core keeps its own */
	for (i = 0; i < BPFTUNE_T_MAX; i++)
		assert_true(strncmp(bpftune_core_tables[i].name, "samples_", 8) ||
			    i == BPFTUNE_T_SAMPLES_SYSTEM);
	assert_true(n >= BPFTUNE_T_MAX + 6);
}

static char *document(int (*fn)(FILE *, const struct bpftune_declarer *, unsigned int))
{
	char *doc = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&doc, &len);

	assert_non_null(f);
	assert_int_equal(fn(f, unit_declarers, UNIT_NUM_DECLARERS), 0);
	fclose(f);
	return doc;
}

static void documented(const char *doc, const struct bpftune_table_desc *t)
{
	char needle[160];
	unsigned int j;

	snprintf(needle, sizeof(needle), "\n## %s\n", t->name);
	assert_non_null(strstr(doc, needle));
	for (j = 0; j < t->num_cols; j++) {
		snprintf(needle, sizeof(needle), "| `%s` | %s |", t->cols[j].name,
			 bpftune_col_type_name(t->cols[j].type));
		assert_non_null(strstr(doc, needle));
	}
}

static void test_markdown_documents_every_column(void **state)
{
	char *doc = document(bpftune_telemetry_write_markdown);
	unsigned int i, j;

	(void)state;
	for (i = 0; i < BPFTUNE_T_MAX; i++)
		documented(doc, &bpftune_core_tables[i]);
	for (i = 0; i < UNIT_NUM_DECLARERS; i++)
		for (j = 0; j < unit_declarers[i].desc->num_tables; j++)
			documented(doc, &unit_declarers[i].desc->tables[j]);
	assert_non_null(strstr(doc, "*Declared by the `sample` plugin; rows written as events happen, each with its event's netns.*"));
	assert_non_null(strstr(doc, "| `srtt_mean_us` | REAL | gauge, over the interval | us | BPF gauge tcp_srtt_us, mean |"));
	assert_non_null(strstr(doc, "| `mem_pages` | INTEGER | gauge, machine-wide | pages | `/proc/net/sockstat` `TCP.mem` |"));
	assert_non_null(strstr(doc, "| `backlog` | INTEGER | distribution | connections |"));
	free(doc);
}

static void test_sql_and_json(void **state)
{
	char *sql = document(bpftune_telemetry_write_sql), *json, *p;
	int depth = 0;

	(void)state;
	assert_non_null(strstr(sql, "CREATE TABLE IF NOT EXISTS samples_tcp (run_id TEXT NOT NULL, "
			       "host_id TEXT NOT NULL, seq INTEGER NOT NULL, ts_uptime_us INTEGER NOT NULL, "
			       "netns_cookie INTEGER NOT NULL, active_opens INTEGER"));
	assert_non_null(strstr(sql, "CREATE TABLE IF NOT EXISTS sample_listen ("));
	assert_non_null(strstr(sql, "CREATE TABLE IF NOT EXISTS telemetry_columns ("));
	free(sql);
	json = document(bpftune_telemetry_write_json);
	for (p = json; *p; p++) {
		depth += (*p == '{' || *p == '[') - (*p == '}' || *p == ']');
		assert_true(depth >= 0);
	}
	assert_int_equal(depth, 0);
	assert_non_null(strstr(json, "{\"table_name\": \"sample_listen\", \"owner\": \"sample\""));
	assert_non_null(strstr(json, "\"name\": \"backlog\", \"type\": \"INTEGER\", \"kind\": \"distribution\", \"draw\": \"cdf\""));
	assert_non_null(strstr(json, "\"name\": \"in_segs\", \"type\": \"INTEGER\", \"kind\": \"counter\", \"draw\": \"rate\""));
	/* meta is not a declared table: it has no run_id to join on */
	assert_null(strstr(json, "\"table_name\": \"meta\""));
	free(json);
}

static void test_source_and_draw(void **state)
{
	char buf[160];

	(void)state;
	decl_reset();
	bpftune_col_source(&smp_cols[0], &decl, buf, sizeof(buf));
	assert_string_equal(buf, "/proc/net/snmp Tcp.InSegs");
	bpftune_col_source(&smp_cols[2], &decl, buf, sizeof(buf));
	assert_string_equal(buf, "BPF gauge g_rtt, mean");
	bpftune_col_source(&smp_cols[2], NULL, buf, sizeof(buf));
	assert_string_equal(buf, "BPF gauge ?, mean");
	bpftune_col_source(&ev_cols[0], &decl, buf, sizeof(buf));
	assert_string_equal(buf, "row");
	assert_string_equal(bpftune_col_draw(&smp_cols[0]), "rate");
	assert_string_equal(bpftune_col_draw(&smp_cols[1]), "value");
	assert_string_equal(bpftune_col_draw(&ev_cols[2]), "cdf");
	assert_null(bpftune_col_draw(&ev_cols[0]));
	smp_cols[0].flags = BPFTUNE_COL_NO_PLOT;
	assert_null(bpftune_col_draw(&smp_cols[0]));
	assert_string_equal(bpftune_col_kind_name(0), "");
	assert_null(bpftune_col_type_name(0));
}

int unit_run_telemetry_decl(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ddl_exact),
		cmocka_unit_test(test_insert_exact),
		cmocka_unit_test(test_generate_short_buffers),
		cmocka_unit_test(test_bad_identifiers_refused),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_check_valid),
		cmocka_unit_test(test_check_columns),
		cmocka_unit_test(test_check_sources),
		cmocka_unit_test(test_check_tables),
		cmocka_unit_test(test_row_check),
		cmocka_unit_test(test_real_declarations),
		cmocka_unit_test(test_markdown_documents_every_column),
		cmocka_unit_test(test_sql_and_json),
		cmocka_unit_test(test_source_and_draw),
	};

	return cmocka_run_group_tests_name("telemetry declarations", tests, NULL, NULL);
}
