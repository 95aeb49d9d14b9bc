// SPDX-License-Identifier: GPL-2.0-only
/*
 * Pressure gates (include/bpftune/gate.h): the library attaches a tuner's
 * hot programs only while their gate is open.  The decision is
 * gate_step.c's; this file reads the gates, owns the programs' links and
 * counts.  One timerfd in the main loop serves every gate, armed for the
 * earliest check due and registered only while some tuner has gates; the
 * checks of closed gates due soon join it (bpftune_gate_join()).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "core/gate_nap.h"
#include "core/gate_step.h"
#include "core/loop.h"
#include "core/observer.h"
#include "core/operate.h"
#include "core/tuner_rec.h"
#include "loader/loader.h"

struct gate_hook {
	const struct bpftune_gate *g;
	char what[192];			/* bpftune_gate_describe() */
	struct bpftune_gate_params p;
	struct bpftune_gate_state s;
	struct bpf_program **progs;
	unsigned int num_progs;
	struct bpf_link **links;
	unsigned int num_links;
	bool seen;			/* bpftune_gate_seen() since the last check */
	enum bpftune_gate_why why;	/* of the last open or close */
	uint64_t attaches;
	uint64_t detaches;
	uint64_t attached_ms;		/* closed periods so far */
	uint64_t opened_ms;		/* when the open period began */
	uint64_t since_ms;		/* when the gate was set */
	/* WINDOW: what its attach + detach cost (gate_step.h, the budget) */
	struct bpftune_gate_cost cost;
	uint64_t cycle_us;		/* the current cycle's so far */
	struct bpftune_gate_plan plan;
	uint32_t *flag;			/* the program's flag: non-zero skips */
};

struct gate_set {
	struct bpftune_tuner_rec rec;	/* first: the list of sets */
	struct gate_hook *h;
	unsigned int num;
	bool stopped;			/* taken over by the admin */
};

static struct bpftune_tuner_rec *sets;
static struct bpftune_timer *timer;	/* while a set has hooks */

static struct gate_set *set_of(struct bpftune_tuner_rec *r)
{
	return (struct gate_set *)r;
}

static struct gate_set *find(const struct bpftune_tuner *t)
{
	return set_of(bpftune_tuner_rec_find(sets, t));
}

static void rearm(void)
{
	struct gate_set *s;
	uint64_t when = 0;
	unsigned int i;

	for (s = set_of(sets); !bpftune_gate_nap_asleep() && s; s = set_of(s->rec.next))
		for (i = 0; !s->stopped && i < s->num; i++)
			if (!when || s->h[i].s.next_ms < when)
				when = s->h[i].s.next_ms;
	bpftune_loop_timer_at(timer, when);
}

/* The alarm rang, or the gates changed: after a sleep every gate is looked at now. */
static void wake_up(uint64_t now)
{
	struct gate_set *s;
	unsigned int i;

	if (!bpftune_gate_nap_wake(now))
		return;
	for (s = set_of(sets); s; s = set_of(s->rec.next))
		for (i = 0; i < s->num; i++)
			bpftune_gate_wake(&s->h[i].s, &s->h[i].p, now);
}

static void on_alarm(void)
{
	wake_up(bpftune_now_ms());
	rearm();
}

/* @g named tracepoints that wake it (gate.h, @wake) */
static bool has_alarm(const struct bpftune_gate *g)
{
	return g->wake && *g->wake;
}

/* the tracepoints of every gate's alarm, if every gate may sleep now */
static bool may_sleep(char *tps, size_t size)
{
	struct gate_set *s;
	size_t len = 0;
	unsigned int i;
	int n;

	for (s = set_of(sets); s; s = set_of(s->rec.next)) {
		for (i = 0; !s->stopped && i < s->num; i++) {
			const struct gate_hook *h = &s->h[i];

			if (!has_alarm(h->g) || !bpftune_gate_may_sleep(&h->s, &h->p))
				return false;
			/* the gates of one kind name the same: said once */
			if (len && !strcmp(tps, h->g->wake))
				continue;
			n = snprintf(tps + len, size - len, "%s%s", len ? " " : "", h->g->wake);
			if (n < 0 || (size_t)n >= size - len)
				return false;
			len += n;
		}
	}
	return len > 0;
}

