// SPDX-License-Identifier: GPL-2.0-only
/*
 * Metrics in the Prometheus text exposition format, for `bpftune -q
 * metrics` and for node_exporter's textfile collector (--metrics-dir).
 * The file is replaced atomically (write a temporary file, rename it) a
 * second after something happens, and at exit; an idle daemon does not
 * wake up to rewrite numbers that did not change.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpftune/sampling.h>
#include "ops/control.h"
#include "core/file_replace.h"
#include "core/loop.h"
#include "core/observer.h"
#include "core/operate.h"
#include "ops/metrics.h"
#include "core/sysctl.h"

#define METRICS_FILE	"bpftune.prom"
#define METRICS_DELAY_MS	1000	/* coalesce bursts of events */

static char *metrics_dir;
static struct bpftune_timer *timer;	/* armed while a write is due */
static uint64_t writes, write_errors;

/* Label values: backslash, double quote and newline are escaped. */
static void label(struct bpftune_buf *o, const char *key, const char *val,
		  bool first)
{
	const char *p;

	bpftune_buf_printf(o, "%s%s=\"", first ? "" : ",", key);
	for (p = val ? val : ""; *p; p++) {
		if (*p == '\\' || *p == '"')
			bpftune_buf_printf(o, "\\%c", *p);
		else if (*p == '\n')
			bpftune_buf_add(o, "\\n", 2);
		else
			bpftune_buf_add(o, p, 1);
	}
	bpftune_buf_add(o, "\"", 1);
}

