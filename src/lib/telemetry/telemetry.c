// SPDX-License-Identifier: GPL-2.0-only
/*
 * Telemetry writer.  The daemon's thread (the producer) turns what it
 * observes into rows in a bounded single-producer ring; a writer thread
 * owns the SQLite connection and drains the ring in one transaction per
 * flush.  The producer never waits for the writer: a full ring drops the
 * row and counts it.  The writer sleeps on an eventfd and is woken by the
 * sample timer (the one periodic wake-up, in the main loop), by the ring
 * filling past half, and at exit.  /proc is sampled by the writer through
 * /proc/thread-self/net, so the main thread's setns() for per-netns writes
 * never affects what it reads (/proc/net follows the thread group leader).
 * Other namespaces are sampled by the writer entering them in turn; the
 * main thread lists them (the netns cache is its own) and no netns fd is
 * kept between samples.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <sqlite3.h>
#include <systemd/sd-id128.h>

#include "core/loop.h"
#include "core/operate.h"
#include "telemetry/telemetry.h"
#include "telemetry/telemetry_schema.h"

#define QUEUE_SLOTS	4096	/* power of two; 840-byte rows: 3.4 MB at most */
#define NAME_LEN	32
#define LABEL_LEN	64
#define NETNS_LEN	96
#define TEXT_LEN	256
#define MAX_PROC_FILE	(4 << 20)
#define MAX_SAMPLE_COLS	128	/* columns of the widest samples table */
#define NO_FILE		0xff
/* never follow a symlink planted where the run's file goes (SQLite >= 3.31) */
#ifdef SQLITE_OPEN_NOFOLLOW
#define OPEN_NOFOLLOW	SQLITE_OPEN_NOFOLLOW
#else
#define OPEN_NOFOLLOW	0
#endif
#define NO_TUNER	UINT32_MAX	/* a rollback of a sysctl no tuner loaded manages */

/* host_id for systemd's app-specific machine id: never the raw machine-id */
#define HOST_APP_ID SD_ID128_MAKE(6b,2f,0e,9a,31,c4,4d,57,a0,58,1d,2e,7c,b4,90,13)

enum row_kind {
	ROW_TUNER, ROW_TUNABLE, ROW_STATE, ROW_EVENT, ROW_DECISION, ROW_CHANGE,
};

struct row_tuner {
	char description[TEXT_LEN];
	char file[TEXT_LEN];
	char scenarios[TEXT_LEN];
	unsigned int num_tunables;
};

struct row_tunable {
	char tunable[LABEL_LEN];
	char cap_reason[TEXT_LEN];
	unsigned int index, num_values;
	bool namespaced;
	long min, max;
	int read_err;
	long initial[BPFTUNE_MAX_VALUES];
};

struct row_state {
	char netns[NETNS_LEN];
	char state[8];
	char cause[TEXT_LEN];
	uint64_t cookie;
};

struct row_event {
	char scenario[LABEL_LEN];
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
	char scenario[LABEL_LEN];
	char tunable[LABEL_LEN];
	char policy[LABEL_LEN];
	char action[LABEL_LEN];
	char inputs[TEXT_LEN];
};

struct row_change {
	uint64_t decision_seq, event_seq;	/* 0: none */
	uint64_t cookie;
	int scenario_id;		/* -1: rollback */
	unsigned int tunable_index, n;
	int err;
	bool has_old, applied, rollback;
	long old[BPFTUNE_MAX_VALUES], new[BPFTUNE_MAX_VALUES];
	char scenario[LABEL_LEN];
	char tunable[LABEL_LEN];
	char netns[NETNS_LEN];
	char reason[TEXT_LEN];
};

struct row {
	enum row_kind kind;
	enum bpftune_table_id table;
	uint64_t seq, ts_us;
	uint32_t tuner_id;
	char tuner[NAME_LEN];
	union {
		struct row_tuner tuner;
		struct row_tunable tunable;
		struct row_state state;
		struct row_event event;
		struct row_decision decision;
		struct row_change change;
	} u;
};

struct proc_file {
	const char *path;		/* as the schema names it */
	char open_path[80];		/* /proc/net/X: /proc/thread-self/net/X */
	bool net;			/* one per netns */
	char *buf;
	size_t size;
	bool ok;
};

static struct {
	bool on, started;
	struct bpftune_telemetry_opts o;
	sqlite3 *db;
	sqlite3_stmt *ins[BPFTUNE_T_MAX];
	bool bind_error_logged[BPFTUNE_T_MAX];
	char path[PATH_MAX];
	char run_id[40], host_id[40], boot_id[40];
	uint64_t start_us, start_wall_us;
	pthread_t thread;
	int efd, tfd;
	struct proc_file files[24];
	unsigned int num_files;
	/* per samples table column: index in files[], or NO_FILE */
	uint8_t col_file[BPFTUNE_T_MAX][MAX_SAMPLE_COLS];
} tm = { .efd = -1, .tfd = -1 };

/*
 * What the main thread gives the writer at each tick: the namespaces to
 * sample and which gauges are fed.  The lock is held for copies only.
 */
static struct {
	pthread_mutex_t lock;
	struct bpftune_netns_ref refs[BPFTUNE_SAMPLE_NETNS_MAX];
	unsigned int n, known;
	uint64_t gauges_fed;
} targets = { .lock = PTHREAD_MUTEX_INITIALIZER };
/* the writer's copy */
static struct bpftune_netns_ref w_refs[BPFTUNE_SAMPLE_NETNS_MAX];
/* gauges each tuner's object feeds (bpftune_gauges_fed), main thread */
static struct {
	const struct bpftune_tuner *t;
	uint64_t fed;
} tuner_gauges[BPFTUNE_MAX_TUNERS];

/* ---- the ring: written by the daemon thread, read by the writer ---- */
static struct row *ring;
static _Atomic uint64_t q_head, q_tail;
static pthread_mutex_t prod_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t prod_seq[BPFTUNE_T_MAX];	/* producer tables only */
static _Atomic uint64_t rows_queued, rows_dropped, events_seen, events_dropped;
static _Atomic uint64_t ringbuf_lost, queue_max;
static _Atomic bool tick_pending, stop_requested;
static _Atomic int exit_status;

/* linking a decision to its event, and a change to its decision */
static struct {
	const struct bpftune_event *ev;
	uint64_t ts_ns, seq;
} cur_event;
static struct {
	uint64_t seq, event_seq;
} last_decision[BPFTUNE_MAX_TUNERS];

/* ---- writer-side statistics ---- */
static uint64_t writer_seq[BPFTUNE_T_MAX];	/* samples_* and health */
static uint64_t rows_written, flushes, flush_rows, flush_us, flush_max_us;
static uint64_t writer_lag_us, sample_us, write_errors;
/* the file cannot be written (full, read-only, locked): one line each way */
static bool db_failing;
static uint64_t dropped_at_failure;
static uint64_t netns_sampled, netns_known, netns_errors;
static bool gauges_no_lookup_and_delete;

