/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Telemetry tables, declared once.  The daemon's own tables
 * (schema_core.c) and every plugin's (its ops->telemetry) use the same
 * declaration types, bpftune/telemetry.h.  From a declaration come the
 * SQLite DDL, the INSERT statements the writer prepares, what the
 * sampler reads from /proc and from the BPF gauges, the declaration rows
 * stored in each run file (telemetry_tables, telemetry_columns) and
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
#include <bpftune/telemetry.h>

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
/* rows waiting for the writer at most */
#define BPFTUNE_TELEMETRY_QUEUE_SLOTS	4096
/* tables of one run: the core's and every plugin's */
#define BPFTUNE_TELEMETRY_MAX_TABLES	128

/* Bump when a table or column changes; stored as PRAGMA user_version. */
#define BPFTUNE_TELEMETRY_SCHEMA_VERSION	4

/* Core tables only: meta has no run_id, host_id, seq, ts_uptime_us. */
#define BPFTUNE_TABLE_NO_COMMON		(1u << 16)
#define BPFTUNE_TABLE_PLUGIN_FLAGS	(BPFTUNE_TABLE_SAMPLED | BPFTUNE_TABLE_PER_NETNS)
#define BPFTUNE_COL_PLUGIN_FLAGS	(BPFTUNE_COL_NOT_NULL | BPFTUNE_COL_MACHINE_WIDE | \
					 BPFTUNE_COL_OVERVIEW | BPFTUNE_COL_NO_PLOT)
#define BPFTUNE_NUM_COMMON_COLS		4

/* The core's tables, in the order they are created and documented. */
enum bpftune_table_id {
	BPFTUNE_T_META,
	BPFTUNE_T_RUNS,
	BPFTUNE_T_TUNERS,
	BPFTUNE_T_TUNABLES,
	BPFTUNE_T_STATES,
	BPFTUNE_T_EVENTS,
	BPFTUNE_T_DECISIONS,
	BPFTUNE_T_CHANGES,
	BPFTUNE_T_TABLES,
	BPFTUNE_T_COLUMNS,
	BPFTUNE_T_SAMPLES_SYSTEM,
	BPFTUNE_T_HEALTH,
	BPFTUNE_T_GATES,
	BPFTUNE_T_MAX,
};

extern const struct bpftune_table_desc bpftune_core_tables[BPFTUNE_T_MAX];
/* run_id, host_id, seq, ts_uptime_us: first in every table but meta */
extern const struct bpftune_col_desc bpftune_common_cols[BPFTUNE_NUM_COMMON_COLS];
/* what a per-netns table gets after them */
extern const struct bpftune_col_desc bpftune_netns_cookie_col;

/* A plugin whose declarations the docs and --sql/--json document. */
struct bpftune_declarer {
	const char *name;		/* the plugin's name */
	const struct bpftune_telemetry_desc *desc;
};

/* ---- a table's columns (schema_sql.c) ------------------------------------ */

/* Every column of a table: common ones, netns_cookie, then the declared. */
unsigned int bpftune_table_num_cols(const struct bpftune_table_desc *t);
/* Column @i of that list, NULL past the end. */
const struct bpftune_col_desc *bpftune_table_col(const struct bpftune_table_desc *t,
						 unsigned int i);
/* Index in that list of the first declared column. */
unsigned int bpftune_table_first_declared(const struct bpftune_table_desc *t);

const char *bpftune_col_type_name(enum bpftune_col_type type);
/* "label", "counter", "gauge", "distribution"; "" for a core record column */
const char *bpftune_col_kind_name(enum bpftune_col_kind kind);
/* how a column is drawn: "rate", "value", "cdf", or NULL (not drawn) */
const char *bpftune_col_draw(const struct bpftune_col_desc *c);
/*
 * Where a column comes from, for the docs and telemetry_columns.source:
 * "/proc/net/snmp Tcp.InSegs", "BPF gauge tcp_srtt_us, mean", "row".
 */
