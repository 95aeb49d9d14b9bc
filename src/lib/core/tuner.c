// SPDX-License-Identifier: GPL-2.0-only
/*
 * The tuner registry: adding and removing tuners, per-netns tuner state,
 * observe-only and the learning rate, and the summary of the changes
 * recorded by the one write path (write/tunable_set.c), printed at exit.
 * A plugin's life cycle (start, events, timer, stop) is in lifecycle.c;
 * what the journal, the admin's config, metrics and telemetry hear of goes
 * out on the observer bus (observer.c), which also tells the table of
 * refused writes (write/tunable_set.c) that a tuner or a netns went.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "core/internal.h"
#include "loader/loader.h"
#include "core/observer.h"
#include "core/operate.h"
#include "core/sysctl.h"

static struct bpftune_tuner *tuners[BPFTUNE_MAX_TUNERS];
static unsigned int learning_rate = BPFTUNE_LEARNING_RATE_DEFAULT;
static bool observe_only;

void bpftune_tuner_observe_flag(struct bpftune_tuner *t, bool on)
{
	__u32 *flag = t->obj ? bpftune_bpf_var_ptr(t->obj, ".bss", "bpftune_observe_flag",
						  sizeof(*flag)) : NULL;

	/* absent from objects built before it; unmapped before 5.5 */
	if (flag)
		*flag = on;
}

void bpftune_set_observe_only(bool on)
{
	unsigned int id;

	observe_only = on;
	for (id = 0; id < BPFTUNE_MAX_TUNERS; id++)
		if (tuners[id])
			bpftune_tuner_observe_flag(tuners[id], on);
}

bool bpftune_observe_only(void)
{
	return observe_only;
}

static void notify_state(struct bpftune_tuner *t, uint64_t cookie,
			 enum bpftune_state state, const char *cause)
{
	/* the plugin hears of it with its netns entry already gone */
	bpftune_tuner_notify_state(t, cookie, state);
	bpftune_notify_state(t, cookie, state, cause);
}

void bpftune_set_learning_rate(unsigned int rate)
{
	learning_rate = rate > BPFTUNE_LEARNING_RATE_MAX ?
			BPFTUNE_LEARNING_RATE_MAX : rate;
}

unsigned int bpftune_learning_rate(void)
{
	return learning_rate;
}

long bpftune_delta(long value)
{
	return bpftune_delta_for_rate(value, learning_rate);
}

unsigned int bpftune_num_tuners(void)
{
	return BPFTUNE_MAX_TUNERS;
}

struct bpftune_tuner *bpftune_tuner_get(unsigned int id)
{
	return id < BPFTUNE_MAX_TUNERS ? tuners[id] : NULL;
}

