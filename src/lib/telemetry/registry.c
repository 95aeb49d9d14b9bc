// SPDX-License-Identifier: GPL-2.0-only
/*
 * Every table of the run: the core's, then each plugin's, in the order
 * they were declared.  A plugin's declaration is checked before its BPF
 * object loads (a bad one refuses the plugin), each table is copied (the
 * plugin's .so may go while its rows remain in the file), reserved while
 * the plugin starts, active while it runs and retired when it goes.  A
 * table is never removed during a run: a plugin loaded again finds its
 * tables where they were, if it declares them the same way.
 *
 * The main thread changes states under tm_reg_lock; the writer reads
 * them under it.  The main thread reads what only it changes without it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "telemetry/tm.h"

/* One plugin of the run, running or gone; found again by name. */
struct tplugin {
	char name[TM_NAME_LEN];
	const struct bpftune_tuner *tuner;	/* while it starts or runs */
	bool running;
	uint32_t tuner_id;
	unsigned int num_gauges;
	unsigned int num_tables, num_plugin_tables;
	/* in tm_tables[]: its own tables, then its policies', then outcomes */
	unsigned int entry[BPFTUNE_X_MAX_TABLES];
	int outcome_table[BPFTUNE_X_MAX_POLICIES];	/* index into entry[] */
	/* ring buffer losses, read by the writer: now; of its earlier runs */
	uint64_t lost, lost_before;
};

/* A table's declaration, copied: one allocation, strings included. */
struct tcopy {
	struct bpftune_table_desc t;
	struct bpftune_telemetry_desc owner;	/* its gauges, for sources */
};

struct treg tm_tables[BPFTUNE_TELEMETRY_MAX_TABLES];
unsigned int tm_num_tables;
pthread_mutex_t tm_reg_lock = PTHREAD_MUTEX_INITIALIZER;
unsigned int tm_reg_gen;

static struct tplugin *plugins[BPFTUNE_TELEMETRY_MAX_TABLES];
static unsigned int num_plugins;
/* main thread: the record of each tuner id now in use */
static struct tplugin *by_tuner[BPFTUNE_MAX_TUNERS];
/* rows refused, logged once per tuner id and table (bit 31: no such table) */
static uint32_t refused_logged[BPFTUNE_MAX_TUNERS];
/* typed decision inputs refused, logged once per tuner id and policy */
static uint32_t inputs_refused_logged[BPFTUNE_MAX_TUNERS];
#define NO_SUCH_TABLE	31

void tm_reg_init(void)
{
	unsigned int i;

	memset(tm_tables, 0, sizeof(tm_tables));
	for (i = 0; i < BPFTUNE_T_MAX; i++) {
		tm_tables[i].d = &bpftune_core_tables[i];
		tm_tables[i].state = TREG_ACTIVE;
	}
	tm_num_tables = BPFTUNE_T_MAX;
	tm_reg_gen++;
}


void tm_reg_fini(void)
{
	unsigned int i;

	for (i = 0; i < tm_num_tables; i++) {
		if (tm_tables[i].plugin)
			free((void *)tm_tables[i].d);
		free(tm_tables[i].col_file);
	}
	memset(tm_tables, 0, sizeof(tm_tables));
	tm_num_tables = 0;
	for (i = 0; i < num_plugins; i++) {
		free(plugins[i]);
		plugins[i] = NULL;
	}
	num_plugins = 0;
	memset(by_tuner, 0, sizeof(by_tuner));
}

const char *tm_reg_owner(const struct treg *e)
{
	return e->plugin ? e->plugin->name : "core";
}

const struct bpftune_telemetry_desc *tm_reg_desc(const struct treg *e)
{
	return e->plugin ? &((const struct tcopy *)e->d)->owner : NULL;
}

struct bpftune_tuner *tm_reg_tuner(const struct treg *e)
{
	if (!e->plugin || !e->plugin->running)
		return NULL;
	return (struct bpftune_tuner *)e->plugin->tuner;
}

bool tm_reg_running_id(const struct treg *e, uint32_t *tuner_id)
{
	if (!e->plugin || !e->plugin->running)
		return false;
	*tuner_id = e->plugin->tuner_id;
	return true;
}

struct tplugin *tm_reg_next_gauged(struct tplugin *prev, uint32_t *tuner_id)
{
	unsigned int i = 0;

	if (prev)
		while (i < num_plugins && plugins[i++] != prev)
			;
	for (; i < num_plugins; i++)
		if (plugins[i]->running && plugins[i]->num_gauges) {
			*tuner_id = plugins[i]->tuner_id;
			return plugins[i];
		}
	return NULL;
}

