/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * State shared by the telemetry modules (not by the rest of the daemon):
 *
 *   observe.c   the producer: the daemon's thread turns what it observes
 *               into rows (events, decisions, changes, states, tuners)
 *   registry.c  every table of the run, the core's and the plugins':
 *               declarations checked, copied, activated and retired;
 *               bpftune_table_row()
 *   queue.c     the bounded single-producer ring between the two threads
 *   bind.c      SQLite: tables created, rows bound checked against their
 *               declaration
 *   sampler.c   /proc and the BPF gauges every interval; sample callbacks
 *   sample_netns.c  the network namespaces the sampler enters
 *   writer.c    the writer thread: its timer, flushes, health rows
 *   rows.c      binding each kind of queued row
 *   runfile.c   the run's file: created, started, closed
 *   prune.c     retention of earlier runs' files
 *
 * Two threads.  The daemon's (main) thread produces rows and registers
 * plugins; the writer thread owns SQLite, the sample timer and the
 * sampler.  tm_reg_lock protects the registry's states against the
 * writer, which holds it while it flushes; the main thread takes it only
 * to register or retire a plugin's tables (rare), never on the event path.
 */
#ifndef BPFTUNE_TELEMETRY_TM_H
#define BPFTUNE_TELEMETRY_TM_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sqlite3.h>

#include "core/internal.h"
#include "telemetry/telemetry.h"
#include "telemetry/telemetry_schema.h"

#define TM_NAME_LEN	32
#define TM_LABEL_LEN	64
#define TM_NETNS_LEN	96
#define TM_TEXT_LEN	256
#define TM_NO_TUNER	UINT32_MAX	/* a rollback of a sysctl no tuner loaded manages */

/* ---- rows in the queue ---------------------------------------------------- */

enum row_kind {
	ROW_TUNER, ROW_TUNABLE, ROW_STATE, ROW_EVENT, ROW_DECISION, ROW_CHANGE,
	ROW_PLUGIN, ROW_GATE,
};

struct row_tuner {
	char description[TM_TEXT_LEN];
	char file[TM_TEXT_LEN];
	char scenarios[TM_TEXT_LEN];
	unsigned int num_tunables;
};

struct row_tunable {
	char tunable[TM_LABEL_LEN];
	char cap_reason[TM_TEXT_LEN];
	unsigned int index, num_values;
	bool namespaced;
	long min, max;
	int read_err;
	long initial[BPFTUNE_MAX_VALUES];
};

struct row_state {
	char netns[TM_NETNS_LEN];
	char state[8];
	char cause[TM_TEXT_LEN];
	uint64_t cookie;
};

struct row_event {
	char scenario[TM_LABEL_LEN];
	char comm[BPFTUNE_COMM_LEN + 1];
	uint64_t cookie;
	uint32_t scenario_id, pid, payload_len;
	uint8_t payload[BPFTUNE_PAYLOAD_LEN];
};

struct row_decision {
	uint64_t event_seq;		/* 0: none */
	uint64_t cookie;
	bool has_event;
	unsigned int scenario_id;
	int tunable_index;		/* -1: none */
	int explored;
	double epsilon;
	char scenario[TM_LABEL_LEN];
	char tunable[TM_LABEL_LEN];
	char policy[TM_LABEL_LEN];
	char action[TM_LABEL_LEN];
	char inputs[TM_TEXT_LEN];
};

struct row_change {
	uint64_t decision_seq, event_seq;	/* 0: none */
	uint64_t cookie;
	int scenario_id;		/* -1: rollback */
	unsigned int tunable_index, n;
	int err;
	bool has_old, applied, rollback;
	long old[BPFTUNE_MAX_VALUES], new[BPFTUNE_MAX_VALUES];
	char scenario[TM_LABEL_LEN];
	char tunable[TM_LABEL_LEN];
	char netns[TM_NETNS_LEN];
	char reason[TM_TEXT_LEN];
};

struct row_gate {
	char hook[TM_LABEL_LEN];
	char what[TM_TEXT_LEN];
	char kind[8];
	char reason[16];
	bool attached, has_reading;
	uint64_t reading, attaches, detaches, attached_ms;
};

/* a plugin's per-event row: values already checked against the declaration */
struct row_plugin {
	uint64_t cookie;
	unsigned int n;
	uint8_t type[BPFTUNE_EVENT_MAX_COLS];
	union {
		int64_t i;
		double d;
		uint32_t text_off;	/* into text[] */
	} v[BPFTUNE_EVENT_MAX_COLS];
	char text[BPFTUNE_EVENT_ROW_TEXT];
};

struct row {
	enum row_kind kind;
	unsigned int table;		/* index into tm_tables[] */
	uint64_t seq, ts_us;
	uint32_t tuner_id;
	char tuner[TM_NAME_LEN];
	union {
		struct row_tuner tuner;
		struct row_tunable tunable;
		struct row_state state;
		struct row_event event;
		struct row_decision decision;
		struct row_change change;
		struct row_plugin plugin;
		struct row_gate gate;
	} u;
};

