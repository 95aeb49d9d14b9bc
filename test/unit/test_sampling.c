// SPDX-License-Identifier: GPL-2.0-only
/*
 * Adaptive sampling maths (include/bpftune/sampling.h), and a simulation
 * of bpftune_sample() from include/bpftune/bpftune.bpf.h driven by a fake
 * clock to check that the sampled rate settles near the target.
 */
#include <limits.h>
#include <linux/types.h>
#include <bpftune/sampling.h>

#include "unit.h"

#define W	BPFTUNE_SAMPLE_WINDOW_NS
#define T	BPFTUNE_SAMPLE_TARGET_PER_SEC
/* samples allowed per default window: 200/s * 100 ms */
#define PER_WINDOW	(T * W / 1000000000ULL)

static void test_low_rate_every_one(void **state)
{
	(void)state;
	assert_int_equal(bpftune_sampling_next_every(0, W, T, 1), 1);
	assert_int_equal(bpftune_sampling_next_every(1, W, T, 1), 1);
	assert_int_equal(bpftune_sampling_next_every(PER_WINDOW, W, T, 1), 1);
}

static void test_rounds_up(void **state)
{
	(void)state;
	/* one call over the budget needs 1 in 2 */
	assert_int_equal(bpftune_sampling_next_every(PER_WINDOW + 1, W, T, 1), 2);
	assert_int_equal(bpftune_sampling_next_every(2 * PER_WINDOW, W, T, 1), 2);
	assert_int_equal(bpftune_sampling_next_every(2 * PER_WINDOW + 1, W, T, 1), 3);
}

/* every N is the smallest that keeps calls / N within the budget */
static void test_high_rate_within_target(void **state)
{
	static const __u64 calls[] = {
		21, 99, 100, 101, 1000, 12345, 100000, 999999, 1000000, 1310720,
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		__u32 every = bpftune_sampling_next_every(calls[i], W, T, 1);

		assert_true(every > 1);
		assert_true(every <= BPFTUNE_SAMPLE_MAX_EVERY);
		/* samples in a window of that many calls, rounded up */
		assert_true((calls[i] + every - 1) / every <= PER_WINDOW + 1);
		assert_true(calls[i] / every <= PER_WINDOW);
		/* and no smaller N would do */
		assert_true(calls[i] > (__u64)(every - 1) * PER_WINDOW);
	}
}

/* the window length matters, not only the count */
static void test_window_length_scales(void **state)
{
	(void)state;
	/* 1000 calls in 1 s at 200/s: 1 in 5 */
	assert_int_equal(bpftune_sampling_next_every(1000, 1000000000ULL, T, 1), 5);
	/* 1000 calls in 10 ms: budget 2, 1 in 500 */
	assert_int_equal(bpftune_sampling_next_every(1000, 10000000ULL, T, 1), 500);
	/* window shorter than one sample period: budget rounds up to one */
	assert_int_equal(bpftune_sampling_next_every(7, 1000ULL, T, 1), 7);
	assert_int_equal(bpftune_sampling_next_every(0, 1000ULL, T, 1), 1);
}

static void test_step_down_at_most_4x(void **state)
{
	(void)state;
	/* idle window after 1 in 1000: only down to 1 in 250 */
	assert_int_equal(bpftune_sampling_next_every(0, W, T, 1000), 250);
	assert_int_equal(bpftune_sampling_next_every(0, W, T, 250), 62);
	/* the rate asks for more than a quarter: it wins */
	assert_int_equal(bpftune_sampling_next_every(500 * PER_WINDOW, W, T, 1000), 500);
	/* going up is never limited */
	assert_int_equal(bpftune_sampling_next_every(1000 * PER_WINDOW, W, T, 2), 1000);
	/* at 4 and below the floor is 1 anyway */
	assert_int_equal(bpftune_sampling_next_every(0, W, T, 4), 1);
	assert_int_equal(bpftune_sampling_next_every(0, W, T, 5), 1);
	assert_int_equal(bpftune_sampling_next_every(0, W, T, 8), 2);
}