void bpftune_col_source(const struct bpftune_col_desc *c,
			const struct bpftune_telemetry_desc *owner,
			char *buf, size_t len);

/* [a-z][a-z0-9_]*, at most BPFTUNE_TABLE_NAME_MAX bytes */
bool bpftune_telemetry_ident_ok(const char *s);
/* an SQL keyword (SQLite's list) or one of its row-id names */
bool bpftune_telemetry_sql_keyword(const char *s);

/*
 * "CREATE TABLE IF NOT EXISTS ..." and "INSERT INTO ... VALUES (?, ...)"
 * for a table.  Return the length written, or -ENOSPC/-EINVAL.
 */
int bpftune_telemetry_ddl(const struct bpftune_table_desc *t, char *buf,
			  size_t len);
int bpftune_telemetry_insert_sql(const struct bpftune_table_desc *t, char *buf,
				 size_t len);

/* ---- checking a plugin's declaration (schema_check.c) -------------------- */

/*
 * 0 if @d is a valid declaration, else -EINVAL with what is wrong in
 * @why: "table 'x' column 'y': unknown type 9 (INTEGER, REAL or TEXT)".
 * Names clashing with the core's tables are refused here; clashes with
 * other plugins' are the registry's to find.
 */
int bpftune_telemetry_check(const struct bpftune_telemetry_desc *d,
			    char *why, size_t len);
/* a /proc column's file, format, key, kind and type; 0 or -EINVAL */
int bpftune_telemetry_proc_check(const struct bpftune_col_desc *c, char *why, size_t len);
/* one of the core's table names, or sqlite_* */
bool bpftune_telemetry_core_name(const char *name);
/*
 * A row's values for a table's BPFTUNE_SRC_ROW columns, in order: as many
 * as there are, each NULL (but in a NOT NULL column) or of the column's
 * type (INTEGER also for REAL).  0, or -EINVAL with what is wrong.
 */
int bpftune_telemetry_row_check(const struct bpftune_table_desc *t,
				const struct bpftune_value *values,
				unsigned int num_values, char *why, size_t len);

/* ---- decision policies as tables (schema_policy.c) ------------------------ */

/* A policy's table: decisions_<plugin>_<policy>, context columns, inputs. */
struct bpftune_policy_table {
	struct bpftune_table_desc t;
	struct bpftune_col_desc cols[BPFTUNE_EVENT_MAX_COLS];
	char name[BPFTUNE_TABLE_NAME_MAX + 1];
	char description[320];
};

/* the core's "admin-policy", which every plugin with policies records */
extern const struct bpftune_policy_desc bpftune_admin_policy;

/* ---- policies' outcomes as tables (schema_outcome.c) ---------------------- */

/* decision_seq, decided, propensity, observed, horizon_ms, after_ms, before_ms */
#define BPFTUNE_OUTCOME_CONTEXT_COLS	7

/* A policy's outcome table: outcomes_<plugin>_<policy>. */
struct bpftune_outcome_table {
	struct bpftune_table_desc t;
	struct bpftune_col_desc cols[BPFTUNE_OUTCOME_CONTEXT_COLS +
				     2 * BPFTUNE_OUTCOME_MAX_REWARD + 1];
	char col_names[2 * BPFTUNE_OUTCOME_MAX_REWARD][BPFTUNE_TABLE_NAME_MAX + 1];
	char col_descs[2 * BPFTUNE_OUTCOME_MAX_REWARD][256];
	char name[BPFTUNE_TABLE_NAME_MAX + 1];
	char description[640];
};

/* a reward input's readings: before (at the decision) and after */
struct bpftune_outcome_reading {
	double before[BPFTUNE_OUTCOME_MAX_REWARD], after[BPFTUNE_OUTCOME_MAX_REWARD];
	bool has_before[BPFTUNE_OUTCOME_MAX_REWARD], has_after[BPFTUNE_OUTCOME_MAX_REWARD];
};

