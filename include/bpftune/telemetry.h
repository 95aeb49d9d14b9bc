/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Telemetry declarations of a plugin: the tables it records and the
 * BPF-side gauges that feed them.  KernMLOps' unit of extension is ours:
 * a hook (the plugin's BPF programs), a table (declared here) and a graph
 * (the kind of each column says how `bpftune-telemetry plot` draws it).
 *
 * A plugin points ops->telemetry at one struct bpftune_telemetry_desc.
 * The daemon checks it when the plugin starts -- a bad declaration is
 * refused with a message naming the plugin, table and column, and the
 * plugin does not run -- then creates the tables in the run's SQLite
 * file, stores the declarations there too (tables telemetry_tables and
 * telemetry_columns: tools need no code to read or draw a plugin's
 * table) and writes the rows.  Every row gets run_id, host_id, seq and
 * ts_uptime_us first, like the daemon's own tables; a per-netns table
 * gets netns_cookie next.  `make docs` documents the declarations of
 * the in-tree plugins in docs/telemetry.md.
 *
 * Two ways rows are made:
 *  - per event: the plugin calls bpftune_table_row() from its event
 *    handler (or a timer), e.g. one row per truncated listen();
 *  - sampled: every --sample-interval the daemon makes one row per table
 *    (per sampled network namespace for a per-netns table).  Columns read
 *    from /proc or from the plugin's BPF gauges are filled by the daemon;
 *    a sample() callback may add the rest, and may make several rows
 *    (one per CPU, say) with bpftune_sample_row().
 *
 * Gauges: the BPF side adds observations with bpftune_gauges_get() and
 * bpftune_gauge_add() (bpftune/bpftune.bpf.h), using the plugin's own
 * gauge ids 0..num_gauges-1; each plugin has BPFTUNE_GAUGE_SLOTS of them
 * per netns.  Every interval the sampler takes (and clears) them: a
 * column reads one as the count, sum, mean or maximum over the interval.
 */
#ifndef BPFTUNE_TELEMETRY_DECL_H
#define BPFTUNE_TELEMETRY_DECL_H

#include <stddef.h>
#include <stdint.h>
#include <bpftune/bpftune.h>

struct bpftune_tuner;
struct bpftune_event;

#define BPFTUNE_TABLE_NAME_MAX		48	/* names of tables, columns, gauges */
#define BPFTUNE_PLUGIN_MAX_TABLES	16
#define BPFTUNE_SAMPLED_MAX_COLS	120	/* columns a sampled table declares */
#define BPFTUNE_EVENT_MAX_COLS		32	/* columns a per-event table declares */
#define BPFTUNE_EVENT_ROW_TEXT		384	/* bytes of text in one per-event row */

enum bpftune_col_type {
	BPFTUNE_COL_INTEGER = 1,	/* 64-bit signed */
	BPFTUNE_COL_REAL,		/* double */
	BPFTUNE_COL_TEXT,		/* UTF-8 */
};

/* What a column measures, which says how it is drawn. */
enum bpftune_col_kind {
	BPFTUNE_KIND_LABEL = 1,		/* names a thing (pid, comm): not drawn */
	BPFTUNE_KIND_COUNTER,		/* cumulative count: drawn as a rate */
	BPFTUNE_KIND_GAUGE,		/* a level at the row's time: drawn as is */
	BPFTUNE_KIND_DISTRIBUTION,	/* one observation per row: drawn as a CDF */
};

enum bpftune_col_flags {
	/* a row without it is refused (columns the plugin writes only) */
	BPFTUNE_COL_NOT_NULL	= 1 << 0,
	/*
	 * per-netns sampled tables: the same in every netns (or read from a
	 * file only the daemon's netns has): filled in its row only
	 */
	BPFTUNE_COL_MACHINE_WIDE = 1 << 1,
	/* drawn in the run's overview figure as well as the table's */
	BPFTUNE_COL_OVERVIEW	= 1 << 2,
	/* a counter or gauge not worth a graph */
	BPFTUNE_COL_NO_PLOT	= 1 << 3,
};

/* Where a column's value comes from. */
enum bpftune_col_source {
	BPFTUNE_SRC_ROW = 0,	/* the plugin's rows (bpftune_*_row()) */
	BPFTUNE_SRC_PROC,	/* a /proc file, every interval */
	BPFTUNE_SRC_GAUGE,	/* one of the plugin's BPF gauges, over the interval */
};

/* How a /proc file is laid out, i.e. how a column's key is read. */
enum bpftune_proc_format {
	BPFTUNE_PROC_SNMP = 1,	/* "Tcp: A B\nTcp: 1 2": key "Tcp.B" */
	BPFTUNE_PROC_SOCKSTAT,	/* "TCP: inuse 1 orphan 0": key "TCP.inuse" */
	BPFTUNE_PROC_KEYVAL,	/* "Name[:] v0 v1 ...": key "Name" or "Name#k" */
	BPFTUNE_PROC_PSI,	/* "some avg10=0.00 total=5": key "some.avg10" */
	BPFTUNE_PROC_STATHDR,	/* header of names, one hex row per CPU: summed */
	BPFTUNE_PROC_SOFTNET,	/* one hex row per CPU: key is the column, summed */
	BPFTUNE_PROC_NETDEV,	/* /proc/net/dev: key "rx_bytes"..., all but lo */
	BPFTUNE_PROC_LOADAVG,	/* key load1 load5 load15 runnable threads */
};

/* What a gauge column holds, over the interval since the previous row. */
enum bpftune_gauge_agg {
	BPFTUNE_GAUGE_N = 1,	/* observations (0 if none) */
	BPFTUNE_GAUGE_SUM,	/* their sum (0 if none) */
	BPFTUNE_GAUGE_MEAN,	/* their mean, REAL (NULL if none) */
	BPFTUNE_GAUGE_MAX,	/* the largest (NULL if none) */
};

struct bpftune_col_desc {
	const char *name;		/* [a-z][a-z0-9_]*, not an SQL keyword */
	enum bpftune_col_type type;
	enum bpftune_col_kind kind;
	unsigned int flags;		/* enum bpftune_col_flags */
	const char *unit;		/* "bytes", "us", "packets"...; may be NULL */
	const char *description;	/* one line, for docs/telemetry.md */
	enum bpftune_col_source source;
	struct {			/* BPFTUNE_SRC_PROC */
		const char *file;	/* "/proc/net/snmp": /proc/net/ is per netns */
		enum bpftune_proc_format format;
		const char *key;	/* "Tcp.InSegs" */
	} proc;
	struct {			/* BPFTUNE_SRC_GAUGE */
		unsigned int id;	/* index into the plugin's gauges */
		enum bpftune_gauge_agg agg;
	} gauge;
};

enum bpftune_table_flags {
	/* a row every sample interval; else rows come from bpftune_table_row() */
	BPFTUNE_TABLE_SAMPLED	= 1 << 0,
	/* netns_cookie after the common columns: the row's network namespace */
	BPFTUNE_TABLE_PER_NETNS	= 1 << 1,
};

/* A sampled table's callback context (opaque). */
struct bpftune_sample;

struct bpftune_table_desc {
	const char *name;		/* [a-z][a-z0-9_]*, unique in the run */
	const char *description;
	unsigned int flags;		/* enum bpftune_table_flags */
	const struct bpftune_col_desc *cols;
	unsigned int num_cols;
	/*
	 * Sampled tables with BPFTUNE_SRC_ROW columns: called every interval
	 * (for a per-netns table once per sampled netns, from inside it) on
	 * the telemetry thread, never at the same time as another sample
	 * callback, but at the same time as the plugin's event handlers:
	 * share state with them through atomics or a lock of your own.  It
	 * makes rows with bpftune_sample_row(); none is fine.
	 */
	void (*sample)(struct bpftune_tuner *tuner, struct bpftune_sample *s);
};

struct bpftune_gauge_desc {
	const char *name;		/* e.g. "tcp_srtt_us" */
	const char *unit;
	const char *description;	/* what one observation is */
};

/*
 * A decision policy and the inputs it looks at (see bpftune_decide_values()
 * in libbpftune.h).  Each policy gets a per-event, per-netns table of its
 * own, decisions_<plugin>_<policy> ('-' becomes '_'), with one row per
 * decision it records: decision_seq (decisions.seq), event_seq, scenario,
 * tunable and decided (its action), then one typed column per input -- a
 * decision row is a training example without parsing decisions.inputs.
 * The table is per netns (netns_cookie: the event's).  Declare the
 * inputs with BPFTUNE_COL_INT / BPFTUNE_COL_FLOAT (kind GAUGE, COUNTER
 * or LABEL) and BPFTUNE_COL_LABEL (TEXT), or for the common gauge with
 * BPFTUNE_INPUT_INT / _REAL / _TEXT; a value may be NULL (an input
 * not seen this time); plot does not draw them (the samples tables hold
 * the signals).  A plugin that declares policies also gets the
 * core's "admin-policy" table: the config file holding a tunable back.
 */
struct bpftune_outcome_desc;

struct bpftune_policy_desc {
	const char *name;		/* [a-z][a-z0-9-]*: "grow-near-limit" */
	const char *description;	/* one line, for docs/telemetry.md */
	const struct bpftune_col_desc *inputs;
	unsigned int num_inputs;	/* at most BPFTUNE_POLICY_MAX_INPUTS */
	/* its actions, horizon and reward (BPFTUNE_POLICY_OUTCOME); or NULL */
	const struct bpftune_outcome_desc *outcome;
};

/*
 * What came of a policy's decisions.  Each policy with one gets a
 * per-netns table outcomes_<plugin>_<policy>, one row per decision it
 * records (applied or, with --observe, not), linked by decision_seq and
 * written by the library @horizon_s seconds after the decision: the
 * propensity of the chosen action, then for each reward input its value
 * before and after, then the reward.
 *
 * A reward input is either
 *  - a /proc column (BPFTUNE_REWARD_PROC_COUNTER/GAUGE): the library reads
 *    it in the decision's netns when the decision is made and again at
 *    the horizon.  A GAUGE's before/after are its two readings.  A
 *    COUNTER's after is its rate (per second) over the horizon, its
 *    before the rate over the window ending at the decision, since the
 *    previous reading for the same policy and netns (NULL for the first);
 *  - one of the plugin's own gauges (BPFTUNE_REWARD_GAUGE, by gauge id):
 *    the mean of its observations in the decision's netns over the
 *    horizon before the decision (its before) and over the horizon after
 *    it (its after), from what the sampler takes every --sample-interval:
 *    a take's observations count in the window its time falls in (so a
 *    window's edges are as fine as the interval, and a netns the sampler
 *    visits less often has coarser ones).  NULL for a window without an
 *    observation, or one the library's history of takes no longer
 *    reaches back to (counted, logged at exit); never 0 in their stead.
 *    A policy with one needs a horizon and the daemon sampling;
 *  - one of the decision's own inputs (BPFTUNE_REWARD_INPUT, by name, an
 *    INTEGER or REAL one): a policy that decides when the outcome is
 *    known (a connection's at its end) has horizon 0, its after is the
 *    input and its before NULL, or the input named by ref
 *    (BPFTUNE_REWARD_INPUT_REF).
 * The reward is the weighted mean of one term per input:
 *   with a before:  w * (after - before) / max(|after|, |before|, 1)
 *                   (in [-|w|, |w|] for values of one sign)
 *   input, no ref:  w * after
 * divided by the sum of |w|; NULL if a term is.  A positive weight is a
 * quantity more of which is better (throughput), a negative one a cost.
 */
struct bpftune_reward_input {
	struct bpftune_col_desc col;	/* name; /proc or gauge source, or an input's name */
	double weight;			/* non-zero */
	/*
	 * a decision input only: another input of the policy read as its
	 * before (srtt_us against min_rtt_us), making its term relative
	 * like a /proc one's; NULL: before is NULL, the term w * after
	 */
	const char *ref;
};

#define BPFTUNE_OUTCOME_MAX_ACTIONS	16
#define BPFTUNE_OUTCOME_MAX_REWARD	8
#define BPFTUNE_OUTCOME_MAX_HORIZON_S	600

struct bpftune_outcome_desc {
	/* every action the policy can record as decided ("none" included) */
	const char *const *actions;
	unsigned int num_actions;
	unsigned int horizon_s;		/* 0: the reward is in the decision */
	const struct bpftune_reward_input *reward;
	unsigned int num_reward;	/* 1..BPFTUNE_OUTCOME_MAX_REWARD */
	const char *reward_doc;		/* the reward in words, for the docs */
	/*
	 * 0: deterministic (propensity 1).  K > 0: epsilon-greedy exploring
	 * uniformly among K choices: the chosen action's propensity is
	 * 1 - epsilon + epsilon / K when greedy, epsilon / K when explored
	 * (bpftune_decision's epsilon and explored), unless the decision
	 * gives its own (struct bpftune_decision.propensity).
	 */
	unsigned int explore_choices;
};

#define BPFTUNE_PLUGIN_MAX_POLICIES	15
/* decision_seq, event_seq, scenario, tunable, decided come first */
#define BPFTUNE_POLICY_CONTEXT_COLS	5
#define BPFTUNE_POLICY_MAX_INPUTS	(BPFTUNE_EVENT_MAX_COLS - BPFTUNE_POLICY_CONTEXT_COLS)

#define BPFTUNE_POLICY(n, d, in)					\
	{ .name = (n), .description = (d), .inputs = (in),		\
	  .num_inputs = sizeof(in) / sizeof((in)[0]) }
/* a policy with its outcome: BPFTUNE_OUTCOME() below */
#define BPFTUNE_POLICY_OUTCOME(n, d, in, oc)				\
	{ .name = (n), .description = (d), .inputs = (in),		\
	  .num_inputs = sizeof(in) / sizeof((in)[0]), .outcome = (oc) }
#define BPFTUNE_OUTCOME(acts, horizon, rew, doc)			\
	{ .actions = (acts), .num_actions = sizeof(acts) / sizeof((acts)[0]), \
	  .horizon_s = (horizon), .reward = (rew),			\
	  .num_reward = sizeof(rew) / sizeof((rew)[0]), .reward_doc = (doc) }
/* reward inputs: weight w (> 0 more is better, < 0 a cost) */
#define BPFTUNE_REWARD_PROC_COUNTER(n, w, fl, u, f, fmt, k, d)		\
	{ .col = BPFTUNE_COL_PROC_(n, BPFTUNE_COL_REAL, BPFTUNE_KIND_COUNTER, \
				   fl, u, f, BPFTUNE_PROC_##fmt, k, d), .weight = (w) }
#define BPFTUNE_REWARD_PROC_GAUGE(n, w, fl, u, f, fmt, k, d)		\
	{ .col = BPFTUNE_COL_PROC_(n, BPFTUNE_COL_REAL, BPFTUNE_KIND_GAUGE, \
				   fl, u, f, BPFTUNE_PROC_##fmt, k, d), .weight = (w) }
/* the mean of gauge gid (< num_gauges) over each window, e.g. an RTT */
#define BPFTUNE_REWARD_GAUGE(n, w, gid, u, d)				\
	{ .col = BPFTUNE_COL_GAUGE(n, gid, MEAN, 0, u, d), .weight = (w) }
#define BPFTUNE_REWARD_INPUT(n, w, u, d)				\
	{ .col = BPFTUNE_COL(n, BPFTUNE_COL_REAL, BPFTUNE_KIND_GAUGE, 0, u, d), \
	  .weight = (w) }
#define BPFTUNE_REWARD_INPUT_REF(n, ref_, w, u, d)			\
	{ .col = BPFTUNE_COL(n, BPFTUNE_COL_REAL, BPFTUNE_KIND_GAUGE, 0, u, d), \
	  .weight = (w), .ref = (ref_) }

/* ops->telemetry */
struct bpftune_telemetry_desc {
	const struct bpftune_table_desc *tables;
	unsigned int num_tables;
	/* index = the id the BPF side passes to bpftune_gauge_add() */
	const struct bpftune_gauge_desc *gauges;
	unsigned int num_gauges;	/* at most BPFTUNE_GAUGE_SLOTS */
	/* the decision policies it records with bpftune_decide_values() */
	const struct bpftune_policy_desc *policies;
	unsigned int num_policies;	/* at most BPFTUNE_PLUGIN_MAX_POLICIES */
};

/* ---- declaring columns ------------------------------------------------ */

#define BPFTUNE_COL(n, t, k, fl, u, d)					\
	{ .name = (n), .type = (t), .kind = (k), .flags = (fl),		\
	  .unit = (u), .description = (d) }
/* written by the plugin's rows */
#define BPFTUNE_COL_INT(n, kind, unit, d)				\
	BPFTUNE_COL(n, BPFTUNE_COL_INTEGER, BPFTUNE_KIND_##kind, 0, unit, d)
#define BPFTUNE_COL_FLOAT(n, kind, unit, d)				\
	BPFTUNE_COL(n, BPFTUNE_COL_REAL, BPFTUNE_KIND_##kind, 0, unit, d)
#define BPFTUNE_COL_LABEL(n, d)						\
	BPFTUNE_COL(n, BPFTUNE_COL_TEXT, BPFTUNE_KIND_LABEL, 0, NULL, d)
/* a decision policy's inputs (BPFTUNE_POLICY): what it saw, as gauges */
#define BPFTUNE_INPUT_INT(n, unit, d)	BPFTUNE_COL_INT(n, GAUGE, unit, d)
#define BPFTUNE_INPUT_REAL(n, unit, d)	BPFTUNE_COL_FLOAT(n, GAUGE, unit, d)
#define BPFTUNE_INPUT_TEXT(n, d)	BPFTUNE_COL_LABEL(n, d)
/*
 * Read from /proc every interval: kind COUNTER or GAUGE, fmt one of
 * SNMP, SOCKSTAT, KEYVAL, PSI, STATHDR, SOFTNET, NETDEV, LOADAVG.
 */
#define BPFTUNE_COL_PROC_(n, t, kindv, fl, u, f, fmtv, k, d)		\
	{ .name = (n), .type = (t), .kind = (kindv),			\
	  .flags = (fl), .unit = (u), .description = (d),		\
	  .source = BPFTUNE_SRC_PROC,					\
	  .proc = { .file = (f), .format = (fmtv), .key = (k) } }
#define BPFTUNE_COL_PROC(n, t, kind, fl, u, f, fmt, k, d)		\
	BPFTUNE_COL_PROC_(n, t, BPFTUNE_KIND_##kind, fl, u, f,		\
			  BPFTUNE_PROC_##fmt, k, d)
#define BPFTUNE_COL_PROC_COUNTER(n, fl, u, f, fmt, k, d)		\
	BPFTUNE_COL_PROC_(n, BPFTUNE_COL_INTEGER, BPFTUNE_KIND_COUNTER,	\
			  fl, u, f, BPFTUNE_PROC_##fmt, k, d)
#define BPFTUNE_COL_PROC_GAUGE(n, fl, u, f, fmt, k, d)			\
	BPFTUNE_COL_PROC_(n, BPFTUNE_COL_INTEGER, BPFTUNE_KIND_GAUGE,	\
			  fl, u, f, BPFTUNE_PROC_##fmt, k, d)
#define BPFTUNE_COL_PROC_REAL(n, fl, u, f, fmt, k, d)			\
	BPFTUNE_COL_PROC_(n, BPFTUNE_COL_REAL, BPFTUNE_KIND_GAUGE,	\
			  fl, u, f, BPFTUNE_PROC_##fmt, k, d)
/* one of the plugin's gauges over the interval: agg N, SUM, MEAN, MAX */
#define BPFTUNE_COL_GAUGE(n, gid, agg_, fl, u, d)			\
	{ .name = (n),							\
	  .type = BPFTUNE_GAUGE_##agg_ == BPFTUNE_GAUGE_MEAN ?		\
		  BPFTUNE_COL_REAL : BPFTUNE_COL_INTEGER,		\
	  .kind = BPFTUNE_KIND_GAUGE, .flags = (fl), .unit = (u),	\
	  .description = (d), .source = BPFTUNE_SRC_GAUGE,		\
	  .gauge = { .id = (gid), .agg = BPFTUNE_GAUGE_##agg_ } }

#define BPFTUNE_TELEMETRY_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* ---- writing rows ----------------------------------------------------- */


/* One value of a row; type 0 is NULL. */
struct bpftune_value {
	enum bpftune_col_type type;
	union {
		int64_t i;
		double d;
		const char *s;		/* copied: need not outlive the call */
	};
};

#define BPFTUNE_VALUE_NULL	((struct bpftune_value){ .type = 0 })
#define BPFTUNE_VALUE_INT(v)	((struct bpftune_value){ .type = BPFTUNE_COL_INTEGER, .i = (v) })
#define BPFTUNE_VALUE_REAL(v)	((struct bpftune_value){ .type = BPFTUNE_COL_REAL, .d = (v) })
#define BPFTUNE_VALUE_TEXT(v)	((struct bpftune_value){ .type = BPFTUNE_COL_TEXT, .s = (v) })

#pragma GCC visibility push(default)

/*
 * Rows the writer's queue can take now without dropping one (shared by
 * every plugin and the daemon's own tables).  A high-rate collector
 * stops producing while it is low and goes on later, leaving its events
 * in its own buffer rather than losing them here.
 */
unsigned int bpftune_table_room(void);

/*
 * A row of per-event table @table (index into the plugin's tables) with
 * @values for its declared columns, in order.  Call it from the daemon's
 * thread (event handlers, timers, init).  ts_uptime_us is the event's
 * time (now without an event), netns_cookie the event's netns (0: the
 * daemon's).  An INTEGER value is accepted for a REAL column; a NULL
 * TEXT pointer is NULL.  Never blocks: with the writer's queue full the
 * row is dropped and counted (health.rows_dropped, a gap in seq).
 * Returns 0 (written, or telemetry is off), -EINVAL for a row that does
 * not match the declaration (logged once per table), -ENOBUFS if dropped.
 */
int bpftune_table_row(struct bpftune_tuner *tuner, unsigned int table,
		      const struct bpftune_event *event,
		      const struct bpftune_value *values,
		      unsigned int num_values);

/*
 * From a sample() callback: one row with @values for the table's
 * BPFTUNE_SRC_ROW columns, in order; the daemon fills the /proc and
 * gauge columns.  0, or -EINVAL as above.
 */
int bpftune_sample_row(struct bpftune_sample *s,
		       const struct bpftune_value *values,
		       unsigned int num_values);

/* The network namespace a sample() call is for; 0 is the daemon's. */
uint64_t bpftune_sample_netns_cookie(const struct bpftune_sample *s);

#pragma GCC visibility pop

#endif /* BPFTUNE_TELEMETRY_DECL_H */
