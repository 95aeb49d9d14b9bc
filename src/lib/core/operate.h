/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Running the daemon for an operator: the learning rate of a tuner's BPF
 * programs checked (lifecycle.c), strategies (strategy.c) and timers
 * (timer.c).  Reading BPF globals back is the loader's (loader/loader.h).
 * Metrics and hot plug are in ops/metrics.h, the control socket in ops/control.h, the rollback
 * journal in ops/journal.h.
 */
#ifndef BPFTUNE_OPERATE_H
#define BPFTUNE_OPERATE_H

#include "base/daemon_api.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/internal.h"

/* Do the tuner's BPF programs use the daemon's learning rate?  0 or -errno (logged) */
BPFTUNE_DAEMON int bpftune_check_learning_rate(const struct bpftune_tuner *t);

/* ---- strategies (strategy.c) ---- */
void bpftune_strategies_free(struct bpftune_tuner *t);
unsigned int bpftune_strategy_count(const struct bpftune_tuner *t);
const char *bpftune_strategy_name(const struct bpftune_tuner *t,
				  unsigned int i, bool *active,
				  uint64_t *activations);
uint64_t bpftune_strategy_switches(const struct bpftune_tuner *t);
/* BPF links the active strategy holds (besides the tuner's own) */
unsigned int bpftune_strategy_links(const struct bpftune_tuner *t);
/*
 * @drain delivers pending ring buffer events: called when a strategy's
 * programs are detached, before the next one is active, so that every
 * event is handled under the strategy whose program sent it.
 */
BPFTUNE_DAEMON void bpftune_strategies_set_drain(void (*drain)(void));

struct bpf_program;
struct bpf_object;
struct bpftune_gate;
/* Does program @name belong to @want (a program name or hook group)? */
bool bpftune_prog_matches(const char *name, const char *want);
/* Destroy the tuner's own link of @prog: a strategy or a gate owns it. */
void bpftune_tuner_unlink_prog(struct bpftune_tuner *t, struct bpf_program *prog);

/* ---- pressure gates (gate.c, include/bpftune/gate.h) ---- */
/* the daemon's gates asleep (gate.h, @wake): one state for all of them */
struct bpftune_gate_nap_info {
	bool asleep;
	uint64_t sleeps;
	uint64_t asleep_ms;		/* so far, the current sleep included */
	uint64_t sleep_after_ms;	/* calm time before the next sleep */
};
void bpftune_gate_nap_info(struct bpftune_gate_nap_info *info, uint64_t now);

struct bpftune_gate_info {
	const char *hook;
	const char *what;
	const char *kind;		/* "counter", "event", "window" */
	bool attached;
	uint64_t attaches;
	uint64_t detaches;
	uint64_t attached_ms;		/* so far, the current period included */
	uint64_t total_ms;		/* since the gate was set */
	const char *why;		/* of the last attach or detach */
	/* the gate's own cost (gate_step.h, the budget) */
	bool pinned;			/* link kept: @attached is its flag's */
	uint64_t cycle_us;		/* CPU of an attach + detach, estimate */
	unsigned int cost_samples;	/* cycles measured */
	unsigned int every_ms;		/* WINDOW: the period in use */
	uint64_t cost_ppm;		/* WINDOW: its attach cost, ppm of a CPU */
	const char *wake;		/* its alarm's tracepoints, or NULL */
	struct bpftune_gate_nap_info nap;	/* the daemon's, not this gate's */
};
/* after init(): the tuner's declared gates take its hot programs' links */
int bpftune_gates_set(struct bpftune_tuner *t, const struct bpftune_gate *gates,
		      unsigned int num);
void bpftune_gates_free(struct bpftune_tuner *t);
/* programs of @obj to be loaded that gate @g holds (-S) */
unsigned int bpftune_gate_programs(const struct bpftune_gate *g,
				   struct bpf_object *obj);
unsigned int bpftune_gate_count(const struct bpftune_tuner *t);
int bpftune_gate_info(const struct bpftune_tuner *t, unsigned int i,
		      struct bpftune_gate_info *info);
/* BPF links the open gates hold (besides the tuner's own) */
unsigned int bpftune_gate_links(const struct bpftune_tuner *t);

#endif /* BPFTUNE_OPERATE_H */
