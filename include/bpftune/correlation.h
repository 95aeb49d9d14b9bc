/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tuner kit: the correlation guard's statistics.  Pearson correlation and
 * a least-squares rise over a sliding window of (x, y) samples -- e.g. a
 * buffer limit and the RTT seen while it was in force -- and windows kept
 * per plugin, per slot (a tunable, say) and per network namespace, so
 * that two plugins, or one plugin in two namespaces, never share one.
 *
 * Contract: the window functions are pure (unit-tested in
 * test/unit/test_correlation.c).  The library owns the windows of
 * bpftune_corr_for(): it forgets a plugin's windows in a netns when that
 * netns goes, when the plugin is stopped there (everywhere when stopped
 * in the global netns), when its per-netns entry there is freed, and all
 * of them when the plugin unloads.  With BPFTUNE_CORR_MAX windows in use,
 * the least recently used one is recycled.
 */
#ifndef BPFTUNE_CORRELATION_H
#define BPFTUNE_CORRELATION_H

#include <stdbool.h>
#include <stdint.h>

#pragma GCC visibility push(default)

struct bpftune_tuner;

#define BPFTUNE_CORR_WINDOW	8	/* samples kept per window */
#define BPFTUNE_CORR_MAX	4096	/* windows in the table */

struct bpftune_corr {
	unsigned int n;		/* samples held, at most BPFTUNE_CORR_WINDOW */
	unsigned int next;	/* slot of the next sample (oldest when full) */
	double x[BPFTUNE_CORR_WINDOW];
	double y[BPFTUNE_CORR_WINDOW];
};

void bpftune_corr_reset(struct bpftune_corr *c);
/* add a sample, dropping the oldest when the window is full */
void bpftune_corr_add(struct bpftune_corr *c, double x, double y);
/*
 * Pearson's r of the window into *r: 0, -EAGAIN with fewer than 3
 * samples, -EDOM when x or y does not vary (r is undefined).
 */
int bpftune_corr_pearson(const struct bpftune_corr *c, double *r);
/*
 * Pearson's r into *r and how much the least-squares line of y rises
 * across the window's x range, relative to the mean of y, into *rise
 * (0.5: y goes up by half its mean from the lowest x to the highest).
 * Errors as for bpftune_corr_pearson().
 */
int bpftune_corr_fit(const struct bpftune_corr *c, double *r, double *rise);
/*
 * Does y rise with x?  True when the window has at least @min_n samples,
 * r >= @min_r, and the least-squares line rises across the x range by at
 * least @min_rise times the mean of y (so a tiny but steady rise, e.g. a
 * few microseconds on a 1 ms RTT, does not count).  r goes to *r if set.
 */
bool bpftune_corr_rising(const struct bpftune_corr *c, unsigned int min_n,
			 double min_r, double min_rise, double *r);
/*
 * How many distinct x the window holds: the settings its samples were
 * taken at (a plugin may add several samples at one setting).
 */
unsigned int bpftune_corr_settings(const struct bpftune_corr *c);

/*
 * The window of @tuner for @slot (a tunable index, or any small number
 * the plugin chooses) in the netns of @netns_cookie (0: global), created
 * empty if absent; NULL if out of memory.
 */
struct bpftune_corr *bpftune_corr_for(struct bpftune_tuner *tuner,
				      unsigned int slot, uint64_t netns_cookie);

#pragma GCC visibility pop

#endif /* BPFTUNE_CORRELATION_H */
