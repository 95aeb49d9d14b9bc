// SPDX-License-Identifier: GPL-2.0-only
/*
 * Pearson correlation windows and the per (tuner, tunable, netns) table
 * (src/lib/kit/correlation.c).
 */
#include <errno.h>
#include <math.h>

#include "kit/correlation.h"
#include "unit.h"

#define EPS 1e-9

static int setup(void **state)
{
	(void)state;
	bpftune_corr_forget(1, 0, true);
	bpftune_corr_forget(2, 0, true);
	return 0;
}

static void fill(struct bpftune_corr *c, const double *x, const double *y,
		 unsigned int n)
{
	unsigned int i;

	bpftune_corr_reset(c);
	for (i = 0; i < n; i++)
		bpftune_corr_add(c, x[i], y[i]);
}

static void test_perfect_positive_and_negative(void **state)
{
	static const double x[] = { 1, 2, 3, 4, 5 };
	static const double up[] = { 10, 20, 30, 40, 50 };
	static const double down[] = { 7, 5, 3, 1, -1 };
	struct bpftune_corr c;
	double r = 0;

	(void)state;
	fill(&c, x, up, 5);
	assert_int_equal(bpftune_corr_pearson(&c, &r), 0);
	assert_true(fabs(r - 1) < EPS);
	fill(&c, x, down, 5);
	assert_int_equal(bpftune_corr_pearson(&c, &r), 0);
	assert_true(fabs(r + 1) < EPS);
}

/* first 8 points of Anscombe's first set: r = 0.80959 (Python statistics) */
static void test_known_value(void **state)
{
	static const double x[] = { 10, 8, 13, 9, 11, 14, 6, 4 };
	static const double y[] = { 8.04, 6.95, 7.58, 8.81, 8.33, 9.96, 7.24, 4.26 };
	struct bpftune_corr c;
	double r = 0;

	(void)state;
	fill(&c, x, y, 8);
	assert_int_equal(bpftune_corr_pearson(&c, &r), 0);
	assert_true(fabs(r - 0.8095903457) < 1e-9);
}

static void test_undefined(void **state)
{
	static const double x[] = { 1, 2, 3, 4 };
	static const double flat[] = { 5, 5, 5, 5 };
	struct bpftune_corr c;
	double r = 42;

	(void)state;
	bpftune_corr_reset(&c);
	assert_int_equal(bpftune_corr_pearson(&c, &r), -EAGAIN);
	bpftune_corr_add(&c, 1, 1);
	bpftune_corr_add(&c, 2, 2);
	assert_int_equal(bpftune_corr_pearson(&c, &r), -EAGAIN);
	/* y does not vary, then x does not vary */
	fill(&c, x, flat, 4);
	assert_int_equal(bpftune_corr_pearson(&c, &r), -EDOM);
	fill(&c, flat, x, 4);
	assert_int_equal(bpftune_corr_pearson(&c, &r), -EDOM);
	assert_true(r == 42);	/* untouched on error */
}

/* Buffer sizes in bytes are large: the centred sums must not cancel. */
static void test_large_values(void **state)
{
	struct bpftune_corr c;
	double r = 0, base = 1e12;
	unsigned int i;

	(void)state;
	bpftune_corr_reset(&c);
	for (i = 0; i < BPFTUNE_CORR_WINDOW; i++)
		bpftune_corr_add(&c, base + i * 4096, 100 + (i % 2));
	assert_int_equal(bpftune_corr_pearson(&c, &r), 0);
	assert_true(r > 0 && r < 0.5);
	bpftune_corr_reset(&c);
	for (i = 0; i < BPFTUNE_CORR_WINDOW; i++)
		bpftune_corr_add(&c, base + i * 4096.0, 1e-3 * i);
	assert_int_equal(bpftune_corr_pearson(&c, &r), 0);
	assert_true(fabs(r - 1) < 1e-6);
}

