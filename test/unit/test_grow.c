// SPDX-License-Identifier: GPL-2.0-only
/*
 * Growth and shrink steps (src/lib/kit/grow.c), hex CPU-mask sysctl values
 * (src/lib/core/sysctl_value.c), softnet_stat parser (src/lib/telemetry/telemetry_proc.c)
 * net_buffer's squeeze classification (src/tuners/net_buffer/net_buffer_tuner.h), and
 * the correlation guards' decision (src/lib/kit/grow.c) as net_buffer's CPU
 * wait guard uses it.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <linux/types.h>

#include "core/internal.h"
#include <bpftune/grow.h>
#include "telemetry/telemetry_schema.h"
#include "../../src/tuners/net_buffer/net_buffer_tuner.h"
#include "unit.h"
#include "core/sysctl.h"

/* ---- grow / shrink ---------------------------------------------------- */

static void test_grow_step(void **state)
{
	(void)state;
	/* rate 4: a quarter */
	assert_int_equal(bpftune_grow_step(16384, LONG_MAX, 4), 20480);
	assert_int_equal(bpftune_grow_step(8, 1000, 4), 10);
	/* rate 0: 1/64, at least 1 */
	assert_int_equal(bpftune_grow_step(6400, LONG_MAX, 0), 6500);
	assert_int_equal(bpftune_grow_step(3, LONG_MAX, 0), 4);
	assert_int_equal(bpftune_grow_step(0, LONG_MAX, 4), 1);
	/* never past the cap, never a cut */
	assert_int_equal(bpftune_grow_step(4000000, 4194304, 4), 4194304);
	assert_int_equal(bpftune_grow_step(4194304, 4194304, 4), 4194304);
	assert_int_equal(bpftune_grow_step(5000000, 4194304, 4), 5000000);
	/* no overflow near LONG_MAX */
	assert_true(bpftune_grow_step(LONG_MAX - 1, LONG_MAX, 4) == LONG_MAX);
	/* out-of-range rates are clamped like the BPF side's */
	assert_int_equal(bpftune_grow_step(16384, LONG_MAX, 9), 20480);
}

static void test_shrink_step(void **state)
{
	(void)state;
	assert_int_equal(bpftune_shrink_step(20480, 16384, 4), 16384);
	assert_int_equal(bpftune_shrink_step(40000, 16384, 4), 30000);
	assert_int_equal(bpftune_shrink_step(16384, 16384, 4), 16384);
	assert_int_equal(bpftune_shrink_step(100, 200, 4), 100);
	assert_int_equal(bpftune_shrink_step(2, 0, 0), 1);
}

static void test_shrink_toward(void **state)
{
	long cur[3] = { 100, 200, 300 }, orig[3] = { 100, 160, 400 }, out[3];

	(void)state;
	assert_int_equal(bpftune_shrink_toward(cur, orig, 3, 4, out), 1);
	assert_int_equal(out[0], 100);
	assert_int_equal(out[1], 160);
	assert_int_equal(out[2], 300);	/* below its original: stays */
	assert_int_equal(bpftune_shrink_toward(out, orig, 3, 4, cur), 0);
}

/* grow then shrink at every rate returns to the start, never overshoots */
static void test_grow_shrink_roundtrip(void **state)
{
	unsigned int rate, i;
	long v, start = 1000, cap = 1000000;

	(void)state;
	for (rate = 0; rate <= 4; rate++) {
		v = start;
		for (i = 0; i < 2000 && v < cap; i++) {
			long next = bpftune_grow_step(v, cap, rate);

			assert_true(next > v && next <= cap);
			v = next;
		}
		assert_int_equal(v, cap);
		for (i = 0; i < 5000 && v > start; i++) {
			long next = bpftune_shrink_step(v, start, rate);

			assert_true(next < v && next >= start);
			v = next;
		}
		assert_int_equal(v, start);
	}
}

static void test_quiet_for(void **state)
{
	(void)state;
	assert_true(bpftune_quiet_for(40000, 10000, 30000));
	assert_false(bpftune_quiet_for(39999, 10000, 30000));
	/* a clock that went backwards is never quiet */
	assert_false(bpftune_quiet_for(5000, 10000, 0));
}

static void test_add_capped(void **state)
{
	(void)state;
	assert_int_equal(bpftune_add_capped(1, 2, 10), 3);
	assert_int_equal(bpftune_add_capped(8, 2, 10), 10);
	assert_int_equal(bpftune_add_capped(9, 2, 10), 10);
	assert_int_equal(bpftune_add_capped(LONG_MAX, LONG_MAX, 10), 10);
	assert_int_equal(bpftune_add_capped(-5, 3, 10), 3);
	assert_int_equal(bpftune_add_capped(LONG_MAX - 1, 5, LONG_MAX), LONG_MAX);
}

