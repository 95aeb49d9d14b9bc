/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Telemetry tables, declared once: the descriptor table in
 * telemetry_schema.c is the single source of the SQLite DDL, of the
 * INSERT statements the writer prepares, of the periodic samplers (each
 * sample column names the /proc file and key it comes from) and of
 * docs/telemetry.md.  Pure code: no SQLite, no daemon state, so the unit
 * tests and the docs generator link it on its own.
 */
#ifndef BPFTUNE_TELEMETRY_SCHEMA_H
#define BPFTUNE_TELEMETRY_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Bump when a table or column changes; stored as PRAGMA user_version. */
#define BPFTUNE_TELEMETRY_SCHEMA_VERSION	1

enum bpftune_tcol_type {
	BPFTUNE_TCOL_INTEGER,
	BPFTUNE_TCOL_REAL,
	BPFTUNE_TCOL_TEXT,
};

/* How a /proc file is laid out, i.e. how a sample column's key is read. */
enum bpftune_proc_fmt {
	BPFTUNE_PROC_NONE,
	BPFTUNE_PROC_SNMP,	/* "Tcp: A B\nTcp: 1 2": key "Tcp.B" */
	BPFTUNE_PROC_SOCKSTAT,	/* "TCP: inuse 1 orphan 0": key "TCP.inuse" */
	BPFTUNE_PROC_KEYVAL,	/* "Name[:] v0 v1 ...": key "Name" or "Name#k" */
	BPFTUNE_PROC_PSI,	/* "some avg10=0.00 total=5": key "some.avg10" */
	BPFTUNE_PROC_STATHDR,	/* header of names, one hex row per CPU: summed */
	BPFTUNE_PROC_SOFTNET,	/* one hex row per CPU: key is the column, summed */
	BPFTUNE_PROC_NETDEV,	/* /proc/net/dev: key "rx_bytes"..., all but lo */
	BPFTUNE_PROC_LOADAVG,	/* key load1 load5 load15 runnable threads */
};

enum bpftune_tcol_flags {
	BPFTUNE_TCOL_NOT_NULL	= 1 << 0,
	BPFTUNE_TCOL_COUNTER	= 1 << 1,	/* cumulative since boot */
	BPFTUNE_TCOL_GAUGE	= 1 << 2,	/* value at sample time */
};

struct bpftune_tcol {
	const char *name;
	enum bpftune_tcol_type type;
	unsigned int flags;
	const char *doc;
	/* sample columns only: where the value is read from */
	const char *file;
	enum bpftune_proc_fmt fmt;
	const char *key;
};

enum bpftune_ttable_flags {
	BPFTUNE_TT_COMMON	= 1 << 0,	/* run_id, host_id, seq, ts_uptime_us */
	BPFTUNE_TT_SAMPLES	= 1 << 1,	/* filled by the periodic sampler */
};

struct bpftune_ttable {
	const char *name;
	unsigned int flags;
	const char *doc;
	const struct bpftune_tcol *cols;
	unsigned int num_cols;
};

/* Index of every table, in the descriptor's order. */
enum bpftune_table_id {
	BPFTUNE_T_META,
	BPFTUNE_T_RUNS,
	BPFTUNE_T_TUNERS,
	BPFTUNE_T_TUNABLES,
	BPFTUNE_T_STATES,
	BPFTUNE_T_EVENTS,
	BPFTUNE_T_DECISIONS,
	BPFTUNE_T_CHANGES,
	BPFTUNE_T_SAMPLES_TCP,
	BPFTUNE_T_SAMPLES_UDP,
	BPFTUNE_T_SAMPLES_NEIGH,
	BPFTUNE_T_SAMPLES_NETDEV,
	BPFTUNE_T_SAMPLES_FRAG,
	BPFTUNE_T_SAMPLES_SYSTEM,
	BPFTUNE_T_HEALTH,
	BPFTUNE_T_MAX,
};

extern const struct bpftune_ttable bpftune_telemetry_tables[BPFTUNE_T_MAX];
/* the columns BPFTUNE_TT_COMMON puts first in a table */
extern const struct bpftune_tcol bpftune_telemetry_common_cols[];
extern const unsigned int bpftune_telemetry_num_common_cols;

const char *bpftune_tcol_type_name(enum bpftune_tcol_type type);
/* all columns of a table, common ones first: NULL past the end */
const struct bpftune_tcol *bpftune_ttable_col(const struct bpftune_ttable *t,
					      unsigned int i);
unsigned int bpftune_ttable_num_cols(const struct bpftune_ttable *t);

/*
 * "CREATE TABLE IF NOT EXISTS ..." and "INSERT INTO ... VALUES (?, ...)"
 * for a table.  Return the length written, or -ENOSPC/-EINVAL.
 */
int bpftune_telemetry_ddl(const struct bpftune_ttable *t, char *buf,
			  size_t len);
int bpftune_telemetry_insert_sql(const struct bpftune_ttable *t, char *buf,
				 size_t len);
/* docs/telemetry.md; 0 or -EIO */
int bpftune_telemetry_write_markdown(FILE *f);
/* every table's DDL, one statement per line; 0 or -EIO */
int bpftune_telemetry_write_sql(FILE *f);

/* ---- /proc parsers (telemetry_proc.c) ---------------------------------- */

struct bpftune_proc_value {
	bool real;
	int64_t i;
	double d;
};

/*
 * Look @key up in @text, the NUL-terminated contents of a /proc file laid
 * out as @fmt.  0 with @v filled in, -ENOENT if the file has no such key,
 * -EINVAL for a malformed key or value.
 */
int bpftune_proc_lookup(enum bpftune_proc_fmt fmt, const char *text,
			const char *key, struct bpftune_proc_value *v);

#endif /* BPFTUNE_TELEMETRY_SCHEMA_H */
