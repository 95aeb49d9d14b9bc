// SPDX-License-Identifier: GPL-2.0-only
/*
 * Pearson correlation over a window of samples, and the table of windows
 * keyed by tuner, tunable and netns (see correlation.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kit/correlation.h"

void bpftune_corr_reset(struct bpftune_corr *c)
{
	memset(c, 0, sizeof(*c));
}

void bpftune_corr_add(struct bpftune_corr *c, double x, double y)
{
	c->x[c->next] = x;
	c->y[c->next] = y;
	c->next = (c->next + 1) % BPFTUNE_CORR_WINDOW;
	if (c->n < BPFTUNE_CORR_WINDOW)
		c->n++;
}

unsigned int bpftune_corr_settings(const struct bpftune_corr *c)
{
	unsigned int i, j, settings = 0;

	/* x are settings read back as given, so equal ones compare equal */
	for (i = 0; i < c->n; i++) {
		for (j = 0; j < i && c->x[j] != c->x[i]; j++)
			;
		if (j == i)
			settings++;
	}
	return settings;
}

/* Means, then centred sums: two passes, no cancellation for large x. */
static int moments(const struct bpftune_corr *c, double *mx, double *my,
		   double *sxx, double *syy, double *sxy)
{
	unsigned int i;

	if (c->n < 3)
		return -EAGAIN;
	*mx = *my = *sxx = *syy = *sxy = 0;
	for (i = 0; i < c->n; i++) {
		*mx += c->x[i];
		*my += c->y[i];
	}
	*mx /= c->n;
	*my /= c->n;
	for (i = 0; i < c->n; i++) {
		double dx = c->x[i] - *mx, dy = c->y[i] - *my;

		*sxx += dx * dx;
		*syy += dy * dy;
		*sxy += dx * dy;
	}
	if (!(*sxx > 0) || !(*syy > 0))
		return -EDOM;
	return 0;
}

int bpftune_corr_pearson(const struct bpftune_corr *c, double *r)
{
	double mx, my, sxx, syy, sxy, v;
	int err;

	err = moments(c, &mx, &my, &sxx, &syy, &sxy);
	if (err)
		return err;
	v = sxy / sqrt(sxx * syy);
	/* rounding can push |r| a hair past 1 */
	if (v > 1)
		v = 1;
	else if (v < -1)
		v = -1;
	*r = v;
	return 0;
}

int bpftune_corr_fit(const struct bpftune_corr *c, double *r, double *rise)
{
	double mx, my, sxx, syy, sxy, xmin, xmax, v;
	unsigned int i;
	int err;

	err = moments(c, &mx, &my, &sxx, &syy, &sxy);
	if (err)
		return err;
	v = sxy / sqrt(sxx * syy);
	*r = v > 1 ? 1 : v < -1 ? -1 : v;
	xmin = xmax = c->x[0];
	for (i = 1; i < c->n; i++) {
		if (c->x[i] < xmin)
			xmin = c->x[i];
		if (c->x[i] > xmax)
			xmax = c->x[i];
	}
	/* slope of the least-squares line times the x range, over mean y */
	v = sxy / sxx * (xmax - xmin);
	*rise = my != 0 ? v / fabs(my) : (v > 0 ? HUGE_VAL : v < 0 ? -HUGE_VAL : 0);
	return 0;
}

bool bpftune_corr_rising(const struct bpftune_corr *c, unsigned int min_n,
			 double min_r, double min_rise, double *r)
{
	double v, rise;

	if (c->n < min_n || bpftune_corr_fit(c, &v, &rise))
		return false;
	if (r)
		*r = v;
	return v >= min_r && rise >= min_rise;
}

/* ---- the table ---- */

struct corr_entry {
	struct bpftune_corr_key key;
	unsigned long last_used;
	struct bpftune_corr corr;
};

static struct corr_entry *table;
static unsigned int used, allocated;
static unsigned long use_clock;

static bool key_eq(const struct bpftune_corr_key *a,
		   const struct bpftune_corr_key *b)
{
	return a->tuner_id == b->tuner_id && a->tunable == b->tunable &&
	       a->netns_cookie == b->netns_cookie;
}

struct bpftune_corr *bpftune_corr_find(const struct bpftune_corr_key *key)
{
	unsigned int i;

	for (i = 0; i < used; i++)
		if (key_eq(&table[i].key, key)) {
			table[i].last_used = ++use_clock;
			return &table[i].corr;
		}
	return NULL;
}

struct bpftune_corr *bpftune_corr_get(const struct bpftune_corr_key *key)
{
	struct bpftune_corr *c = bpftune_corr_find(key);
	struct corr_entry *e;
	unsigned int i;

	if (c)
		return c;
	if (used == allocated && allocated < BPFTUNE_CORR_MAX) {
		unsigned int n = allocated ? allocated * 2 : 16;

		if (n > BPFTUNE_CORR_MAX)
			n = BPFTUNE_CORR_MAX;
		e = realloc(table, n * sizeof(*e));
		if (!e)
			return NULL;
		table = e;
		allocated = n;
	}
	if (used < allocated) {
		e = &table[used++];
	} else {
		/* full: recycle the least recently used window */
		e = &table[0];
		for (i = 1; i < used; i++)
			if (table[i].last_used < e->last_used)
				e = &table[i];
	}
	e->key = *key;
	e->last_used = ++use_clock;
	bpftune_corr_reset(&e->corr);
	return &e->corr;
}

unsigned int bpftune_corr_forget(uint32_t tuner_id, uint64_t netns_cookie,
				 bool all_netns)
{
	unsigned int i = 0, freed = 0;

	while (i < used) {
		const struct bpftune_corr_key *k = &table[i].key;

		if (k->tuner_id == tuner_id &&
		    (all_netns || k->netns_cookie == netns_cookie)) {
			table[i] = table[--used];
			freed++;
			continue;
		}
		i++;
	}
	if (!used) {
		free(table);
		table = NULL;
		allocated = 0;
	}
	return freed;
}

unsigned int bpftune_corr_forget_state(uint32_t tuner_id, uint64_t netns_cookie,
				       bool global, enum bpftune_state state)
{
	if (state == BPFTUNE_STATE_ACTIVE)
		return 0;
	return bpftune_corr_forget(tuner_id, global ? 0 : netns_cookie,
				   global && state == BPFTUNE_STATE_MANUAL);
}

unsigned int bpftune_corr_count(void)
{
	return used;
}