static uint64_t clock_us(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static uint64_t now_us(void)
{
	return clock_us(CLOCK_BOOTTIME);
}

/* bounded string copy for the event path: cheaper than snprintf */
static void scopy(char *dst, size_t len, const char *src)
{
	size_t n = src ? strnlen(src, len - 1) : 0;

	if (n)
		memcpy(dst, src, n);
	dst[n] = '\0';
}

static void kick_writer(void)
{
	uint64_t one = 1;

	if (tm.efd >= 0 && write(tm.efd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		bpftune_log(LOG_DEBUG, "telemetry: cannot wake the writer: %s",
			    strerror(errno));
}

/*
 * Take a slot for a row of @table, or NULL if the ring is full (the row
 * is counted as dropped; its seq is used up, leaving a gap).  On success
 * the producer lock is held until q_commit().
 */
static struct row *q_reserve(enum bpftune_table_id table, enum row_kind kind,
			     const struct bpftune_tuner *t, uint64_t ts_us)
{
	uint64_t head, tail, seq;
	struct row *r;

	if (!tm.started)
		return NULL;
	pthread_mutex_lock(&prod_lock);
	seq = ++prod_seq[table];
	head = atomic_load_explicit(&q_head, memory_order_relaxed);
	tail = atomic_load_explicit(&q_tail, memory_order_acquire);
	if (head - tail >= QUEUE_SLOTS) {
		atomic_fetch_add_explicit(&rows_dropped, 1, memory_order_relaxed);
		if (table == BPFTUNE_T_EVENTS)
			atomic_fetch_add_explicit(&events_dropped, 1, memory_order_relaxed);
		pthread_mutex_unlock(&prod_lock);
		return NULL;
	}
	r = &ring[head & (QUEUE_SLOTS - 1)];
	r->kind = kind;
	r->table = table;
	r->seq = seq;
	r->ts_us = ts_us ? ts_us : now_us();
	r->tuner_id = t ? t->id : NO_TUNER;
	scopy(r->tuner, sizeof(r->tuner), t ? t->ops->name : NULL);
	return r;
}

static void q_commit(void)
{
	uint64_t head = atomic_load_explicit(&q_head, memory_order_relaxed) + 1;
	uint64_t depth = head - atomic_load_explicit(&q_tail, memory_order_acquire);

	atomic_store_explicit(&q_head, head, memory_order_release);
	atomic_fetch_add_explicit(&rows_queued, 1, memory_order_relaxed);
	if (depth > atomic_load_explicit(&queue_max, memory_order_relaxed))
		atomic_store_explicit(&queue_max, depth, memory_order_relaxed);
	pthread_mutex_unlock(&prod_lock);
	/* wake the writer once per crossing of half full, not per row */
	if (depth == QUEUE_SLOTS / 2)
		kick_writer();
}

/* ---- observer: called on the daemon's thread ---------------------------- */

static const char *scenario_name(const struct bpftune_tuner *t, unsigned int s)
{
	return s < t->ops->num_scenarios ? t->ops->scenarios[s].name : NULL;
}

static uint64_t last_event_us;

static void on_event(const struct bpftune_tuner *t, const struct bpftune_event *ev)
{
	struct row *r;
	uint32_t len;

	uint64_t ts = ev->ts_uptime_ns / 1000;

	atomic_fetch_add_explicit(&events_seen, 1, memory_order_relaxed);
	/*
	 * Events reserved on different CPUs can reach us out of timestamp
	 * order by microseconds: keep the column non-decreasing in seq order.
	 */
	if (ts < last_event_us)
		ts = last_event_us;
	last_event_us = ts;
	r = q_reserve(BPFTUNE_T_EVENTS, ROW_EVENT, t, ts ?: 1);
	/* prod_seq is stable here: only this thread produces events */
	cur_event.ev = ev;
	cur_event.ts_ns = ev->ts_uptime_ns;
	cur_event.seq = prod_seq[BPFTUNE_T_EVENTS];
	if (!r)
		return;
	len = ev->payload_len < BPFTUNE_PAYLOAD_LEN ? ev->payload_len : BPFTUNE_PAYLOAD_LEN;
	r->u.event.scenario_id = ev->scenario_id;
	scopy(r->u.event.scenario, sizeof(r->u.event.scenario),
	      scenario_name(t, ev->scenario_id));
	r->u.event.cookie = bpftune_netns_is_global(ev->netns_cookie) ? 0 : ev->netns_cookie;
	r->u.event.pid = ev->pid;
	memcpy(r->u.event.comm, ev->comm, BPFTUNE_COMM_LEN);
	r->u.event.comm[BPFTUNE_COMM_LEN] = '\0';
	r->u.event.payload_len = len;
	memcpy(r->u.event.payload, ev->payload, len);
	q_commit();
}

static void on_decision(const struct bpftune_tuner *t, const struct bpftune_event *ev,
			const struct bpftune_decision *d)
{
	struct row_decision *rd;
	uint64_t event_seq = 0;
	struct row *r;

	if (ev && ev == cur_event.ev && ev->ts_uptime_ns == cur_event.ts_ns)
		event_seq = cur_event.seq;
	r = q_reserve(BPFTUNE_T_DECISIONS, ROW_DECISION, t, 0);
	if (t->id < BPFTUNE_MAX_TUNERS) {
		last_decision[t->id].seq = prod_seq[BPFTUNE_T_DECISIONS];
		last_decision[t->id].event_seq = event_seq;
	}
	if (!r)
		return;
	rd = &r->u.decision;
	rd->event_seq = event_seq;
	rd->has_event = ev != NULL;
	rd->cookie = ev && !bpftune_netns_is_global(ev->netns_cookie) ? ev->netns_cookie : 0;
	rd->scenario_id = d->scenario;
	scopy(rd->scenario, sizeof(rd->scenario), scenario_name(t, d->scenario));
	scopy(rd->policy, sizeof(rd->policy), d->policy);
	scopy(rd->inputs, sizeof(rd->inputs), d->inputs);
	scopy(rd->action, sizeof(rd->action), d->action ? d->action : "none");
	rd->tunable_index = d->tunable >= 0 &&
			    (unsigned int)d->tunable < t->ops->num_tunables ? d->tunable : -1;
	scopy(rd->tunable, sizeof(rd->tunable), rd->tunable_index >= 0 ?
	      t->ops->tunables[rd->tunable_index].name : NULL);
	rd->epsilon = d->epsilon;
	rd->explored = d->explored;
	q_commit();
}

static void fill_change(struct row *r, const struct bpftune_tuner *t,
			unsigned int tunable, uint64_t cookie, const long *old,
			const long *new, unsigned int n, const char *reason)
{
	struct row_change *c = &r->u.change;

	if (n > BPFTUNE_MAX_VALUES)
		n = BPFTUNE_MAX_VALUES;
	c->tunable_index = tunable;
	scopy(c->tunable, sizeof(c->tunable), t && tunable < t->ops->num_tunables ?
	      t->ops->tunables[tunable].name : NULL);
	c->cookie = bpftune_netns_is_global(cookie) ? 0 : cookie;
	bpftune_netns_describe(cookie, c->netns, sizeof(c->netns));
	c->n = n;
	c->has_old = old != NULL;
	if (old)
		memcpy(c->old, old, n * sizeof(*old));
	memcpy(c->new, new, n * sizeof(*new));
	scopy(c->reason, sizeof(c->reason), reason);
}

static void on_change(const struct bpftune_tuner *t, unsigned int tunable,
		      uint64_t cookie, unsigned int scenario, const long *old,
		      const long *new, unsigned int n, const char *reason, int err)
{
	struct row *r = q_reserve(BPFTUNE_T_CHANGES, ROW_CHANGE, t, 0);
	struct row_change *c;

	if (!r)
		return;
	fill_change(r, t, tunable, cookie, old, new, n, reason);
	c = &r->u.change;
	if (t->id < BPFTUNE_MAX_TUNERS) {
		c->decision_seq = last_decision[t->id].seq;
		c->event_seq = last_decision[t->id].event_seq;
	}
	c->scenario_id = scenario;
	scopy(c->scenario, sizeof(c->scenario), scenario_name(t, scenario));
	/* -ECANCELED with --observe: decided, deliberately not written */
	if (err == -ECANCELED && bpftune_observe_only()) {
		c->err = 0;
		c->applied = false;
	} else {
		c->err = err < 0 ? -err : err;
		c->applied = !err;
	}
	c->rollback = false;
	q_commit();
}

/* the tuner and tunable index managing @sysctl, if a loaded tuner does */
static const struct bpftune_tuner *tuner_of(const char *sysctl, unsigned int *index)
{
	unsigned int id, i;

	for (id = 0; id < BPFTUNE_MAX_TUNERS; id++) {
		const struct bpftune_tuner *t = bpftune_tuner_get(id);

		for (i = 0; t && i < t->ops->num_tunables; i++)
			if (!strcmp(t->ops->tunables[i].name, sysctl)) {
				*index = i;
				return t;
			}
	}
	return NULL;
}

static void on_rollback(const char *sysctl, uint64_t cookie, const long *restored,
			unsigned int n, int err)
{
	unsigned int index = 0;
	const struct bpftune_tuner *t = tuner_of(sysctl, &index);
	struct row *r = q_reserve(BPFTUNE_T_CHANGES, ROW_CHANGE, t, 0);
	struct row_change *c;

	if (!r)
		return;
	fill_change(r, t, index, cookie, NULL, restored, n,
		    "rollback: original value restored on exit");
	c = &r->u.change;
	scopy(c->tunable, sizeof(c->tunable), sysctl);
	c->decision_seq = 0;
	c->event_seq = 0;
	c->scenario_id = -1;
	c->scenario[0] = '\0';
	c->err = err < 0 ? -err : err;
	c->applied = !err;
	c->rollback = true;
	q_commit();
}

static const char *state_name(enum bpftune_state s)
{
	switch (s) {
	case BPFTUNE_STATE_ACTIVE:
		return "ACTIVE";
	case BPFTUNE_STATE_MANUAL:
		return "MANUAL";
	case BPFTUNE_STATE_GONE:
		return "GONE";
	}
	return "?";
}

static void on_state(const struct bpftune_tuner *t, uint64_t cookie,
		     enum bpftune_state state, const char *cause)
{
	struct row *r = q_reserve(BPFTUNE_T_STATES, ROW_STATE, t, 0);

	if (!r)
		return;
	r->u.state.cookie = bpftune_netns_is_global(cookie) ? 0 : cookie;
	if (r->u.state.cookie)
		bpftune_netns_describe(cookie, r->u.state.netns, sizeof(r->u.state.netns));
	else
		scopy(r->u.state.netns, sizeof(r->u.state.netns), "every netns");
	scopy(r->u.state.state, sizeof(r->u.state.state), state_name(state));
	scopy(r->u.state.cause, sizeof(r->u.state.cause), cause);
	q_commit();
}

static struct bpftune_observer observer = {
	.event = on_event,
	.change = on_change,
	.decision = on_decision,
	.state = on_state,
	.rollback = on_rollback,
};

void bpftune_telemetry_tuner_added(const struct bpftune_tuner *t)
{
	const struct bpftune_tuner_ops *ops = t->ops;
	unsigned int i;
	size_t off = 0;
	struct row *r;

	if (!tm.started)
		return;
	r = q_reserve(BPFTUNE_T_TUNERS, ROW_TUNER, t, 0);
	if (r) {
		scopy(r->u.tuner.description, TEXT_LEN, ops->description);
		scopy(r->u.tuner.file, TEXT_LEN, t->file);
		r->u.tuner.num_tunables = ops->num_tunables;
		r->u.tuner.scenarios[0] = '\0';
		for (i = 0; i < ops->num_scenarios && off < TEXT_LEN; i++) {
			int n = snprintf(r->u.tuner.scenarios + off, TEXT_LEN - off,
					 "%s%u=%s", i ? "; " : "", i,
					 ops->scenarios[i].name);

			off += n > 0 ? (size_t)n : 0;
		}
		q_commit();
	}
	for (i = 0; i < ops->num_tunables; i++) {
		const struct bpftune_tunable_desc *d = &ops->tunables[i];
		struct row_tunable *u;
		int err = 0;

		r = q_reserve(BPFTUNE_T_TUNABLES, ROW_TUNABLE, t, 0);
		if (!r)
			continue;
		u = &r->u.tunable;
		u->index = i;
		scopy(u->tunable, sizeof(u->tunable), d->name);
		scopy(u->cap_reason, sizeof(u->cap_reason), d->cap_reason);
		u->namespaced = d->flags & BPFTUNE_TUNABLE_NAMESPACED;
		u->num_values = d->num_values > BPFTUNE_MAX_VALUES ?
				BPFTUNE_MAX_VALUES : d->num_values;
		u->min = d->min;
		u->max = d->max;
		if (d->flags & BPFTUNE_TUNABLE_STRING)
			err = -EINVAL;
		else
			err = bpftune_sysctl_read(-1, d->name, u->initial, u->num_values);
		u->read_err = err < 0 ? -err : (err != (int)u->num_values ? EINVAL : 0);
		q_commit();
	}
	if (t->id < BPFTUNE_MAX_TUNERS) {
		uint64_t fed = 0;

		/* objects built without BPFTUNE_GAUGES_FED() feed none */
		if (bpftune_bpf_var_read(t->obj, ".rodata", "bpftune_gauges_fed",
					 &fed, sizeof(fed)))
			fed = 0;
		tuner_gauges[t->id].t = t;
		tuner_gauges[t->id].fed = fed;
	}
	on_state(t, 0, t->state, "started");
}

/* ---- binding rows: every bind is checked against the schema's names ---- */

struct binder {
	sqlite3_stmt *st;
	const struct bpftune_ttable *t;
	enum bpftune_table_id id;
	unsigned int i;
	const char *bad;
};

static bool b_next(struct binder *b, const char *name)
{
	const struct bpftune_tcol *c = bpftune_ttable_col(b->t, b->i);

	if (b->bad)
		return false;
	if (!c || strcmp(c->name, name)) {
		b->bad = name;
		return false;
	}
	b->i++;
	return true;
}

static void b_int(struct binder *b, const char *name, int64_t v)
{
	if (b_next(b, name))
		sqlite3_bind_int64(b->st, b->i, v);
}

static void b_null(struct binder *b, const char *name)
{
	if (b_next(b, name))
		sqlite3_bind_null(b->st, b->i);
}

static void b_int_or_null(struct binder *b, const char *name, bool have, int64_t v)
{
	if (have)
		b_int(b, name, v);
	else
		b_null(b, name);
}

static void b_real(struct binder *b, const char *name, double v)
{
	if (b_next(b, name))
		sqlite3_bind_double(b->st, b->i, v);
}

/* empty strings are stored as NULL */
static void b_text(struct binder *b, const char *name, const char *s)
{
	if (b_next(b, name)) {
		if (s && *s)
			sqlite3_bind_text(b->st, b->i, s, -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(b->st, b->i);
	}
}

static void b_begin(struct binder *b, enum bpftune_table_id id, uint64_t seq,
		    uint64_t ts_us)
{
	b->id = id;
	b->t = &bpftune_telemetry_tables[id];
	b->st = tm.ins[id];
	b->i = 0;
	b->bad = NULL;
	b_text(b, "run_id", tm.run_id);
	b_text(b, "host_id", tm.host_id);
	b_int(b, "seq", seq);
	b_int(b, "ts_uptime_us", ts_us);
}

static uint64_t rows_lost(void)
{
	return atomic_load(&rows_dropped) + write_errors;
}

/*
 * The writer's file works (@rc SQLITE_OK/DONE) or not: one line when it
 * stops, one when it works again; tuning goes on either way.
 */
static void note_db(int rc)
{
	if (rc == SQLITE_OK || rc == SQLITE_DONE) {
		if (db_failing)
			bpftune_log(LOG_NOTICE, "telemetry: writing to %s again; %llu rows dropped meanwhile (health.rows_dropped)",
				    tm.path, (unsigned long long)(rows_lost() - dropped_at_failure));
		db_failing = false;
		return;
	}
	if (db_failing)
		return;
	db_failing = true;
	dropped_at_failure = rows_lost();
	bpftune_log(LOG_WARNING, "telemetry: cannot write to %s: %s; tuning goes on, rows are dropped and counted until it can",
		    tm.path, sqlite3_errstr(rc));
}

/* Run the statement; 0 or -EIO. */
static int b_done(struct binder *b)
{
	int rc;

	if (b->bad || b->i != bpftune_ttable_num_cols(b->t)) {
		if (!tm.bind_error_logged[b->id]) {
			const struct bpftune_tcol *c = bpftune_ttable_col(b->t, b->i);

			tm.bind_error_logged[b->id] = true;
			bpftune_log(LOG_ERR, "telemetry: table %s: writer binds '%s' where the schema has '%s'",
				    b->t->name, b->bad ? b->bad : "(nothing)",
				    c ? c->name : "(no more columns)");
		}
		sqlite3_reset(b->st);
		return -EIO;
	}
	rc = sqlite3_step(b->st);
	sqlite3_reset(b->st);
	if (rc != SQLITE_DONE) {
		write_errors++;
		note_db(rc);
		return -EIO;
	}
	return 0;
}

static void values_text(const long *v, unsigned int n, char *buf, size_t len)
{
	size_t off = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < n && off < len; i++) {
		int w = snprintf(buf + off, len - off, "%s%ld", i ? " " : "", v[i]);

		off += w > 0 ? (size_t)w : 0;
	}
}

static void b_values(struct binder *b, const char *pfx, bool have,
		     const long *v, unsigned int n)
{
	static const char *const names[2][BPFTUNE_MAX_VALUES] = {
		{ "old_0", "old_1", "old_2" }, { "new_0", "new_1", "new_2" },
	};
	const char *const *nm = pfx[0] == 'o' ? names[0] : names[1];
	unsigned int i;

	for (i = 0; i < BPFTUNE_MAX_VALUES; i++)
		b_int_or_null(b, nm[i], have && i < n, have && i < n ? v[i] : 0);
}

static int write_row(const struct row *r)
{
	char hex[2 * BPFTUNE_PAYLOAD_LEN + 1], vals[2][96];
	struct binder b;
	unsigned int i;

	b_begin(&b, r->table, r->seq, r->ts_us);
	switch (r->kind) {
	case ROW_TUNER:
		b_int(&b, "tuner_id", r->tuner_id);
		b_text(&b, "tuner", r->tuner);
		b_text(&b, "description", r->u.tuner.description);
		b_text(&b, "file", r->u.tuner.file);
		b_int(&b, "num_tunables", r->u.tuner.num_tunables);
		b_text(&b, "scenarios", r->u.tuner.scenarios);
		break;
	case ROW_TUNABLE: {
		const struct row_tunable *u = &r->u.tunable;
		bool ok = !u->read_err;

		values_text(u->initial, u->num_values, vals[0], sizeof(vals[0]));
		b_int(&b, "tuner_id", r->tuner_id);
		b_text(&b, "tuner", r->tuner);
		b_int(&b, "tunable_index", u->index);
		b_text(&b, "tunable", u->tunable);
		b_int(&b, "namespaced", u->namespaced);
		b_int(&b, "num_values", u->num_values);
		b_int(&b, "min", u->min);
		b_int(&b, "max", u->max);
		b_text(&b, "cap_reason", u->cap_reason);
		b_text(&b, "initial_values", ok ? vals[0] : NULL);
		b_int_or_null(&b, "initial_0", ok && u->num_values > 0, u->initial[0]);
		b_int_or_null(&b, "initial_1", ok && u->num_values > 1, u->initial[1]);
		b_int_or_null(&b, "initial_2", ok && u->num_values > 2, u->initial[2]);
		b_int(&b, "read_errno", u->read_err);
		break;
	}
	case ROW_STATE:
		b_int(&b, "tuner_id", r->tuner_id);
		b_text(&b, "tuner", r->tuner);
		b_int(&b, "netns_cookie", r->u.state.cookie);
		b_text(&b, "netns", r->u.state.netns);
		b_text(&b, "state", r->u.state.state);
		b_text(&b, "cause", r->u.state.cause);
		break;
	case ROW_EVENT: {
		const struct row_event *e = &r->u.event;

		for (i = 0; i < e->payload_len; i++)
			snprintf(hex + 2 * i, 3, "%02x", e->payload[i]);
		hex[2 * e->payload_len] = '\0';
		b_int(&b, "tuner_id", r->tuner_id);
		b_text(&b, "tuner", r->tuner);
		b_int(&b, "scenario_id", e->scenario_id);
		b_text(&b, "scenario", e->scenario);
		b_int(&b, "netns_cookie", (int64_t)e->cookie);
		b_int(&b, "pid", e->pid);
		b_text(&b, "comm", e->comm);
		b_int(&b, "payload_len", e->payload_len);
		b_text(&b, "payload_hex", hex);
		break;
	}
	case ROW_DECISION: {
		const struct row_decision *d = &r->u.decision;

		b_int_or_null(&b, "event_seq", d->event_seq, d->event_seq);
		b_int(&b, "tuner_id", r->tuner_id);
		b_text(&b, "tuner", r->tuner);
		b_int(&b, "scenario_id", d->scenario_id);
		b_text(&b, "scenario", d->scenario);
		b_int_or_null(&b, "netns_cookie", d->has_event, (int64_t)d->cookie);
		b_text(&b, "policy", d->policy);
		b_text(&b, "inputs", d->inputs);
		b_text(&b, "action", d->action);
		b_int_or_null(&b, "tunable_index", d->tunable_index >= 0, d->tunable_index);
		b_text(&b, "tunable", d->tunable);
		if (d->epsilon >= 0)
			b_real(&b, "epsilon", d->epsilon);
		else
			b_null(&b, "epsilon");
		b_int_or_null(&b, "explored", d->explored >= 0, d->explored);
		break;
	}
	case ROW_CHANGE: {
		const struct row_change *c = &r->u.change;

		values_text(c->old, c->n, vals[0], sizeof(vals[0]));
		values_text(c->new, c->n, vals[1], sizeof(vals[1]));
		b_int_or_null(&b, "decision_seq", c->decision_seq, c->decision_seq);
		b_int_or_null(&b, "event_seq", c->event_seq, c->event_seq);
		b_int_or_null(&b, "tuner_id", r->tuner_id != NO_TUNER, r->tuner_id);
		b_text(&b, "tuner", r->tuner);
		b_int_or_null(&b, "scenario_id", c->scenario_id >= 0, c->scenario_id);
		b_text(&b, "scenario", c->scenario);
		b_int_or_null(&b, "tunable_index", r->tuner_id != NO_TUNER, c->tunable_index);
		b_text(&b, "tunable", c->tunable);
		b_int(&b, "netns_cookie", (int64_t)c->cookie);
		b_text(&b, "netns", c->netns);
		b_int(&b, "num_values", c->n);
		b_text(&b, "old_values", c->has_old ? vals[0] : NULL);
		b_text(&b, "new_values", vals[1]);
		b_values(&b, "old", c->has_old, c->old, c->n);
		b_values(&b, "new", true, c->new, c->n);
		b_text(&b, "reason", c->reason);
		b_int(&b, "errno", c->err);
		b_int(&b, "applied", c->applied);
		b_int(&b, "rollback", c->rollback);
		break;
	}
	}
	return b_done(&b);
}

/* ---- samples: the writer reads /proc as the schema says ---------------- */

static void read_proc_file(struct proc_file *f)
{
	size_t len = 0;
	ssize_t n;
	int fd;

	f->ok = false;
	fd = open(f->open_path[0] ? f->open_path : f->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	for (;;) {
		if (len + 1 >= f->size) {
			size_t size = f->size ? f->size * 2 : 16384;
			char *buf;

			if (size > MAX_PROC_FILE)
				break;
			buf = realloc(f->buf, size);
			if (!buf)
				break;
			f->buf = buf;
			f->size = size;
		}
		n = read(fd, f->buf + len, f->size - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			f->ok = n == 0;
			break;
		}
		len += n;
	}
	close(fd);
	if (f->buf)
		f->buf[len] = '\0';
}

static struct proc_file *proc_file(const char *path)
{
	unsigned int i;

	for (i = 0; i < tm.num_files; i++)
		if (!strcmp(tm.files[i].path, path))
			return &tm.files[i];
	return NULL;
}

/*
 * One row per samples table for one netns: @global for the daemon's own
 * (every table, every column), else only the per-netns tables and their
 * per-netns columns.  Returns how many rows were written.
 */
static unsigned int sample_tables(uint64_t ts, uint64_t cookie, bool global,
				  const struct bpftune_gauges *g, uint64_t fed)
{
	enum bpftune_table_id id;
	unsigned int i, ok = 0;

	for (id = 0; id < BPFTUNE_T_MAX; id++) {
		const struct bpftune_ttable *t = &bpftune_telemetry_tables[id];
		struct binder b;

		if (!(t->flags & BPFTUNE_TT_SAMPLES) ||
		    (!global && !(t->flags & BPFTUNE_TT_NETNS)))
			continue;
		b_begin(&b, id, ++writer_seq[id], ts);
		for (i = 0; i < t->num_cols; i++) {
			const struct bpftune_tcol *c = &t->cols[i];
			const struct proc_file *f = NULL;
			struct bpftune_proc_value v;
			int err;

			switch (c->fmt) {
			case BPFTUNE_PROC_NETNS:
				v.real = false;
				v.i = global ? 0 : (int64_t)cookie;
				err = 0;
				break;
			case BPFTUNE_PROC_BPF:
				err = bpftune_gauge_lookup(g, fed, c->key, &v);
				break;
			default:
				if (tm.col_file[id][i] != NO_FILE)
					f = &tm.files[tm.col_file[id][i]];
				err = !f || !f->ok || (!global && (c->flags & BPFTUNE_TCOL_GLOBAL)) ||
				      bpftune_proc_lookup(c->fmt, f->buf, c->key, &v);
			}
			if (err)
				b_null(&b, c->name);
			else if (c->type == BPFTUNE_TCOL_REAL)
				b_real(&b, c->name, v.real ? v.d : (double)v.i);
			else
				b_int(&b, c->name, v.i);
		}
		if (!b_done(&b))
			ok++;
	}
	return ok;
}

/*
 * The gauges a netns gathered since they were last taken, taken: the BPF
 * side starts afresh.  false if none (no observation, or no gauges map).
 */
static bool take_gauges(uint64_t cookie, struct bpftune_gauges *g)
{
	int fd = bpftune_gauges_fd();

	if (fd < 0)
		return false;
	if (!gauges_no_lookup_and_delete) {
		if (!bpf_map_lookup_and_delete_elem(fd, &cookie, g))
			return true;
		/* before 5.14 hash maps have no lookup-and-delete */
		if (errno != EINVAL && errno != ENOTSUP && errno != EOPNOTSUPP &&
		    errno != 524 /* ENOTSUPP */)
			return false;
		gauges_no_lookup_and_delete = true;
	}
	if (bpf_map_lookup_elem(fd, &cookie, g))
		return false;
	bpf_map_delete_elem(fd, &cookie);
	return true;
}

/*
 * Every samples row of this interval: the daemon's netns (every table),
 * then each listed netns (the per-netns tables), entered one at a time.
 * Returns how many rows were written.
 */
static unsigned int sample_all(uint64_t ts)
{
	struct bpftune_gauges g;
	unsigned int i, j, n, ok = 0;
	uint64_t fed;
	bool have;

	pthread_mutex_lock(&targets.lock);
	n = targets.n;
	memcpy(w_refs, targets.refs, n * sizeof(w_refs[0]));
	netns_known = targets.known;
	fed = targets.gauges_fed;
	pthread_mutex_unlock(&targets.lock);

	/* the map fd is ours already; entering a netns raises what it needs */
	for (i = 0; i < tm.num_files; i++)
		read_proc_file(&tm.files[i]);
	have = take_gauges(bpftune_global_netns_cookie(), &g);
	ok += sample_tables(ts, 0, true, have ? &g : NULL, fed);
	netns_sampled = 0;
	for (i = 0; i < n; i++) {
		int saved, err;

		err = bpftune_netns_enter_ref(&w_refs[i], &saved);
		if (err) {
			netns_errors++;
			continue;
		}
		for (j = 0; j < tm.num_files; j++)
			if (tm.files[j].net)
				read_proc_file(&tm.files[j]);
		bpftune_netns_leave(saved);
		netns_sampled++;
		have = take_gauges(w_refs[i].cookie, &g);
		ok += sample_tables(now_us(), w_refs[i].cookie, false,
				    have ? &g : NULL, fed);
	}
	return ok;
}

/* no stdio: nothing allocated per interval */
static long self_rss_kb(void)
{
	long size, resident = -1;
	char buf[128];
	ssize_t n;
	int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if (sscanf(buf, "%ld %ld", &size, &resident) != 2)
		resident = -1;
	return resident < 0 ? -1 : resident * (sysconf(_SC_PAGESIZE) / 1024);
}

static int64_t db_bytes(void)
{
	char wal[PATH_MAX + 8];
	struct stat st;
	int64_t total = 0;

	if (!stat(tm.path, &st))
		total += st.st_size;
	snprintf(wal, sizeof(wal), "%s-wal", tm.path);
	if (!stat(wal, &st))
		total += st.st_size;
	return total;
}

static int write_health(uint64_t depth)
{
	struct rusage ru;
	struct binder b;

	getrusage(RUSAGE_SELF, &ru);
	b_begin(&b, BPFTUNE_T_HEALTH, ++writer_seq[BPFTUNE_T_HEALTH], now_us());
	b_int(&b, "ringbuf_lost", atomic_load(&ringbuf_lost));
	b_int(&b, "events_seen", atomic_load(&events_seen));
	b_int(&b, "events_dropped", atomic_load(&events_dropped));
	b_int(&b, "rows_queued", atomic_load(&rows_queued));
	b_int(&b, "rows_dropped", atomic_load(&rows_dropped) + write_errors);
	b_int(&b, "rows_written", rows_written);
	b_int(&b, "queue_depth", depth);
	b_int(&b, "queue_capacity", QUEUE_SLOTS);
	b_int(&b, "queue_max_depth", atomic_load(&queue_max));
	b_int(&b, "flushes", flushes);
	b_int(&b, "flush_rows", flush_rows);
	b_int(&b, "flush_latency_us", flush_us);
	b_int(&b, "flush_latency_max_us", flush_max_us);
	b_int(&b, "writer_lag_us", writer_lag_us);
	b_int(&b, "sample_latency_us", sample_us);
	b_int(&b, "netns_known", netns_known);
	b_int(&b, "netns_sampled", netns_sampled);
	b_int(&b, "netns_errors", netns_errors);
	b_int(&b, "cpu_user_us", (int64_t)ru.ru_utime.tv_sec * 1000000 + ru.ru_utime.tv_usec);
	b_int(&b, "cpu_system_us", (int64_t)ru.ru_stime.tv_sec * 1000000 + ru.ru_stime.tv_usec);
	b_int(&b, "rss_kb", self_rss_kb());
	b_int(&b, "db_bytes", db_bytes());
	return b_done(&b);
}

static int exec_sql(const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(tm.db, sql, NULL, NULL, &msg) == SQLITE_OK)
		return 0;
	bpftune_log(LOG_WARNING, "telemetry: %s: %s", sql, msg ? msg : "?");
	sqlite3_free(msg);
	return -EIO;
}

/* the writer's transactions: failures go to note_db(), not one line each */
static int writer_sql(const char *sql)
{
	int rc = sqlite3_exec(tm.db, sql, NULL, NULL, NULL);

	if (rc != SQLITE_OK)
		note_db(rc);
	return rc == SQLITE_OK ? 0 : -EIO;
}

/*
 * One transaction: every queued row, then samples and health if asked.
 * The write lock is taken first: while another process holds the file
 * (locked), the rows stay queued, and what the full queue refuses is
 * counted as dropped.
 */
static bool flush(bool samples)
{
	uint64_t t0 = now_us(), tail, head, n = 0, ok = 0, oldest = 0;

	head = atomic_load_explicit(&q_head, memory_order_acquire);
	tail = atomic_load_explicit(&q_tail, memory_order_relaxed);
	if (head == tail && !samples)
		return true;
	if (writer_sql("BEGIN IMMEDIATE"))
		return false;
	for (; tail != head; tail++, n++) {
		const struct row *r = &ring[tail & (QUEUE_SLOTS - 1)];

		if (!n)
			oldest = r->ts_us;
		if (!write_row(r))
			ok++;
		/* the slot's strings were bound SQLITE_STATIC: free it only now */
		atomic_store_explicit(&q_tail, tail + 1, memory_order_release);
	}
	if (samples) {
		uint64_t s0 = now_us();

		ok += sample_all(s0);
		sample_us = now_us() - s0;
		if (!write_health(atomic_load_explicit(&q_head, memory_order_relaxed) - tail))
			ok++;
	}
	if (writer_sql("COMMIT")) {
		sqlite3_exec(tm.db, "ROLLBACK", NULL, NULL, NULL);
		write_errors += ok;
		return true;
	}
	if (ok)
		note_db(SQLITE_OK);
	rows_written += ok;
	flushes++;
	flush_rows = ok;
	flush_us = now_us() - t0;
	if (flush_us > flush_max_us)
		flush_max_us = flush_us;
	writer_lag_us = n && t0 > oldest ? t0 - oldest : 0;
	return true;
}

static uint64_t queue_depth(void)
{
	return atomic_load_explicit(&q_head, memory_order_acquire) -
	       atomic_load_explicit(&q_tail, memory_order_relaxed);
}

static void *writer_main(void *arg)
{
	uint64_t v;

	(void)arg;
	for (;;) {
		bool stop, tick;

		if (read(tm.efd, &v, sizeof(v)) < 0 && errno != EINTR && errno != EAGAIN)
			break;
		stop = atomic_load(&stop_requested);
		tick = atomic_exchange(&tick_pending, false);
		/*
		 * The producer wakes us when the ring reaches half full; keep
		 * up while it stays there rather than wait for the next kick
		 * -- unless the file cannot be written: then the next tick.
		 */
		if (flush(tick || stop))
			while (queue_depth() >= QUEUE_SLOTS / 2 && flush(false))
				;
		if (stop) {
			/* what the file would not take at exit is lost: counted */
			write_errors += queue_depth();
			break;
		}
	}
	return NULL;
}

/* ---- ring buffer losses: read in the daemon's thread, owner of tuners ---- */

/* a .bss copy, grown as needed and kept: no allocation per tick */
static char *bss_buf;
static size_t bss_size;

static uint64_t tuner_ringbuf_lost(const struct bpftune_tuner *t)
{
	const struct btf *btf = t->obj ? bpf_object__btf(t->obj) : NULL;
	struct bpf_map *map = t->obj ? bpf_object__find_map_by_name(t->obj, ".bss") : NULL;
	const struct btf_var_secinfo *vsi;
	const struct btf_type *sec;
	uint64_t lost = 0;
	__u32 zero = 0;
	char *data;
	int id, i;

	if (!btf || !map || bpf_map__fd(map) < 0)
		return 0;
	id = btf__find_by_name_kind(btf, ".bss", BTF_KIND_DATASEC);
	if (id < 0)
		return 0;
	if (bss_size < bpf_map__value_size(map)) {
		data = realloc(bss_buf, bpf_map__value_size(map));
		if (!data)
			return 0;
		bss_buf = data;
		bss_size = bpf_map__value_size(map);
	}
	data = bss_buf;
	if (bpf_map_lookup_elem(bpf_map__fd(map), &zero, data))
		goto out;
	sec = btf__type_by_id(btf, id);
	vsi = btf_var_secinfos(sec);
	for (i = 0; i < btf_vlen(sec); i++, vsi++) {
		const struct btf_type *var = btf__type_by_id(btf, vsi->type);

		if (!strcmp(btf__name_by_offset(btf, var->name_off), "bpftune_ringbuf_lost") &&
		    vsi->offset + sizeof(lost) <= bpf_map__value_size(map)) {
			memcpy(&lost, data + vsi->offset, sizeof(lost));
			break;
		}
	}
out:
	return lost;
}

#define LOST_LOG_INTERVAL_MS	60000

/* never silent: a line when events start being lost, then once a minute */
static void log_ringbuf_lost(uint64_t total)
{
	static uint64_t logged, logged_ms;
	uint64_t now = bpftune_now_ms();

	if (total <= logged || (logged_ms && now - logged_ms < LOST_LOG_INTERVAL_MS))
		return;
	bpftune_log(LOG_WARNING, "ring buffer full: %llu events lost so far, %llu since the last report (hooks fire faster than the daemon reads; health.ringbuf_lost)",
		    (unsigned long long)total, (unsigned long long)(total - logged));
	logged = total;
	logged_ms = now;
}

static void update_ringbuf_lost(void)
{
	uint64_t total = 0;
	unsigned int id;

	for (id = 0; id < BPFTUNE_MAX_TUNERS; id++) {
		const struct bpftune_tuner *t = bpftune_tuner_get(id);

		if (t)
			total += tuner_ringbuf_lost(t);
	}
	atomic_store(&ringbuf_lost, total);
	log_ringbuf_lost(total);
}

/* main thread: the namespaces and gauges the next samples cover */
static void update_targets(void)
{
	static struct bpftune_netns_ref refs[BPFTUNE_SAMPLE_NETNS_MAX];
	unsigned int id, n = 0, known = 0;
	uint64_t fed = 0;

	for (id = 0; id < BPFTUNE_MAX_TUNERS; id++) {
		const struct bpftune_tuner *t = bpftune_tuner_get(id);

		if (t && t->obj && tuner_gauges[id].t == t)
			fed |= tuner_gauges[id].fed;
	}
	if (tm.o.sample_netns > 0)
		n = bpftune_netns_sample_list(refs, tm.o.sample_netns, &known);
	/* the writer copies under the lock: never more than a memcpy here */
	pthread_mutex_lock(&targets.lock);
	memcpy(targets.refs, refs, n * sizeof(refs[0]));
	targets.n = n;
	targets.known = known;
	targets.gauges_fed = fed;
	pthread_mutex_unlock(&targets.lock);
}

static void on_timer(int fd, uint32_t events, void *ctx)
{
	uint64_t expirations;

	(void)events;
	(void)ctx;
	if (read(fd, &expirations, sizeof(expirations)) < 0)
		return;
	update_ringbuf_lost();
	update_targets();
	atomic_store(&tick_pending, true);
	kick_writer();
}

/* ---- start-up ----------------------------------------------------------- */

static int read_line_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	int err = 0;

	if (!f)
		return -errno;
	if (!fgets(buf, len, f))
		err = -EIO;
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return err;
}

static int mkdir_p(const char *dir)
{
	char tmp[PATH_MAX], *p;

	if (snprintf(tmp, sizeof(tmp), "%s", dir) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	for (p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(tmp, 0750) && errno != EEXIST)
		return -errno;
	return 0;
}

/*
 * --host-id, else systemd's app-specific machine id, else an id kept in
 * <dir>/host-id
 */
static void host_id(const char *dir, const char *chosen)
{
	char path[PATH_MAX], buf[64];
	sd_id128_t id;
	FILE *f;

	if (chosen && bpftune_host_id_valid(chosen)) {
		scopy(tm.host_id, sizeof(tm.host_id), chosen);
		return;
	}
	if (!sd_id128_get_machine_app_specific(HOST_APP_ID, &id)) {
		sd_id128_to_string(id, tm.host_id);
		return;
	}
	snprintf(path, sizeof(path), "%s/host-id", dir);
	if (!read_line_file(path, buf, sizeof(buf)) && strlen(buf) == 32) {
		scopy(tm.host_id, sizeof(tm.host_id), buf);
		return;
	}
	if (sd_id128_randomize(&id)) {
		scopy(tm.host_id, sizeof(tm.host_id), "unknown");
		return;
	}
	sd_id128_to_string(id, tm.host_id);
	f = fopen(path, "wxe");
	if (f) {
		fprintf(f, "%s\n", tm.host_id);
		fclose(f);
	}
}

static int prepare_all(void)
{
	char sql[16384];
	unsigned int id, i;

	for (id = 0; id < BPFTUNE_T_MAX; id++) {
		const struct bpftune_ttable *t = &bpftune_telemetry_tables[id];

		if (bpftune_telemetry_ddl(t, sql, sizeof(sql)) < 0 || exec_sql(sql))
			return -EIO;
		if (bpftune_telemetry_insert_sql(t, sql, sizeof(sql)) < 0 ||
		    sqlite3_prepare_v3(tm.db, sql, -1, SQLITE_PREPARE_PERSISTENT,
				       &tm.ins[id], NULL) != SQLITE_OK) {
			bpftune_log(LOG_WARNING, "telemetry: cannot prepare %s: %s",
				    t->name, sqlite3_errmsg(tm.db));
			return -EIO;
		}
		if ((t->flags & BPFTUNE_TT_SAMPLES) && t->num_cols > MAX_SAMPLE_COLS)
			return -E2BIG;
		for (i = 0; (t->flags & BPFTUNE_TT_SAMPLES) && i < t->num_cols; i++) {
			const char *file = t->cols[i].file;
			struct proc_file *f;

			tm.col_file[id][i] = NO_FILE;
			if (!file)
				continue;
			f = proc_file(file);
			if (!f) {
				if (tm.num_files == BPFTUNE_ARRAY_SIZE(tm.files))
					return -E2BIG;
				f = &tm.files[tm.num_files++];
				f->path = file;
				f->net = !strncmp(file, "/proc/net/", 10);
				if (f->net && snprintf(f->open_path, sizeof(f->open_path),
						       "/proc/thread-self/net/%s",
						       file + 10) >= (int)sizeof(f->open_path))
					return -ENAMETOOLONG;
			}
			tm.col_file[id][i] = f - tm.files;
		}
	}
	return 0;
}

static int write_meta(void)
{
	static const char *const keys[] = {
		"schema_version", "run_id", "host_id", "created_by", "created_wall",
	};
	char version[16], wall[32];
	const char *vals[BPFTUNE_ARRAY_SIZE(keys)];
	sqlite3_stmt *st = tm.ins[BPFTUNE_T_META];
	time_t now = tm.start_wall_us / 1000000;
	unsigned int i;
	struct tm g;

	snprintf(version, sizeof(version), "%d", BPFTUNE_TELEMETRY_SCHEMA_VERSION);
	strftime(wall, sizeof(wall), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &g));
	vals[0] = version;
	vals[1] = tm.run_id;
	vals[2] = tm.host_id;
	vals[3] = "bpftune " BPFTUNE_VERSION;
	vals[4] = wall;
	for (i = 0; i < BPFTUNE_ARRAY_SIZE(keys); i++) {
		sqlite3_bind_text(st, 1, keys[i], -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, vals[i], -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE) {
			sqlite3_reset(st);
			return -EIO;
		}
		sqlite3_reset(st);
	}
	return 0;
}

static void remove_files(void)
{
	static const char *const sfx[] = { "", "-wal", "-shm" };
	char path[PATH_MAX + 8];
	unsigned int i;

	for (i = 0; i < BPFTUNE_ARRAY_SIZE(sfx); i++) {
		snprintf(path, sizeof(path), "%s%s", tm.path, sfx[i]);
		unlink(path);
	}
}

static void close_db(void)
{
	unsigned int i;

	for (i = 0; i < BPFTUNE_T_MAX; i++) {
		sqlite3_finalize(tm.ins[i]);
		tm.ins[i] = NULL;
	}
	sqlite3_close(tm.db);
	tm.db = NULL;
	for (i = 0; i < tm.num_files; i++) {
		free(tm.files[i].buf);
		tm.files[i].buf = NULL;
		tm.files[i].size = 0;
	}
	tm.num_files = 0;
	free(bss_buf);
	bss_buf = NULL;
	bss_size = 0;
	free(ring);
	ring = NULL;
	tm.on = false;
}

/* ---- retention: earlier runs' files, pruned at start ---------------------- */

/*
 * Is a run file open in another process?  A SQLite connection to a WAL
 * database holds a read lock on byte 128 of its -shm file (the "DMS"
 * lock) for as long as it is open; a file without -shm is open nowhere.
 * When in doubt, in use.
 */
static bool run_in_use(int dfd, const char *db)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
			    .l_start = 128, .l_len = 1 };
	char shm[80];
	int fd;
	bool busy;

	snprintf(shm, sizeof(shm), "%s-shm", db);
	fd = openat(dfd, shm, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return errno != ENOENT;
	busy = fcntl(fd, F_GETLK, &fl) || fl.l_type != F_UNLCK;
	close(fd);
	return busy;
}

/* ours: a regular file (not a link) owned by the daemon's user */
static bool our_file(int dfd, const char *name, struct stat *st)
{
	return !fstatat(dfd, name, st, AT_SYMLINK_NOFOLLOW) &&
	       S_ISREG(st->st_mode) && st->st_uid == geteuid();
}

static void unlink_run(int dfd, const char *db)
{
	static const char *const sfx[] = { "", "-wal", "-shm" };
	char name[80];
	unsigned int i;

	for (i = 0; i < BPFTUNE_ARRAY_SIZE(sfx); i++) {
		snprintf(name, sizeof(name), "%s%s", db, sfx[i]);
		if (unlinkat(dfd, name, 0) && errno != ENOENT)
			bpftune_log(LOG_WARNING, "telemetry: cannot remove %s: %s",
				    name, strerror(errno));
	}
}

/*
 * Remove the oldest earlier runs beyond --telemetry-keep files or
 * --telemetry-max-mb.  Only files named like ours, regular, owned by us
 * and open nowhere are touched; the new run does not exist yet.
 */
static void prune_runs(const char *dir)
{
	uint64_t max_bytes = (uint64_t)tm.o.max_mb << 20, freed = 0;
	struct bpftune_tfile *files = NULL, *f;
	unsigned int n = 0, cap = 0, i, removed;
	struct dirent *d;
	struct stat st;
	DIR *dp;
	int dfd;

	if (!tm.o.keep_files && !max_bytes)
		return;
	dp = opendir(dir);
	if (!dp)
		return;
	dfd = dirfd(dp);
	while ((d = readdir(dp))) {
		int kind = bpftune_telemetry_file_kind(d->d_name);
		size_t len = strlen(d->d_name);
		char wal[80];

		/* our names are 56 bytes, 60 with -wal or -shm */
		if (kind < 0 || len >= sizeof(f->name) || !our_file(dfd, d->d_name, &st))
			continue;
		if (kind != BPFTUNE_TFILE_DB) {
			/* a -wal or -shm left behind by a run removed earlier */
			char db[sizeof(f->name)];

			memcpy(db, d->d_name, len - 4);
			db[len - 4] = '\0';
			if (faccessat(dfd, db, F_OK, AT_SYMLINK_NOFOLLOW) && errno == ENOENT &&
			    !run_in_use(dfd, db))
				unlinkat(dfd, d->d_name, 0);
			continue;
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			f = realloc(files, cap * sizeof(*files));
			if (!f)
				break;
			files = f;
		}
		f = &files[n++];
		memset(f, 0, sizeof(*f));
		memcpy(f->name, d->d_name, len + 1);
		f->bytes = st.st_size;
		snprintf(wal, sizeof(wal), "%s-wal", f->name);
		if (our_file(dfd, wal, &st))
			f->bytes += st.st_size;
		f->in_use = run_in_use(dfd, d->d_name);
	}
	removed = bpftune_telemetry_prune_plan(files, n, tm.o.keep_files, max_bytes);
	for (i = 0; removed && i < n; i++) {
		if (!files[i].remove)
			continue;
		unlink_run(dfd, files[i].name);
		freed += files[i].bytes;
	}
	if (removed)
		bpftune_log(LOG_INFO, "telemetry: removed %u earlier run(s), %llu kB, from %s (keep %d runs, %ld MB)",
			    removed, (unsigned long long)(freed >> 10), dir,
			    tm.o.keep_files, tm.o.max_mb);
	free(files);
	closedir(dp);
}

int bpftune_telemetry_init(const struct bpftune_telemetry_opts *o)
{
	const char *dir = o->dir ? o->dir : BPFTUNE_TELEMETRY_DIR;
	char stamp[32], sql[64];
	time_t now;
	struct tm g;
	int err;

	tm.o = *o;
	if (!tm.o.sample_interval_ms)
		tm.o.sample_interval_ms = BPFTUNE_SAMPLE_INTERVAL_MS;
	if (tm.o.sample_netns < 0)
		tm.o.sample_netns = BPFTUNE_SAMPLE_NETNS_DEFAULT;
	if (tm.o.sample_netns > BPFTUNE_SAMPLE_NETNS_MAX)
		tm.o.sample_netns = BPFTUNE_SAMPLE_NETNS_MAX;
	if (tm.o.keep_files < 0)
		tm.o.keep_files = BPFTUNE_TELEMETRY_KEEP_DEFAULT;
	if (tm.o.max_mb < 0)
		tm.o.max_mb = BPFTUNE_TELEMETRY_MAX_MB_DEFAULT;
	tm.start_us = now_us();
	tm.start_wall_us = clock_us(CLOCK_REALTIME);
	err = read_line_file("/proc/sys/kernel/random/uuid", tm.run_id, sizeof(tm.run_id));
	if (err) {
		sd_id128_t id;

		if (sd_id128_randomize(&id))
			return err;
		sd_id128_to_uuid_string(id, tm.run_id);
	}
	if (read_line_file("/proc/sys/kernel/random/boot_id", tm.boot_id, sizeof(tm.boot_id)))
		tm.boot_id[0] = '\0';
	err = mkdir_p(dir);
	if (err) {
		bpftune_log(LOG_WARNING, "telemetry off: cannot create %s: %s",
			    dir, strerror(-err));
		return err;
	}
	host_id(dir, o->host_id);
	prune_runs(dir);
	now = tm.start_wall_us / 1000000;
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", gmtime_r(&now, &g));
	if (snprintf(tm.path, sizeof(tm.path), "%s/%s-%s.db", dir, stamp,
		     tm.run_id) >= (int)sizeof(tm.path))
		return -ENAMETOOLONG;
	ring = calloc(QUEUE_SLOTS, sizeof(*ring));
	if (!ring)
		return -ENOMEM;
	if (sqlite3_open_v2(tm.path, &tm.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
			    SQLITE_OPEN_NOMUTEX | OPEN_NOFOLLOW, NULL) != SQLITE_OK) {
		bpftune_log(LOG_WARNING, "telemetry off: cannot create %s: %s", tm.path,
			    tm.db ? sqlite3_errmsg(tm.db) : "out of memory");
		close_db();
		return -EIO;
	}
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d",
		 BPFTUNE_TELEMETRY_SCHEMA_VERSION);
	/* WAL: readers see committed flushes while we write */
	/* the writer thread may wait a little for another process's lock */
	sqlite3_busy_timeout(tm.db, 200);
	err = exec_sql("PRAGMA journal_mode = WAL") ?:
	      exec_sql("PRAGMA synchronous = NORMAL") ?:
	      exec_sql("BEGIN") ?: exec_sql(sql) ?: prepare_all() ?:
	      write_meta() ?: exec_sql("COMMIT");
	if (err) {
		bpftune_log(LOG_WARNING, "telemetry off: cannot set up %s", tm.path);
		close_db();
		remove_files();
		return err;
	}
	tm.on = true;
	bpftune_log(LOG_INFO, "telemetry: writing to %s", tm.path);
	return 0;
}

