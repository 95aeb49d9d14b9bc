// SPDX-License-Identifier: GPL-2.0-only
/*
 * The pressure gate's decision (gate_step.h): a counter or event gate
 * opens at the first check whose reading differs from the last one and
 * closes after calm checks in a row without a change; a window gate opens
 * every every_ms for window_ms and stays open while the hook reports the
 * condition.  A reading that fails opens the gate: the hook is then
 * attached as it was before gates existed, never blind.
 */
#include <stdio.h>

#include "core/gate_step.h"

static unsigned int or_default(unsigned int v, unsigned int def)
{
	return v ? v : def;
}

void bpftune_gate_start(struct bpftune_gate_state *s,
			const struct bpftune_gate_params *p, uint64_t now_ms)
{
	(void)p;
	*s = (struct bpftune_gate_state){ .next_ms = now_ms, .window_due_ms = now_ms };
}

static enum bpftune_gate_action set_why(enum bpftune_gate_why *why,
					enum bpftune_gate_why w,
					enum bpftune_gate_action a)
{
	if (why)
		*why = w;
	return a;
}

static unsigned int idle_of(const struct bpftune_gate_params *p)
{
	unsigned int check = or_default(p->check_ms, BPFTUNE_GATE_CHECK_MS);
	unsigned int idle = or_default(p->idle_ms, BPFTUNE_GATE_IDLE_MS);

	return idle > check ? idle : check;
}

static enum bpftune_gate_action counter_step(struct bpftune_gate_state *s,
					     const struct bpftune_gate_params *p,
					     const struct bpftune_gate_reading *r,
					     uint64_t now_ms,
					     enum bpftune_gate_why *why)
{
	bool moved, primed = s->primed;

	if (!r->ok) {
		s->primed = false;
		s->quiet = 0;
		if (s->open)
			return BPFTUNE_GATE_KEEP;
		s->open = true;
		return set_why(why, BPFTUNE_GATE_WHY_UNREADABLE, BPFTUNE_GATE_OPEN);
	}
	moved = s->primed && r->value != s->last;
	s->last = r->value;
	s->primed = true;
	if (moved || r->seen) {
		s->quiet = 0;
		if (s->open)
			return BPFTUNE_GATE_KEEP;
		s->open = true;
		return set_why(why, moved ? BPFTUNE_GATE_WHY_MOVED : BPFTUNE_GATE_WHY_SEEN,
			       BPFTUNE_GATE_OPEN);
	}
	/* closed, and still: looked at less often */
	if (!s->open) {
		if (primed)
			s->next_ms = now_ms + idle_of(p);
		return BPFTUNE_GATE_KEEP;
	}
	/* a first reading says nothing about calm either */
	if (!primed || ++s->quiet < or_default(p->calm, BPFTUNE_GATE_CALM))
		return BPFTUNE_GATE_KEEP;
	s->open = false;
	s->quiet = 0;
	s->next_ms = now_ms + idle_of(p);
	return set_why(why, BPFTUNE_GATE_WHY_CALM, BPFTUNE_GATE_CLOSE);
}

/* WINDOW with a reading too: did it move since the last check? */
static bool window_moved(struct bpftune_gate_state *s,
			 const struct bpftune_gate_params *p,
			 const struct bpftune_gate_reading *r)
{
	bool moved;

	if (!p->reading || !r->ok) {
		s->primed = false;
		return false;
	}
	moved = s->primed && r->value != s->last;
	s->last = r->value;
	s->primed = true;
	return moved;
}

static enum bpftune_gate_action window_step(struct bpftune_gate_state *s,
					    const struct bpftune_gate_params *p,
					    const struct bpftune_gate_reading *r,
					    uint64_t now_ms,
					    enum bpftune_gate_why *why)
{
	unsigned int window = or_default(p->window_ms, BPFTUNE_GATE_WINDOW_MS);
	unsigned int every = or_default(p->every_ms, BPFTUNE_GATE_EVERY_MS);
	unsigned int idle = idle_of(p);
	bool moved = window_moved(s, p, r), was_seen = s->seen;

	if (!s->open) {
		if (moved || r->seen || now_ms >= s->window_due_ms) {
			s->open = true;
			s->seen = moved || r->seen;
			s->quiet = 0;
			if (!s->seen)
				s->next_ms = now_ms + window;
			return set_why(why, moved ? BPFTUNE_GATE_WHY_MOVED :
				       r->seen ? BPFTUNE_GATE_WHY_SEEN : BPFTUNE_GATE_WHY_WINDOW,
				       BPFTUNE_GATE_OPEN);
		}
		s->next_ms = p->reading && now_ms + idle < s->window_due_ms ?
			     now_ms + idle : s->window_due_ms;
		return BPFTUNE_GATE_KEEP;
	}
	if (moved || r->seen) {
		s->seen = true;
		s->quiet = 0;
		return BPFTUNE_GATE_KEEP;
	}
	if (was_seen && ++s->quiet < or_default(p->calm, BPFTUNE_GATE_CALM))
		return BPFTUNE_GATE_KEEP;
	s->open = false;
	s->seen = false;
	s->quiet = 0;
	s->window_due_ms = now_ms + (every > window ? every - window : window);
	s->next_ms = p->reading && now_ms + idle < s->window_due_ms ?
		     now_ms + idle : s->window_due_ms;
	return set_why(why, was_seen ? BPFTUNE_GATE_WHY_CALM : BPFTUNE_GATE_WHY_WINDOW_END,
		       BPFTUNE_GATE_CLOSE);
}

