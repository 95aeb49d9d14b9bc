// SPDX-License-Identifier: GPL-2.0-only
/*
 * The tuner registry: adding and removing tuners, per-netns tuner state,
 * capped and recorded tunable changes -- the one write path,
 * bpftune_tunable_set() -- and the summary printed at exit.  A plugin's
 * life cycle (start, events, timer, stop) is in lifecycle.c; what the
 * journal, the admin policy, metrics and telemetry hear of goes out on the
 * observer bus (observer.c).
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
#include "core/observer.h"
#include "core/refusal.h"
#include "core/operate.h"

static struct bpftune_tuner *tuners[BPFTUNE_MAX_TUNERS];
static unsigned int learning_rate = BPFTUNE_LEARNING_RATE_DEFAULT;
static uint64_t change_seq;
static bool observe_only;

void bpftune_set_observe_only(bool on)
{
	observe_only = on;
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
	if (t->obj)
		bpftune_bpf_print_stats(t);
	bpftune_tuner_stop(t);
	bpftune_refusal_forget_tuner(t->id);
	bpftune_strategies_free(t);
	bpftune_gates_free(t);
	bpftune_bpf_detach(t);
	bpftune_bpf_close(t);
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
		bpftune_bpf_detach(t);
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

static void format_values(const long *v, unsigned int n, char *buf, size_t len)
{
	if (bpftune_sysctl_format(v, n, buf, len) < 0)
		snprintf(buf, len, "?");
	for (; *buf; buf++)
		if (*buf == '\t')
			*buf = ' ';
}

static void record_change(struct bpftune_tuner *t, unsigned int index,
			  uint64_t cookie, unsigned int scenario,
			  const long *old, const long *new, unsigned int n)
{
	struct bpftune_change *c;

	for (c = t->changes[index]; c; c = c->next)
		if (c->netns_cookie == cookie && c->scenario == scenario &&
		    !c->gone)
			break;
	if (!c) {
		c = calloc(1, sizeof(*c));
		if (!c)
			return;
		c->netns_cookie = cookie;
		c->scenario = scenario;
		c->num_values = n;
		c->first_seq = ++change_seq;
		memcpy(c->old_values, old, n * sizeof(*old));
		c->next = t->changes[index];
		t->changes[index] = c;
	}
	memcpy(c->new_values, new, n * sizeof(*new));
	c->last_seq = ++change_seq;
	c->count++;
}

static int tunable_target(struct bpftune_tuner *t, unsigned int index,
			  const struct bpftune_event *ev, uint64_t *cookie,
			  int *netns_fd)
{
	const struct bpftune_tunable_desc *d = &t->ops->tunables[index];

	*cookie = 0;
	*netns_fd = -1;
	if (!(d->flags & BPFTUNE_TUNABLE_NAMESPACED) || !ev ||
	    bpftune_netns_is_global(ev->netns_cookie))
		return 0;
	*cookie = ev->netns_cookie;
	*netns_fd = bpftune_netns_fd_for_event(ev);
	return *netns_fd < -1 ? *netns_fd : 0;
}

int bpftune_tunable_get(struct bpftune_tuner *t, unsigned int index,
			const struct bpftune_event *ev, long *values)
{
	uint64_t cookie;
	int fd, err;

	if (index >= t->ops->num_tunables)
		return -EINVAL;
	err = tunable_target(t, index, ev, &cookie, &fd);
	if (err)
		return err;
	return bpftune_sysctl_read(fd, t->ops->tunables[index].name, values,
				   t->ops->tunables[index].num_values);
}

int bpftune_tunable_set_writer(struct bpftune_tuner *t, unsigned int index,
			       bpftune_tunable_writer_fn fn, void *ctx)
{
	if (!t || index >= t->ops->num_tunables)
		return -EINVAL;
	if (!t->writers) {
		t->writers = calloc(t->ops->num_tunables, sizeof(*t->writers));
		if (!t->writers)
			return -ENOMEM;
	}
	t->writers[index].fn = fn;
	t->writers[index].ctx = ctx;
	return 0;
}

static const struct bpftune_tunable_writer *
tunable_writer(const struct bpftune_tuner *t, unsigned int index)
{
	if (!t->writers || !t->writers[index].fn)
		return NULL;
	return &t->writers[index];
}

/* The values we last wrote to tunable @index in @cookie's netns, if any. */
static const struct bpftune_change *last_write(const struct bpftune_tuner *t,
					       unsigned int index,
					       uint64_t cookie)
{
	const struct bpftune_change *c, *last = NULL;

	for (c = t->changes[index]; c; c = c->next)
		if (c->netns_cookie == cookie && !c->gone &&
		    (!last || c->last_seq > last->last_seq))
			last = c;
	return last;
}