/* ---- copying a declaration ---------------------------------------------- */

struct arena {
	char *p;		/* NULL: only count */
	size_t used;
};

static void *take(struct arena *a, size_t n)
{
	void *r = a->p ? a->p + a->used : NULL;

	a->used += (n + 7) & ~(size_t)7;
	return r;
}

static const char *dup_str(struct arena *a, const char *s)
{
	size_t n = s ? strlen(s) + 1 : 0;
	char *r = n ? take(a, n) : NULL;

	if (r)
		memcpy(r, s, n);
	return a->p && n ? r : NULL;
}

static void copy_cols(struct arena *a, struct bpftune_col_desc *cols,
		      const struct bpftune_table_desc *src)
{
	unsigned int i;

	for (i = 0; i < src->num_cols; i++) {
		const struct bpftune_col_desc *s = &src->cols[i];
		struct bpftune_col_desc c = *s;

		c.name = dup_str(a, s->name);
		c.unit = dup_str(a, s->unit);
		c.description = dup_str(a, s->description);
		c.proc.file = dup_str(a, s->proc.file);
		c.proc.key = dup_str(a, s->proc.key);
		if (cols)
			cols[i] = c;
	}
}

static void copy_gauges(struct arena *a, struct bpftune_gauge_desc *g,
			const struct bpftune_telemetry_desc *d)
{
	unsigned int i;

	for (i = 0; i < d->num_gauges; i++) {
		struct bpftune_gauge_desc x = {
			.name = dup_str(a, d->gauges[i].name),
			.unit = dup_str(a, d->gauges[i].unit),
			.description = dup_str(a, d->gauges[i].description),
		};

		if (g)
			g[i] = x;
	}
}

/* one pass: counting with a->p NULL, copying into a->p otherwise */
static struct tcopy *copy_pass(struct arena *a, const struct bpftune_table_desc *t,
			       const struct bpftune_telemetry_desc *d)
{
	struct tcopy *c = take(a, sizeof(*c));
	struct bpftune_col_desc *cols = take(a, t->num_cols * sizeof(*cols));
	struct bpftune_gauge_desc *g = take(a, d->num_gauges * sizeof(*g));

	if (c) {
		c->t = *t;
		c->t.cols = cols;
		c->owner.gauges = g;
		c->owner.num_gauges = d->num_gauges;
	}
	copy_cols(a, cols, t);
	copy_gauges(a, g, d);
	if (c) {
		c->t.name = dup_str(a, t->name);
		c->t.description = dup_str(a, t->description);
	} else {
		dup_str(a, t->name);
		dup_str(a, t->description);
	}
	return c;
}

static struct tcopy *copy_table(const struct bpftune_table_desc *t,
				const struct bpftune_telemetry_desc *d)
{
	struct arena a = { 0 };

	copy_pass(&a, t, d);
	a.p = calloc(1, a.used);
	if (!a.p)
		return NULL;
	a.used = 0;
	return copy_pass(&a, t, d);
}

/* ---- registering a plugin's tables (main thread) -------------------------- */

static struct tplugin *plugin_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < num_plugins; i++)
		if (!strcmp(plugins[i]->name, name))
			return plugins[i];
	return NULL;
}

static struct treg *table_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < tm_num_tables; i++)
		if (!strcmp(tm_tables[i].d->name, name))
			return &tm_tables[i];
	return NULL;
}

static bool same_layout(const struct bpftune_table_desc *a,
			const struct bpftune_table_desc *b)
{
	char x[16384], y[16384];

	return bpftune_telemetry_ddl(a, x, sizeof(x)) > 0 &&
	       bpftune_telemetry_ddl(b, y, sizeof(y)) > 0 && !strcmp(x, y) &&
	       a->flags == b->flags;
}

/* can @p (re)declare table @t?  Its entry, or NULL for a new one */
static int table_place(const struct tplugin *p, const struct bpftune_table_desc *t,
		       struct treg **found, char *why, size_t len)
{
	struct treg *e = table_find(t->name);