/* ---- the run ------------------------------------------------------------ */

struct telemetry {
	bool on, started;
	struct bpftune_telemetry_opts o;
	sqlite3 *db;
	char path[PATH_MAX];
	char run_id[40], host_id[40], boot_id[40];
	uint64_t start_us, start_wall_us;
	pthread_t thread, main_thread;
	int efd, tfd;
	_Atomic bool stop_requested;
	_Atomic int exit_status;
};
extern struct telemetry tm;

uint64_t tm_clock_us(clockid_t clk);
uint64_t tm_now_us(void);		/* CLOCK_BOOTTIME */
void tm_scopy(char *dst, size_t len, const char *src);
int tm_exec(const char *sql);
static inline bool tm_on_main_thread(void)
{
	return pthread_equal(pthread_self(), tm.main_thread);
}

/* ---- queue.c -------------------------------------------------------------- */

struct tq_stats {
	_Atomic uint64_t rows_queued, rows_dropped, events_seen, events_dropped;
	_Atomic uint64_t max_depth;
};
extern struct tq_stats tq_stats;

int tq_init(void);
void tq_fini(void);
/*
 * A slot for a row of table @table, or NULL if the ring is full (counted
 * as dropped; its seq is used up, leaving a gap).  On success the
 * producer lock is held until tq_commit().
 */
struct row *tq_reserve(unsigned int table, enum row_kind kind,
		       const struct bpftune_tuner *t, uint64_t ts_us);
void tq_commit(void);
/* the seq the last tq_reserve() of @table took (main thread) */
uint64_t tq_last_seq(unsigned int table);
/* writer: rows [tail, head) are ready; release up to a new tail */
uint64_t tq_head(void);
uint64_t tq_tail(void);
const struct row *tq_slot(uint64_t i);
void tq_release(uint64_t new_tail);
/* the writer, between flushes: give the empty ring's pages back */
void tq_trim(void);
uint64_t tq_depth(void);
/* wake the writer */
void tq_kick(void);

/* ---- registry.c ----------------------------------------------------------- */

enum treg_state {
	TREG_ACTIVE,	/* the core's, or a running plugin's */
	TREG_RESERVED,	/* its plugin is starting */
	TREG_RETIRED,	/* its plugin is gone: the table stays in the file */
};

struct tplugin;

struct treg {
	const struct bpftune_table_desc *d;
	struct tplugin *plugin;		/* NULL: the core's */
	enum treg_state state;
	/* the writer's */
	bool created;
	bool bind_error_logged;
	bool prepare_failed;		/* logged once; no rows for it */
	sqlite3_stmt *ins;		/* prepared at the first row */
	uint64_t writer_seq;
	uint8_t *col_file;		/* sampler: file of each /proc column */
	/* the producer's */
	uint64_t prod_seq;
};

extern struct treg tm_tables[BPFTUNE_TELEMETRY_MAX_TABLES];
extern unsigned int tm_num_tables;
extern pthread_mutex_t tm_reg_lock;
/* bumped (under the lock) whenever a table becomes active or retires */
extern unsigned int tm_reg_gen;

void tm_reg_init(void);
void tm_reg_fini(void);
/* main thread: a checked plugin started; its tables become active */
void tm_reg_activate(const struct bpftune_tuner *t);
/* the owner's name ("core") and declaration (NULL for the core) */
const char *tm_reg_owner(const struct treg *e);
const struct bpftune_telemetry_desc *tm_reg_desc(const struct treg *e);
/* writer, under the lock: the owner's tuner while it runs, else NULL */
struct bpftune_tuner *tm_reg_tuner(const struct treg *e);
/* writer, under the lock: the owner's tuner id while it runs */
bool tm_reg_running_id(const struct treg *e, uint32_t *tuner_id);
/* writer, under the lock: each running plugin with gauges, in turn */
struct tplugin *tm_reg_next_gauged(struct tplugin *prev, uint32_t *tuner_id);
/* writer, under the lock: ring buffer losses of every plugin, cumulative */
uint64_t tm_reg_ringbuf_lost(void);

/* what a decision's typed inputs row says besides the inputs */
struct tm_decision_ctx {
	uint64_t decision_seq, event_seq;	/* event_seq 0: none */
	uint64_t cookie, ts_us;
	const char *scenario, *tunable, *action;	/* "" for none */
};

/*
 * Main thread: @d's typed values as a row of its policy's table.  0 (or
 * telemetry off), -EINVAL if they do not match the declaration (logged
 * once per policy), -ENOBUFS if dropped.
 */
int tm_reg_policy_row(const struct bpftune_tuner *t, const struct bpftune_decision *d,
		      const struct tm_decision_ctx *ctx);