/* Old samples leave the window: a trend that reversed is seen as such. */
static void test_window_slides(void **state)
{
	struct bpftune_corr c, fresh;
	double r = 0, r2 = 1;
	unsigned int i;

	(void)state;
	bpftune_corr_reset(&c);
	for (i = 0; i < BPFTUNE_CORR_WINDOW; i++)
		bpftune_corr_add(&c, i, i);
	assert_int_equal(c.n, BPFTUNE_CORR_WINDOW);
	assert_int_equal(bpftune_corr_pearson(&c, &r), 0);
	assert_true(r > 0.99);
	for (i = 0; i < BPFTUNE_CORR_WINDOW; i++)
		bpftune_corr_add(&c, 100 + i, -(double)i);
	assert_int_equal(c.n, BPFTUNE_CORR_WINDOW);
	assert_int_equal(bpftune_corr_pearson(&c, &r), 0);
	assert_true(r < -0.99);
	/* half old, half new: r is that of exactly the last W samples */
	for (i = 0; i < BPFTUNE_CORR_WINDOW / 2; i++)
		bpftune_corr_add(&c, 50 - (double)i, (double)(i * i));
	assert_int_equal(bpftune_corr_pearson(&c, &r), 0);
	bpftune_corr_reset(&fresh);
	for (i = BPFTUNE_CORR_WINDOW / 2; i < BPFTUNE_CORR_WINDOW; i++)
		bpftune_corr_add(&fresh, 100 + i, -(double)i);
	for (i = 0; i < BPFTUNE_CORR_WINDOW / 2; i++)
		bpftune_corr_add(&fresh, 50 - (double)i, (double)(i * i));
	assert_int_equal(bpftune_corr_pearson(&fresh, &r2), 0);
	assert_true(fabs(r - r2) < EPS);
	assert_true(r > -0.99 && r < 0.99);
}

static void test_rising(void **state)
{
	/* buffer limits raised by a quarter each time, RTT following */
	static const double x[] = { 131072, 163840, 204800, 256000, 320000 };
	static const double bloat[] = { 200, 260, 330, 420, 530 };
	static const double steady[] = { 200, 201, 200, 202, 201 };
	static const double falling[] = { 500, 400, 300, 250, 200 };
	struct bpftune_corr c;
	double r = 0;

	(void)state;
	fill(&c, x, bloat, 5);
	assert_true(bpftune_corr_rising(&c, 4, 0.8, 0.2, &r));
	assert_true(r > 0.95);
	/* not enough samples yet */
	assert_false(bpftune_corr_rising(&c, 6, 0.8, 0.2, NULL));
	/* correlated but the rise is a rounding error of the RTT */
	fill(&c, x, steady, 5);
	assert_false(bpftune_corr_rising(&c, 4, 0.5, 0.2, NULL));
	fill(&c, x, falling, 5);
	assert_false(bpftune_corr_rising(&c, 4, 0.8, 0.2, &r));
	assert_true(r < 0);
	/* flat RTT: undefined r is never "rising" */
	fill(&c, x, (const double[]){ 9, 9, 9, 9, 9 }, 5);
	assert_false(bpftune_corr_rising(&c, 4, 0.8, 0.2, NULL));
}

static void test_settings(void **state)
{
	/* one sample before a raise, three after it (one report each) */
	static const double x[] = { 262144, 327680, 327680, 327680 };
	static const double y[] = { 100, 160, 170, 175 };
	struct bpftune_corr c;
	unsigned int i;

	(void)state;
	bpftune_corr_reset(&c);
	assert_int_equal(bpftune_corr_settings(&c), 0);
	fill(&c, x, y, 4);
	assert_int_equal(c.n, 4);
	assert_int_equal(bpftune_corr_settings(&c), 2);
	/* a full window that slid past the first setting */
	for (i = 0; i < BPFTUNE_CORR_WINDOW; i++)
		bpftune_corr_add(&c, i % 3 ? 409600 : 327680, 200);
	assert_int_equal(bpftune_corr_settings(&c), 2);
	for (i = 0; i < BPFTUNE_CORR_WINDOW; i++)
		bpftune_corr_add(&c, 1000 + i, 200);
	assert_int_equal(bpftune_corr_settings(&c), BPFTUNE_CORR_WINDOW);
}