enum bpftune_gate_action bpftune_gate_step(struct bpftune_gate_state *s,
					   const struct bpftune_gate_params *p,
					   const struct bpftune_gate_reading *r,
					   uint64_t now_ms,
					   enum bpftune_gate_why *why)
{
	set_why(why, BPFTUNE_GATE_WHY_NONE, BPFTUNE_GATE_KEEP);
	if (now_ms < s->next_ms)
		return BPFTUNE_GATE_KEEP;
	s->next_ms = now_ms + or_default(p->check_ms, BPFTUNE_GATE_CHECK_MS);
	if (p->kind == BPFTUNE_GATE_WINDOW)
		return window_step(s, p, r, now_ms, why);
	return counter_step(s, p, r, now_ms, why);
}

bool bpftune_gate_join(struct bpftune_gate_state *s,
		       const struct bpftune_gate_params *p, uint64_t now_ms)
{
	unsigned int check = or_default(p->check_ms, BPFTUNE_GATE_CHECK_MS);

	if (now_ms >= s->next_ms)
		return true;
	if (s->open || s->next_ms - now_ms > check)
		return false;
	/*
	 * a window gate: its reading's checks, and a window's start only
	 * when it is due within the slack (started that much early), which
	 * saves the wake-up of a start a few ms after the other checks
	 */
	if (p->kind == BPFTUNE_GATE_WINDOW &&
	    (!p->reading || s->next_ms >= s->window_due_ms)) {
		if (s->window_due_ms - now_ms > BPFTUNE_GATE_SLACK_MS)
			return false;
		s->window_due_ms = now_ms;
	}
	s->next_ms = now_ms;
	return true;
}

bool bpftune_gate_look_now(struct bpftune_gate_state *s, uint64_t now_ms)
{
	if (s->open || s->next_ms <= now_ms)
		return false;
	s->next_ms = now_ms;
	return true;
}

bool bpftune_gate_may_sleep(const struct bpftune_gate_state *s,
			    const struct bpftune_gate_params *p)
{
	if (s->open)
		return false;
	if (p->kind == BPFTUNE_GATE_WINDOW)
		return !p->reading || s->primed;
	return s->primed;
}

void bpftune_gate_wake(struct bpftune_gate_state *s,
		       const struct bpftune_gate_params *p, uint64_t now_ms)
{
	s->next_ms = now_ms;
	if (p->kind == BPFTUNE_GATE_WINDOW)
		s->window_due_ms = now_ms;
}

uint64_t bpftune_gate_awake_ms(uint64_t alarm_cycle_us, uint64_t checks_us,
			       uint64_t checked_ms, unsigned int short_sleeps)
{
	uint64_t calm = (uint64_t)BPFTUNE_GATE_CALM * BPFTUNE_GATE_CHECK_MS;
	uint64_t even;

	/* the time in which being awake costs what one sleep costs */
	if (checks_us && checked_ms)
		even = alarm_cycle_us * checked_ms / checks_us;
	else
		even = alarm_cycle_us * 1000 / BPFTUNE_GATE_BUDGET_PPM;
	if (even > BPFTUNE_GATE_AWAKE_MAX_MS)
		even = BPFTUNE_GATE_AWAKE_MAX_MS;
	if (even < calm)
		even = calm;
	if (short_sleeps > BPFTUNE_GATE_NAP_BACKOFF)
		short_sleeps = BPFTUNE_GATE_NAP_BACKOFF;
	return even << short_sleeps;
}

unsigned int bpftune_gate_short_sleeps(unsigned int before, uint64_t slept_ms)
{
	if (slept_ms >= BPFTUNE_GATE_CHECK_MS)
		return 0;
	return before < BPFTUNE_GATE_NAP_BACKOFF ? before + 1 : before;
}

void bpftune_gate_cost_add(struct bpftune_gate_cost *c, uint64_t us)
{
	c->cycle_us = c->samples ? c->cycle_us - c->cycle_us / 4 + us / 4 : us;
	c->samples++;
}

/* CPU share (ppm) of one @cycle_us every @every_ms */
static uint64_t cost_ppm(uint64_t cycle_us, unsigned int every_ms)
{
	return every_ms ? cycle_us * 1000 / every_ms : cycle_us * 1000;
}

