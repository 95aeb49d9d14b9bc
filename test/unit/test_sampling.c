// SPDX-License-Identifier: GPL-2.0-only
/*
 * Adaptive sampling maths (include/bpftune/sampling.h), and a simulation
 * of bpftune_sample() from include/bpftune/bpftune.bpf.h driven by a fake
 * clock and jiffies to check that the sampled rate settles near the target
 * and that the estimated call count stays close to the real one.
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

static void test_skip(void **state)
{
	static const __u32 every[] = { 2, 3, 7, 100, 65536 };
	uint64_t rnd = 7, hits;
	unsigned int i, n;

	(void)state;
	assert_int_equal(bpftune_sampling_skip(0), 0);
	assert_int_equal(bpftune_sampling_skip(1), 0);
	assert_int_equal(bpftune_sampling_skip(2), 0x80000000U);
	for (i = 0; i < sizeof(every) / sizeof(every[0]); i++) {
		__u32 skip = bpftune_sampling_skip(every[i]);
		/* values >= skip: 1/every of the 2^32, rounded up */
		__u64 kept = 0x100000000ULL - skip;

		assert_true(kept * every[i] >= 0x100000000ULL);
		assert_true(kept * every[i] < 0x100000000ULL + every[i]);
	}
	/* and a random stream is processed about one in seven */
	for (hits = 0, n = 0; n < 700000; n++)
		hits += (__u32)unit_rand(&rnd) >= bpftune_sampling_skip(7);
	assert_in_range(hits, 99000, 101000);
}

/* ---- simulation of bpftune_sample() ------------------------------------ */

/* the simulated kernel's jiffies: HZ 250 */
#define SIM_TICK_NS	4000000ULL

/*
 * bpftune_sample() from bpftune.bpf.h, with @now from a fake clock and the
 * random numbers from @rnd.
 */
static int sim_sample(struct bpftune_sampler *s, __u64 now, uint64_t *rnd)
{
	__u64 tick = now / SIM_TICK_NS;
	__u32 r = (__u32)unit_rand(rnd);
	__u32 every;

	if (tick != s->tick) {
		s->tick = tick;
		bpftune_sampler_tick(s, now);
	}
	if (r < s->skip)
		return 0;
	every = s->every ? s->every : 1;
	s->calls += every;
	s->window_calls += every;
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
	uint64_t rnd = 1234 + rate;

	n = rate * (warmup_s + measure_s);
	for (i = 0; i < n; i++) {
		if (i == rate * warmup_s)
			before = s->sampled;
		sim_sample(s, *now, &rnd);
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
	/* the target give or take the randomness, at least half */
	assert_true(got <= T * 1.2 + 10);
	assert_true(got >= T / 2.0);
	assert_true(s.every > 1);
	assert_true(s.every <= BPFTUNE_SAMPLE_MAX_EVERY);
	/* the calls, estimated from the processed ones, within 10 % */
	assert_true(s.calls >= rate * 3 * 0.9);
	assert_true(s.calls <= rate * 3 * 1.1);
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
	assert_true(got <= (double)rate / BPFTUNE_SAMPLE_MAX_EVERY * 1.2 + 10);
}

/* a burst, a lull and the burst again: N comes down by at most 4x per window */
static void test_sim_burst_lull(void **state)
{
	struct bpftune_sampler s = { 0 };
	__u64 now = SIM_START_NS;
	uint64_t rnd = 99;
	__u32 prev;
	double got;
	int windows;

	(void)state;
	sim_rate(&s, &now, 10000000, 1, 1);
	/* 1 in 50000 from the (estimated) calls of a window, give or take */
	assert_in_range(s.every, 40000, 60000);
	/* lull: 100 calls a second, one call per 10 ms */
	prev = s.every;
	for (windows = 0; s.every > 1 && windows < 100; ) {
		__u64 end = now + BPFTUNE_SAMPLE_WINDOW_NS;

		while (now < end) {
			sim_sample(&s, now, &rnd);
			now += 10000000ULL;
		}
		/*
		 * never more than 4x down; up only when a processed call,
		 * which stands for N calls, makes the lull look busy
		 */
		assert_true(s.every >= prev / 4);
		prev = s.every;
		windows++;
	}
	/* 50000 -> 1 in quarters takes ceil(log4(50000)) = 8 windows */
	assert_int_equal(s.every, 1);
	assert_in_range(windows, 7, 12);
	/* burst resumes: back near the target within a second */
	got = sim_rate(&s, &now, 1000000, 1, 1);
	assert_true(got <= T * 1.2 + 10);
	assert_true(got >= T / 2.0);
	assert_true(s.max_every >= 40000);
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
		sim_sample(&s, now, &rnd);
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
		cmocka_unit_test(test_skip),
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