static void test_fit(void **state)
{
	static const double x[] = { 1, 2, 3, 4, 5 };
	static const double up[] = { 10, 20, 30, 40, 50 };
	static const double down[] = { 50, 40, 30, 20, 10 };
	static const double flat[] = { 7, 7, 7, 7, 7 };
	struct bpftune_corr c;
	double r = 0, rise = 0;

	(void)state;
	/* slope 10 over an x range of 4, mean 30: rises by 4/3 of the mean */
	fill(&c, x, up, 5);
	assert_int_equal(bpftune_corr_fit(&c, &r, &rise), 0);
	assert_true(fabs(r - 1) < EPS);
	assert_true(fabs(rise - 40.0 / 30.0) < EPS);
	fill(&c, x, down, 5);
	assert_int_equal(bpftune_corr_fit(&c, &r, &rise), 0);
	assert_true(fabs(rise + 40.0 / 30.0) < EPS);
	fill(&c, x, flat, 5);
	assert_int_equal(bpftune_corr_fit(&c, &r, &rise), -EDOM);
	fill(&c, x, up, 2);
	assert_int_equal(bpftune_corr_fit(&c, &r, &rise), -EAGAIN);
}

/* The anchor's bug: windows keyed by tunable only collide. */
static void test_keys_do_not_collide(void **state)
{
	struct bpftune_corr_key a = { 1, 0, 100 }, b = { 1, 0, 200 };
	struct bpftune_corr_key c = { 2, 0, 100 }, d = { 1, 1, 100 };
	struct bpftune_corr *wa, *wb, *wc, *wd;

	(void)state;
	wa = bpftune_corr_get(&a);
	assert_non_null(wa);
	bpftune_corr_add(wa, 1, 1);
	bpftune_corr_add(wa, 2, 2);
	wb = bpftune_corr_get(&b);
	wc = bpftune_corr_get(&c);
	wd = bpftune_corr_get(&d);
	assert_non_null(wb);
	assert_non_null(wc);
	assert_non_null(wd);
	wa = bpftune_corr_find(&a);
	assert_int_equal(wa->n, 2);
	assert_int_equal(wb->n, 0);
	assert_int_equal(wc->n, 0);
	assert_int_equal(wd->n, 0);
	assert_int_equal(bpftune_corr_count(), 4);
	/* same key, same window */
	assert_ptr_equal(bpftune_corr_get(&a), wa);
	assert_int_equal(bpftune_corr_count(), 4);
}

static void test_forget(void **state)
{
	struct bpftune_corr_key k = { 1, 0, 100 };
	unsigned int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		k.tunable = i;
		assert_non_null(bpftune_corr_get(&k));
	}
	k.netns_cookie = 200;
	assert_non_null(bpftune_corr_get(&k));
	k.tuner_id = 2;
	assert_non_null(bpftune_corr_get(&k));
	assert_int_equal(bpftune_corr_count(), 5);
	/* netns 100 of tuner 1 goes away: its three windows only */
	assert_int_equal(bpftune_corr_forget(1, 100, false), 3);
	assert_int_equal(bpftune_corr_count(), 2);
	k.tuner_id = 1;
	k.netns_cookie = 100;
	k.tunable = 0;
	assert_null(bpftune_corr_find(&k));
	k.netns_cookie = 200;
	k.tunable = 2;
	assert_non_null(bpftune_corr_find(&k));
	/* tuner 1 unloads: tuner 2's window stays */
	assert_int_equal(bpftune_corr_forget(1, 0, true), 1);
	assert_int_equal(bpftune_corr_count(), 1);
	assert_int_equal(bpftune_corr_forget(2, 0, true), 1);
	assert_int_equal(bpftune_corr_count(), 0);
}

