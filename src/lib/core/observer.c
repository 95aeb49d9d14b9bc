// SPDX-License-Identifier: GPL-2.0-only
/*
 * The observer bus (observer.h): a list of subscribers, newest first, and
 * one publishing function per callback.  The core publishes here and never
 * calls the journal, the config, metrics or telemetry itself.
 */
#include "core/observer.h"

static struct bpftune_observer *observers;

void bpftune_observer_add(struct bpftune_observer *o)
{
	o->next = observers;
	observers = o;
}

void bpftune_observer_remove(struct bpftune_observer *o)
{
	struct bpftune_observer **p;

	for (p = &observers; *p; p = &(*p)->next)
		if (*p == o) {
			*p = o->next;
			return;
		}
}

#define for_each_observer(o) for ((o) = observers; (o); (o) = (o)->next)

int bpftune_notify_tuner_check(const struct bpftune_tuner *t, char *why,
			       size_t len)
{
	struct bpftune_observer *o;
	int err;

	for_each_observer(o)
		if (o->tuner_check && (err = o->tuner_check(t, why, len)))
			return err;
	return 0;
}

void bpftune_notify_tuner_added(const struct bpftune_tuner *t)
{
	struct bpftune_observer *o;

	for_each_observer(o)
		if (o->tuner_added)
			o->tuner_added(t);
}

void bpftune_notify_tuner_removed(const struct bpftune_tuner *t)
{
	struct bpftune_observer *o;

	for_each_observer(o)
		if (o->tuner_removed)
			o->tuner_removed(t);
}

void bpftune_notify_event(const struct bpftune_tuner *t,
			  const struct bpftune_event *ev)
{
	struct bpftune_observer *o;

	for_each_observer(o)
		if (o->event)
			o->event(t, ev);
}

int bpftune_notify_limit(struct bpftune_tuner *t, unsigned int tunable,
			 const struct bpftune_event *ev, unsigned int scenario,
			 uint64_t cookie, const long *old, long *new,
			 unsigned int n)
{
	struct bpftune_observer *o;
	int err;

	for_each_observer(o)
		if (o->limit &&
		    (err = o->limit(t, tunable, ev, scenario, cookie, old, new, n)))
			return err;
	return 0;
}

int bpftune_notify_pre_change(const struct bpftune_tuner *t, unsigned int tunable,
			      uint64_t cookie, const long *old,
			      const long *new, unsigned int n)
{
	struct bpftune_observer *o;
	int err;

	for_each_observer(o)
		if (o->pre_change && (err = o->pre_change(t, tunable, cookie, old, new, n)))
			return err;
	return 0;
}

void bpftune_notify_change(const struct bpftune_tuner *t, unsigned int tunable,
			   uint64_t cookie, unsigned int scenario,
			   const long *old, const long *new, unsigned int n,
			   const char *reason, int err)
{
	struct bpftune_observer *o;

	for_each_observer(o)
		if (o->change)
			o->change(t, tunable, cookie, scenario, old, new, n,
				  reason, err);
}

void bpftune_notify_decision(const struct bpftune_tuner *t,
			     const struct bpftune_event *ev,
			     const struct bpftune_decision *d)
{
	struct bpftune_observer *o;

	for_each_observer(o)
		if (o->decision)
			o->decision(t, ev, d);
}

void bpftune_notify_netns_entry_freed(const struct bpftune_tuner *t,
				      uint64_t cookie)
{
	struct bpftune_observer *o;

	for_each_observer(o)
		if (o->netns_entry_freed)
			o->netns_entry_freed(t, cookie);
}

void bpftune_notify_state(const struct bpftune_tuner *t, uint64_t cookie,
			  enum bpftune_state state, const char *cause)
{
	struct bpftune_observer *o;

	for_each_observer(o)
		if (o->state)
			o->state(t, cookie, state, cause);
}

void bpftune_notify_gate(const struct bpftune_tuner *t,
			 const struct bpftune_gate_change *c)
{
	struct bpftune_observer *o;

	for_each_observer(o)
		if (o->gate)
			o->gate(t, c);
}

void bpftune_notify_strategy(const struct bpftune_tuner *t, const char *from,
			     const char *to)
{
	struct bpftune_observer *o;

	for_each_observer(o)
		if (o->strategy)
			o->strategy(t, from, to);
}

void bpftune_notify_rollback(const char *sysctl, uint64_t cookie,
			     const long *restored, unsigned int n, int err)
{
	struct bpftune_observer *o;

	for_each_observer(o)
		if (o->rollback)
			o->rollback(sysctl, cookie, restored, n, err);
}