/* Calm long enough, and nothing else to look at: sleep until the alarm. */
static void maybe_sleep(uint64_t now)
{
	char tps[256];

	if (bpftune_gate_nap_due(now) && may_sleep(tps, sizeof(tps)))
		bpftune_gate_nap_sleep(now, tps, on_alarm);
}

static void detach(struct gate_hook *h)
{
	uint64_t start = bpftune_thread_cpu_us();
	unsigned int i;

	for (i = 0; i < h->num_links; i++)
		bpf_link__destroy(h->links[i]);
	if (h->num_links)
		h->cycle_us += bpftune_thread_cpu_us() - start;
	h->num_links = 0;
}

static void attach(struct bpftune_tuner *t, struct gate_hook *h)
{
	uint64_t start;
	unsigned int i;

	detach(h);
	h->cycle_us = 0;
	start = bpftune_thread_cpu_us();
	bpftune_cap_raise();
	for (i = 0; i < h->num_progs; i++) {
		struct bpf_link *l = bpf_program__attach(h->progs[i]);

		if (!l) {
			bpftune_log(LOG_WARNING, "tuner %s: gated hook %s: cannot attach %s: %s",
				    t->ops->name, h->g->hook,
				    bpf_program__name(h->progs[i]), strerror(errno));
			continue;
		}
		h->links[h->num_links++] = l;
	}
	bpftune_cap_lower();
	h->cycle_us += bpftune_thread_cpu_us() - start;
}

struct var_find {
	const char *name;
	uint64_t value;
	bool found;
};

static void var_cb(const char *name, const char *type, const void *data,
		   size_t size, void *ctx)
{
	struct var_find *f = ctx;

	(void)type;
	if (f->found || strcmp(name, f->name) || size != sizeof(uint64_t))
		return;
	memcpy(&f->value, data, sizeof(f->value));
	f->found = true;
}

static void reading(struct bpftune_tuner *t, struct gate_hook *h,
		    struct bpftune_gate_reading *r)
{
	struct var_find f = { .name = h->g->counter };

	r->seen = h->seen;
	h->seen = false;
	r->ok = true;
	switch (h->g->kind) {
	case BPFTUNE_GATE_COUNTER:
	case BPFTUNE_GATE_WINDOW:
		r->ok = h->g->read && !h->g->read(t, t->priv, &r->value);
		break;
	case BPFTUNE_GATE_EVENT:
		r->ok = f.name && !bpftune_bpf_vars(t->obj, ".bss", var_cb, &f) &&
			f.found;
		r->value = f.value;
		/* with a reading too: either moving opens it */
		if (r->ok && h->g->read) {
			uint64_t v = 0;

			r->ok = !h->g->read(t, t->priv, &v);
			r->value += v;
		}
		break;
	}
}

/* tell the observers (telemetry) that @h was attached or detached */
static void notify(const struct bpftune_tuner *t, const struct gate_hook *h,
		   const char *reason, const struct bpftune_gate_reading *r,
		   uint64_t now)
{
	struct bpftune_gate_change c = {
		.hook = h->g->hook,
		.what = h->what,
		.kind = bpftune_gate_kind_name(h->g->kind),
		.attached = h->s.open,
		.reason = reason,
		.has_reading = r && r->ok && (h->g->kind != BPFTUNE_GATE_WINDOW || h->g->read),
		.reading = r ? r->value : 0,
		.attaches = h->attaches,
		.detaches = h->detaches,
		.attached_ms = h->attached_ms + (h->s.open ? now - h->opened_ms : 0),
	};

	bpftune_notify_gate(t, &c);
}

static void set_flag(struct gate_hook *h, bool closed)
{
	__atomic_store_n(h->flag, closed ? 1u : 0u, __ATOMIC_RELAXED);
}

/* the window period the tuner declared (before any stretch) */
static unsigned int declared_every_ms(const struct bpftune_gate *g)
{
	return g->every_ms ? g->every_ms : BPFTUNE_GATE_EVERY_MS;
}