/* Main thread: a row of policy @k's outcome table (outcome.c); as above */
int tm_reg_outcome_row(const struct bpftune_tuner *t, unsigned int k, uint64_t cookie,
		       const struct bpftune_value *v, unsigned int n);

/* ---- outcome.c: outcomes of decisions at their horizon -------------------- */

/* main thread: a decision just recorded (its seq in @ctx) */
void tm_outcome_decision(const struct bpftune_tuner *t, const struct bpftune_decision *d,
			 const struct bpftune_event *ev, const struct tm_decision_ctx *ctx);
/* main thread: @t is going; its pending outcomes are dropped */
void tm_outcome_forget(const struct bpftune_tuner *t);
/* main thread, telemetry stopping: log the counts, drop what is pending */
void tm_outcome_stop(void);

/* ---- bind.c --------------------------------------------------------------- */

struct binder {
	sqlite3_stmt *st;
	struct treg *e;
	unsigned int i;
	const char *bad;
};

/* CREATE TABLE, prepare its INSERT, record its declaration rows; 0 or -EIO */
int tm_table_create(struct treg *e);
void tm_table_finalize(struct treg *e);
void b_begin(struct binder *b, struct treg *e, uint64_t seq, uint64_t ts_us);
void b_int(struct binder *b, const char *name, int64_t v);
void b_null(struct binder *b, const char *name);
void b_int_or_null(struct binder *b, const char *name, bool have, int64_t v);
void b_real(struct binder *b, const char *name, double v);
void b_text(struct binder *b, const char *name, const char *s);
/* the value of a column, whichever its name */
void b_value(struct binder *b, const struct bpftune_value *v);
/* Run the statement; 0 or -EIO. */
int b_done(struct binder *b);
/* write a queued row; 0 or -EIO */
int tm_write_row(const struct row *r);
extern uint64_t tm_write_errors;
/*
 * Writer thread: the file takes writes (@rc SQLITE_OK/DONE) or not; one
 * line when it stops, one when it works again; tuning goes on either way.
 */
void tm_note_db(int rc);

/* ---- sampler.c, sample_netns.c -------------------------------------------- */

struct tm_sample_stats {
	uint64_t netns_known, netns_sampled, netns_errors, sample_us;
};
extern struct tm_sample_stats tm_sample_stats;

/* writer, under the lock: one row per sampled table and netns; rows written */
unsigned int tm_sample_all(void);
void tm_sampler_fini(void);
/*
 * any thread: the mean of gauge @gauge of tuner @tuner_id in netns
 * @cookie (its real cookie) over the takes timed in (@from_us, @to_us];
 * 0, -ENODATA (no observation) or -ERANGE (the history no longer
 * reaches back to @from_us): bpftune_gauge_window_mean()
 */
int tm_gauge_mean(uint64_t cookie, uint32_t tuner_id, unsigned int gauge,
		  uint64_t from_us, uint64_t to_us, double *mean);

/* main thread: a task of @pid was seen in netns @cookie; the netns is gone */
void tm_netns_seen(uint64_t cookie, uint32_t pid);
void tm_netns_gone(uint64_t cookie);
struct tm_netns;
/* writer: the namespaces to sample this interval, at most @max */
unsigned int tm_netns_pick(struct tm_netns **picked, unsigned int max,
			   uint64_t *known);
/* 0, -EEXIST for a name of the daemon's own netns, or another -errno */
int tm_netns_enter(struct tm_netns *ns, int *saved, uint64_t *cookie);
void tm_netns_fini(void);

/* ---- writer.c ------------------------------------------------------------- */

int tm_writer_start(void);
/* the last samples, health and flush, then the thread exits */
void tm_writer_stop(void);
extern uint64_t tm_rows_written;

/* ---- prune.c: earlier runs' files beyond --telemetry-keep/-max-mb ---- */

void tm_prune_runs(const char *dir);

/* ---- observe.c ------------------------------------------------------------ */

void tm_observe_start(void);
/*
 * The plugins' observer (observe.c, registry.c).  Before a plugin's BPF
 * object is loaded: check its telemetry declaration (always, telemetry on
 * or off) and reserve its tables.  0, or -EINVAL with why the plugin is
 * refused in @why ("table 'x' column 'y': ...").
 */
int bpftune_telemetry_tuner_check(const struct bpftune_tuner *t, char *why,
				  size_t len);
/* A plugin started: its rows (tuners, tunables, states), its tables live. */
void bpftune_telemetry_tuner_added(const struct bpftune_tuner *t);
/* A plugin goes (or failed to start): its tables stop; they stay in the file. */
void bpftune_telemetry_tuner_removed(const struct bpftune_tuner *t);
void tm_observe_stop(void);

#endif /* BPFTUNE_TELEMETRY_TM_H */
