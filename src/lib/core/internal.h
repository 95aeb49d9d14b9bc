/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libbpftune internals shared by the daemon and the library's own files
 * (the core mechanisms, admin_override.c and netns_watch.c, among them).
 * Not installed: tuner authors see only include/bpftune/.
 */
#ifndef BPFTUNE_INTERNAL_H
#define BPFTUNE_INTERNAL_H

#include "base/daemon_api.h"

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <bpftune/libbpftune.h>
#include <bpftune/grow.h>
#include <bpftune/kernel.h>
#include <bpftune/proc.h>

#include "base/base.h"
#include "netns/netns.h"
#include "loader/loader.h"

struct bpf_link;
struct bpf_object;

/* start options of a plugin (bpftune_tuner_start()) */
struct bpftune_bpf_opts {
	bool legacy;
	int cgroup_fd;
};

/* ---- tuners (tuner.c, lifecycle.c) ---- */
struct bpftune_change {
	struct bpftune_change *next;
	uint64_t netns_cookie;
	uint64_t first_seq;		/* order of first change, for rollback */
	uint64_t last_seq;		/* order of the latest change */
	unsigned int scenario;
	unsigned int count;
	unsigned int num_values;
	long old_values[BPFTUNE_MAX_VALUES];
	long new_values[BPFTUNE_MAX_VALUES];
	bool gone;			/* its netns was destroyed */
};

/* bpftune_tunable_set_writer(): a tunable applied without /proc/sys */
struct bpftune_tunable_writer {
	bpftune_tunable_writer_fn fn;
	void *ctx;
};

struct bpftune_netns_state {
	struct bpftune_netns_state *next;
	uint64_t cookie;
	enum bpftune_state state;
};

struct bpftune_timer;

struct bpftune_tuner {
	unsigned int id;
	const struct bpftune_tuner_ops *ops;
	void *handle;			/* dlopen handle; NULL for core ones */
	int plugin_fd;			/* kept open while loaded */
	char file[NAME_MAX + 1];
	enum bpftune_state state;	/* global state */
	void *skel;			/* its skeleton, open or loaded */
	bool legacy;			/* the skeleton is the legacy one */
	struct bpf_object *obj;		/* the skeleton's object */
	struct bpf_link **links;
	unsigned int num_links;
	void *priv;			/* ops->priv_size bytes, the plugin's */
	struct bpftune_timer *timer;	/* when ops->timer */
	struct bpftune_change **changes;	/* per tunable */
	struct bpftune_tunable_writer *writers;	/* per tunable, or NULL */
	struct bpftune_netns_state *netns;
	struct bpftune_netns_table *netns_priv;	/* ops->netns, or NULL */
	uint64_t events;
	uint64_t events_ignored;
	/* events rejected per scenario: unknown one, payload too short */
	uint64_t *rejected;		/* num_scenarios + 1; the last: unknown */
	bool started;			/* init() ran: fini() is due */
};

struct bpftune_daemon_opts {
	bool legacy;
	unsigned int learning_rate;
	int cgroup_fd;
};

/* the per-netns table of a plugin (netns_priv.c) */
int bpftune_netns_table_init(struct bpftune_tuner *t,
			     const struct bpftune_netns_table_ops *ops);
void bpftune_netns_table_fini(struct bpftune_tuner *t);
/* drop what a tuner's netns table holds for a netns stopped or gone */
void bpftune_netns_table_state(struct bpftune_tuner *t, uint64_t cookie,
			       enum bpftune_state state);
/*
 * --observe: bpftune_tunable_set() writes nothing and returns 0; change
 * observers get err -ECANCELED (pre_change is not called).
 */
BPFTUNE_DAEMON void bpftune_set_observe_only(bool on);
/* its BPF side's bpftune_observe_flag, before load or after (mmapped) */
void bpftune_tuner_observe_flag(struct bpftune_tuner *t, bool on);