/* A state change forgets the windows of that netns, or all of them. */
static void test_forget_state(void **state)
{
	struct bpftune_corr_key k = { 1, 0, 0 };
	const uint64_t netns[] = { 0, 100, 200 };
	unsigned int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		k.netns_cookie = netns[i];
		assert_non_null(bpftune_corr_get(&k));
	}
	k.tuner_id = 2;
	assert_non_null(bpftune_corr_get(&k));
	assert_int_equal(bpftune_corr_forget_state(1, 100, false, BPFTUNE_STATE_ACTIVE), 0);
	/* stopped by the admin in netns 100: its window only */
	assert_int_equal(bpftune_corr_forget_state(1, 100, false, BPFTUNE_STATE_MANUAL), 1);
	assert_int_equal(bpftune_corr_forget_state(1, 100, false, BPFTUNE_STATE_GONE), 0);
	/* the global netns's windows are kept under cookie 0 */
	assert_int_equal(bpftune_corr_forget_state(1, 7, true, BPFTUNE_STATE_GONE), 1);
	assert_int_equal(bpftune_corr_count(), 2);
	k.tuner_id = 1;
	assert_non_null(bpftune_corr_find(&k));
	k.netns_cookie = 0;
	assert_non_null(bpftune_corr_get(&k));
	/* taken over by the admin everywhere: all of tuner 1's, not tuner 2's */
	assert_int_equal(bpftune_corr_forget_state(1, 7, true, BPFTUNE_STATE_MANUAL), 2);
	assert_int_equal(bpftune_corr_count(), 1);
	k.tuner_id = 2;
	k.netns_cookie = 200;
	assert_non_null(bpftune_corr_find(&k));
}

/* A full table recycles the least recently used window, never grows. */
static void test_bounded(void **state)
{
	struct bpftune_corr_key k = { 1, 0, 0 }, first = { 1, 0, 0 };
	struct bpftune_corr *w;
	unsigned int i;

	(void)state;
	for (i = 0; i < BPFTUNE_CORR_MAX; i++) {
		k.netns_cookie = i;
		w = bpftune_corr_get(&k);
		assert_non_null(w);
		bpftune_corr_add(w, i, i);
	}
	assert_int_equal(bpftune_corr_count(), BPFTUNE_CORR_MAX);
	/* touch the first so the second is now the oldest */
	assert_non_null(bpftune_corr_find(&first));
	k.netns_cookie = BPFTUNE_CORR_MAX;
	w = bpftune_corr_get(&k);
	assert_non_null(w);
	assert_int_equal(w->n, 0);	/* recycled windows start empty */
	assert_int_equal(bpftune_corr_count(), BPFTUNE_CORR_MAX);
	assert_non_null(bpftune_corr_find(&first));
	k.netns_cookie = 1;
	assert_null(bpftune_corr_find(&k));
	bpftune_corr_forget(1, 0, true);
	assert_int_equal(bpftune_corr_count(), 0);
}

int unit_run_correlation(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_perfect_positive_and_negative, setup),
		cmocka_unit_test_setup(test_known_value, setup),
		cmocka_unit_test_setup(test_undefined, setup),
		cmocka_unit_test_setup(test_large_values, setup),
		cmocka_unit_test_setup(test_window_slides, setup),
		cmocka_unit_test_setup(test_rising, setup),
		cmocka_unit_test_setup(test_settings, setup),
		cmocka_unit_test_setup(test_fit, setup),
		cmocka_unit_test_setup(test_keys_do_not_collide, setup),
		cmocka_unit_test_setup(test_forget, setup),
		cmocka_unit_test_setup(test_forget_state, setup),
		cmocka_unit_test_setup(test_bounded, setup),
	};

	return cmocka_run_group_tests_name("correlation", tests, NULL, NULL);
}