const char *bpftune_telemetry_path(void)
{
	return tm.on ? tm.path : NULL;
}

static void cpu_model(char *buf, size_t len)
{
	char line[512];
	FILE *f = fopen("/proc/cpuinfo", "re");

	buf[0] = '\0';
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!colon || (strncmp(line, "model name", 10) &&
			       strncmp(line, "Model", 5) && strncmp(line, "cpu\t", 4)))
			continue;
		colon++;
		colon += strspn(colon, " \t");
		colon[strcspn(colon, "\n")] = '\0';
		scopy(buf, len, colon);
		break;
	}
	fclose(f);
}

static int write_run(void)
{
	char wall[32], model[256], tuners[1024] = "", args[1024] = "";
	const struct bpftune_support *s = bpftune_support();
	time_t now = tm.start_wall_us / 1000000;
	struct bpftune_proc_value memtotal;
	struct proc_file mem = { .path = "/proc/meminfo" };
	struct utsname u;
	struct binder b;
	size_t off = 0;
	unsigned int id;
	struct tm g;
	int i, err;

	uname(&u);
	cpu_model(model, sizeof(model));
	read_proc_file(&mem);
	if (!mem.ok || bpftune_proc_lookup(BPFTUNE_PROC_KEYVAL, mem.buf, "MemTotal", &memtotal))
		memtotal.i = -1;
	free(mem.buf);
	strftime(wall, sizeof(wall), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &g));
	for (id = 0; id < BPFTUNE_MAX_TUNERS; id++) {
		const struct bpftune_tuner *t = bpftune_tuner_get(id);

		if (t && t->obj && off < sizeof(tuners)) {
			int n = snprintf(tuners + off, sizeof(tuners) - off, "%s%s",
					 off ? "," : "", t->ops->name);

			off += n > 0 ? (size_t)n : 0;
		}
	}
	for (i = 0, off = 0; i < tm.o.argc && off < sizeof(args); i++) {
		int n = snprintf(args + off, sizeof(args) - off, "%s%s", i ? " " : "",
				 tm.o.argv[i]);

		off += n > 0 ? (size_t)n : 0;
	}
	b_begin(&b, BPFTUNE_T_RUNS, 1, tm.start_us);
	b_text(&b, "boot_id", tm.boot_id);
	b_int(&b, "start_wall_us", tm.start_wall_us);
	b_text(&b, "start_wall", wall);
	b_null(&b, "end_ts_uptime_us");
	b_null(&b, "exit_status");
	b_text(&b, "daemon_version", BPFTUNE_VERSION);
	b_int(&b, "schema_version", BPFTUNE_TELEMETRY_SCHEMA_VERSION);
	b_text(&b, "kernel_release", u.release);
	b_text(&b, "kernel_version", u.version);
	b_text(&b, "arch", u.machine);
	b_text(&b, "cpu_model", model);
	b_int(&b, "cpu_cores", sysconf(_SC_NPROCESSORS_ONLN));
	b_int_or_null(&b, "mem_total_kb", memtotal.i >= 0, memtotal.i);
	b_text(&b, "support_mode", bpftune_support_level_name(s->level));
	b_text(&b, "bpf_objects", tm.o.legacy ? "legacy" : "full");
	b_int(&b, "learning_rate", tm.o.learning_rate);
	b_text(&b, "tuners", tuners);
	b_text(&b, "label", tm.o.label);
	b_int(&b, "observe_only", tm.o.observe_only);
	b_int(&b, "sample_interval_ms", tm.o.sample_interval_ms);
	b_int(&b, "pid", getpid());
	b_text(&b, "args", args);
	err = b_done(&b);
	if (!err)
		rows_written++;
	return err;
}