BPFTUNE_DAEMON void bpftune_set_learning_rate(unsigned int rate);
BPFTUNE_DAEMON void bpftune_set_collector_opts(const struct bpftune_collector_opts *o);
/* @kb KiB per CPU times @ncpus, rounded up to a power of two, at most 1 GiB */
BPFTUNE_DAEMON unsigned long bpftune_collector_ringbuf_bytes(unsigned long kb, int ncpus);
/* the tuner's BPF object, for the loader (lifecycle.c) */
struct bpftune_bpf_obj bpftune_tuner_bpf(const struct bpftune_tuner *t);
/* bpftune's globals of the tuner's BPF object as the kernel has them; -ENOENT if not loaded */
int bpftune_tuner_read_config(const struct bpftune_tuner *t,
			      struct bpftune_bpf_config *config,
			      uint64_t *ringbuf_lost);
/* the skeleton destroyed, its object closed (lifecycle.c) */
void bpftune_tuner_bpf_close(struct bpftune_tuner *t);
/* before load: a collector's own ring buffers sized (collector_opts.c); 0 or -errno */
int bpftune_collector_size_buffers(struct bpftune_tuner *t);
BPFTUNE_DAEMON unsigned int bpftune_num_tuners(void);
BPFTUNE_DAEMON struct bpftune_tuner *bpftune_tuner_get(unsigned int id);
BPFTUNE_DAEMON struct bpftune_tuner *bpftune_tuner_add(const struct bpftune_tuner_ops *ops,
					void *handle, int plugin_fd,
					const char *file);
BPFTUNE_DAEMON void bpftune_tuner_remove(struct bpftune_tuner *tuner);
BPFTUNE_DAEMON int bpftune_tuner_start(struct bpftune_tuner *tuner,
			const struct bpftune_bpf_opts *opts);
/*
 * The one start sequence of a plugin opened from @file (daemon start, hot
 * plug): add it, then start it.  Takes @handle and @fd in every case (closed
 * when it does not start, logged).  The running tuner, or NULL.
 */
BPFTUNE_DAEMON struct bpftune_tuner *bpftune_plugin_start(const char *file,
					const struct bpftune_tuner_ops *ops,
					void *handle, int fd,
					const struct bpftune_bpf_opts *opts);
/* fini() and what the library made for the plugin (lifecycle.c) */
void bpftune_tuner_stop(struct bpftune_tuner *tuner);
/* tell the plugin about a netns state change (its netns_state()) */
void bpftune_tuner_notify_state(struct bpftune_tuner *tuner, uint64_t cookie,
				enum bpftune_state state);
/* "tuner", "collector" or "core" (kind.c) */
BPFTUNE_DAEMON const char *bpftune_kind_name(enum bpftune_plugin_kind kind);
/* events rejected so far for scenario @s (num_scenarios: unknown scenario) */
uint64_t bpftune_tuner_rejected(const struct bpftune_tuner *t, unsigned int s);
enum bpftune_state bpftune_tuner_netns_state(const struct bpftune_tuner *t,
					     uint64_t cookie);
void bpftune_tuner_set_manual(struct bpftune_tuner *tuner, uint64_t cookie,
			      const char *why);
/*
 * A netns was destroyed: every tuner's state there goes GONE (observers
 * are told) and is freed, change records are kept for the summary but
 * marked gone, and the netns cache forgets it.  Returns the number of
 * per-netns states freed plus change records marked.
 */
unsigned int bpftune_netns_gone(uint64_t cookie, const char *cause);
/* per-netns state entries held by all tuners, for statistics */
unsigned int bpftune_netns_states(void);
BPFTUNE_DAEMON void bpftune_dispatch(const struct bpftune_event *ev, size_t size);
/* events that named no loaded tuner or were cut short, so far */
uint64_t bpftune_events_malformed(void);
BPFTUNE_DAEMON void bpftune_print_summary(void);
/* before telemetry stops: each running plugin's drain() */
BPFTUNE_DAEMON void bpftune_tuners_drain(void);
BPFTUNE_DAEMON void bpftune_tuners_fini(void);

#endif /* BPFTUNE_INTERNAL_H */