/* 0 (none declared, or a valid one), or -EINVAL with why */
int bpftune_outcome_check(const struct bpftune_policy_desc *p, char *why, size_t len);
/* @p's outcome table; -EINVAL if it declares none or a bad one */
int bpftune_outcome_table(const char *plugin, const struct bpftune_policy_desc *p,
			  struct bpftune_outcome_table *out);
/* a counter's rate per second from @v0 to @v1 over @dt_us; -ERANGE if none */
int bpftune_outcome_rate(double v0, double v1, uint64_t dt_us, double *rate);
/* the reward (telemetry.h) of @r; -ENODATA if a term is missing */
int bpftune_outcome_reward(const struct bpftune_outcome_desc *o,
			   const struct bpftune_outcome_reading *r, double *reward);
/* the chosen action's propensity: @given if in (0, 1], else declared */
double bpftune_outcome_propensity(const struct bpftune_outcome_desc *o,
				  double given, double epsilon, int explored);

#define BPFTUNE_X_MAX_POLICIES	(BPFTUNE_PLUGIN_MAX_POLICIES + 1)
#define BPFTUNE_X_MAX_TABLES	(BPFTUNE_PLUGIN_MAX_TABLES + 2 * BPFTUNE_X_MAX_POLICIES)

/*
 * A plugin's declaration with its policies' tables: d.tables holds its own
 * tables (same indexes), then one per policy in bpftune_policy_at() order,
 * then one per policy that declares an outcome (outcome_table[k]: its
 * index in d.tables, or -1).
 */
struct bpftune_telemetry_x {
	struct bpftune_telemetry_desc d;
	unsigned int num_plugin_tables;
	struct bpftune_table_desc tables[BPFTUNE_X_MAX_TABLES];
	struct bpftune_policy_table policy[BPFTUNE_X_MAX_POLICIES];
	struct bpftune_outcome_table outcome[BPFTUNE_X_MAX_POLICIES];
	int outcome_table[BPFTUNE_X_MAX_POLICIES];
};

/* 0, or -EINVAL with why: a policy's name, description or input count */
int bpftune_policy_name_check(const struct bpftune_policy_desc *p, char *why,
			      size_t len);
/*
 * A policy's table "<kind>_<plugin>_<policy>" (kind "decisions" or
 * "outcomes") with '-' as '_'; -ENAMETOOLONG over 48 bytes, never cut
 */
int bpftune_policy_table_name(const char *kind, const char *plugin,
			      const char *policy, char *buf, size_t len);
/* policy @k: the plugin's own, then admin-policy (if it has any); NULL past */
const struct bpftune_policy_desc *bpftune_policy_at(const struct bpftune_telemetry_desc *d,
						    unsigned int k);
/* @name's k for bpftune_policy_at(), or -ENOENT */
int bpftune_policy_index(const struct bpftune_telemetry_desc *d, const char *name);
/* @p's table for @plugin; 0 or -EINVAL */
int bpftune_policy_table(const char *plugin, const struct bpftune_policy_desc *p,
			 struct bpftune_policy_table *out);
/*
 * @x from @d (NULL: no tables) for @plugin.  Checks only the policies'
 * names and table names: bpftune_telemetry_check() the rest.  0 or -EINVAL.
 */
int bpftune_telemetry_expand(const char *plugin, const struct bpftune_telemetry_desc *d,
			     struct bpftune_telemetry_x *x, char *why, size_t len);
/*
 * decisions.inputs made from typed values: "name=value ..." in declared
 * order, NULLs left out.  0, or -ENOSPC (truncated, still terminated).
 */
int bpftune_policy_inputs_text(const struct bpftune_policy_desc *p,
			       const struct bpftune_value *v, unsigned int n,
			       char *buf, size_t len);