/* ---- CPU masks -------------------------------------------------------- */

/* ---- correlation guards ----------------------------------------------- */

static const struct bpftune_guard_params nb_guard = {
	.min_samples = NET_BUFFER_GUARD_MIN_SAMPLES,
	.min_r = NET_BUFFER_GUARD_MIN_R,
	.min_rise = NET_BUFFER_GUARD_MIN_RISE,
	.hold_ms = NET_BUFFER_GUARD_HOLD_MS,
	.hold_max_ms = NET_BUFFER_GUARD_HOLD_MAX_MS,
};

static void window(struct bpftune_corr *w, const double *x, const double *y,
		   unsigned int n)
{
	unsigned int i;

	bpftune_corr_reset(w);
	for (i = 0; i < n; i++)
		bpftune_corr_add(w, x[i], y[i]);
}

static void test_guard_trips(void **state)
{
	/* netdev_budget raised 8 -> 10 -> 12 -> 15 -> 18, wait in us/ms */
	const double x[] = { 8, 10, 12, 15 };
	const double rising[] = { 80, 100, 120, 150 };
	const double flat[] = { 100, 100, 100, 100 };
	const double falling[] = { 150, 120, 100, 80 };
	const double noise[] = { 120, 80, 130, 90 };
	const double tiny[] = { 1000, 1001, 1002, 1003 };
	struct bpftune_guard_verdict v;
	struct bpftune_corr w;

	(void)state;
	/* cost proportional to the value: trips, back to before the last raise */
	window(&w, x, rising, 4);
	assert_true(bpftune_guard_trips(&nb_guard, &w, 18, 15, 8, 0, 4, &v));
	assert_true(v.r > 0.99);
	assert_int_equal(v.back, 15);
	assert_int_equal(v.hold_ms, 60000);
	/* three settings are not enough */
	window(&w, x, rising, 3);
	assert_false(bpftune_guard_trips(&nb_guard, &w, 18, 15, 8, 0, 4, &v));
	/* no rise, a fall, no correlation, a rise too small to matter */
	window(&w, x, flat, 4);
	assert_false(bpftune_guard_trips(&nb_guard, &w, 18, 15, 8, 0, 4, &v));
	window(&w, x, falling, 4);
	assert_false(bpftune_guard_trips(&nb_guard, &w, 18, 15, 8, 0, 4, &v));
	assert_true(v.r < 0);
	window(&w, x, noise, 4);
	assert_false(bpftune_guard_trips(&nb_guard, &w, 18, 15, 8, 0, 4, &v));
	window(&w, x, tiny, 4);
	assert_false(bpftune_guard_trips(&nb_guard, &w, 18, 15, 8, 0, 4, &v));
	assert_true(v.r > 0.99);	/* perfectly correlated, but 0.3 % */

	window(&w, x, rising, 4);
	/* last raise unknown (a step back came since): one step down */
	assert_true(bpftune_guard_trips(&nb_guard, &w, 18, -1, 8, 0, 4, &v));
	assert_int_equal(v.back, 14);
	/* ... never below the floor */
	assert_true(bpftune_guard_trips(&nb_guard, &w, 9, 0, 8, 0, 4, &v));
	assert_int_equal(v.back, 8);
	/* a "last raise" at or above the value is not a step back */
	assert_true(bpftune_guard_trips(&nb_guard, &w, 18, 18, 8, 0, 4, &v));
	assert_int_equal(v.back, 14);
	assert_true(bpftune_guard_trips(&nb_guard, &w, 18, 30, 8, 0, 4, &v));
	assert_int_equal(v.back, 14);

	/* the hold doubles per trip, up to 16 times */
	assert_true(bpftune_guard_trips(&nb_guard, &w, 18, 15, 8, 1, 4, &v));
	assert_int_equal(v.hold_ms, 120000);
	assert_true(bpftune_guard_trips(&nb_guard, &w, 18, 15, 8, 3, 4, &v));
	assert_int_equal(v.hold_ms, 480000);
	assert_true(bpftune_guard_trips(&nb_guard, &w, 18, 15, 8, 4, 4, &v));
	assert_int_equal(v.hold_ms, 960000);
	assert_true(bpftune_guard_trips(&nb_guard, &w, 18, 15, 8, 1000000, 4, &v));
	assert_int_equal(v.hold_ms, 960000);
}

