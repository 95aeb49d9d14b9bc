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
#include <bpftune/bpftune.h>

/* Defaults of the daemon's options, also quoted by the docs. */
#define BPFTUNE_SAMPLE_INTERVAL_MS	1000
#define BPFTUNE_SAMPLE_INTERVAL_MIN_MS	10
#define BPFTUNE_SAMPLE_INTERVAL_MAX_MS	3600000
/* namespaces besides the daemon's sampled per interval, in turns */
#define BPFTUNE_SAMPLE_NETNS_DEFAULT	16
#define BPFTUNE_SAMPLE_NETNS_MAX	256
/* retention of earlier runs' files, applied at start */
#define BPFTUNE_TELEMETRY_KEEP_DEFAULT	100
#define BPFTUNE_TELEMETRY_KEEP_MAX	1000000
#define BPFTUNE_TELEMETRY_MAX_MB_DEFAULT 1024
#define BPFTUNE_TELEMETRY_MAX_MB_MAX	(1L << 30)

/* Bump when a table or column changes; stored as PRAGMA user_version. */
#define BPFTUNE_TELEMETRY_SCHEMA_VERSION	2

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
	/* not /proc: the BPF-side gauges, key "gauge.n|sum|mean|max" */
	BPFTUNE_PROC_BPF,
	/* not /proc: the netns the row describes (its cookie, 0: the daemon's) */
	BPFTUNE_PROC_NETNS,
};

enum bpftune_tcol_flags {
	BPFTUNE_TCOL_NOT_NULL	= 1 << 0,
	BPFTUNE_TCOL_COUNTER	= 1 << 1,	/* cumulative since boot */
	BPFTUNE_TCOL_GAUGE	= 1 << 2,	/* value at sample time */
	/*
	 * machine-wide although the file is per netns (or exists only in the
	 * daemon's): filled in the daemon's netns row, NULL in the others
	 */
	BPFTUNE_TCOL_GLOBAL	= 1 << 3,
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
	BPFTUNE_TT_NETNS	= 1 << 2,	/* one row per sampled netns */
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

/* Names of the BPF-side gauges (enum bpftune_gauge_id), as in column keys. */
extern const char *const bpftune_gauge_names[BPFTUNE_NUM_GAUGES];

/*
 * Look a BPFTUNE_PROC_BPF key ("tcp_srtt_us.mean") up in the gauges one
 * netns gathered over an interval (@g NULL: none).  @fed has a bit per
 * gauge some loaded tuner feeds (BPFTUNE_GAUGE_BIT()).  "n" and "sum"
 * are 0 without observations, "mean" (real) and "max" are then -ENOENT
 * (NULL), as is every aggregate of a gauge nobody feeds.  -EINVAL for
 * an unknown gauge or aggregate.
 */
int bpftune_gauge_lookup(const struct bpftune_gauges *g, uint64_t fed,
			 const char *key, struct bpftune_proc_value *v);

/* ---- retention of old run files (telemetry_retention.c) ------------------ */

enum bpftune_tfile_kind {
	BPFTUNE_TFILE_DB,	/* <YYYYMMDD>T<HHMMSS>Z-<run uuid>.db */
	BPFTUNE_TFILE_WAL,	/* the same with -wal */
	BPFTUNE_TFILE_SHM,	/* the same with -shm */
};

/* Which of our files @name is (enum bpftune_tfile_kind), or -1: not ours. */
int bpftune_telemetry_file_kind(const char *name);

/* One earlier run in the telemetry directory. */
struct bpftune_tfile {
	char name[64];		/* its .db file */
	uint64_t bytes;		/* with its -wal */
	bool in_use;		/* another process has it open: never removed */
	bool remove;		/* set by the plan */
};

/*
 * Mark the oldest runs (by name, i.e. start time) to remove until fewer
 * than @keep remain -- the new run takes the last place -- and they hold
 * at most @max_bytes.  0 means no limit.  Runs in use are never marked.
 * Sorts @files; returns how many were marked.
 */
unsigned int bpftune_telemetry_prune_plan(struct bpftune_tfile *files,
					  unsigned int n, unsigned int keep,
					  uint64_t max_bytes);

#endif /* BPFTUNE_TELEMETRY_SCHEMA_H */