static void log_plan(struct bpftune_tuner *t, const struct gate_hook *h,
		     const struct bpftune_gate_plan *plan)
{
	unsigned int every = declared_every_ms(h->g);
	bool pin = plan->mode == BPFTUNE_GATE_MODE_PIN;

	if (h->g->kind != BPFTUNE_GATE_WINDOW) {
		bpftune_log(LOG_INFO, "tuner %s: hook %s: an attach + detach costs %llu us of CPU, up to %.2f %% of a CPU if the gate cycles once per calm period: link kept attached, its flag opens the program while the gate is open",
			    t->ops->name, h->g->hook,
			    (unsigned long long)h->cost.cycle_us,
			    (double)h->cost.cycle_us / 10.0 /
			    bpftune_gate_shortest_cycle_ms(&h->p));
		return;
	}
	bpftune_log(LOG_INFO, "tuner %s: hook %s: an attach + detach costs %llu us of CPU, %.2f %% of a CPU with a window every %u ms: %s every %u ms",
		    t->ops->name, h->g->hook, (unsigned long long)h->cost.cycle_us,
		    (double)h->cost.cycle_us / 10.0 / every, every,
		    pin ? "link kept attached, its flag opens the program for a window" :
		    "windows spaced out to one", plan->every_ms);
}

/*
 * Plan the gate again from its cost estimate (gate_step.h, the budget): a
 * window gate's windows spaced out, or the link kept and the program's
 * flag gating it from now on.
 */
static void apply_plan(struct bpftune_tuner *t, struct gate_hook *h, uint64_t now)
{
	bool window = h->g->kind == BPFTUNE_GATE_WINDOW;
	struct bpftune_gate_params declared = h->p;
	struct bpftune_gate_plan plan;
	enum bpftune_gate_why why;

	declared.every_ms = declared_every_ms(h->g);
	bpftune_gate_plan(&declared, h->cost.cycle_us, 0, h->flag != NULL, &plan);
	if (plan.mode == h->plan.mode && (!window || plan.every_ms == h->plan.every_ms)) {
		h->plan.cost_ppm = plan.cost_ppm;
		return;
	}
	h->plan = plan;
	if (window)
		h->p.every_ms = plan.every_ms;
	why = BPFTUNE_GATE_WHY_STRETCHED;
	if (plan.mode == BPFTUNE_GATE_MODE_PIN) {
		why = BPFTUNE_GATE_WHY_PINNED;
		set_flag(h, true);
		attach(t, h);
		/* nothing attached: a closed flag would blind it for good */
		if (!h->num_links) {
			set_flag(h, false);
			h->plan.mode = BPFTUNE_GATE_MODE_DETACH;
			return;
		}
	}
	h->why = why;
	notify(t, h, bpftune_gate_why_code(why), NULL, now);
	log_plan(t, h, &plan);
}

/* A gate's attach + detach cycle ended: measured, and planned again. */
static void replan(struct bpftune_tuner *t, struct gate_hook *h, uint64_t now)
{
	bpftune_gate_cost_add(&h->cost, h->cycle_us);
	if (h->g->kind == BPFTUNE_GATE_WINDOW && h->cost.samples < BPFTUNE_GATE_COST_SAMPLES)
		return;
	apply_plan(t, h, now);
}

/*
 * The dearest detach per program any gate of the daemon has measured at
 * start.  A gate's own detach at start can be cheap by chance (an idle
 * machine: under emulation one cycle measured 4 to 71 ms), while hooks
 * of one kind patch the same kernel text the same way; a gate is planned
 * from the dearer of its own figure and this one, and gates planned
 * before a dearer figure came are planned again.  The alarm's first
 * sleep is planned from it too (one raw_tp link, patched the same way).
 */
static uint64_t dearest_prog_us;

/* the start estimate of @h's cycle: its own, or the daemon's dearest */
static uint64_t start_estimate(const struct gate_hook *h, uint64_t own_us)
{
	uint64_t shared = dearest_prog_us * h->num_progs;

	return own_us > shared ? own_us : shared;
}

/* a dearer figure came: gates planned only from start estimates again */
static void replan_started(uint64_t now)
{
	struct gate_set *s;
	unsigned int i;

	for (s = set_of(sets); s; s = set_of(s->rec.next)) {
		for (i = 0; !s->stopped && i < s->num; i++) {
			struct gate_hook *h = &s->h[i];
			uint64_t est = start_estimate(h, 0);

			if (h->cost.samples != 1 || est <= h->cost.cycle_us)
				continue;
			h->cost.cycle_us = est;
			apply_plan(s->rec.t, h, now);
		}
	}
}