/*
 * A writer's tunable: admin-override detection (admin_override.c) does not
 * see who else applies it that way, so compare the live value with our
 * last write.  True if someone else has changed it (and the tuner is
 * stopped in that netns).
 */
static bool writer_overridden(struct bpftune_tuner *t, unsigned int index,
			      uint64_t cookie, const long *live, unsigned int n)
{
	const struct bpftune_change *c = last_write(t, index, cookie);
	char slive[96], slast[96], why[256];

	if (!c || c->num_values != n ||
	    !memcmp(c->new_values, live, n * sizeof(*live)))
		return false;
	format_values(live, n, slive, sizeof(slive));
	format_values(c->new_values, n, slast, sizeof(slast));
	snprintf(why, sizeof(why), "%s is %s, bpftune last set %s: someone else has changed it",
		 t->ops->tunables[index].name, slive, slast);
	bpftune_tuner_set_manual(t, cookie, why);
	return true;
}

static int writer_apply(struct bpftune_tuner *t, unsigned int index,
			const struct bpftune_tunable_writer *w, int netns_fd,
			const long *values, unsigned int n)
{
	int saved, err;

	err = bpftune_netns_enter(netns_fd, &saved);
	if (err)
		return err;
	bpftune_cap_raise();
	err = w->fn(t, index, values, n, w->ctx);
	bpftune_cap_lower();
	bpftune_netns_leave(saved);
	return err > 0 ? 0 : err;
}

/*
 * Veto check, the write, its observers and what a refusal means: a write
 * the kernel refused is not tried again before a back-off (refusal.h),
 * however many events ask for it; 0 or -errno.
 */
static int apply_change(struct bpftune_tuner *t, unsigned int index, int fd,
			uint64_t cookie, unsigned int scenario, const long *old,
			const long *new, unsigned int n, const char *reason,
			const char *snew, const char *where)
{
	const struct bpftune_tunable_writer *w = tunable_writer(t, index);
	const char *name = t->ops->tunables[index].name;
	struct bpftune_refusal *r;
	uint64_t refused, skipped;
	int err;

	if (bpftune_refusal_holds(t->id, index, cookie, bpftune_now_ms()))
		return -EAGAIN;
	err = bpftune_notify_pre_change(t, index, cookie, old, new, n);
	if (err) {
		r = bpftune_refusal_note(t->id, index, cookie, err, true, bpftune_now_ms());
		bpftune_log(!r || r->refusals == 1 ? LOG_WARNING : LOG_DEBUG,
			    "tuner %s: not setting %s to %s in %s: %s", t->ops->name,
			    name, snew, where, strerror(-err));
		return err;
	}
	if (w)
		err = writer_apply(t, index, w, fd, new, n);
	else
		err = bpftune_sysctl_write(fd, name, new, n);
	bpftune_notify_change(t, index, cookie, scenario, old, new, n, reason, err);
	if (err) {
		r = bpftune_refusal_note(t->id, index, cookie, err, false, bpftune_now_ms());
		bpftune_log(LOG_WARNING, "tuner %s: could not set %s to %s in %s: %s; not tried again there for %llu s",
			    t->ops->name, name, snew, where, strerror(-err),
			    r ? (unsigned long long)(r->until_ms - bpftune_now_ms() + 999) / 1000 : 0ULL);
		return err;
	}
	refused = bpftune_refusal_clear(t->id, index, cookie, &skipped);
	if (refused)
		bpftune_log(LOG_NOTICE, "tuner %s: %s in %s can be set again, after %llu refusal%s (%llu attempt%s held back)",
			    t->ops->name, name, where, (unsigned long long)refused,
			    refused == 1 ? "" : "s", (unsigned long long)skipped,
			    skipped == 1 ? "" : "s");
	return 0;
}