static void test_clamp_max_every(void **state)
{
	(void)state;
	assert_int_equal(bpftune_sampling_next_every(
		(__u64)BPFTUNE_SAMPLE_MAX_EVERY * PER_WINDOW, W, T, 1),
		BPFTUNE_SAMPLE_MAX_EVERY);
	assert_int_equal(bpftune_sampling_next_every(
		(__u64)BPFTUNE_SAMPLE_MAX_EVERY * PER_WINDOW + 1, W, T, 1),
		BPFTUNE_SAMPLE_MAX_EVERY);
	assert_int_equal(bpftune_sampling_next_every(UINT64_MAX / 2, W, T, 1),
			 BPFTUNE_SAMPLE_MAX_EVERY);
	assert_int_equal(bpftune_sampling_next_every(UINT64_MAX, W, T, 1),
			 BPFTUNE_SAMPLE_MAX_EVERY);
	/* a corrupt current N (BPF globals are writable) is clamped too */
	assert_int_equal(bpftune_sampling_next_every(0, W, T, UINT_MAX),
			 BPFTUNE_SAMPLE_MAX_EVERY);
}

static void test_zero_window_or_target(void **state)
{
	(void)state;
	assert_int_equal(bpftune_sampling_next_every(1000000, 0, T, 1), 1);
	assert_int_equal(bpftune_sampling_next_every(1000000, W, 0, 1), 1);
	assert_int_equal(bpftune_sampling_next_every(1000000, 0, 0, 500), 1);
}

/*
 * The first window of a sampler starts at 0, so its length is the uptime;
 * a hook idle for years gives a very long window too.  A few calls in it
 * are a low rate and must give N = 1, whatever the length.
 */
static void test_long_window_no_overflow(void **state)
{
	static const __u64 windows[] = {
		1000000000ULL * 3600 * 24 * 365,	/* a year */
		UINT64_MAX / T + 1,		/* target * ns wraps to 184 */
		UINT64_MAX / T * 2,
		UINT64_MAX,
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(windows) / sizeof(windows[0]); i++) {
		assert_int_equal(bpftune_sampling_next_every(0, windows[i], T, 1), 1);
		assert_int_equal(bpftune_sampling_next_every(1000, windows[i], T, 1), 1);
		assert_int_equal(bpftune_sampling_next_every(1000000, windows[i], T, 1), 1);
	}
	/* and a huge target does not overflow either */
	assert_int_equal(bpftune_sampling_next_every(1000, UINT64_MAX, UINT_MAX, 1), 1);
}

static void test_hit(void **state)
{
	__u64 c, hits = 0;

	(void)state;
	for (c = 1; c <= 100; c++) {
		assert_true(bpftune_sampling_hit(c, 0));
		assert_true(bpftune_sampling_hit(c, 1));
	}
	assert_false(bpftune_sampling_hit(1, 4));
	assert_false(bpftune_sampling_hit(3, 4));
	assert_true(bpftune_sampling_hit(4, 4));
	assert_false(bpftune_sampling_hit(5, 4));
	assert_true(bpftune_sampling_hit(8, 4));
	for (c = 1; c <= 7 * 1000; c++)
		hits += bpftune_sampling_hit(c, 7);
	assert_int_equal(hits, 1000);
}

/* ---- simulation of bpftune_sample() ------------------------------------ */

/* bpftune_sample() from bpftune.bpf.h, with @now from a fake clock. */
static int sim_sample(struct bpftune_sampler *s, __u64 now)
{
	if (!bpftune_sampler_step(s, now, ++s->calls))
		return 0;
	s->sampled++;
	return 1;
}

#define SIM_START_NS	(1000ULL * 1000000000ULL)	/* boot + 1000 s */

/*
 * Call the hook @rate times a second for @warmup_s then @measure_s
 * seconds; return the samples per second seen while measuring.
 */
static double sim_rate(struct bpftune_sampler *s, __u64 *now, __u64 rate,
		       unsigned int warmup_s, unsigned int measure_s)
{
	__u64 interval = 1000000000ULL / rate, i, n, before = 0;

	n = rate * (warmup_s + measure_s);
	for (i = 0; i < n; i++) {
		if (i == rate * warmup_s)
			before = s->sampled;
		sim_sample(s, *now);
		*now += interval;
	}
	return (double)(s->sampled - before) / measure_s;
}

static void check_converges(__u64 rate)
{
	struct bpftune_sampler s = { 0 };
	__u64 now = SIM_START_NS;
	double got = sim_rate(&s, &now, rate, 1, 2);

	if (rate <= T) {
		/* everything is seen */
		assert_int_equal(s.every, 1);
		assert_true(got == (double)rate);
		return;
	}
	/* at most the target (one extra per window for the phase), at least half */
	assert_true(got <= T * 1.05 + 10);
	assert_true(got >= T / 2.0);
	assert_true(s.every > 1);
	assert_true(s.every <= BPFTUNE_SAMPLE_MAX_EVERY);
}

