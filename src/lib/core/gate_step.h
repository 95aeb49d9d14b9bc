/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The decision of a pressure gate (gate.h), pure: given the state, the
 * reading and the clock, open, close or keep the hook as it is, and say
 * when to look next.  Unit-tested (test/unit/test_gate.c).
 */
#ifndef BPFTUNE_GATE_STEP_H
#define BPFTUNE_GATE_STEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <bpftune/gate.h>

#define BPFTUNE_GATE_CHECK_MS	1000
#define BPFTUNE_GATE_CALM	10
#define BPFTUNE_GATE_WINDOW_MS	200
#define BPFTUNE_GATE_EVERY_MS	5000
/*
 * A closed gate whose reading stays still is looked at every
 * BPFTUNE_GATE_IDLE_MS instead (a window gate: that, or its next window,
 * whichever comes first): half the wake-ups of an idle daemon, for at
 * most 1 s more before pressure from calm is seen.
 */
#define BPFTUNE_GATE_IDLE_MS	2000
/* a window due this soon after a check starts with it: one wake-up */
#define BPFTUNE_GATE_SLACK_MS	50

struct bpftune_gate_params {
	enum bpftune_gate_kind kind;
	unsigned int calm;	/* 0: BPFTUNE_GATE_CALM */
	unsigned int check_ms;	/* 0: BPFTUNE_GATE_CHECK_MS */
	unsigned int window_ms;	/* 0: BPFTUNE_GATE_WINDOW_MS */
	unsigned int every_ms;	/* 0: BPFTUNE_GATE_EVERY_MS */
	unsigned int idle_ms;	/* 0: BPFTUNE_GATE_IDLE_MS; below check_ms: check_ms */
	/* WINDOW: a reading also opens it when it moves (checked every check_ms) */
	bool reading;
};

struct bpftune_gate_state {
	bool open;
	bool primed;		/* @last holds a reading */
	bool seen;		/* WINDOW: the condition was seen while open */
	uint64_t last;
	unsigned int quiet;	/* checks in a row without movement, open */
	uint64_t next_ms;	/* when to look next */
	uint64_t window_due_ms;	/* WINDOW: when the next window begins */
};

/* what the reading at this check was */
struct bpftune_gate_reading {
	bool ok;		/* false: could not be read */
	uint64_t value;		/* COUNTER, EVENT */
	bool seen;		/* bpftune_gate_seen() since the last check */
};

enum bpftune_gate_action {
	BPFTUNE_GATE_KEEP,
	BPFTUNE_GATE_OPEN,
	BPFTUNE_GATE_CLOSE,
};

enum bpftune_gate_why {
	BPFTUNE_GATE_WHY_NONE,
	BPFTUNE_GATE_WHY_MOVED,		/* the reading moved */
	BPFTUNE_GATE_WHY_UNREADABLE,	/* could not read: open to be safe */
	BPFTUNE_GATE_WHY_WINDOW,	/* a duty-cycle window began */
	BPFTUNE_GATE_WHY_SEEN,		/* the hook saw the condition */
	BPFTUNE_GATE_WHY_CALM,		/* calm for the calm period */
	BPFTUNE_GATE_WHY_WINDOW_END,	/* a window ended without the condition */
	BPFTUNE_GATE_WHY_STRETCHED,	/* attaching is dear: windows come less often */
	BPFTUNE_GATE_WHY_PINNED,	/* attaching is dearer: link kept, flag gates */
};

/* A gate is new: closed, first look at @now_ms (WINDOW: first window). */
void bpftune_gate_start(struct bpftune_gate_state *s,
			const struct bpftune_gate_params *p, uint64_t now_ms);

/*
 * One check at @now_ms (due: now_ms >= s->next_ms; earlier is a no-op
 * KEEP).  *@why (optional) says why it opened or closed.
 */
enum bpftune_gate_action bpftune_gate_step(struct bpftune_gate_state *s,
					   const struct bpftune_gate_params *p,
					   const struct bpftune_gate_reading *r,
					   uint64_t now_ms,
					   enum bpftune_gate_why *why);

/*
 * Another gate's check wakes the daemon at @now_ms: should this one be
 * looked at in the same wake-up?  Yes when due, and when it is closed,
 * not in a window's duty cycle (a counter or event gate, or a window
 * gate's reading between windows) and due within check_ms: its check is
 * then moved to @now_ms (earlier, never later), so the gates of every
 * tuner fall into step and an idle daemon wakes once per idle interval.
 */
bool bpftune_gate_join(struct bpftune_gate_state *s,
		       const struct bpftune_gate_params *p, uint64_t now_ms);

/*
 * The hook's condition was reported (bpftune_gate_seen()) at @now_ms:
 * a closed gate is looked at now, and that check opens it, not its next
 * window or idle check (a report raised just before a window closed and
 * read after it, or one from a program the gate does not hold).  True if
 * its check moved.
 */
bool bpftune_gate_look_now(struct bpftune_gate_state *s, uint64_t now_ms);

/*
 * Asleep (gate.h, @wake): may the daemon stop looking at this gate until
 * its alarm rings?  When it is closed and its last reading is kept (the
 * first check after the alarm then sees any movement since).
 */