/* the same guard with a benefit window (tcp_buffer's throughput) */
static void test_guard_benefit(void **state)
{
	const double x[] = { 8, 10, 12, 15 };
	const double rising[] = { 80, 100, 120, 150 };
	const double flat[] = { 100, 100, 100, 100 };
	const double gaining[] = { 100, 125, 150, 190 };
	const double slight[] = { 100, 101, 102, 103 };
	/* the old name of struct bpftune_guard_params still builds */
	struct bpftune_guard_policy p = nb_guard;
	struct bpftune_corr cost, benefit;
	struct bpftune_guard_input in = {
		.cost = &cost, .benefit = &benefit, .cur = 18,
		.raised_from = 15, .floor = 8, .rate = 4,
	};
	struct bpftune_guard_result res;

	(void)state;
	p.min_gain = 0.1;
	window(&cost, x, rising, 4);
	/* the benefit grew with the value: the cost bought something */
	window(&benefit, x, gaining, 4);
	assert_false(bpftune_guard_check(&p, &in, &res));
	assert_true(res.have_fit && res.have_gain && res.gain >= 0.1);
	assert_true(res.v.r > 0.99 && res.rise >= p.min_rise);
	assert_int_equal(res.samples, 4);
	/* it did not, or too little: trips as without one */
	window(&benefit, x, flat, 4);
	assert_true(bpftune_guard_check(&p, &in, &res));
	assert_true(res.have_gain && res.gain == 0);
	assert_int_equal(res.v.back, 15);
	assert_int_equal(res.v.hold_ms, 60000);
	window(&benefit, x, slight, 4);
	assert_true(bpftune_guard_check(&p, &in, &res));
	assert_true(res.have_gain && res.gain > 0 && res.gain < 0.1);
	/* a benefit window with no line: the cost alone decides */
	bpftune_corr_reset(&benefit);
	assert_true(bpftune_guard_check(&p, &in, &res));
	assert_false(res.have_gain);
	/* none at all: min_gain is not read */
	in.benefit = NULL;
	p.min_gain = 1e9;
	assert_true(bpftune_guard_check(&p, &in, &res));
	assert_false(res.have_gain);
	/* no cost line: nothing seen, nothing decided */
	window(&cost, x, rising, 3);
	assert_false(bpftune_guard_check(&p, &in, &res));
	assert_false(res.have_fit);
	assert_int_equal(res.samples, 3);
	assert_true(res.v.r == 0);
}

static void test_counter_rate(void **state)
{
	double rate = -1;

	(void)state;
	assert_true(bpftune_counter_rate(1000, 10, 3000, 20, &rate));
	assert_true(rate == 200);
	assert_true(bpftune_counter_rate(5, 10, 5, 11, &rate));
	assert_true(rate == 0);
	rate = -1;
	/* no time passed, time went back, the counter went back */
	assert_false(bpftune_counter_rate(1000, 10, 3000, 10, &rate));
	assert_false(bpftune_counter_rate(1000, 20, 3000, 10, &rate));
	assert_false(bpftune_counter_rate(3000, 10, 1000, 20, &rate));
	assert_true(rate == -1);
}

/*
 * The wait guard as net_buffer drives it: at every budget raise the CPU
 * wait counter (PSI "some" total, us) is read, the rate since the previous
 * raise joins the window with the budget that was in force meanwhile, and
 * the guard is asked about taking that budget back.  Raise i moves the
 * budget from @budget[i] to @budget[i + 1]; @wait_per_ms[i] is the rate at
 * which tasks waited while @budget[i] was in force (from raise i - 1 on;
 * [0] is before the first raise, when nothing was measured).  Returns the
 * raise at which the guard trips instead, or -1.
 */
static int drive_wait_guard(const long *budget, const double *wait_per_ms,
			    unsigned int n, unsigned int trips,
			    struct bpftune_guard_verdict *v)
{
	uint64_t t = 1000, t0 = 0, dt;
	double total = 5e6, total0 = 0, rate;
	struct bpftune_corr w;
	bool have = false;
	unsigned int i;

	bpftune_corr_reset(&w);
	for (i = 0; i < n; i++) {
		if (i) {
			dt = 700 + 150 * i;	/* raises come at uneven times */
			t += dt;
			total += wait_per_ms[i] * (double)dt;
		}
		if (have && bpftune_counter_rate(total0, t0, total, t, &rate))
			bpftune_corr_add(&w, (double)budget[i], rate);
		have = true;
		total0 = total;
		t0 = t;
		if (bpftune_guard_trips(&nb_guard, &w, budget[i],
					i ? budget[i - 1] : -1, 8, trips, 4, v))
			return (int)i;
	}
	return -1;
}

