// SPDX-License-Identifier: GPL-2.0-only
/*
 * Outcomes of decisions (telemetry.h, struct bpftune_outcome_desc): for a
 * policy that declares one, each decision it records -- applied or, with
 * --observe, not -- gets a row of outcomes_<plugin>_<policy> at its
 * horizon.  When the decision is made its /proc reward inputs are read in
 * its netns, and its gauge inputs' means over the horizon before it are
 * taken from the sampler's history (sampler.c); one timer of the
 * library's, armed for the earliest pending outcome only while any is
 * pending, reads them again there (the gauges' means over the horizon
 * after) and writes the row (schema_outcome.c does the arithmetic).  A policy whose reward
 * is in the decision (horizon 0) gets its row at once.
 *
 * Bounded: at most PENDING_MAX outcomes wait; a decision past that gets
 * no outcome row and is counted (logged at exit).  A counter's
 * before-rate needs the previous reading of the same policy in the same
 * netns: LAST_MAX of those are kept, the oldest replaced.  Daemon thread
 * only, like the decisions that feed it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/loop.h"
#include "core/observer.h"
#include "telemetry/tm.h"

#define PENDING_MAX	256
#define LAST_MAX	64
#define FILE_MAX	(256 * 1024)
#define N		BPFTUNE_OUTCOME_MAX_REWARD

struct pending {
	const struct bpftune_tuner *t;	/* NULL: a free slot */
	unsigned int k;			/* policy index */
	uint64_t decision_seq, cookie, t0_us, due_us, before_us;
	double propensity;
	bool observed;
	char action[48];
	struct bpftune_outcome_reading r;
	double v0[N];			/* counters read at the decision */
	bool has_v0[N];
};

/* the latest reading per (plugin, policy, netns): the next before-rate */
struct last {
	const struct bpftune_tuner *t;
	unsigned int k;
	uint64_t cookie, ts_us;
	double v[N];
	bool has[N];
};

static struct pending pending[PENDING_MAX];
static unsigned int num_pending;
static struct last last[LAST_MAX];
static unsigned int last_next;
static struct bpftune_timer *timer;
static uint64_t written, dropped, failed, uncovered;
static char filebuf[FILE_MAX];

static uint64_t boot_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static const struct bpftune_outcome_desc *outcome_of(const struct bpftune_tuner *t,
						     unsigned int k)
{
	const struct bpftune_policy_desc *p = bpftune_policy_at(t->ops->telemetry, k);

	return p ? p->outcome : NULL;
}