int bpftune_telemetry_start(void)
{
	struct itimerspec its = { 0 };
	sigset_t all, old;
	unsigned int id;
	int err;

	if (!tm.on || tm.started)
		return 0;
	/* the writer thread is not running yet: this thread may use the db */
	err = write_run();
	if (err)
		goto fail;
	tm.efd = eventfd(0, EFD_CLOEXEC);
	if (tm.efd < 0) {
		err = -errno;
		goto fail;
	}
	tm.started = true;
	for (id = 0; id < BPFTUNE_MAX_TUNERS; id++) {
		const struct bpftune_tuner *t = bpftune_tuner_get(id);

		if (t && t->obj)
			bpftune_telemetry_tuner_added(t);
	}
	/* signals belong to the main loop's signalfd, never to the writer */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = -pthread_create(&tm.thread, NULL, writer_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		tm.started = false;
		goto fail;
	}
	pthread_setname_np(tm.thread, "bpftune-writer");
	bpftune_observer_add(&observer);
	tm.tfd = timerfd_create(CLOCK_BOOTTIME, TFD_CLOEXEC | TFD_NONBLOCK);
	its.it_interval.tv_sec = tm.o.sample_interval_ms / 1000;
	its.it_interval.tv_nsec = (tm.o.sample_interval_ms % 1000) * 1000000L;
	its.it_value = its.it_interval;
	err = tm.tfd < 0 || timerfd_settime(tm.tfd, 0, &its, NULL) ? -errno :
	      bpftune_loop_add(tm.tfd, on_timer, NULL);
	if (err) {
		bpftune_log(LOG_WARNING, "telemetry: no sample timer: %s; samples only at exit",
			    strerror(-err));
		if (tm.tfd >= 0)
			close(tm.tfd);
		tm.tfd = -1;
	}
	bpftune_log(LOG_INFO, "telemetry: run %s%s%s, samples every %u ms",
		    tm.run_id, tm.o.label ? ", label " : "", tm.o.label ? tm.o.label : "",
		    tm.o.sample_interval_ms);
	return 0;
fail:
	bpftune_log(LOG_WARNING, "telemetry off: cannot start the writer: %s",
		    strerror(-err));
	if (tm.efd >= 0)
		close(tm.efd);
	tm.efd = -1;
	close_db();
	remove_files();
	return err;
}

