// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for plugin telemetry declarations: a plugin's
 * ops->telemetry is data from outside the daemon (a .so), checked by
 * bpftune_telemetry_check() (src/lib/telemetry/schema_check.c) before any
 * of it becomes SQL, a path the sampler opens or an index into the BPF
 * gauges.  The input bytes build a declaration -- names, types, kinds,
 * flags, sources, /proc paths and keys, gauge ids -- which is checked;
 * Built and run by make fuzz (test/unit/fuzz/fuzz.mk, README.md there).
 *
 * Checks, besides the sanitizers: a declaration that passes the check
 * always generates its DDL, INSERT, docs and JSON, every name in them is
 * a plain identifier, and a row of the right values passes the row check.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "telemetry/telemetry_schema.h"

#define MAX_TABLES	3
#define MAX_COLS	6
#define MAX_GAUGES	3

struct input {
	const uint8_t *p;
	size_t left;
};

static uint8_t byte(struct input *in)
{
	if (!in->left)
		return 0;
	in->left--;
	return *in->p++;
}

/* a string of the input: NUL-terminated copy, kept in @pool */
static const char *str(struct input *in, char *pool, size_t *used, size_t cap)
{
	size_t n = byte(in) % 24, i;
	char *s;

	if (n == 23)
		return NULL;
	if (*used + n + 1 > cap)
		return "";
	s = pool + *used;
	for (i = 0; i < n; i++)
		s[i] = (char)byte(in);
	s[n] = '\0';
	*used += n + 1;
	return s;
}

/* names mostly valid, so that deeper checks are reached */
static const char *name(struct input *in, char *pool, size_t *used, size_t cap)
{
	static const char *const good[] = {
		"a", "b", "c_1", "in_segs", "seq", "netns_cookie", "order", "events",
		"samples_x", "rtt", "g0",
	};
	uint8_t b = byte(in);

	return b < 200 ? good[b % (sizeof(good) / sizeof(good[0]))] :
	       str(in, pool, used, cap);
}

static void build_col(struct input *in, struct bpftune_col_desc *c, char *pool,
		      size_t *used, size_t cap)
{
	static const char *const files[] = {
		"/proc/net/snmp", "/proc/stat", "/proc/net/../x", "proc", "/proc/net/dev",
	};

	memset(c, 0, sizeof(*c));
	c->name = name(in, pool, used, cap);
	c->type = byte(in) % 5;
	c->kind = byte(in) % 6;
	c->flags = byte(in) & 0x1f;
	c->unit = byte(in) & 1 ? "bytes" : NULL;
	c->description = byte(in) & 7 ? "d" : str(in, pool, used, cap);
	c->source = byte(in) % 4;
	c->proc.file = byte(in) < 240 ? files[byte(in) % 5] : str(in, pool, used, cap);
	c->proc.format = byte(in) % 10;
	c->proc.key = str(in, pool, used, cap);
	c->gauge.id = byte(in) % 5;
	c->gauge.agg = byte(in) % 6;
}

static void no_sample(struct bpftune_tuner *t, struct bpftune_sample *s)
{
	(void)t;
	(void)s;
}

static void generated(const struct bpftune_telemetry_desc *d)
{
	struct bpftune_declarer p = { "fuzz", d };
	struct bpftune_value v[MAX_COLS];
	char buf[8192], why[256];
	unsigned int i, j;
	FILE *f;

	for (i = 0; i < d->num_tables; i++) {
		const struct bpftune_table_desc *t = &d->tables[i];
		unsigned int n = 0;

		if (bpftune_telemetry_ddl(t, buf, sizeof(buf)) <= 0 ||
		    bpftune_telemetry_insert_sql(t, buf, sizeof(buf)) <= 0)
			abort();
		for (j = 0; j < t->num_cols; j++) {
			if (!bpftune_telemetry_ident_ok(t->cols[j].name) ||
			    bpftune_telemetry_sql_keyword(t->cols[j].name))
				abort();
			if (t->cols[j].source == BPFTUNE_SRC_ROW)
				v[n++] = (struct bpftune_value){ .type = t->cols[j].type };
		}
		for (j = 0; j < n; j++)
			if (v[j].type == BPFTUNE_COL_TEXT)
				v[j].s = "x";
		if (bpftune_telemetry_row_check(t, v, n, why, sizeof(why)))
			abort();
	}
	f = fopen("/dev/null", "w");
	if (!f)
		return;
	if (bpftune_telemetry_write_markdown(f, &p, 1) || bpftune_telemetry_write_json(f, &p, 1) ||
	    bpftune_telemetry_write_sql(f, &p, 1))
		abort();
	fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bpftune_col_desc cols[MAX_TABLES][MAX_COLS];
	struct bpftune_table_desc tables[MAX_TABLES];
	struct bpftune_gauge_desc gauges[MAX_GAUGES];
	struct bpftune_telemetry_desc d = { 0 };
	struct input in = { data, size };
	char pool[4096], why[256];
	size_t used = 0;
	unsigned int i, j;
	int err;

	d.num_tables = byte(&in) % (MAX_TABLES + 1);
	d.num_gauges = byte(&in) % (MAX_GAUGES + 1);
	d.tables = tables;
	d.gauges = gauges;
	for (i = 0; i < d.num_gauges; i++) {
		gauges[i].name = name(&in, pool, &used, sizeof(pool));
		gauges[i].unit = byte(&in) & 1 ? "us" : NULL;
		gauges[i].description = byte(&in) & 7 ? "g" : NULL;
	}
	for (i = 0; i < d.num_tables; i++) {
		memset(&tables[i], 0, sizeof(tables[i]));
		tables[i].name = name(&in, pool, &used, sizeof(pool));
		tables[i].description = byte(&in) & 7 ? "t" : NULL;
		tables[i].flags = byte(&in) & 7;
		tables[i].sample = byte(&in) & 1 ? no_sample : NULL;
		tables[i].num_cols = byte(&in) % (MAX_COLS + 1);
		tables[i].cols = cols[i];
		for (j = 0; j < tables[i].num_cols; j++)
			build_col(&in, &cols[i][j], pool, &used, sizeof(pool));
	}
	err = bpftune_telemetry_check(&d, why, sizeof(why));
	if (err && (err != -EINVAL || !why[0]))
		abort();
	if (!err)
		generated(&d);
	return 0;
}