	*found = e;
	if (!e)
		return tm_num_tables < BPFTUNE_TELEMETRY_MAX_TABLES ? 0 :
		       (snprintf(why, len, "table '%s': the run has %d tables already",
				 t->name, BPFTUNE_TELEMETRY_MAX_TABLES), -ENOSPC);
	if (e->plugin != p) {
		snprintf(why, len, "table '%s' is already declared by %s%s", t->name,
			 e->plugin ? "plugin " : "the ", tm_reg_owner(e));
		return -EEXIST;
	}
	if (!same_layout(e->d, t)) {
		snprintf(why, len, "table '%s' is declared differently from when %s ran earlier in this run",
			 t->name, p->name);
		return -EINVAL;
	}
	return 0;
}

static struct tplugin *plugin_get(const char *name)
{
	struct tplugin *p = plugin_find(name);

	if (p || num_plugins == BPFTUNE_TELEMETRY_MAX_TABLES)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	tm_scopy(p->name, sizeof(p->name), name);
	plugins[num_plugins++] = p;
	return p;
}

/* every table of @d placed (new entries appended), or none; lock held */
static int tables_reserve(struct tplugin *p, const struct bpftune_telemetry_desc *d,
			  char *why, size_t len)
{
	struct treg *found[BPFTUNE_X_MAX_TABLES];
	unsigned int i, fresh = 0;
	int err;

	for (i = 0; i < d->num_tables; i++) {
		err = table_place(p, &d->tables[i], &found[i], why, len);
		if (err)
			return err;
		fresh += !found[i];
	}
	if (tm_num_tables + fresh > BPFTUNE_TELEMETRY_MAX_TABLES) {
		snprintf(why, len, "the run has %d tables already", BPFTUNE_TELEMETRY_MAX_TABLES);
		return -ENOSPC;
	}
	for (i = 0; i < d->num_tables; i++) {
		struct tcopy *c = copy_table(&d->tables[i], d);
		struct treg *e = found[i] ? found[i] : &tm_tables[tm_num_tables++];

		if (!c)
			return -ENOMEM;	/* entries placed so far stay reserved */
		if (e->plugin)
			free((void *)e->d);
		e->d = &c->t;
		e->plugin = p;
		e->state = TREG_RESERVED;
		p->entry[i] = e - tm_tables;
	}
	p->num_tables = d->num_tables;
	p->num_gauges = d->num_gauges;
	return 0;
}

int bpftune_telemetry_tuner_check(const struct bpftune_tuner *t, char *why,
				  size_t len)
{
	const struct bpftune_telemetry_desc *d = t->ops->telemetry;
	struct bpftune_telemetry_x *x;
	struct tplugin *p;
	int err;

	err = bpftune_telemetry_check(d, why, len);
	if (err || !tm.on || t->id >= BPFTUNE_MAX_TUNERS)
		return err;
	x = malloc(sizeof(*x));
	if (!x) {
		snprintf(why, len, "no memory for its telemetry");
		return -ENOMEM;
	}
	err = bpftune_telemetry_expand(t->ops->name, d, x, why, len);
	if (err) {
		free(x);
		return err;
	}
	pthread_mutex_lock(&tm_reg_lock);
	p = plugin_get(t->ops->name);
	if (!p) {
		snprintf(why, len, "no memory for its telemetry");
		err = -ENOMEM;
	} else if (p->tuner) {
		snprintf(why, len, "a plugin named %s is running already", p->name);
		err = -EEXIST;
	} else if (d) {
		err = tables_reserve(p, &x->d, why, len);
		p->num_plugin_tables = x->num_plugin_tables;
		memcpy(p->outcome_table, x->outcome_table, sizeof(p->outcome_table));
	}
	if (!err) {
		p->tuner = t;
		p->tuner_id = t->id;
		by_tuner[t->id] = p;
		refused_logged[t->id] = 0;
		inputs_refused_logged[t->id] = 0;
	}
	pthread_mutex_unlock(&tm_reg_lock);
	free(x);
	return err;
}

/* ---- ring buffer losses: each plugin's bpftune_ringbuf_lost ------------- */

/*
 * Under tm_reg_lock: while the plugin runs, its counter through its
 * skeleton's typed .bss (bpftune_telemetry_tuner_removed() takes the lock
 * before the skeleton goes).
 */
static uint64_t plugin_lost(struct tplugin *p)
{
	struct bpftune_bpf_config c;
	uint64_t lost;

	if (p->running && p->tuner && !bpftune_tuner_read_config(p->tuner, &c, &lost))
		p->lost = lost;
	return p->lost_before + p->lost;
}

uint64_t tm_reg_ringbuf_lost(void)
{
	uint64_t total = 0;
	unsigned int i;

	for (i = 0; i < num_plugins; i++)
		total += plugin_lost(plugins[i]);
	return total;
}