/*
 * A gate is planned at start from the loader's links it has just
 * detached (@detach_us; attaching costs about as much): a counter or
 * event gate may cycle only a few times in a run, the first under the
 * first pressure, and a window gate's first cycles come in a fresh
 * daemon's first seconds; a dear cycle is then never paid at all.  The
 * cycles that follow refine the estimate.
 */
static void plan_at_start(struct bpftune_tuner *t, struct gate_hook *h,
			  uint64_t detach_us, uint64_t now)
{
	uint64_t own = 2 * detach_us;

	if (own / h->num_progs > dearest_prog_us) {
		dearest_prog_us = own / h->num_progs;
		bpftune_gate_nap_estimate(dearest_prog_us);
		replan_started(now);
	}
	bpftune_gate_cost_add(&h->cost, start_estimate(h, own));
	bpftune_log(LOG_DEBUG, "tuner %s: hook %s: planned at start from %llu us a cycle (its own detach: %llu us for %u program%s)",
		    t->ops->name, h->g->hook, (unsigned long long)h->cost.cycle_us,
		    (unsigned long long)detach_us, h->num_progs,
		    h->num_progs == 1 ? "" : "s");
	apply_plan(t, h, now);
}

static void check(struct bpftune_tuner *t, struct gate_hook *h, uint64_t now)
{
	bool pinned = h->plan.mode == BPFTUNE_GATE_MODE_PIN;
	struct bpftune_gate_reading r = { 0 };
	enum bpftune_gate_action a;
	enum bpftune_gate_why why;

	reading(t, h, &r);
	a = bpftune_gate_step(&h->s, &h->p, &r, now, &why);
	if (a == BPFTUNE_GATE_OPEN) {
		if (pinned)
			set_flag(h, false);
		else
			attach(t, h);
		h->attaches++;
		h->opened_ms = now;
	} else if (a == BPFTUNE_GATE_CLOSE) {
		if (pinned)
			set_flag(h, true);
		else
			detach(h);
		h->detaches++;
		h->attached_ms += now - h->opened_ms;
	} else {
		return;
	}
	h->why = why;
	if (why != BPFTUNE_GATE_WHY_WINDOW && why != BPFTUNE_GATE_WHY_WINDOW_END)
		bpftune_gate_nap_busy(now);
	notify(t, h, bpftune_gate_why_code(why), &r, now);
	if (a == BPFTUNE_GATE_CLOSE && !pinned)
		replan(t, h, now);
	/* a window opens every few seconds: only what pressure did is logged */
	if (why == BPFTUNE_GATE_WHY_WINDOW || why == BPFTUNE_GATE_WHY_WINDOW_END)
		return;
	bpftune_log(LOG_INFO, "tuner %s: hook %s %s: %s (%s)", t->ops->name,
		    h->g->hook, a == BPFTUNE_GATE_OPEN ? "attached" : "detached",
		    bpftune_gate_why_name(why), h->what);
}

static void on_timer(void *ctx)
{
	uint64_t start = bpftune_thread_cpu_us();
	uint64_t now = bpftune_now_ms();
	struct gate_set *s;
	unsigned int i;

	(void)ctx;
	/* the checks due, and those of closed gates due soon: one wake-up */
	for (s = set_of(sets); s; s = set_of(s->rec.next))
		for (i = 0; !s->stopped && i < s->num; i++)
			if (bpftune_gate_join(&s->h[i].s, &s->h[i].p, now))
				check(s->rec.t, &s->h[i], now);
	bpftune_gate_nap_checked(bpftune_thread_cpu_us() - start);
	maybe_sleep(now);
	rearm();
}

static void obs_state(const struct bpftune_tuner *t, uint64_t cookie,
		      enum bpftune_state state, const char *cause)
{
	struct gate_set *s = find(t);
	uint64_t now = bpftune_now_ms();
	unsigned int i;

	(void)cause;
	/* stopped everywhere: the tuner's own links are gone, ours go too */
	if (!s || !bpftune_netns_is_global(cookie) || state == BPFTUNE_STATE_ACTIVE)
		return;
	s->stopped = true;
	for (i = 0; i < s->num; i++) {
		struct gate_hook *h = &s->h[i];

		if (h->s.open) {
			h->attached_ms += now - h->opened_ms;
			h->detaches++;
			h->s.open = false;
			notify(t, h, "admin_stop", NULL, now);
		}
		detach(h);
	}
	rearm();
}