int bpftune_tunable_set(struct bpftune_tuner *t, unsigned int index,
			const struct bpftune_event *ev, unsigned int scenario,
			const long *values, unsigned int n, const char *reason)
{
	const struct bpftune_tunable_desc *d;
	long old[BPFTUNE_MAX_VALUES], new[BPFTUNE_MAX_VALUES];
	char sold[96], snew[96], where[128];
	unsigned int capped;
	uint64_t cookie;
	int fd, err;

	if (index >= t->ops->num_tunables || scenario >= t->ops->num_scenarios)
		return -EINVAL;
	d = &t->ops->tunables[index];
	if (n != d->num_values)
		return -EINVAL;
	err = tunable_target(t, index, ev, &cookie, &fd);
	if (err) {
		bpftune_log(LOG_WARNING, "tuner %s: %s: cannot find the netns of the event: %s",
			    t->ops->name, d->name, strerror(-err));
		return err;
	}
	if (bpftune_tuner_netns_state(t, cookie) != BPFTUNE_STATE_ACTIVE)
		return -EPERM;
	err = bpftune_sysctl_read(fd, d->name, old, d->num_values);
	if (err != (int)d->num_values) {
		err = err < 0 ? err : -EINVAL;
		bpftune_log(LOG_WARNING, "tuner %s: cannot read %s: %s",
			    t->ops->name, d->name, strerror(-err));
		return err;
	}
	if (tunable_writer(t, index) && writer_overridden(t, index, cookie, old, n))
		return -EPERM;
	memcpy(new, values, n * sizeof(*new));
	capped = bpftune_cap_values(d, new, n);
	/* the admin's policy file (ops): bounds, do-not-touch, netns scope */
	err = bpftune_notify_limit(t, index, ev, scenario, cookie, old, new, n);
	if (err)
		return err;
	if (!memcmp(old, new, n * sizeof(*new)))
		return 0;
	format_values(old, n, sold, sizeof(sold));
	format_values(new, n, snew, sizeof(snew));
	bpftune_netns_describe(cookie, where, sizeof(where));
	/* --observe: the decision is recorded, the kernel is left alone */
	if (observe_only) {
		bpftune_notify_change(t, index, cookie, scenario, old, new, n,
				      reason, -ECANCELED);
		bpftune_log(LOG_NOTICE, "tuner %s: %s: observe-only, not setting %s %s -> %s in %s: %s",
			    t->ops->name, t->ops->scenarios[scenario].name, d->name,
			    sold, snew, where, reason ? reason : "");
		return 0;
	}
	err = apply_change(t, index, fd, cookie, scenario, old, new, n, reason,
			   snew, where);
	if (err)
		return err;
	record_change(t, index, cookie, scenario, old, new, n);
	bpftune_log(LOG_NOTICE, "tuner %s: %s: %s %s -> %s in %s: %s%s",
		    t->ops->name, t->ops->scenarios[scenario].name, d->name,
		    sold, snew, where, reason ? reason : "",
		    capped ? " (held at the tunable's cap)" : "");
	return 1;
}

/* events the BPF side could not queue, all plugins (never silent) */
static uint64_t ringbuf_lost(void)
{
	struct bpftune_bpf_config c;
	uint64_t total = 0, v;
	unsigned int id;

	for (id = 0; id < BPFTUNE_MAX_TUNERS; id++)
		if (tuners[id] && !bpftune_bpf_read_config(tuners[id], &c, &v))
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

				format_values(c->old_values, c->num_values, sold, sizeof(sold));
				format_values(c->new_values, c->num_values, snew, sizeof(snew));
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
	bpftune_refusal_forget_netns(cookie);
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