/* ---- plugins starting and going (main thread) ----------------------------- */

static void set_state(struct tplugin *p, enum treg_state state)
{
	unsigned int i;

	for (i = 0; i < p->num_tables; i++)
		tm_tables[p->entry[i]].state = state;
	tm_reg_gen++;
}

void tm_reg_activate(const struct bpftune_tuner *t)
{
	struct tplugin *p = t->id < BPFTUNE_MAX_TUNERS ? by_tuner[t->id] : NULL;

	if (!p || p->tuner != t || p->running)
		return;
	pthread_mutex_lock(&tm_reg_lock);
	p->running = true;
	set_state(p, TREG_ACTIVE);
	pthread_mutex_unlock(&tm_reg_lock);
}

void bpftune_telemetry_tuner_removed(const struct bpftune_tuner *t)
{
	struct tplugin *p = t->id < BPFTUNE_MAX_TUNERS ? by_tuner[t->id] : NULL;

	tm_outcome_forget(t);
	if (!p || p->tuner != t)
		return;
	/* waits for a sample callback of the plugin's to return */
	pthread_mutex_lock(&tm_reg_lock);
	p->lost_before = plugin_lost(p);
	p->lost = 0;
	p->running = false;
	p->tuner = NULL;
	set_state(p, TREG_RETIRED);
	pthread_mutex_unlock(&tm_reg_lock);
	by_tuner[t->id] = NULL;
}

/* ---- per-event rows ----------------------------------------------------- */

static void put_values(struct row_plugin *rp, const struct bpftune_value *v,
		       unsigned int n)
{
	size_t off = 0;
	unsigned int i;

	rp->n = n;
	for (i = 0; i < n; i++) {
		rp->type[i] = v[i].type == BPFTUNE_COL_TEXT && !v[i].s ? 0 : v[i].type;
		if (rp->type[i] == BPFTUNE_COL_TEXT) {
			size_t len = strnlen(v[i].s, sizeof(rp->text) - off - 1);

			memcpy(rp->text + off, v[i].s, len);
			rp->text[off + len] = '\0';
			rp->v[i].text_off = off;
			off += len + (off + len + 1 < sizeof(rp->text));
		} else if (rp->type[i] == BPFTUNE_COL_REAL) {
			rp->v[i].d = v[i].d;
		} else {
			rp->v[i].i = v[i].i;
		}
	}
}

static int row_refused(const struct bpftune_tuner *t, unsigned int table,
		       const char *why)
{
	const struct bpftune_telemetry_desc *d = t->ops->telemetry;

	if (t->id >= BPFTUNE_MAX_TUNERS || (refused_logged[t->id] & (1u << table)))
		return -EINVAL;
	refused_logged[t->id] |= 1u << table;
	if (table == NO_SUCH_TABLE)
		bpftune_log(LOG_WARNING, "tuner %s: telemetry: row for a table it does not declare",
			    t->ops->name);
	else
		bpftune_log(LOG_WARNING, "tuner %s: telemetry table %s: row refused: %s",
			    t->ops->name, d->tables[table].name, why);
	return -EINVAL;
}

int bpftune_table_row(struct bpftune_tuner *t, unsigned int table,
		      const struct bpftune_event *ev,
		      const struct bpftune_value *values, unsigned int num_values)
{
	const struct bpftune_telemetry_desc *d = t ? t->ops->telemetry : NULL;
	struct tplugin *p;
	struct row *r;
	char why[160];

	if (!t)
		return -EINVAL;
	if (!d || table >= d->num_tables)
		return row_refused(t, NO_SUCH_TABLE, NULL);
	if (d->tables[table].flags & BPFTUNE_TABLE_SAMPLED)
		return row_refused(t, table, "a sampled table: rows come from its sample callback");
	if (bpftune_telemetry_row_check(&d->tables[table], values, num_values, why, sizeof(why)))
		return row_refused(t, table, why);
	if (tm.on && !tm_on_main_thread())
		return row_refused(t, table, "called outside the daemon's thread");
	p = t->id < BPFTUNE_MAX_TUNERS ? by_tuner[t->id] : NULL;
	if (!tm.started || !p || p->tuner != t)
		return 0;
	r = tq_reserve(p->entry[table], ROW_PLUGIN, t,
		       ev && ev->ts_uptime_ns ? ev->ts_uptime_ns / 1000 : 0);
	if (!r)
		return -ENOBUFS;
	r->u.plugin.cookie = ev && !bpftune_netns_is_global(ev->netns_cookie) ?
			     ev->netns_cookie : 0;
	put_values(&r->u.plugin, values, num_values);
	tq_commit();
	return 0;
}