static void test_net_buffer_wait_guard(void **state)
{
	/* raises of 25 % from the default 300, each with its wait rate */
	const long budget[] = { 300, 375, 468, 585, 731, 913, 1141, 1426 };
	/* longer rounds delay tasks: wait grows with the budget */
	const double hurting[] = { 0, 260, 330, 400, 480, 560, 650, 740 };
	/* an independent load on the machine: wait unrelated to the budget */
	const double unrelated[] = { 0, 150, 380, 420, 160, 390, 170, 410 };
	/* more budget clears the backlog sooner: less wait */
	const double helping[] = { 0, 450, 420, 380, 350, 330, 300, 280 };
	/* hurting, but only once the budget is large */
	const double late[] = { 0, 200, 200, 200, 200, 400, 600, 800 };
	struct bpftune_guard_verdict v;

	(void)state;
	/* raises 1..4 add the waits seen at 375..731: at raise 4, four
	 * settings, and the raise that led to 731 is taken back */
	assert_int_equal(drive_wait_guard(budget, hurting, 8, 0, &v), 4);
	assert_int_equal(v.back, 585);
	assert_int_equal(v.hold_ms, NET_BUFFER_GUARD_HOLD_MS);
	assert_true(v.r >= NET_BUFFER_GUARD_MIN_R);
	/* a second trip holds twice as long */
	assert_int_equal(drive_wait_guard(budget, hurting, 8, 1, &v), 4);
	assert_int_equal(v.hold_ms, 2 * NET_BUFFER_GUARD_HOLD_MS);
	assert_int_equal(drive_wait_guard(budget, unrelated, 8, 0, &v), -1);
	assert_int_equal(drive_wait_guard(budget, helping, 8, 0, &v), -1);
	/* flat first (no trip), then rising steeply enough over the window */
	assert_int_equal(drive_wait_guard(budget, late, 8, 0, &v), 6);
	assert_int_equal(v.back, 913);
}

static void test_cpumask_is(void **state)
{
	(void)state;
	assert_true(bpftune_sysctl_is_cpumask("net.core.flow_limit_cpu_bitmap"));
	assert_true(bpftune_sysctl_is_cpumask("net/core/flow_limit_cpu_bitmap"));
	assert_false(bpftune_sysctl_is_cpumask("net.core.netdev_budget"));
	assert_false(bpftune_sysctl_is_cpumask(NULL));
}

static void test_cpumask_parse(void **state)
{
	long m = -1;

	(void)state;
	assert_int_equal(bpftune_cpumask_parse("0\n", &m), 1);
	assert_int_equal(m, 0);
	assert_int_equal(bpftune_cpumask_parse("3\n", &m), 1);
	assert_int_equal(m, 3);
	assert_int_equal(bpftune_cpumask_parse("ff", &m), 1);
	assert_int_equal(m, 255);
	assert_int_equal(bpftune_cpumask_parse("00000000,00000003\n", &m), 1);
	assert_int_equal(m, 3);
	assert_int_equal(bpftune_cpumask_parse("1,0000000A", &m), 1);
	assert_int_equal(m, 0x10000000aL);
	assert_int_equal(bpftune_cpumask_parse("0,00000000,00000001", &m), 1);
	assert_int_equal(m, 1);
	/* groups are 32 bits wide whatever their number of digits */
	assert_int_equal(bpftune_cpumask_parse("1,1", &m), 1);
	assert_int_equal(m, 0x100000001L);
	assert_int_equal(bpftune_cpumask_parse("7fffffff,ffffffff", &m), 1);
	assert_int_equal(m, 0x7fffffffffffffffL);
	assert_int_equal(bpftune_cpumask_parse("80000000,00000000", &m), -ERANGE);
	/* a CPU past 63 cannot be held */
	assert_int_equal(bpftune_cpumask_parse("1,00000000,00000000", &m), -ERANGE);
	assert_int_equal(bpftune_cpumask_parse("", &m), -EINVAL);
	assert_int_equal(bpftune_cpumask_parse("\n", &m), -EINVAL);
	assert_int_equal(bpftune_cpumask_parse("3 4", &m), -EINVAL);
	assert_int_equal(bpftune_cpumask_parse("g", &m), -EINVAL);
	assert_int_equal(bpftune_cpumask_parse(",3", &m), -EINVAL);
	assert_int_equal(bpftune_cpumask_parse("123456789", &m), -EINVAL);
	assert_int_equal(bpftune_cpumask_parse(NULL, &m), -EINVAL);
}