static struct bpftune_observer observer = { .state = obs_state };

static int timer_start(void)
{
	return bpftune_loop_timer_watch_start(&timer, on_timer, &observer);
}

static void timer_stop(void)
{
	if (!sets)
		bpftune_loop_timer_watch_stop(&timer, &observer);
}

static void set_free(struct gate_set *s)
{
	unsigned int i;

	if (!s)
		return;
	for (i = 0; s->h && i < s->num; i++) {
		detach(&s->h[i]);
		free(s->h[i].progs);
		free(s->h[i].links);
	}
	free(s->h);
	free(s);
}

/* is @name one of @hooks (space-separated names or hook groups)? */
static bool hook_matches(const char *name, const char *hooks)
{
	char want[64];
	size_t n;

	while (*hooks) {
		n = strcspn(hooks, " ");
		if (n && n < sizeof(want)) {
			memcpy(want, hooks, n);
			want[n] = '\0';
			if (bpftune_prog_matches(name, want))
				return true;
		}
		hooks += n;
		hooks += strspn(hooks, " ");
	}
	return false;
}

static bool program_gated(struct bpf_program *prog, const struct bpftune_gate *g)
{
	return bpf_program__autoload(prog) &&
	       hook_matches(bpf_program__name(prog), g->hook);
}

unsigned int bpftune_gate_programs(const struct bpftune_gate *g,
				   struct bpf_object *obj)
{
	struct bpf_program *prog;
	unsigned int n = 0;

	bpf_object__for_each_program(prog, obj)
		n += program_gated(prog, g);
	return n;
}

/* the loaded programs of @g's hooks, taken from the tuner: 0 or -ENOMEM */
static int hook_init(struct bpftune_tuner *t, const struct bpftune_gate *g,
		     struct gate_hook *h, uint64_t now)
{
	struct bpf_program *prog, **np;

	h->g = g;
	bpftune_gate_describe(g, h->what, sizeof(h->what));
	h->p = (struct bpftune_gate_params){
		.kind = g->kind, .calm = g->calm,
		.window_ms = g->window_ms, .every_ms = g->every_ms,
		.reading = g->kind == BPFTUNE_GATE_WINDOW && g->read,
	};
	h->since_ms = now;
	h->plan = (struct bpftune_gate_plan){
		.mode = BPFTUNE_GATE_MODE_DETACH,
		.every_ms = declared_every_ms(g),
	};
	if (g->flag) {
		h->flag = bpftune_bpf_var_ptr(t->obj, ".bss", g->flag, sizeof(*h->flag));
		if (!h->flag)
			bpftune_log(LOG_WARNING, "tuner %s: gated hook %s: no mmapped __u32 %s in .bss: the link cannot stay attached",
				    t->ops->name, g->hook, g->flag);
	}
	bpf_object__for_each_program(prog, t->obj) {
		if (!program_gated(prog, g))
			continue;
		np = realloc(h->progs, (h->num_progs + 1) * sizeof(*np));
		if (!np)
			return -ENOMEM;
		h->progs = np;
		h->progs[h->num_progs++] = prog;
	}
	h->links = calloc(h->num_progs ? h->num_progs : 1, sizeof(*h->links));
	return h->links ? 0 : -ENOMEM;
}

static int gate_valid(const struct bpftune_gate *g)
{
	if (!g->hook || !*g->hook)
		return 0;
	switch (g->kind) {
	case BPFTUNE_GATE_COUNTER:
		return g->read != NULL;
	case BPFTUNE_GATE_EVENT:
		return g->counter != NULL;
	case BPFTUNE_GATE_WINDOW:
		return 1;
	}
	return 0;
}