static void family(struct bpftune_buf *o, const char *name, const char *type,
		   const char *help)
{
	bpftune_buf_printf(o, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

#define for_each_tuner(t, id) \
	for ((id) = 0; (id) < BPFTUNE_MAX_TUNERS; (id)++) \
		if (((t) = bpftune_tuner_get(id)))

static void netns_label(uint64_t cookie, char *buf, size_t len)
{
	struct bpftune_netns_id id;

	if (bpftune_netns_is_global(cookie))
		snprintf(buf, len, "global");
	else if (!bpftune_netns_identify(cookie, &id) && id.name[0])
		snprintf(buf, len, "%s", id.name);
	else
		snprintf(buf, len, "cookie:%llu", (unsigned long long)cookie);
}

static void tunable_values(struct bpftune_buf *o)
{
	struct bpftune_tuner *t;
	unsigned int id, i, k;

	family(o, "bpftune_tunable_value", "gauge",
	       "Value of a managed sysctl read now, globally and in each netns bpftune changed it.");
	for_each_tuner(t, id) {
		for (i = 0; i < t->ops->num_tunables; i++) {
			const struct bpftune_tunable_desc *d = &t->ops->tunables[i];
			/* bounded: the global netns and up to 63 others */
			uint64_t cookies[64];
			const struct bpftune_change *c;
			unsigned int n = 1;

			if (d->flags & BPFTUNE_TUNABLE_STRING)
				continue;
			cookies[0] = 0;
			for (c = t->changes[i]; c && n < BPFTUNE_ARRAY_SIZE(cookies); c = c->next) {
				if (bpftune_netns_is_global(c->netns_cookie))
					continue;
				for (k = 1; k < n && cookies[k] != c->netns_cookie; k++)
					;
				if (k == n)
					cookies[n++] = c->netns_cookie;
			}
			for (k = 0; k < n; k++) {
				long v[BPFTUNE_MAX_VALUES];
				char ns[NAME_MAX + 32], idx[16];
				int fd = k ? bpftune_netns_fd_for_cookie(cookies[k]) : -1;
				int got, j;

				if (fd < -1)
					continue;
				got = bpftune_sysctl_read(fd, d->name, v, d->num_values);
				netns_label(cookies[k], ns, sizeof(ns));
				for (j = 0; j < got; j++) {
					snprintf(idx, sizeof(idx), "%d", j);
					bpftune_buf_add(o, "bpftune_tunable_value{", 22);
					label(o, "tuner", t->ops->name, true);
					label(o, "sysctl", d->name, false);
					label(o, "netns", ns, false);
					label(o, "index", idx, false);
					bpftune_buf_printf(o, "} %ld\n", v[j]);
				}
			}
		}
	}
}

static void changes(struct bpftune_buf *o)
{
	struct bpftune_tuner *t;
	unsigned int id, s, i;

	family(o, "bpftune_changes_total", "counter",
	       "Sysctl changes made, per tuner and scenario.");
	for_each_tuner(t, id) {
		for (s = 0; s < t->ops->num_scenarios; s++) {
			const struct bpftune_change *c;
			uint64_t n = 0;

			for (i = 0; i < t->ops->num_tunables; i++)
				for (c = t->changes[i]; c; c = c->next)
					if (c->scenario == s)
						n += c->count;
			bpftune_buf_add(o, "bpftune_changes_total{", 22);
			label(o, "tuner", t->ops->name, true);
			label(o, "scenario", t->ops->scenarios[s].name, false);
			bpftune_buf_printf(o, "} %llu\n", (unsigned long long)n);
		}
	}
}

static void per_tuner(struct bpftune_buf *o, const char *name, const char *type,
		      const char *help, int what)
{
	struct bpftune_tuner *t;
	unsigned int id;

	family(o, name, type, help);
	for_each_tuner(t, id) {
		unsigned long long v = 0;

		switch (what) {
		case 0:
			v = t->events;
			break;
		case 1:
			v = t->events_ignored;
			break;
		case 2:
			v = t->state == BPFTUNE_STATE_ACTIVE;
			break;
		case 3:
			v = bpftune_strategy_switches(t);
			break;
		}
		bpftune_buf_printf(o, "%s{", name);
		label(o, "tuner", t->ops->name, true);
		bpftune_buf_printf(o, "} %llu\n", v);
	}
}

struct bss_ctx {
	struct bpftune_buf *o;
	const struct bpftune_tuner *t;
	int what;	/* 0 calls, 1 sampled */
};

/*
 * Samplers are globals a plugin author names as they like: found by
 * their BTF type (bpftune_bpf_vars()), as no typed skeleton can list them.
 */
static void bss_var(const char *name, const char *type, const void *data,
		    size_t size, void *ctx)
{
	struct bss_ctx *b = ctx;
	struct bpftune_sampler s;

	if (strcmp(type, "bpftune_sampler") || size != sizeof(s))
		return;
	memcpy(&s, data, sizeof(s));
	bpftune_buf_printf(b->o, "%s{", b->what ? "bpftune_sampler_sampled_total" :
			   "bpftune_sampler_calls_total");
	label(b->o, "tuner", b->t->ops->name, true);
	label(b->o, "hook", name, false);
	bpftune_buf_printf(b->o, "} %llu\n",
			   (unsigned long long)(b->what ? s.sampled : s.calls));
}

static void bss(struct bpftune_buf *o, const char *name, const char *help,
		int what)
{
	struct bss_ctx b = { .o = o, .what = what };
	struct bpftune_tuner *t;
	unsigned int id;

	family(o, name, "counter", help);
	for_each_tuner(t, id) {
		b.t = t;
		if (t->obj)
			bpftune_bpf_vars(t->obj, ".bss", bss_var, &b);
	}
}

/* bpftune's own counter, read typed through each plugin's skeleton */
static void ringbuf_lost(struct bpftune_buf *o)
{
	struct bpftune_bpf_config c;
	struct bpftune_tuner *t;
	unsigned int id;
	uint64_t lost;

	family(o, "bpftune_ringbuf_lost_total", "counter",
	       "Events lost because the ring buffer was full.");
	for_each_tuner(t, id) {
		if (bpftune_tuner_read_config(t, &c, &lost))
			continue;
		bpftune_buf_add(o, "bpftune_ringbuf_lost_total{", 27);
		label(o, "tuner", t->ops->name, true);
		bpftune_buf_printf(o, "} %llu\n", (unsigned long long)lost);
	}
}

/* Events refused: an unknown scenario, or a payload shorter than declared. */
static void rejected(struct bpftune_buf *o)
{
	struct bpftune_tuner *t;
	unsigned int id, i;

	family(o, "bpftune_events_rejected_total", "counter",
	       "Events refused: payload shorter than the scenario declares, or an unknown scenario.");
	for_each_tuner(t, id) {
		for (i = 0; i <= t->ops->num_scenarios; i++) {
			uint64_t n = bpftune_tuner_rejected(t, i);

			if (!n && i == t->ops->num_scenarios)
				continue;
			bpftune_buf_add(o, "bpftune_events_rejected_total{", 30);
			label(o, "tuner", t->ops->name, true);
			label(o, "scenario", i < t->ops->num_scenarios ?
			      t->ops->scenarios[i].name : "(unknown)", false);
			bpftune_buf_printf(o, "} %llu\n", (unsigned long long)n);
		}
	}
}

static void strategies(struct bpftune_buf *o)
{
	struct bpftune_tuner *t;
	unsigned int id, i;

	family(o, "bpftune_strategy_active", "gauge",
	       "1 for the strategy a tuner is using now, 0 for its others.");
	for_each_tuner(t, id) {
		for (i = 0; i < bpftune_strategy_count(t); i++) {
			uint64_t activations;
			bool active;
			const char *s = bpftune_strategy_name(t, i, &active, &activations);

			bpftune_buf_add(o, "bpftune_strategy_active{", 24);
			label(o, "tuner", t->ops->name, true);
			label(o, "strategy", s, false);
			bpftune_buf_printf(o, "} %d\n", active);
		}
	}
}

/* one line of a gate family: NAME{tuner,hook,gated_by} */
static void gate_line(struct bpftune_buf *o, const char *name,
		      const struct bpftune_tuner *t, const struct bpftune_gate_info *g)
{
	bpftune_buf_printf(o, "%s{", name);
	label(o, "tuner", t->ops->name, true);
	label(o, "hook", g->hook, false);
	label(o, "gated_by", g->what, false);
	bpftune_buf_add(o, "} ", 2);
}

/* the daemon's gates asleep until their alarm (gate.h, @wake), if it has gates */
static void gates_asleep(struct bpftune_buf *o)
{
	struct bpftune_gate_nap_info n;
	struct bpftune_tuner *t;
	unsigned int id;

	for_each_tuner(t, id) {
		if (!bpftune_gate_count(t))
			continue;
		bpftune_gate_nap_info(&n, bpftune_now_ms());
		family(o, "bpftune_gates_asleep", "gauge",
		       "1 while every gate sleeps until a tracepoint it named fires, else 0.");
		bpftune_buf_printf(o, "bpftune_gates_asleep %d\n", n.asleep);
		family(o, "bpftune_gates_asleep_seconds_total", "counter",
		       "Time every gate slept: the daemon looked at none of them.");
		bpftune_buf_printf(o, "bpftune_gates_asleep_seconds_total %.3f\n",
				   (double)n.asleep_ms / 1000.0);
		return;
	}
}

static void gates(struct bpftune_buf *o)
{
	static const char *const names[] = {
		"bpftune_gate_attached", "bpftune_gate_attaches_total",
		"bpftune_gate_attached_seconds_total",
	};
	static const char *const types[] = { "gauge", "counter", "counter" };
	static const char *const helps[] = {
		"1 while a gated hot hook's BPF program is attached (its gate open), else 0.",
		"Times a gated hot hook was attached because its gate opened.",
		"Time a gated hot hook's BPF program has been attached.",
	};
	struct bpftune_gate_info g;
	struct bpftune_tuner *t;
	unsigned int id, i, k;

	for (k = 0; k < 3; k++) {
		family(o, names[k], types[k], helps[k]);
		for_each_tuner(t, id) {
			for (i = 0; !bpftune_gate_info(t, i, &g); i++) {
				gate_line(o, names[k], t, &g);
				if (k == 0)
					bpftune_buf_printf(o, "%d\n", g.attached);
				else if (k == 1)
					bpftune_buf_printf(o, "%llu\n",
							   (unsigned long long)g.attaches);
				else
					bpftune_buf_printf(o, "%.3f\n",
							   (double)g.attached_ms / 1000.0);
			}
		}
	}
	gates_asleep(o);
}

static void process(struct bpftune_buf *o)
{
	long pages = 0, rss = 0;
	struct rusage ru;
	FILE *f;

	family(o, "bpftune_cpu_seconds_total", "counter",
	       "CPU time used by the daemon.");
	if (!getrusage(RUSAGE_SELF, &ru)) {
		bpftune_buf_printf(o, "bpftune_cpu_seconds_total{mode=\"user\"} %ld.%06ld\n",
				   (long)ru.ru_utime.tv_sec, (long)ru.ru_utime.tv_usec);
		bpftune_buf_printf(o, "bpftune_cpu_seconds_total{mode=\"system\"} %ld.%06ld\n",
				   (long)ru.ru_stime.tv_sec, (long)ru.ru_stime.tv_usec);
	}
	family(o, "bpftune_resident_memory_bytes", "gauge",
	       "Resident memory of the daemon.");
	f = fopen("/proc/self/statm", "re");
	if (f && fscanf(f, "%ld %ld", &pages, &rss) == 2)
		bpftune_buf_printf(o, "bpftune_resident_memory_bytes %lld\n",
				   (long long)rss * sysconf(_SC_PAGESIZE));
	if (f)
		fclose(f);
}

int bpftune_metrics_format(struct bpftune_buf *o)
{
	unsigned int rate = bpftune_learning_rate();

	family(o, "bpftune_learning_rate", "gauge",
	       "Learning rate 0..4: steps and margins are value/64 .. value/4.");
	bpftune_buf_printf(o, "bpftune_learning_rate %u\n", rate);
	per_tuner(o, "bpftune_tuner_active", "gauge",
		  "1 while a tuner is active (0: an admin took it over).", 2);
	tunable_values(o);
	changes(o);
	per_tuner(o, "bpftune_events_total", "counter",
		  "Events from a tuner's BPF programs.", 0);
	per_tuner(o, "bpftune_events_ignored_total", "counter",
		  "Events ignored because the tuner was stopped in their netns.", 1);
	bss(o, "bpftune_sampler_calls_total",
	    "Calls of a sampled BPF hook (estimated from the processed ones while it samples 1 in N > 1).", 0);
	bss(o, "bpftune_sampler_sampled_total",
	    "Calls of a sampled BPF hook that were processed.", 1);
	ringbuf_lost(o);
	rejected(o);
	strategies(o);
	gates(o);
	per_tuner(o, "bpftune_strategy_switches_total", "counter",
		  "Times a tuner switched strategy.", 3);
	process(o);
	return o->overflow ? -ENOSPC : 0;
}

/* ---- the textfile --------------------------------------------------------- */

static int write_file(void)
{
	char tmp[PATH_MAX], path[PATH_MAX];
	struct bpftune_buf b;
	int err;

	bpftune_buf_init(&b, BPFTUNE_CTL_MAX_REPLY);
	err = bpftune_metrics_format(&b);
	bpftune_netns_release();
	if (err)
		goto out;
	snprintf(path, sizeof(path), "%s/" METRICS_FILE, metrics_dir);
	/* a dot file: the collector reads *.prom only */
	snprintf(tmp, sizeof(tmp), "%s/." METRICS_FILE ".%d.tmp", metrics_dir,
		 (int)getpid());
	err = bpftune_file_replace(path, b.data, b.len,
				   &(struct bpftune_replace){ .tmp = tmp, .mode = 0644 });
out:
	bpftune_buf_free(&b);
	if (err) {
		/* say it once, not on every write */
		if (!write_errors++)
			bpftune_log(LOG_WARNING, "metrics: cannot write %s/%s: %s",
				    metrics_dir, METRICS_FILE, strerror(-err));
	} else {
		writes++;
	}
	return err;
}

static void on_timer(void *ctx)
{
	(void)ctx;
	write_file();
}

void bpftune_metrics_dirty(void)
{
	if (!metrics_dir || !timer || bpftune_loop_timer_armed(timer))
		return;
	bpftune_loop_timer_set(timer, METRICS_DELAY_MS);
}

static void obs_event(const struct bpftune_tuner *t, const struct bpftune_event *ev)
{
	(void)t;
	(void)ev;
	bpftune_metrics_dirty();
}

static void obs_state(const struct bpftune_tuner *t, uint64_t cookie,
		      enum bpftune_state state, const char *cause)
{
	(void)t;
	(void)cookie;
	(void)state;
	(void)cause;
	bpftune_metrics_dirty();
}

static void obs_strategy(const struct bpftune_tuner *t, const char *from,
			 const char *to)
{
	(void)t;
	(void)from;
	(void)to;
	bpftune_metrics_dirty();
}

static struct bpftune_observer observer = {
	.event = obs_event,
	.state = obs_state,
	.strategy = obs_strategy,
};

int bpftune_metrics_init(const char *dir)
{
	struct stat st;
	int err;

	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		bpftune_log(LOG_ERR, "metrics: %s is not a directory", dir);
		return -ENOTDIR;
	}
	metrics_dir = strdup(dir);
	if (!metrics_dir)
		return -ENOMEM;
	timer = bpftune_loop_timer_new(on_timer, NULL);
	if (!timer) {
		err = -errno;
		free(metrics_dir);
		metrics_dir = NULL;
		return err;
	}
	bpftune_observer_add(&observer);
	write_file();
	bpftune_log(LOG_INFO, "metrics: writing %s/%s", dir, METRICS_FILE);
	return 0;
}

void bpftune_metrics_fini(void)
{
	if (!metrics_dir)
		return;
	bpftune_observer_remove(&observer);
	write_file();
	bpftune_log(LOG_INFO, "metrics: %llu writes of %s/%s", (unsigned long long)writes,
		    metrics_dir, METRICS_FILE);
	bpftune_loop_timer_free(timer);
	timer = NULL;
	free(metrics_dir);
	metrics_dir = NULL;
}
