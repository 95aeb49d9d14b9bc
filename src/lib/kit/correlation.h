/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Pearson correlation over a sliding window of (x, y) samples, e.g. a
 * buffer limit and the RTT seen while it was in force, and a table of
 * windows kept per tuner, per tunable and per network namespace so that
 * two tuners, or one tuner in two namespaces, never share a window.
 * Pure logic (no I/O): unit-tested in test/unit/test_correlation.c.
 */
#ifndef BPFTUNE_CORRELATION_H
#define BPFTUNE_CORRELATION_H

#include <stdbool.h>
#include <stdint.h>

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

/* ---- windows per (tuner, tunable, netns) ---- */

struct bpftune_corr_key {
	uint32_t tuner_id;
	uint32_t tunable;
	uint64_t netns_cookie;
};

/*
 * The window for @key, created empty if absent (NULL if out of memory).
 * With BPFTUNE_CORR_MAX windows in use, the least recently used one is
 * recycled.
 */
struct bpftune_corr *bpftune_corr_get(const struct bpftune_corr_key *key);
/* the window for @key if it exists, else NULL; does not create */
struct bpftune_corr *bpftune_corr_find(const struct bpftune_corr_key *key);
/*
 * Forget the windows of @tuner_id in @netns_cookie, or in every netns
 * when @all_netns (the tuner stopped everywhere, or is unloading).
 * Returns how many were freed.
 */
unsigned int bpftune_corr_forget(uint32_t tuner_id, uint64_t netns_cookie,
				 bool all_netns);
unsigned int bpftune_corr_count(void);

#endif /* BPFTUNE_CORRELATION_H */