bool bpftune_gate_may_sleep(const struct bpftune_gate_state *s,
			    const struct bpftune_gate_params *p);
/* The alarm rang at @now_ms: look now (a window gate: a window now). */
void bpftune_gate_wake(struct bpftune_gate_state *s,
		       const struct bpftune_gate_params *p, uint64_t now_ms);
/*
 * How long the gates stay awake after the alarm, a start or pressure
 * before they may sleep again: until their checks have cost what a
 * sleep costs (an arm + disarm of the alarm, @alarm_cycle_us of CPU;
 * the checks took @checks_us in @checked_ms awake), so that sleeping
 * never costs more than staying awake would (ski rental: at most twice
 * what the best choice made knowing the future costs).  Unmeasured
 * checks: within BPFTUNE_GATE_BUDGET_PPM of a CPU.  At least the calm
 * period, at most BPFTUNE_GATE_AWAKE_MAX_MS; doubled for each of the
 * last @short_sleeps (bpftune_gate_short_sleeps).
 */
#define BPFTUNE_GATE_AWAKE_MAX_MS	600000
uint64_t bpftune_gate_awake_ms(uint64_t alarm_cycle_us, uint64_t checks_us,
			       uint64_t checked_ms, unsigned int short_sleeps);
/*
 * A sleep shorter than a check interval saved not one check and paid for
 * its alarm: on a machine with steady traffic the alarm rings at once,
 * every time.  Such sleeps in a row (@before, then one of @slept_ms)
 * double the time awake before the next, up to 2^BPFTUNE_GATE_NAP_BACKOFF
 * times; a longer sleep ends the run.
 */
#define BPFTUNE_GATE_NAP_BACKOFF	6
unsigned int bpftune_gate_short_sleeps(unsigned int before, uint64_t slept_ms);

/*
 * What a window gate's own attach and detach may cost: a window gate
 * attaches and detaches its hook every every_ms, and where that patches
 * kernel text at a high price (a trampoline and a static call under
 * emulation: 42 ms of CPU a cycle in the 6.12 TCG guest) the gate would
 * cost more than the program it keeps off the packet path.  The library
 * measures each cycle (thread CPU time around the link calls) and keeps
 * the gate within BPFTUNE_GATE_BUDGET_PPM of a CPU: by windows that come
 * later (at most BPFTUNE_GATE_STRETCH_MS after the declared period: the
 * reaction bound of issue 23 is 1 s over today's), else by keeping the
 * link and gating in the program (its flag, gate.h), else (no flag) at
 * the longest period, over the budget.
 */
#define BPFTUNE_GATE_BUDGET_PPM		2000	/* 0.2 % of a CPU */
#define BPFTUNE_GATE_STRETCH_MS		1000
/*
 * Every gate is planned at start from twice the detach of the loader's
 * links; then a window gate again once this many cycles are measured
 * (the first has one-time costs), a counter or event gate, which may
 * cycle only a few times in a run, after each
 */
#define BPFTUNE_GATE_COST_SAMPLES	2

struct bpftune_gate_cost {
	uint64_t cycle_us;	/* CPU of one attach + detach: moving average */
	unsigned int samples;
};

enum bpftune_gate_mode {
	BPFTUNE_GATE_MODE_DETACH,	/* attached only while open */
	BPFTUNE_GATE_MODE_PIN,		/* attached always, the flag gates */
};

struct bpftune_gate_plan {
	enum bpftune_gate_mode mode;
	unsigned int every_ms;		/* the window period to use */
	uint64_t cost_ppm;		/* the gate's own CPU share at it */
};

/* one attach + detach cycle took @us of CPU: the estimate moves by 1/4 */
void bpftune_gate_cost_add(struct bpftune_gate_cost *c, uint64_t us);

/*
 * A counter or event gate's shortest attach + detach cycle: open for the
 * calm period's checks, then shut for one check.
 */
unsigned int bpftune_gate_shortest_cycle_ms(const struct bpftune_gate_params *p);

/*
 * The plan of a gate whose attach + detach costs @cycle_us, with the
 * declared @p (every_ms, window_ms), under @budget_ppm (0: the default);
 * @can_pin: its program has a flag.  A counter or event gate has no
 * period to stretch: it can cycle at most once per calm period and a
 * check (open @calm checks, closed until the next), and is pinned when
 * cycles that often would cost more than the budget (every_ms 0).  Pure.
 */
void bpftune_gate_plan(const struct bpftune_gate_params *p, uint64_t cycle_us,
		       unsigned int budget_ppm, bool can_pin,
		       struct bpftune_gate_plan *plan);

const char *bpftune_gate_why_name(enum bpftune_gate_why why);
/* the same, one word for telemetry: moved, error, window, seen, calm, window_end */
const char *bpftune_gate_why_code(enum bpftune_gate_why why);
const char *bpftune_gate_kind_name(enum bpftune_gate_kind kind);
/*
 * What opens @g, for -S, status, logs and telemetry, in @buf: a window
 * gate's window and period from its numbers ("a 200 ms window every 2 s"),
 * then its @what (a window gate's reading) after ", and "; "?" for a gate
 * that says nothing.  Pure.
 */
void bpftune_gate_describe(const struct bpftune_gate *g, char *buf, size_t size);

#endif
