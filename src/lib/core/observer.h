/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The observer bus: how the core tells the areas above it (ops, telemetry)
 * what the tuners see and do, without calling them.  The rollback
 * journal, the admin's config, metrics and telemetry subscribe; the core
 * only publishes (observer.c).  Any callback may be NULL.  Observers are
 * called newest first.
 */
#ifndef BPFTUNE_OBSERVER_H
#define BPFTUNE_OBSERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <bpftune/libbpftune.h>

/* a pressure gate attached or detached its hook (gate.c) */
struct bpftune_gate_change {
	const char *hook;
	const char *what;	/* what opens it: "softnet_stat time_squeeze+dropped" */
	const char *kind;	/* counter, event, window */
	bool attached;		/* false: detached */
	/* moved, seen, window, calm, window_end, error, admin_stop */
	const char *reason;
	bool has_reading;	/* a counter or event reading was taken */
	uint64_t reading;
	uint64_t attaches, detaches;
	uint64_t attached_ms;	/* time attached so far, this period included */
};

struct bpftune_observer {
	struct bpftune_observer *next;
	/*
	 * Before a plugin's BPF object is loaded: a negative return refuses
	 * the plugin, with why in @why (logged "KIND NAME refused: WHY").
	 */
	int (*tuner_check)(const struct bpftune_tuner *t, char *why, size_t len);
	/* a plugin started (after init() and its tunables' audit) */
	void (*tuner_added)(const struct bpftune_tuner *t);
	/* a plugin goes, or failed to start: before its fini() and dlclose() */
	void (*tuner_removed)(const struct bpftune_tuner *t);
	void (*event)(const struct bpftune_tuner *t,
		      const struct bpftune_event *ev);
	/*
	 * Once per bpftune_tunable_set(), after the built-in cap and before
	 * the no-op check and --observe: may hold @new within bounds of its
	 * own, or veto the write with a negative return (the admin's config
	 * file).  Says itself why.
	 */
	int (*limit)(struct bpftune_tuner *t, unsigned int tunable,
		     const struct bpftune_event *ev, unsigned int scenario,
		     uint64_t netns_cookie, const long *old, long *new,
		     unsigned int n);
	/*
	 * Before every write of a tunable (old holds the live value, new
	 * what is about to be written): a negative return vetoes the write,
	 * e.g. when the original value could not be saved to the rollback
	 * journal.
	 */
	int (*pre_change)(const struct bpftune_tuner *t, unsigned int tunable,
			  uint64_t netns_cookie, const long *old,
			  const long *new, unsigned int n);
	/* after a write; err is 0 or the write's -errno */
	void (*change)(const struct bpftune_tuner *t, unsigned int tunable,
		       uint64_t netns_cookie, unsigned int scenario,
		       const long *old, const long *new, unsigned int n,
		       const char *reason, int err);
	/* a tuner evaluated something (bpftune_decision()) */
	void (*decision)(const struct bpftune_tuner *t,
			 const struct bpftune_event *ev,
			 const struct bpftune_decision *d);
	/*
	 * A plugin's per-netns entry (ops->netns) was freed: its netns went,
	 * the tuner stopped there, or the entry was recycled for another
	 * netns (netns_priv.c)
	 */
	void (*netns_entry_freed)(const struct bpftune_tuner *t,
				  uint64_t netns_cookie);
	/* a tuner's state changed in a netns (cookie 0: everywhere) */
	void (*state)(const struct bpftune_tuner *t, uint64_t netns_cookie,
		      enum bpftune_state state, const char *cause);
	/* a tuner's pressure gate attached or detached a hook */
	void (*gate)(const struct bpftune_tuner *t,
		     const struct bpftune_gate_change *c);
	/* a tuner switched from strategy @from to strategy @to (strategy.c) */
	void (*strategy)(const struct bpftune_tuner *t, const char *from,
			 const char *to);
	/* a rollback wrote (err 0) or failed to write an original value */
	void (*rollback)(const char *sysctl, uint64_t netns_cookie,
			 const long *restored, unsigned int n, int err);
};

void bpftune_observer_add(struct bpftune_observer *o);
void bpftune_observer_remove(struct bpftune_observer *o);

/* Publishing: each calls that callback of every observer. */
/* 0, or the first veto (@why says why) */
int bpftune_notify_tuner_check(const struct bpftune_tuner *t, char *why,
			       size_t len);
void bpftune_notify_tuner_added(const struct bpftune_tuner *t);
void bpftune_notify_tuner_removed(const struct bpftune_tuner *t);
void bpftune_notify_event(const struct bpftune_tuner *t,
			  const struct bpftune_event *ev);
/* 0, or the first veto */
int bpftune_notify_limit(struct bpftune_tuner *t, unsigned int tunable,
			 const struct bpftune_event *ev, unsigned int scenario,
			 uint64_t netns_cookie, const long *old, long *new,
			 unsigned int n);
/* 0, or the first veto */
int bpftune_notify_pre_change(const struct bpftune_tuner *t, unsigned int tunable,
			      uint64_t netns_cookie, const long *old,
			      const long *new, unsigned int n);
void bpftune_notify_change(const struct bpftune_tuner *t, unsigned int tunable,
			   uint64_t netns_cookie, unsigned int scenario,
			   const long *old, const long *new, unsigned int n,
			   const char *reason, int err);
void bpftune_notify_decision(const struct bpftune_tuner *t,
			     const struct bpftune_event *ev,
			     const struct bpftune_decision *d);
void bpftune_notify_netns_entry_freed(const struct bpftune_tuner *t,
				      uint64_t netns_cookie);
void bpftune_notify_state(const struct bpftune_tuner *t, uint64_t netns_cookie,
			  enum bpftune_state state, const char *cause);
void bpftune_notify_gate(const struct bpftune_tuner *t,
			 const struct bpftune_gate_change *c);
void bpftune_notify_strategy(const struct bpftune_tuner *t, const char *from,
			     const char *to);
/* whoever restores an original value tells the observers (telemetry) */
void bpftune_notify_rollback(const char *sysctl, uint64_t netns_cookie,
			     const long *restored, unsigned int n, int err);

#endif /* BPFTUNE_OBSERVER_H */