static void test_sim_10_per_sec(void **state)
{
	(void)state;
	check_converges(10);
}

static void test_sim_1k_per_sec(void **state)
{
	(void)state;
	check_converges(1000);
}

static void test_sim_100k_per_sec(void **state)
{
	(void)state;
	check_converges(100000);
}

static void test_sim_10m_per_sec(void **state)
{
	(void)state;
	check_converges(10000000);
}

/* past MAX_EVERY * target the clamp wins and the rate goes over target */
static void test_sim_beyond_clamp(void **state)
{
	struct bpftune_sampler s = { 0 };
	__u64 now = SIM_START_NS;
	__u64 rate = 50000000;	/* 50M/s: would need 1 in 250000 */
	double got;

	(void)state;
	got = sim_rate(&s, &now, rate, 1, 1);
	assert_int_equal(s.every, BPFTUNE_SAMPLE_MAX_EVERY);
	assert_int_equal(s.max_every, BPFTUNE_SAMPLE_MAX_EVERY);
	assert_true(got <= (double)rate / BPFTUNE_SAMPLE_MAX_EVERY + 10);
}

/* a burst, a lull and the burst again: N comes down by at most 4x per window */
static void test_sim_burst_lull(void **state)
{
	struct bpftune_sampler s = { 0 };
	__u64 now = SIM_START_NS;
	__u32 prev;
	double got;
	int windows;

	(void)state;
	sim_rate(&s, &now, 10000000, 1, 1);
	assert_int_equal(s.every, 50000);
	assert_int_equal(s.max_every, 50000);
	/* lull: 100 calls a second, one call per 10 ms */
	prev = s.every;
	for (windows = 0; s.every > 1 && windows < 100; ) {
		__u64 end = now + BPFTUNE_SAMPLE_WINDOW_NS;

		while (now < end) {
			sim_sample(&s, now);
			now += 10000000ULL;
		}
		assert_true(s.every >= prev / 4);
		assert_true(s.every <= prev);
		prev = s.every;
		windows++;
	}
	/* 50000 -> 1 in quarters takes ceil(log4(50000)) = 8 windows */
	assert_int_equal(s.every, 1);
	assert_in_range(windows, 7, 9);
	/* burst resumes: back near the target within a second */
	got = sim_rate(&s, &now, 1000000, 1, 1);
	assert_true(got <= T * 1.05 + 10);
	assert_true(got >= T / 2.0);
	assert_int_equal(s.max_every, 50000);
}

/* irregular call spacing (pseudo-random) still lands near the target */
static void test_sim_jitter(void **state)
{
	struct bpftune_sampler s = { 0 };
	__u64 now = SIM_START_NS, before = 0, i;
	uint64_t rnd = 42;
	__u64 mean = 10000;	/* 100k/s on average */
	double got;

	(void)state;
	for (i = 0; i < 300000; i++) {	/* about 3 s */
		if (i == 100000)
			before = s.sampled;
		sim_sample(&s, now);
		now += 1 + unit_rand(&rnd) % (2 * mean);
	}
	got = (double)(s.sampled - before) / 2.0;
	assert_true(got <= T * 1.2);
	assert_true(got >= T / 2.0);
}

int unit_run_sampling(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_low_rate_every_one),
		cmocka_unit_test(test_rounds_up),
		cmocka_unit_test(test_high_rate_within_target),
		cmocka_unit_test(test_window_length_scales),
		cmocka_unit_test(test_step_down_at_most_4x),
		cmocka_unit_test(test_clamp_max_every),
		cmocka_unit_test(test_zero_window_or_target),
		cmocka_unit_test(test_long_window_no_overflow),
		cmocka_unit_test(test_hit),
		cmocka_unit_test(test_sim_10_per_sec),
		cmocka_unit_test(test_sim_1k_per_sec),
		cmocka_unit_test(test_sim_100k_per_sec),
		cmocka_unit_test(test_sim_10m_per_sec),
		cmocka_unit_test(test_sim_beyond_clamp),
		cmocka_unit_test(test_sim_burst_lull),
		cmocka_unit_test(test_sim_jitter),
	};

	return cmocka_run_group_tests_name("sampling", tests, NULL, NULL);
}