struct bpftune_tuner *bpftune_tuner_add(const struct bpftune_tuner_ops *ops,
					void *handle, int plugin_fd,
					const char *file)
{
	struct bpftune_tuner *t;
	unsigned int id;

	for (id = 0; id < BPFTUNE_MAX_TUNERS; id++) {
		if (tuners[id] && !strcmp(tuners[id]->ops->name, ops->name)) {
			bpftune_log(LOG_WARNING, "tuner %s from %s: a tuner of that name is already loaded",
				    ops->name, file);
			return NULL;
		}
	}
	for (id = 0; id < BPFTUNE_MAX_TUNERS && tuners[id]; id++)
		;
	if (id == BPFTUNE_MAX_TUNERS) {
		bpftune_log(LOG_ERR, "tuner %s: too many tuners (at most %d)",
			    ops->name, BPFTUNE_MAX_TUNERS);
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->changes = calloc(ops->num_tunables ? ops->num_tunables : 1,
			    sizeof(*t->changes));
	/* one counter per scenario and one for unknown scenarios */
	t->rejected = calloc(ops->num_scenarios + 1, sizeof(*t->rejected));
	if (!t->changes || !t->rejected) {
		free(t->changes);
		free(t->rejected);
		free(t);
		return NULL;
	}
	t->id = id;
	t->ops = ops;
	t->handle = handle;
	t->plugin_fd = plugin_fd;
	snprintf(t->file, sizeof(t->file), "%s", file);
	tuners[id] = t;
	return t;
}

void bpftune_tuner_remove(struct bpftune_tuner *t)
{
	struct bpftune_netns_state *ns, *ns_next;
	unsigned int i;

	if (!t)
		return;
	/* before fini() and dlclose(): no sample callback runs after this */
	bpftune_notify_tuner_removed(t);
	if (t->obj) {
		struct bpftune_bpf_obj o = bpftune_tuner_bpf(t);

		bpftune_bpf_print_stats(&o);
	}
	bpftune_tuner_stop(t);
	bpftune_strategies_free(t);
	bpftune_gates_free(t);
	bpftune_bpf_detach(&t->links, &t->num_links);
	bpftune_tuner_bpf_close(t);
	for (i = 0; i < t->ops->num_tunables; i++) {
		struct bpftune_change *c, *next;

		for (c = t->changes[i]; c; c = next) {
			next = c->next;
			free(c);
		}
	}
	for (ns = t->netns; ns; ns = ns_next) {
		ns_next = ns->next;
		free(ns);
	}
	free(t->changes);
	free(t->writers);
	free(t->rejected);
	tuners[t->id] = NULL;
	if (t->handle)
		dlclose(t->handle);
	if (t->plugin_fd >= 0)
		close(t->plugin_fd);
	free(t);
}

enum bpftune_state bpftune_tuner_netns_state(const struct bpftune_tuner *t,
					     uint64_t cookie)
{
	const struct bpftune_netns_state *ns;

	if (t->state != BPFTUNE_STATE_ACTIVE || bpftune_netns_is_global(cookie))
		return t->state;
	for (ns = t->netns; ns; ns = ns->next)
		if (ns->cookie == cookie)
			return ns->state;
	return BPFTUNE_STATE_ACTIVE;
}

void bpftune_tuner_set_manual(struct bpftune_tuner *t, uint64_t cookie,
			      const char *why)
{
	struct bpftune_netns_state *ns;
	char desc[128];

	if (bpftune_netns_is_global(cookie)) {
		if (t->state == BPFTUNE_STATE_MANUAL)
			return;
		t->state = BPFTUNE_STATE_MANUAL;
		bpftune_bpf_detach(&t->links, &t->num_links);
		bpftune_log(LOG_NOTICE, "tuner %s stopped in every netns: %s",
			    t->ops->name, why);
		notify_state(t, 0, BPFTUNE_STATE_MANUAL, why);
		return;
	}
	for (ns = t->netns; ns; ns = ns->next)
		if (ns->cookie == cookie)
			break;
	if (ns && ns->state == BPFTUNE_STATE_MANUAL)
		return;
	if (!ns) {
		ns = calloc(1, sizeof(*ns));
		if (!ns)
			return;
		ns->cookie = cookie;
		ns->next = t->netns;
		t->netns = ns;
	}
	ns->state = BPFTUNE_STATE_MANUAL;
	bpftune_log(LOG_NOTICE, "tuner %s stopped in %s: %s", t->ops->name,
		    bpftune_netns_describe(cookie, desc, sizeof(desc)), why);
	notify_state(t, cookie, BPFTUNE_STATE_MANUAL, why);
}

/* events the BPF side could not queue, all plugins (never silent) */
static uint64_t ringbuf_lost(void)
{
	struct bpftune_bpf_config c;
	uint64_t total = 0, v;
	unsigned int id;

	for (id = 0; id < BPFTUNE_MAX_TUNERS; id++)
		if (tuners[id] && !bpftune_tuner_read_config(tuners[id], &c, &v))
			total += v;
	return total;
}

void bpftune_print_summary(void)
{
	unsigned int id, i, changes = 0;
	uint64_t lost;

	for (id = 0; id < BPFTUNE_MAX_TUNERS; id++) {
		struct bpftune_tuner *t = tuners[id];

		if (!t)
			continue;
		for (i = 0; i < t->ops->num_tunables; i++) {
			const struct bpftune_tunable_desc *d = &t->ops->tunables[i];
			const struct bpftune_change *c;

			for (c = t->changes[i]; c; c = c->next) {
				char sold[96], snew[96], where[128], pfx[300];

				bpftune_sysctl_format_line(c->old_values, c->num_values, sold, sizeof(sold));
				bpftune_sysctl_format_line(c->new_values, c->num_values, snew, sizeof(snew));
				if (c->gone)
					snprintf(where, sizeof(where), "netns cookie %llu (destroyed since)",
						 (unsigned long long)c->netns_cookie);
				else
					bpftune_netns_describe(c->netns_cookie, where, sizeof(where));
				bpftune_log(LOG_NOTICE, "summary: tuner %s, scenario '%s': %s changed %u time%s in %s: %s -> %s",
					    t->ops->name,
					    t->ops->scenarios[c->scenario].name,
					    d->name, c->count, c->count == 1 ? "" : "s",
					    where, sold, snew);
				changes++;
				/* its name may belong to another netns by now */
				if (c->gone)
					continue;
				bpftune_log(LOG_NOTICE, "summary:   replay with: %ssysctl -w %s=\"%s\"",
					    bpftune_netns_exec_prefix(c->netns_cookie, pfx, sizeof(pfx)),
					    d->name, snew);
			}
		}
		bpftune_log(LOG_INFO, "summary: %s %s: %llu events, %llu ignored (tuner stopped for their netns)",
			    bpftune_kind_name(t->ops->kind), t->ops->name,
			    (unsigned long long)t->events,
			    (unsigned long long)t->events_ignored);
	}
	if (!changes)
		bpftune_log(LOG_NOTICE, "summary: no sysctl was changed");
	if (bpftune_events_malformed())
		bpftune_log(LOG_WARNING, "summary: %llu malformed events dropped",
			    (unsigned long long)bpftune_events_malformed());
	lost = ringbuf_lost();
	if (lost)
		bpftune_log(LOG_WARNING, "summary: %llu events lost: the ring buffer was full (hooks fired faster than the daemon read)",
			    (unsigned long long)lost);
}

unsigned int bpftune_netns_gone(uint64_t cookie, const char *cause)
{
	unsigned int id, i, n = 0;

	if (bpftune_netns_is_global(cookie))
		return 0;
	for (id = 0; id < BPFTUNE_MAX_TUNERS; id++) {
		struct bpftune_tuner *t = tuners[id];
		struct bpftune_netns_state **p, *ns;
		struct bpftune_change *c;

		if (!t)
			continue;
		for (p = &t->netns; (ns = *p); p = &ns->next)
			if (ns->cookie == cookie)
				break;
		if (ns) {
			char where[128];

			bpftune_log(LOG_INFO, "tuner %s: %s: state %s -> gone (%s)",
				    t->ops->name,
				    bpftune_netns_describe(cookie, where, sizeof(where)),
				    ns->state == BPFTUNE_STATE_MANUAL ? "manual" : "active",
				    cause);
			*p = ns->next;
			free(ns);
			n++;
		}
		for (i = 0; i < t->ops->num_tunables; i++)
			for (c = t->changes[i]; c; c = c->next)
				if (c->netns_cookie == cookie && !c->gone) {
					c->gone = true;
					n++;
				}
		notify_state(t, cookie, BPFTUNE_STATE_GONE, cause);
	}
	bpftune_netns_forget(cookie);
	return n;
}

unsigned int bpftune_netns_states(void)
{
	const struct bpftune_netns_state *ns;
	unsigned int id, n = 0;

	for (id = 0; id < BPFTUNE_MAX_TUNERS; id++)
		for (ns = tuners[id] ? tuners[id]->netns : NULL; ns; ns = ns->next)
			n++;
	return n;
}

void bpftune_tuners_drain(void)
{
	unsigned int id;

	for (id = 0; id < BPFTUNE_MAX_TUNERS; id++) {
		struct bpftune_tuner *t = tuners[id];

		if (t && t->started && BPFTUNE_OPS_HAS(t->ops, drain) && t->ops->drain)
			t->ops->drain(t, t->priv);
	}
}

void bpftune_tuners_fini(void)
{
	unsigned int id;

	for (id = 0; id < BPFTUNE_MAX_TUNERS; id++)
		bpftune_tuner_remove(tuners[id]);
}