/* ---- typed decision inputs: a row of the policy's table ------------------ */

static int inputs_refused(const struct bpftune_tuner *t, unsigned int k,
			  const char *policy, const char *why)
{
	if (t->id < BPFTUNE_MAX_TUNERS && !(inputs_refused_logged[t->id] & (1u << k))) {
		inputs_refused_logged[t->id] |= 1u << k;
		bpftune_log(LOG_WARNING, "tuner %s: policy %s: typed inputs not recorded: %s",
			    t->ops->name, policy, why);
	}
	return -EINVAL;
}

int tm_reg_policy_row(const struct bpftune_tuner *t, const struct bpftune_decision *d,
		      const struct tm_decision_ctx *ctx)
{
	struct bpftune_value v[BPFTUNE_EVENT_MAX_COLS];
	const struct bpftune_telemetry_desc *desc = t->ops->telemetry;
	int k = bpftune_policy_index(desc, d->policy);
	struct tplugin *p;
	struct row *r;
	char why[160];

	/* a plugin without policies has no admin-policy table: text only */
	if (k < 0 && d->policy && !strcmp(d->policy, bpftune_admin_policy.name))
		return 0;
	if (k < 0)
		return inputs_refused(t, BPFTUNE_X_MAX_POLICIES, d->policy ? d->policy : "(null)",
				      "the plugin does not declare it");
	p = t->id < BPFTUNE_MAX_TUNERS ? by_tuner[t->id] : NULL;
	if (!tm.started || !p || p->tuner != t || p->num_plugin_tables + k >= p->num_tables)
		return 0;
	if (d->num_values > BPFTUNE_POLICY_MAX_INPUTS)
		return inputs_refused(t, k, d->policy, "too many values");
	v[0] = BPFTUNE_VALUE_INT(ctx->decision_seq);
	v[1] = ctx->event_seq ? BPFTUNE_VALUE_INT(ctx->event_seq) : BPFTUNE_VALUE_NULL;
	v[2] = BPFTUNE_VALUE_TEXT(ctx->scenario[0] ? ctx->scenario : NULL);
	v[3] = BPFTUNE_VALUE_TEXT(ctx->tunable[0] ? ctx->tunable : NULL);
	v[4] = BPFTUNE_VALUE_TEXT(ctx->action);
	memcpy(v + BPFTUNE_POLICY_CONTEXT_COLS, d->values, d->num_values * sizeof(*v));
	if (bpftune_telemetry_row_check(tm_tables[p->entry[p->num_plugin_tables + k]].d, v,
					BPFTUNE_POLICY_CONTEXT_COLS + d->num_values,
					why, sizeof(why)))
		return inputs_refused(t, k, d->policy, why);
	r = tq_reserve(p->entry[p->num_plugin_tables + k], ROW_PLUGIN, t, ctx->ts_us);
	if (!r)
		return -ENOBUFS;
	r->u.plugin.cookie = ctx->cookie;
	put_values(&r->u.plugin, v, BPFTUNE_POLICY_CONTEXT_COLS + d->num_values);
	tq_commit();
	return 0;
}

/* ---- outcomes: a row of the policy's outcome table ------------------------ */

int tm_reg_outcome_row(const struct bpftune_tuner *t, unsigned int k, uint64_t cookie,
		       const struct bpftune_value *v, unsigned int n)
{
	struct tplugin *p = t->id < BPFTUNE_MAX_TUNERS ? by_tuner[t->id] : NULL;
	const struct bpftune_policy_desc *pol = bpftune_policy_at(t->ops->telemetry, k);
	char why[160];
	struct row *r;
	int e;

	if (!tm.started || !p || p->tuner != t || k >= BPFTUNE_X_MAX_POLICIES ||
	    !pol || !pol->outcome || (e = p->outcome_table[k]) < 0 ||
	    (unsigned int)e >= p->num_tables)
		return 0;
	if (bpftune_telemetry_row_check(tm_tables[p->entry[e]].d, v, n, why, sizeof(why)))
		return inputs_refused(t, k, pol ? pol->name : "?", why);
	r = tq_reserve(p->entry[e], ROW_PLUGIN, t, 0);
	if (!r)
		return -ENOBUFS;
	r->u.plugin.cookie = cookie;
	put_values(&r->u.plugin, v, n);
	tq_commit();
	return 0;
}