static void test_cpumask_format(void **state)
{
	char buf[32];
	long m;

	(void)state;
	assert_int_equal(bpftune_cpumask_format(0, buf, sizeof(buf)), 1);
	assert_string_equal(buf, "0");
	bpftune_cpumask_format(10, buf, sizeof(buf));
	assert_string_equal(buf, "a");
	bpftune_cpumask_format(0x10000000aL, buf, sizeof(buf));
	assert_string_equal(buf, "1,0000000a");
	assert_int_equal(bpftune_cpumask_parse(buf, &m), 1);
	assert_int_equal(m, 0x10000000aL);
	assert_int_equal(bpftune_cpumask_format(-1, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(bpftune_cpumask_format(0x10000000aL, buf, 5), -ENOSPC);
}

/* ---- /proc counters --------------------------------------------------- */

static void test_softnet(void **state)
{
	const char *stat =
		"00cf6b7e 00000010 00000009 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000\n"
		"00ffc5fb 00000001 0000000a 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000003 00000000 00000000\n";
	uint64_t v[4];
	unsigned int cpus[4];

	(void)state;
	assert_int_equal(bpftune_softnet_rows(stat, 1, v, cpus, 4), 2);
	assert_int_equal(v[0], 16);
	assert_int_equal(cpus[0], 0);
	assert_int_equal(v[1], 1);
	assert_int_equal(cpus[1], 3);	/* the row names its CPU */
	/* old kernels: no CPU column, the position is the CPU */
	assert_int_equal(bpftune_softnet_rows("00000001 00000002 00000003\n00000004 00000005 00000006\n",
					      2, v, cpus, 4), 2);
	assert_int_equal(v[1], 6);
	assert_int_equal(cpus[1], 1);
	/* a column the rows do not have, a value that is not hex */
	assert_int_equal(bpftune_softnet_rows("00000001 00000002\n", 5, v, cpus, 4), -EINVAL);
	assert_int_equal(bpftune_softnet_rows("00000001 zz\n", 1, v, cpus, 4), -EINVAL);
	assert_int_equal(bpftune_softnet_rows("", 1, v, cpus, 4), 0);
	/* at most @max rows */
	assert_int_equal(bpftune_softnet_rows("1 2\n3 4\n5 6\n", 1, v, cpus, 2), 2);
}

/* ---- net_buffer: which limit ended a round ---------------------------- */

static void test_squeeze_kind(void **state)
{
	const __u64 ms = 1000000, slack = 4 * ms;

	(void)state;
	/* the whole budget used: budget, whatever the time */
	assert_int_equal(net_buffer_squeeze_kind(300, 1 * ms, 300, 8000, slack),
			 NET_BUFFER_BUDGET_SQUEEZE);
	assert_int_equal(net_buffer_squeeze_kind(64, 30 * ms, 8, 8000, slack),
			 NET_BUFFER_BUDGET_SQUEEZE);
	/* within a jiffy of the time limit: time */
	assert_int_equal(net_buffer_squeeze_kind(100, 5 * ms, 300, 8000, slack),
			 NET_BUFFER_TIME_SQUEEZE);
	assert_int_equal(net_buffer_squeeze_kind(100, 9 * ms, 300, 8000, slack),
			 NET_BUFFER_TIME_SQUEEZE);
	/* a short round that had packets to spare: neither */
	assert_int_equal(net_buffer_squeeze_kind(10, 1 * ms, 300, 8000, slack),
			 NET_BUFFER_NUM_SCENARIOS);
	/* limits not known yet: neither */
	assert_int_equal(net_buffer_squeeze_kind(1000, 100 * ms, 0, 0, slack),
			 NET_BUFFER_NUM_SCENARIOS);
}

int unit_run_grow(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grow_step),
		cmocka_unit_test(test_shrink_step),
		cmocka_unit_test(test_shrink_toward),
		cmocka_unit_test(test_grow_shrink_roundtrip),
		cmocka_unit_test(test_quiet_for),
		cmocka_unit_test(test_add_capped),
		cmocka_unit_test(test_guard_trips),
		cmocka_unit_test(test_guard_benefit),
		cmocka_unit_test(test_counter_rate),
		cmocka_unit_test(test_net_buffer_wait_guard),
		cmocka_unit_test(test_cpumask_is),
		cmocka_unit_test(test_cpumask_parse),
		cmocka_unit_test(test_cpumask_format),
		cmocka_unit_test(test_softnet),
		cmocka_unit_test(test_squeeze_kind),
	};

	return cmocka_run_group_tests_name("grow", tests, NULL, NULL);
}