unsigned int bpftune_gate_shortest_cycle_ms(const struct bpftune_gate_params *p)
{
	unsigned int check = or_default(p->check_ms, BPFTUNE_GATE_CHECK_MS);

	/* open for the calm checks, shut for one */
	return (or_default(p->calm, BPFTUNE_GATE_CALM) + 1) * check;
}

void bpftune_gate_plan(const struct bpftune_gate_params *p, uint64_t cycle_us,
		       unsigned int budget_ppm, bool can_pin,
		       struct bpftune_gate_plan *plan)
{
	unsigned int every = or_default(p->every_ms, BPFTUNE_GATE_EVERY_MS);
	unsigned int longest = every + BPFTUNE_GATE_STRETCH_MS;
	uint64_t need;

	budget_ppm = or_default(budget_ppm, BPFTUNE_GATE_BUDGET_PPM);
	if (p->kind != BPFTUNE_GATE_WINDOW) {
		every = bpftune_gate_shortest_cycle_ms(p);
		*plan = (struct bpftune_gate_plan){ BPFTUNE_GATE_MODE_DETACH, 0,
						    cost_ppm(cycle_us, every) };
		if (plan->cost_ppm > budget_ppm && can_pin)
			*plan = (struct bpftune_gate_plan){ BPFTUNE_GATE_MODE_PIN, 0, 0 };
		return;
	}
	*plan = (struct bpftune_gate_plan){ BPFTUNE_GATE_MODE_DETACH, every,
					    cost_ppm(cycle_us, every) };
	if (plan->cost_ppm <= budget_ppm)
		return;
	/* the shortest period within the budget, rounded up */
	need = (cycle_us * 1000 + budget_ppm - 1) / budget_ppm;
	if (need <= longest) {
		plan->every_ms = (unsigned int)need;
	} else if (can_pin) {
		/* a flag costs nothing to flip: the declared period stays */
		plan->mode = BPFTUNE_GATE_MODE_PIN;
		plan->cost_ppm = 0;
		return;
	} else {
		plan->every_ms = longest;
	}
	plan->cost_ppm = cost_ppm(cycle_us, plan->every_ms);
}

const char *bpftune_gate_why_name(enum bpftune_gate_why why)
{
	switch (why) {
	case BPFTUNE_GATE_WHY_MOVED:
		return "the reading moved";
	case BPFTUNE_GATE_WHY_UNREADABLE:
		return "the reading failed: attached to be safe";
	case BPFTUNE_GATE_WHY_WINDOW:
		return "a sampling window began";
	case BPFTUNE_GATE_WHY_SEEN:
		return "the hook saw the condition";
	case BPFTUNE_GATE_WHY_CALM:
		return "calm for the calm period";
	case BPFTUNE_GATE_WHY_WINDOW_END:
		return "the window saw nothing";
	case BPFTUNE_GATE_WHY_STRETCHED:
		return "attaching is dear: windows come less often";
	case BPFTUNE_GATE_WHY_PINNED:
		return "attaching is dearer than the budget: link kept, gated in the program";
	default:
		return "none";
	}
}

const char *bpftune_gate_why_code(enum bpftune_gate_why why)
{
	switch (why) {
	case BPFTUNE_GATE_WHY_MOVED:
		return "moved";
	case BPFTUNE_GATE_WHY_UNREADABLE:
		return "error";
	case BPFTUNE_GATE_WHY_WINDOW:
		return "window";
	case BPFTUNE_GATE_WHY_SEEN:
		return "seen";
	case BPFTUNE_GATE_WHY_CALM:
		return "calm";
	case BPFTUNE_GATE_WHY_WINDOW_END:
		return "window_end";
	case BPFTUNE_GATE_WHY_STRETCHED:
		return "stretched";
	case BPFTUNE_GATE_WHY_PINNED:
		return "pinned";
	default:
		return "none";
	}
}

const char *bpftune_gate_kind_name(enum bpftune_gate_kind kind)
{
	switch (kind) {
	case BPFTUNE_GATE_COUNTER:
		return "counter";
	case BPFTUNE_GATE_EVENT:
		return "event";
	case BPFTUNE_GATE_WINDOW:
		return "window";
	}
	return "?";
}

void bpftune_gate_describe(const struct bpftune_gate *g, char *buf, size_t size)
{
	const char *what = g->what && *g->what ? g->what : NULL;
	int n = 0;

	if (!size)
		return;
	if (g->kind == BPFTUNE_GATE_WINDOW)
		n = snprintf(buf, size, "a %u ms window every %g s%s",
			     or_default(g->window_ms, BPFTUNE_GATE_WINDOW_MS),
			     or_default(g->every_ms, BPFTUNE_GATE_EVERY_MS) / 1000.0,
			     what ? ", and " : "");
	if (n < 0 || (size_t)n >= size)
		return;
	snprintf(buf + n, size - n, "%s", what ? what : n ? "" : "?");
}
