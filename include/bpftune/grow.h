/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tuner kit: step and growth arithmetic for tuners that raise a limit
 * when it is hit and give it back when it is no longer needed (net_buffer,
 * udp_buffer, ip_frag, tcp_buffer).
 *
 * Contract: pure functions, no I/O and no state; the step is the
 * learning-rate delta, value >> (6 - rate) for rate 0..4 (1/64 .. 1/4 of
 * the value), the same rule as bpftune_delta() on the BPF side.
 * Unit-tested in test/unit/test_grow.c.
 */
#ifndef BPFTUNE_GROW_H
#define BPFTUNE_GROW_H

#include <stdbool.h>
#include <stdint.h>
#include <bpftune/correlation.h>

#pragma GCC visibility push(default)

/* The learning-rate step of @value: value >> (6 - rate), rate capped at 4. */
long bpftune_delta_for_rate(long value, unsigned int rate);

/*
 * @cur raised by one step (the learning-rate delta, at least 1), never
 * past @cap.  @cur itself when it is already at or past the cap: a raise
 * must never become a cut.
 */
long bpftune_grow_step(long cur, long cap, unsigned int rate);
/*
 * @cur lowered by one step, never below @floor; @cur when it is already
 * at or below it.
 */
long bpftune_shrink_step(long cur, long floor, unsigned int rate);
/*
 * One shrink step of @n values toward @orig (values already at or below
 * their original stay), into @out.  Returns how many values moved.
 */
unsigned int bpftune_shrink_toward(const long *cur, const long *orig,
				   unsigned int n, unsigned int rate,
				   long *out);
/* a + b (each taken as 0 if negative), saturating at @limit */
long bpftune_add_capped(long a, long b, long limit);
/* Is @now at least @quiet_ms after @last (both in ms)? */
static inline bool bpftune_quiet_for(uint64_t now, uint64_t last,
				     uint64_t quiet_ms)
{
	return now >= last && now - last >= quiet_ms;
}

/*
 * A correlation guard (net_buffer's CPU wait guard, ip_frag's flood guard,
 * tcp_buffer's latency guard): every raise adds (value in force, cost seen
 * while it was) to a window; when the cost rises with the value, the last
 * raise is taken back and further raises are refused for a while, longer
 * after each trip.  An optional benefit window (value, what the raises
 * are for: throughput, say) spares a value whose cost bought enough.
 */
struct bpftune_guard_params {
	unsigned int min_samples;	/* samples before it may trip */
	double min_r;			/* Pearson's r at least */
	double min_rise;		/* rise across the window / mean cost */
	uint64_t hold_ms;		/* hold after the first trip */
	uint64_t hold_max_ms;		/* doubled per trip up to this */
	/*
	 * With a benefit window: a benefit rise across it (/ its mean) of at
	 * least this clears the value.  Read only by bpftune_guard_check()
	 * with a benefit window, so parameters set before it stay valid.
	 */
	double min_gain;
};
/* its old name, still accepted: plugins written against it keep building */
#define bpftune_guard_policy bpftune_guard_params

struct bpftune_guard_verdict {
	double r;		/* the window's r (0 if undefined) */
	long back;		/* value to step back to */
	uint64_t hold_ms;	/* how long to refuse raises */
};

/*
 * Does the guard trip on window @w?  If so (true), @v gets the value to go
 * back to -- @raised_from, the value before the last raise, when it is
 * known (> 0) and below @cur, else one shrink step from @cur, never below
 * @floor -- and the hold: p->hold_ms doubled per earlier trip (@trips), at
 * most p->hold_max_ms.  v->r is set in both cases.
 */
bool bpftune_guard_trips(const struct bpftune_guard_params *p,
			 const struct bpftune_corr *w, long cur,
			 long raised_from, long floor, unsigned int trips,
			 unsigned int rate, struct bpftune_guard_verdict *v);

/* What bpftune_guard_check() looks at. */
struct bpftune_guard_input {
	const struct bpftune_corr *cost;	/* (value, cost seen at it) */
	const struct bpftune_corr *benefit;	/* NULL: no benefit window */
	long cur;		/* the value in force */
	long raised_from;	/* before our last raise; <= 0 unknown */
	long floor;		/* never step back below it */
	unsigned int trips;	/* earlier trips: the hold doubles per trip */
	unsigned int rate;	/* learning rate of the shrink step */
};

/* Its verdict, and what it saw on the way (for the decision's inputs). */
struct bpftune_guard_result {
	struct bpftune_guard_verdict v;	/* r always; back, hold_ms on a trip */
	unsigned int samples;	/* settings in the cost window */
	bool have_fit;		/* the cost window had a line: v.r, rise */
	double rise;		/* the cost's rise across the window / mean */
	bool have_gain;		/* the benefit window had a line, or was flat */
	double gain;		/* the benefit's rise across it / mean (flat: 0) */
};

/*
 * bpftune_guard_trips() with an optional benefit window: the guard trips
 * when the cost rose with the value (p->min_samples, p->min_r,
 * p->min_rise) and, if in->benefit has a line or is flat, the benefit
 * rose by less than p->min_gain.  A benefit window without a line (too
 * few samples, the value never moved) does not count: the cost decides.
 * On a trip, res->v as bpftune_guard_trips() gives it.  @res is filled in
 * both cases.
 */
bool bpftune_guard_check(const struct bpftune_guard_params *p,
			 const struct bpftune_guard_input *in,
			 struct bpftune_guard_result *res);

/*
 * How fast a cumulative counter (CPU wait, say) grew per ms between two
 * readings, into *rate.  False, and no rate, when no time passed or the
 * counter went backwards (a CPU that went away took its share with it).
 */
bool bpftune_counter_rate(double before, uint64_t before_ms, double now,
			  uint64_t now_ms, double *rate);

#pragma GCC visibility pop

#endif
