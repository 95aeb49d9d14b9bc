// SPDX-License-Identifier: GPL-2.0-only
/*
 * The guarded write path, bpftune_tunable_set(): the netns the event came
 * from, the tuner's state there, a writer's tunable changed behind our
 * back, the hard cap, the admin's config (a limit observer), --observe,
 * the journal's veto (a pre_change observer), the back-off after a
 * refusal (refusal.c), the write itself and the record of the change
 * that the exit summary and netns-gone read (core/tuner.c).  Above the
 * core: it calls the registry, netns, sysctl I/O and the observer bus,
 * and the core calls none of it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "core/observer.h"
#include "write/refusal.h"
#include "core/sysctl.h"

static uint64_t change_seq;

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
	bpftune_sysctl_format_line(live, n, slive, sizeof(slive));
	bpftune_sysctl_format_line(c->new_values, n, slast, sizeof(slast));
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
 * The table of refusals forgets a netns that is gone and a tuner that
 * goes (or whose id a new tuner takes), told by the bus: the core does
 * not call up into write/.  Subscribed with the first refusal.
 */
static void refusal_state(const struct bpftune_tuner *t, uint64_t cookie,
			  enum bpftune_state state, const char *cause)
{
	(void)t;
	(void)cause;
	if (state == BPFTUNE_STATE_GONE && !bpftune_netns_is_global(cookie))
		bpftune_refusal_forget_netns(cookie);
}

static void refusal_tuner(const struct bpftune_tuner *t)
{
	bpftune_refusal_forget_tuner(t->id);
}

static struct bpftune_observer refusal_observer = {
	.tuner_added = refusal_tuner,
	.tuner_removed = refusal_tuner,
	.state = refusal_state,
};

static struct bpftune_refusal *refusal_note(const struct bpftune_tuner *t,
					    unsigned int index, uint64_t cookie,
					    int err, bool veto)
{
	static bool subscribed;

	if (!subscribed) {
		bpftune_observer_add(&refusal_observer);
		subscribed = true;
	}
	return bpftune_refusal_note(t->id, index, cookie, err, veto,
				    bpftune_now_ms());
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
		r = refusal_note(t, index, cookie, err, true);
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
		r = refusal_note(t, index, cookie, err, false);
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
	/* the admin's config file (ops): bounds, do-not-touch, netns scope */
	err = bpftune_notify_limit(t, index, ev, scenario, cookie, old, new, n);
	if (err)
		return err;
	if (!memcmp(old, new, n * sizeof(*new)))
		return 0;
	bpftune_sysctl_format_line(old, n, sold, sizeof(sold));
	bpftune_sysctl_format_line(new, n, snew, sizeof(snew));
	bpftune_netns_describe(cookie, where, sizeof(where));
	/* --observe: the decision is recorded, the kernel is left alone */
	if (bpftune_observe_only()) {
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