int bpftune_gates_set(struct bpftune_tuner *t, const struct bpftune_gate *gates,
		      unsigned int num)
{
	uint64_t now = bpftune_now_ms();
	struct gate_set *s;
	unsigned int i, j;
	int err;

	if (!t || !t->obj || !gates || !num || num > 32)
		return -EINVAL;
	for (i = 0; i < num; i++)
		if (!gate_valid(&gates[i]))
			return -EINVAL;
	bpftune_gates_free(t);
	s = calloc(1, sizeof(*s));
	if (s)
		s->h = calloc(num, sizeof(*s->h));
	if (!s || !s->h) {
		free(s);
		return -ENOMEM;
	}
	s->rec.t = t;
	for (i = 0; i < num; i++) {
		struct gate_hook *h = &s->h[s->num];

		err = hook_init(t, &gates[i], h, now);
		if (err) {
			s->num++;
			set_free(s);
			return err;
		}
		if (!h->num_progs) {	/* not loaded in this mode: nothing to gate */
			free(h->progs);
			free(h->links);
			memset(h, 0, sizeof(*h));
			continue;
		}
		s->num++;
	}
	for (i = 0; i < s->num && !has_alarm(s->h[i].g); i++)
		;
	if (i < s->num)
		bpftune_gate_nap_prepare();
	err = s->num ? timer_start() : 0;
	if (err) {
		set_free(s);
		return err;
	}
	wake_up(now);
	bpftune_tuner_rec_add(&sets, &s->rec);
	for (i = 0; i < s->num; i++) {
		struct gate_hook *h = &s->h[i];
		uint64_t start = bpftune_thread_cpu_us();

		for (j = 0; j < h->num_progs; j++)
			bpftune_tuner_unlink_prog(t, h->progs[j]);
		bpftune_gate_start(&h->s, &h->p, now);
		plan_at_start(t, h, bpftune_thread_cpu_us() - start, now);
		check(t, h, now);
		bpftune_log(LOG_INFO, "tuner %s: hook %s gated by %s (%s gate, %u program%s)",
			    t->ops->name, h->g->hook, h->what,
			    bpftune_gate_kind_name(h->g->kind), h->num_progs,
			    h->num_progs == 1 ? "" : "s");
	}
	rearm();
	return 0;
}

void bpftune_gate_seen(struct bpftune_tuner *t, const char *hook)
{
	struct gate_set *s = find(t);
	uint64_t now = bpftune_now_ms();
	bool due = false;
	unsigned int i;

	for (i = 0; s && hook && i < s->num; i++) {
		if (strcmp(s->h[i].g->hook, hook))
			continue;
		s->h[i].seen = true;
		/* closed: opened at once, not at its next window */
		if (!s->stopped && bpftune_gate_look_now(&s->h[i].s, now))
			due = true;
	}
	if (!due)
		return;
	wake_up(now);
	rearm();
}

void bpftune_gates_free(struct bpftune_tuner *t)
{
	set_free(set_of(bpftune_tuner_rec_take(&sets, t)));
	wake_up(bpftune_now_ms());
	if (!sets)
		bpftune_gate_nap_fini();
	timer_stop();
	rearm();
}

unsigned int bpftune_gate_count(const struct bpftune_tuner *t)
{
	struct gate_set *s = find(t);

	return s ? s->num : 0;
}

int bpftune_gate_info(const struct bpftune_tuner *t, unsigned int i,
		      struct bpftune_gate_info *info)
{
	struct gate_set *s = find(t);
	const struct gate_hook *h;
	uint64_t now = bpftune_now_ms();

	if (!s || i >= s->num)
		return -ENOENT;
	h = &s->h[i];
	*info = (struct bpftune_gate_info){
		.hook = h->g->hook,
		.what = h->what,
		.kind = bpftune_gate_kind_name(h->g->kind),
		.attached = h->plan.mode == BPFTUNE_GATE_MODE_PIN ? h->s.open :
			    h->num_links > 0,
		.pinned = h->plan.mode == BPFTUNE_GATE_MODE_PIN,
		.cycle_us = h->cost.cycle_us,
		.cost_samples = h->cost.samples,
		.every_ms = h->g->kind == BPFTUNE_GATE_WINDOW ? h->plan.every_ms : 0,
		.cost_ppm = h->plan.cost_ppm,
		.attaches = h->attaches,
		.detaches = h->detaches,
		.attached_ms = h->attached_ms + (h->s.open ? now - h->opened_ms : 0),
		.total_ms = now - h->since_ms,
		.why = bpftune_gate_why_name(h->why),
		.wake = h->g->wake,
	};
	bpftune_gate_nap_info(&info->nap, now);
	return 0;
}

unsigned int bpftune_gate_links(const struct bpftune_tuner *t)
{
	struct gate_set *s = find(t);
	unsigned int i, n = 0;

	for (i = 0; s && i < s->num; i++)
		n += s->h[i].num_links;
	return n;
}