void bpftune_telemetry_stop(int status)
{
	bool started = tm.started;
	sqlite3_stmt *st;

	if (!tm.on)
		return;
	if (started) {
		bpftune_observer_remove(&observer);
		if (tm.tfd >= 0) {
			bpftune_loop_del(tm.tfd);
			close(tm.tfd);
			tm.tfd = -1;
		}
		update_ringbuf_lost();
		atomic_store(&exit_status, status);
		atomic_store(&stop_requested, true);
		kick_writer();
		pthread_join(tm.thread, NULL);
		tm.started = false;
		close(tm.efd);
		tm.efd = -1;
		/* the writer is gone: this thread owns the db again */
		if (sqlite3_prepare_v2(tm.db, "UPDATE runs SET end_ts_uptime_us = ?, exit_status = ? WHERE run_id = ?",
				       -1, &st, NULL) == SQLITE_OK) {
			sqlite3_bind_int64(st, 1, now_us());
			sqlite3_bind_int(st, 2, atomic_load(&exit_status));
			sqlite3_bind_text(st, 3, tm.run_id, -1, SQLITE_STATIC);
			if (sqlite3_step(st) != SQLITE_DONE)
				bpftune_log(LOG_WARNING, "telemetry: cannot record the end of the run: %s",
					    sqlite3_errmsg(tm.db));
			sqlite3_finalize(st);
		}
		bpftune_log(LOG_INFO, "telemetry: %llu rows written, %llu dropped, %llu events lost in the ring buffer: %s",
			    (unsigned long long)rows_written,
			    (unsigned long long)(atomic_load(&rows_dropped) + write_errors),
			    (unsigned long long)atomic_load(&ringbuf_lost), tm.path);
	}
	close_db();
	/* no run happened: leave no file without a runs row behind */
	if (!started)
		remove_files();
}
