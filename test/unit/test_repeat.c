// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpftune_report_repeats() (include/bpftune/bpftune.h): the filter BPF
 * programs put before a report, driven by a fake clock.
 */
#include <linux/types.h>
#include <bpftune/bpftune.h>

#include "unit.h"

#define MS	(1000 * 1000ULL)
#define GAP	(20 * MS)

/* reports sent while the same limit is checked every step ns for span ns */
static int reports_over(struct bpftune_last_report *last, __u64 *now,
			__u64 step, __u64 span, __s64 value)
{
	__u64 end = *now + span;
	int sent = 0;

	for (; *now < end; *now += step)
		sent += !bpftune_report_repeats(last, 7, value, GAP, *now);
	return sent;
}

static void test_first_report_passes(void **state)
{
	struct bpftune_last_report last = {};

	(void)state;
	assert_int_equal(bpftune_report_repeats(&last, 7, 100, GAP, 1000), 0);
	assert_int_equal(bpftune_report_repeats(&last, 7, 100, GAP, 2000), 1);
	/* another netns or another limit is news at once */
	assert_int_equal(bpftune_report_repeats(&last, 8, 100, GAP, 3000), 0);
	assert_int_equal(bpftune_report_repeats(&last, 8, 200, GAP, 4000), 0);
}

/* a limit userspace declines comes back ever more slowly, up to the cap */
static void test_declined_backs_off(void **state)
{
	struct bpftune_last_report last = {};
	__u64 now = 1;
	int sent;

	(void)state;
	/* checked every ms for 10 s: 20 ms, 40, ... 320, then 500 ms apart */
	sent = reports_over(&last, &now, MS, 10000 * MS, 100);
	assert_true(sent >= 20 && sent <= 26);
	assert_int_equal(last.gap, BPFTUNE_REPEAT_GAP_MAX_NS);
	/* without the back-off it would have been one per gap: 500 */
}

/* a raised limit (a new value) is reported at once, at the base gap */
static void test_new_limit_resets(void **state)
{
	struct bpftune_last_report last = {};
	__u64 now = 1;

	(void)state;
	reports_over(&last, &now, MS, 5000 * MS, 100);
	assert_int_equal(bpftune_report_repeats(&last, 7, 200, GAP, now), 0);
	assert_int_equal(last.gap, GAP);
}

/* the same limit after a quiet spell is fresh news at the base gap */
static void test_quiet_resets(void **state)
{
	struct bpftune_last_report last = {};
	__u64 now = 1;

	(void)state;
	reports_over(&last, &now, MS, 5000 * MS, 100);
	now += 2 * BPFTUNE_REPEAT_GAP_MAX_NS;
	assert_int_equal(bpftune_report_repeats(&last, 7, 100, GAP, now), 0);
	assert_int_equal(last.gap, GAP);
	assert_int_equal(bpftune_report_repeats(&last, 7, 100, GAP, now + GAP), 0);
}

/* a caller's gap above the cap is kept as it is */
static void test_long_gap_kept(void **state)
{
	struct bpftune_last_report last = {};
	__u64 gap = 2 * BPFTUNE_REPEAT_GAP_MAX_NS;

	(void)state;
	assert_int_equal(bpftune_report_repeats(&last, 1, 5, gap, 1), 0);
	assert_int_equal(bpftune_report_repeats(&last, 1, 5, gap, gap), 1);
	assert_int_equal(bpftune_report_repeats(&last, 1, 5, gap, gap + 1), 0);
	assert_int_equal(last.gap, gap);
}

int unit_run_repeat(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_report_passes),
		cmocka_unit_test(test_declined_backs_off),
		cmocka_unit_test(test_new_limit_resets),
		cmocka_unit_test(test_quiet_resets),
		cmocka_unit_test(test_long_gap_kept),
	};

	return cmocka_run_group_tests_name("repeat", tests, NULL, NULL);
}