/* ---- documents (schema_doc.c) -------------------------------------------- */

/* docs/telemetry.md; 0 or -EIO */
int bpftune_telemetry_write_markdown(FILE *f, const struct bpftune_declarer *p,
				     unsigned int n);
/* every table's DDL, one statement per line; 0, -EINVAL or -EIO */
int bpftune_telemetry_write_sql(FILE *f, const struct bpftune_declarer *p,
				unsigned int n);
/* every declaration as JSON (as telemetry_tables/columns hold them) */
int bpftune_telemetry_write_json(FILE *f, const struct bpftune_declarer *p,
				 unsigned int n);

/* ---- /proc parsers and gauges (telemetry_proc.c) ------------------------- */

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
int bpftune_proc_lookup(enum bpftune_proc_format fmt, const char *text,
			const char *key, struct bpftune_proc_value *v);

/*
 * One aggregate of a gauge over an interval (@g NULL: no observation).
 * "n" and "sum" are then 0, "mean" (real) and "max" -ENOENT (NULL).
 * -EINVAL for an unknown aggregate.
 */
int bpftune_gauge_value(const struct bpftune_gauge *g, enum bpftune_gauge_agg agg,
			struct bpftune_proc_value *v);

/* The tuner kit's files (<bpftune/proc.h>); the same parsers' family. */
/* /proc/net/protocols: memory (pages) and pressure of @proto; -ENOENT */
int bpftune_protocols_parse(const char *text, const char *proto, long *pages,
			    bool *pressure);
/* /proc/schedstat: run delay (ns) summed over the cpuN lines; -ENOENT */
int bpftune_schedstat_wait(const char *text, double *total);
/*
 * Per-CPU rows of /proc/net/softnet_stat (hex columns): column @col of
 * each row into values[i] and the row's CPU into cpus[i], for at most @max
 * rows.  The CPU is column 12 when present (kernels >= 5.10 list only
 * online CPUs, so row i is not always CPU i), else the row's position.
 * Returns the number of rows read, or -EINVAL (a row without @col, a
 * value that is not hex).  The sum over CPUs: bpftune_proc_lookup().
 */
int bpftune_softnet_rows(const char *text, unsigned int col, uint64_t *values,
			 unsigned int *cpus, unsigned int max);

/* ---- a gauge over a window of time (gauge_window.c) ----------------------- */

/* one take of the sampler: a plugin's gauges in a netns since the last */
struct bpftune_gauge_take {
	uint64_t cookie, ts_us;		/* the netns (its real cookie), when */
	uint32_t tuner_id;
	uint64_t n[BPFTUNE_GAUGE_SLOTS], sum[BPFTUNE_GAUGE_SLOTS];
};

/* the latest @cap takes, the oldest replaced; storage is the caller's */
struct bpftune_gauge_history {
	struct bpftune_gauge_take *e;
	unsigned int cap, next, count;
	uint64_t lost_ts_us;		/* the latest time of a take replaced */
};

void bpftune_gauge_history_init(struct bpftune_gauge_history *h,
				struct bpftune_gauge_take *storage, unsigned int cap);
void bpftune_gauge_history_add(struct bpftune_gauge_history *h, uint64_t cookie,
			       uint32_t tuner_id, uint64_t ts_us,
			       const struct bpftune_gauges *g);
/*
 * The mean of gauge @gauge's observations in takes of (@cookie,
 * @tuner_id) timed in (@from_us, @to_us]; their number in *@n_out (may be
 * NULL).  0, -ENODATA without an observation, -ERANGE if takes from the
 * window may have been replaced, -EINVAL for a bad gauge or window.
 */
int bpftune_gauge_window_mean(const struct bpftune_gauge_history *h, uint64_t cookie,
			      uint32_t tuner_id, unsigned int gauge, uint64_t from_us,
			      uint64_t to_us, double *mean, uint64_t *n_out);

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