/* the whole of @path (in the current netns) into filebuf; 0 or -errno */
static int read_text(const char *path)
{
	char open_path[96];
	size_t len = 0;
	ssize_t n;
	int fd;

	if (!strncmp(path, "/proc/net/", 10))
		snprintf(open_path, sizeof(open_path), "/proc/thread-self/net/%s", path + 10);
	else
		snprintf(open_path, sizeof(open_path), "%s", path);
	fd = open(open_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (len + 1 < sizeof(filebuf)) {
		n = read(fd, filebuf + len, sizeof(filebuf) - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += n;
	}
	close(fd);
	filebuf[len] = '\0';
	return 0;
}

/* @o's /proc inputs in the netns of @cookie (@ev's when given) */
static int read_inputs(const struct bpftune_outcome_desc *o, const struct bpftune_event *ev,
		       uint64_t cookie, double *v, bool *has)
{
	int fd = ev ? bpftune_netns_fd_for_event(ev) : bpftune_netns_fd_for_cookie(cookie);
	const char *loaded = NULL;
	unsigned int i;
	int saved, err;

	memset(has, 0, N * sizeof(*has));
	if (fd < -1)
		return fd;
	err = bpftune_netns_enter(fd, &saved);
	if (err)
		return err;
	for (i = 0; i < o->num_reward; i++) {
		const struct bpftune_col_desc *c = &o->reward[i].col;
		struct bpftune_proc_value pv;

		if (c->source != BPFTUNE_SRC_PROC)
			continue;
		if (!loaded || strcmp(loaded, c->proc.file)) {
			loaded = read_text(c->proc.file) ? NULL : c->proc.file;
			if (!loaded)
				continue;
		}
		if (bpftune_proc_lookup(c->proc.format, filebuf, c->proc.key, &pv))
			continue;
		v[i] = pv.real ? pv.d : (double)pv.i;
		has[i] = true;
	}
	bpftune_netns_leave(saved);
	return 0;
}

static struct last *last_get(const struct bpftune_tuner *t, unsigned int k, uint64_t cookie)
{
	unsigned int i;

	for (i = 0; i < LAST_MAX; i++)
		if (last[i].t == t && last[i].k == k && last[i].cookie == cookie)
			return &last[i];
	return NULL;
}

static void last_put(const struct bpftune_tuner *t, unsigned int k, uint64_t cookie,
		     uint64_t ts_us, const double *v, const bool *has)
{
	struct last *l = last_get(t, k, cookie);

	if (!l) {
		l = &last[last_next];
		last_next = (last_next + 1) % LAST_MAX;
	}
	*l = (struct last){ .t = t, .k = k, .cookie = cookie, .ts_us = ts_us };
	memcpy(l->v, v, sizeof(l->v));
	memcpy(l->has, has, sizeof(l->has));
}

/* the row: context, then before/after per reward input, then the reward */
static void write_row(const struct pending *e, uint64_t now_us)
{
	const struct bpftune_outcome_desc *o = outcome_of(e->t, e->k);
	struct bpftune_value v[BPFTUNE_OUTCOME_CONTEXT_COLS + 2 * N + 1];
	unsigned int i, n = 0;
	double reward;

	v[n++] = BPFTUNE_VALUE_INT(e->decision_seq);
	v[n++] = BPFTUNE_VALUE_TEXT(e->action);
	v[n++] = BPFTUNE_VALUE_REAL(e->propensity);
	v[n++] = BPFTUNE_VALUE_INT(e->observed);
	v[n++] = BPFTUNE_VALUE_INT((int64_t)o->horizon_s * 1000);
	v[n++] = BPFTUNE_VALUE_INT((int64_t)(now_us - e->t0_us) / 1000);
	v[n++] = e->before_us ? BPFTUNE_VALUE_INT(e->before_us / 1000) : BPFTUNE_VALUE_NULL;
	for (i = 0; i < o->num_reward; i++) {
		v[n++] = e->r.has_before[i] ? BPFTUNE_VALUE_REAL(e->r.before[i]) :
					      BPFTUNE_VALUE_NULL;
		v[n++] = e->r.has_after[i] ? BPFTUNE_VALUE_REAL(e->r.after[i]) :
					     BPFTUNE_VALUE_NULL;
	}
	v[n++] = bpftune_outcome_reward(o, &e->r, &reward) ? BPFTUNE_VALUE_NULL :
		 BPFTUNE_VALUE_REAL(reward);
	if (tm_reg_outcome_row(e->t, e->k, e->cookie, v, n))
		failed++;
	else
		written++;
}

/*
 * Gauge inputs of @e's reward: their mean over the horizon before the
 * decision (@after false, at the decision) or after it (at the horizon);
 * without an observation, NULL.
 */
static void gauge_window(struct pending *e, const struct bpftune_outcome_desc *o,
			 uint64_t now_us, bool after)
{
	uint64_t cookie = e->cookie ? e->cookie : bpftune_global_netns_cookie();
	uint64_t h_us = (uint64_t)o->horizon_s * 1000000;
	uint64_t from = after ? e->t0_us : e->t0_us > h_us ? e->t0_us - h_us : 0;
	uint64_t to = after ? now_us : e->t0_us;
	unsigned int i;

	for (i = 0; i < o->num_reward; i++) {
		const struct bpftune_col_desc *c = &o->reward[i].col;
		double *v = after ? &e->r.after[i] : &e->r.before[i];
		bool *has = after ? &e->r.has_after[i] : &e->r.has_before[i];
		int err;

		if (c->source != BPFTUNE_SRC_GAUGE)
			continue;
		err = tm_gauge_mean(cookie, e->t->id, c->gauge.id, from, to, v);
		*has = !err;
		uncovered += err == -ERANGE;
	}
}

/* at the horizon: read again, make the rates, write */
static void finish(struct pending *e, uint64_t now_us)
{
	const struct bpftune_outcome_desc *o = outcome_of(e->t, e->k);
	double v1[N];
	bool has1[N];
	unsigned int i;

	if (read_inputs(o, NULL, e->cookie, v1, has1))
		memset(has1, 0, sizeof(has1));
	for (i = 0; i < o->num_reward; i++) {
		const struct bpftune_col_desc *c = &o->reward[i].col;

		if (c->source != BPFTUNE_SRC_PROC || !has1[i])
			continue;
		if (c->kind == BPFTUNE_KIND_GAUGE) {
			e->r.after[i] = v1[i];
			e->r.has_after[i] = true;
		} else if (e->has_v0[i]) {
			e->r.has_after[i] = !bpftune_outcome_rate(e->v0[i], v1[i],
								  now_us - e->t0_us,
								  &e->r.after[i]);
		}
	}
	gauge_window(e, o, now_us, true);
	write_row(e, now_us);
}

static void fire(void *ctx);

static void arm(void)
{
	uint64_t now = boot_us(), due = UINT64_MAX;
	unsigned int i;

	for (i = 0; i < PENDING_MAX && num_pending; i++)
		if (pending[i].t && pending[i].due_us < due)
			due = pending[i].due_us;
	if (due == UINT64_MAX) {
		if (timer)
			bpftune_loop_timer_set(timer, 0);
		return;
	}
	if (!timer && !(timer = bpftune_loop_timer_new(fire, NULL)))
		return;
	bpftune_loop_timer_set(timer, due > now ? (due - now + 999) / 1000 : 1);
}

static void fire(void *ctx)
{
	uint64_t now = boot_us();
	unsigned int i;

	(void)ctx;
	for (i = 0; i < PENDING_MAX; i++) {
		if (!pending[i].t || pending[i].due_us > now)
			continue;
		finish(&pending[i], now);
		pending[i].t = NULL;
		num_pending--;
	}
	arm();
}

/* the before values: a gauge's reading, a counter's rate since the last */
static void start(struct pending *e, const struct bpftune_outcome_desc *o,
		  const struct bpftune_event *ev)
{
	struct last *l;
	unsigned int i;

	gauge_window(e, o, e->t0_us, false);
	if (read_inputs(o, ev, e->cookie, e->v0, e->has_v0))
		return;
	l = last_get(e->t, e->k, e->cookie);
	for (i = 0; i < o->num_reward; i++) {
		const struct bpftune_col_desc *c = &o->reward[i].col;

		if (c->source != BPFTUNE_SRC_PROC || !e->has_v0[i])
			continue;
		if (c->kind == BPFTUNE_KIND_GAUGE) {
			e->r.before[i] = e->v0[i];
			e->r.has_before[i] = true;
		} else if (l && l->has[i] && l->ts_us < e->t0_us) {
			e->before_us = e->t0_us - l->ts_us;
			e->r.has_before[i] = !bpftune_outcome_rate(l->v[i], e->v0[i], e->before_us,
								   &e->r.before[i]);
		}
	}
	last_put(e->t, e->k, e->cookie, e->t0_us, e->v0, e->has_v0);
}

/* input @name of @d as a number; false if absent, NULL or text */
static bool input_value(const struct bpftune_policy_desc *p, const struct bpftune_decision *d,
			const char *name, double *out)
{
	unsigned int j;

	for (j = 0; name && j < p->num_inputs && j < d->num_values; j++) {
		const struct bpftune_value *v = &d->values[j];

		if (strcmp(p->inputs[j].name, name))
			continue;
		*out = v->type == BPFTUNE_COL_INTEGER ? (double)v->i : v->d;
		return v->type == BPFTUNE_COL_INTEGER || v->type == BPFTUNE_COL_REAL;
	}
	return false;
}

/* @d's inputs named as reward inputs: the outcome is in the decision */
static void from_inputs(struct pending *e, const struct bpftune_policy_desc *p,
			const struct bpftune_decision *d)
{
	const struct bpftune_outcome_desc *o = p->outcome;
	unsigned int i;

	for (i = 0; i < o->num_reward; i++) {
		if (o->reward[i].col.source != BPFTUNE_SRC_ROW)
			continue;
		e->r.has_after[i] = input_value(p, d, o->reward[i].col.name, &e->r.after[i]);
		e->r.has_before[i] = input_value(p, d, o->reward[i].ref, &e->r.before[i]);
	}
}

void tm_outcome_decision(const struct bpftune_tuner *t, const struct bpftune_decision *d,
			 const struct bpftune_event *ev, const struct tm_decision_ctx *ctx)
{
	int k = bpftune_policy_index(t->ops->telemetry, d->policy);
	const struct bpftune_policy_desc *p = k < 0 ? NULL :
					      bpftune_policy_at(t->ops->telemetry, k);
	struct pending e, *slot = NULL;
	unsigned int i;

	if (!p || !p->outcome || !tm.started)
		return;
	e = (struct pending){
		.t = t, .k = k, .decision_seq = ctx->decision_seq, .cookie = ctx->cookie,
		.t0_us = boot_us(), .observed = bpftune_observe_only(),
		.propensity = bpftune_outcome_propensity(p->outcome, d->propensity,
							 d->epsilon, d->explored),
	};
	tm_scopy(e.action, sizeof(e.action), ctx->action);
	if (d->values)
		from_inputs(&e, p, d);
	if (!p->outcome->horizon_s) {
		write_row(&e, e.t0_us);
		return;
	}
	for (i = 0; i < PENDING_MAX && !slot; i++)
		if (!pending[i].t)
			slot = &pending[i];
	if (!slot) {
		if (!dropped++)
			bpftune_log(LOG_WARNING, "telemetry: %u outcomes pending: later decisions get none until some are written (counted)",
				    PENDING_MAX);
		return;
	}
	e.due_us = e.t0_us + (uint64_t)p->outcome->horizon_s * 1000000;
	start(&e, p->outcome, ev);
	*slot = e;
	num_pending++;
	arm();
}

/* a plugin going: its pending outcomes and readings go with it */
void tm_outcome_forget(const struct bpftune_tuner *t)
{
	unsigned int i;

	for (i = 0; i < PENDING_MAX; i++)
		if (pending[i].t == t) {
			pending[i].t = NULL;
			num_pending--;
			dropped++;
		}
	for (i = 0; i < LAST_MAX; i++)
		if (last[i].t == t)
			last[i].t = NULL;
}

void tm_outcome_stop(void)
{
	if (written || dropped || failed || num_pending)
		bpftune_log(LOG_INFO, "telemetry: outcomes: %llu written, %llu not recorded (over %u pending or plugin gone), %llu refused, %u still pending at exit",
			    (unsigned long long)written, (unsigned long long)dropped,
			    PENDING_MAX, (unsigned long long)failed, num_pending);
	if (uncovered)
		bpftune_log(LOG_INFO, "telemetry: outcomes: %llu gauge windows NULL: older than the sampler's history of takes",
			    (unsigned long long)uncovered);
	memset(pending, 0, sizeof(pending));
	memset(last, 0, sizeof(last));
	num_pending = 0;
	written = dropped = failed = uncovered = 0;
	bpftune_loop_timer_free(timer);
	timer = NULL;
}
