// SPDX-License-Identifier: GPL-2.0-only
/* Back-off after refused tunable writes (src/lib/write/refusal.c). */
#include <errno.h>

#include "write/refusal.h"
#include "unit.h"

static int clear_all(void **state)
{
	(void)state;
	bpftune_refusal_forget_tuner(1);
	bpftune_refusal_forget_tuner(2);
	return 0;
}

static void test_backoff_doubles_and_caps(void **state)
{
	struct bpftune_refusal *r;
	uint64_t now = 1000, wait = BPFTUNE_REFUSAL_BACKOFF_MS, skipped;
	int i;

	(void)state;
	assert_null(bpftune_refusal_holds(1, 0, 7, now));
	for (i = 0; i < 12; i++) {
		r = bpftune_refusal_note(1, 0, 7, -EROFS, false, now);
		assert_non_null(r);
		assert_int_equal(r->refusals, i + 1);
		assert_int_equal(r->until_ms, now + wait);
		/* every attempt until then is held back and counted */
		assert_ptr_equal(bpftune_refusal_holds(1, 0, 7, now), r);
		assert_ptr_equal(bpftune_refusal_holds(1, 0, 7, now + wait - 1), r);
		assert_int_equal(r->err, -EROFS);
		assert_null(bpftune_refusal_holds(1, 0, 7, now + wait));
		now += wait;
		wait = wait * 2 > BPFTUNE_REFUSAL_BACKOFF_MAX_MS ?
		       BPFTUNE_REFUSAL_BACKOFF_MAX_MS : wait * 2;
	}
	assert_int_equal(wait, BPFTUNE_REFUSAL_BACKOFF_MAX_MS);
	/* a write that works ends the episode, and says how it went */
	assert_int_equal(bpftune_refusal_clear(1, 0, 7, &skipped), 12);
	assert_int_equal(skipped, 24);
	assert_null(bpftune_refusal_holds(1, 0, 7, now));
	assert_int_equal(bpftune_refusal_clear(1, 0, 7, &skipped), 0);
	assert_int_equal(skipped, 0);
	/* a new episode starts from the shortest back-off */
	r = bpftune_refusal_note(1, 0, 7, -EINVAL, false, now);
	assert_int_equal(r->refusals, 1);
	assert_int_equal(r->until_ms, now + BPFTUNE_REFUSAL_BACKOFF_MS);
}

static void test_keys_are_separate(void **state)
{
	(void)state;
	bpftune_refusal_note(1, 0, 7, -EPERM, false, 0);
	assert_non_null(bpftune_refusal_holds(1, 0, 7, 1));
	/* another netns, another tunable, another tuner: not held */
	assert_null(bpftune_refusal_holds(1, 0, 8, 1));
	assert_null(bpftune_refusal_holds(1, 1, 7, 1));
	assert_null(bpftune_refusal_holds(2, 0, 7, 1));
	bpftune_refusal_note(2, 0, 8, -EBUSY, false, 0);
	bpftune_refusal_note(1, 1, 8, -EBUSY, false, 0);
	assert_int_equal(bpftune_refusal_count(), 3);
	/* a netns gone takes its entries with it, every tuner's */
	bpftune_refusal_forget_netns(8);
	assert_int_equal(bpftune_refusal_count(), 1);
	bpftune_refusal_forget_tuner(1);
	assert_int_equal(bpftune_refusal_count(), 0);
}

static void test_veto_is_not_backed_off(void **state)
{
	struct bpftune_refusal *r;
	uint64_t skipped;

	(void)state;
	r = bpftune_refusal_note(1, 2, 0, -ENOSPC, true, 100);
	assert_int_equal(r->refusals, 1);
	/* the journal may take records again at any moment: try each time */
	assert_null(bpftune_refusal_holds(1, 2, 0, 100));
	r = bpftune_refusal_note(1, 2, 0, -ENOSPC, true, 200);
	assert_int_equal(r->refusals, 2);
	/* the kernel refuses after a veto: now it is backed off */
	r = bpftune_refusal_note(1, 2, 0, -EINVAL, false, 300);
	assert_false(r->veto);
	assert_non_null(bpftune_refusal_holds(1, 2, 0, 301));
	assert_int_equal(bpftune_refusal_clear(1, 2, 0, &skipped), 3);
	assert_int_equal(skipped, 1);
}

int unit_run_refusal(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_backoff_doubles_and_caps, clear_all),
		cmocka_unit_test_teardown(test_keys_are_separate, clear_all),
		cmocka_unit_test_teardown(test_veto_is_not_backed_off, clear_all),
	};

	return cmocka_run_group_tests_name("refusal", tests, NULL, NULL);
}
