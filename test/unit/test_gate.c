// SPDX-License-Identifier: GPL-2.0-only
/*
 * The pressure gate's open/close decision (src/lib/core/gate_step.c).
 */
#include "unit.h"
#include "core/gate_step.h"

/* no idle back-off here: each check is at check_ms (test_idle_backoff) */
static const struct bpftune_gate_params counter = {
	.kind = BPFTUNE_GATE_COUNTER, .calm = 3, .check_ms = 1000, .idle_ms = 1000,
};

static enum bpftune_gate_action look(struct bpftune_gate_state *s,
				     const struct bpftune_gate_params *p,
				     bool ok, uint64_t v, bool seen,
				     uint64_t now, enum bpftune_gate_why *why)
{
	struct bpftune_gate_reading r = { .ok = ok, .value = v, .seen = seen };

	return bpftune_gate_step(s, p, &r, now, why);
}

static void test_counter_opens_when_moved(void **state)
{
	struct bpftune_gate_state s;
	enum bpftune_gate_why why;

	(void)state;
	bpftune_gate_start(&s, &counter, 0);
	assert_false(s.open);
	/* the first reading only primes: a counter's level means nothing */
	assert_int_equal(look(&s, &counter, true, 500, false, 0, &why), BPFTUNE_GATE_KEEP);
	assert_false(s.open);
	/* not due yet: nothing happens, even if it moved */
	assert_int_equal(look(&s, &counter, true, 501, false, 999, &why), BPFTUNE_GATE_KEEP);
	assert_false(s.open);
	/* calm */
	assert_int_equal(look(&s, &counter, true, 500, false, 1000, &why), BPFTUNE_GATE_KEEP);
	assert_false(s.open);
	/* moved */
	assert_int_equal(look(&s, &counter, true, 503, false, 2000, &why), BPFTUNE_GATE_OPEN);
	assert_int_equal(why, BPFTUNE_GATE_WHY_MOVED);
	assert_true(s.open);
	assert_int_equal(s.next_ms, 3000);
}

static void test_counter_closes_after_calm(void **state)
{
	struct bpftune_gate_state s;
	enum bpftune_gate_why why;
	uint64_t t = 0;

	(void)state;
	bpftune_gate_start(&s, &counter, t);
	look(&s, &counter, true, 1, false, t, &why);
	t += 1000;
	assert_int_equal(look(&s, &counter, true, 2, false, t, &why), BPFTUNE_GATE_OPEN);
	/* two calm checks, then movement: the calm count starts over */
	t += 1000;
	assert_int_equal(look(&s, &counter, true, 2, false, t, &why), BPFTUNE_GATE_KEEP);
	t += 1000;
	assert_int_equal(look(&s, &counter, true, 2, false, t, &why), BPFTUNE_GATE_KEEP);
	t += 1000;
	assert_int_equal(look(&s, &counter, true, 9, false, t, &why), BPFTUNE_GATE_KEEP);
	assert_true(s.open);
	t += 1000;
	assert_int_equal(look(&s, &counter, true, 9, false, t, &why), BPFTUNE_GATE_KEEP);
	t += 1000;
	assert_int_equal(look(&s, &counter, true, 9, false, t, &why), BPFTUNE_GATE_KEEP);
	t += 1000;
	assert_int_equal(look(&s, &counter, true, 9, false, t, &why), BPFTUNE_GATE_CLOSE);
	assert_int_equal(why, BPFTUNE_GATE_WHY_CALM);
	assert_false(s.open);
	/* and it opens again at the next movement */
	t += 1000;
	assert_int_equal(look(&s, &counter, true, 10, false, t, &why), BPFTUNE_GATE_OPEN);
}

static void test_counter_seen_holds(void **state)
{
	struct bpftune_gate_state s;
	enum bpftune_gate_why why;
	uint64_t t = 0;
	int i;

	(void)state;
	bpftune_gate_start(&s, &counter, t);
	look(&s, &counter, true, 1, false, t, &why);
	t += 1000;
	/* the hook saw the condition with the counter still: open */
	assert_int_equal(look(&s, &counter, true, 1, true, t, &why), BPFTUNE_GATE_OPEN);
	assert_int_equal(why, BPFTUNE_GATE_WHY_SEEN);
	for (i = 0; i < 10; i++) {
		t += 1000;
		assert_int_equal(look(&s, &counter, true, 1, true, t, &why), BPFTUNE_GATE_KEEP);
	}
	assert_true(s.open);
}

static void test_counter_unreadable_opens(void **state)
{
	struct bpftune_gate_state s;
	enum bpftune_gate_why why;
	uint64_t t = 0;
	int i;

	(void)state;
	bpftune_gate_start(&s, &counter, t);
	assert_int_equal(look(&s, &counter, false, 0, false, t, &why), BPFTUNE_GATE_OPEN);
	assert_int_equal(why, BPFTUNE_GATE_WHY_UNREADABLE);
	/* it never closes while the reading fails */
	for (i = 0; i < 20; i++) {
		t += 1000;
		assert_int_equal(look(&s, &counter, false, 0, false, t, &why), BPFTUNE_GATE_KEEP);
	}
	/* readable again: primes, then calm closes it */
	t += 1000;
	assert_int_equal(look(&s, &counter, true, 7, false, t, &why), BPFTUNE_GATE_KEEP);
	for (i = 0; i < 2; i++) {
		t += 1000;
		assert_int_equal(look(&s, &counter, true, 7, false, t, &why), BPFTUNE_GATE_KEEP);
	}
	t += 1000;
	assert_int_equal(look(&s, &counter, true, 7, false, t, &why), BPFTUNE_GATE_CLOSE);
}

static void test_counter_reset_is_movement(void **state)
{
	struct bpftune_gate_state s;
	enum bpftune_gate_why why;

	(void)state;
	bpftune_gate_start(&s, &counter, 0);
	look(&s, &counter, true, 100, false, 0, &why);
	/* a counter that went back (a CPU went offline) also moved */
	assert_int_equal(look(&s, &counter, true, 40, false, 1000, &why), BPFTUNE_GATE_OPEN);
}

static void test_defaults(void **state)
{
	struct bpftune_gate_params p = { .kind = BPFTUNE_GATE_EVENT };
	struct bpftune_gate_state s;
	uint64_t t = 0;
	int i;

	(void)state;
	bpftune_gate_start(&s, &p, t);
	look(&s, &p, true, 0, false, t, NULL);
	t += BPFTUNE_GATE_CHECK_MS;
	assert_int_equal(look(&s, &p, true, 1, false, t, NULL), BPFTUNE_GATE_OPEN);
	for (i = 1; i < BPFTUNE_GATE_CALM; i++) {
		t += BPFTUNE_GATE_CHECK_MS;
		assert_int_equal(look(&s, &p, true, 1, false, t, NULL), BPFTUNE_GATE_KEEP);
	}
	t += BPFTUNE_GATE_CHECK_MS;
	assert_int_equal(look(&s, &p, true, 1, false, t, NULL), BPFTUNE_GATE_CLOSE);
}

static void test_window_duty_cycle(void **state)
{
	struct bpftune_gate_params p = {
		.kind = BPFTUNE_GATE_WINDOW, .calm = 2, .check_ms = 1000,
		.window_ms = 100, .every_ms = 5000,
	};
	struct bpftune_gate_state s;
	enum bpftune_gate_why why;

	(void)state;
	bpftune_gate_start(&s, &p, 0);
	/* a window begins at once */
	assert_int_equal(look(&s, &p, true, 0, false, 0, &why), BPFTUNE_GATE_OPEN);
	assert_int_equal(why, BPFTUNE_GATE_WHY_WINDOW);
	assert_int_equal(s.next_ms, 100);
	assert_int_equal(look(&s, &p, true, 0, false, 50, &why), BPFTUNE_GATE_KEEP);
	/* it saw nothing: closed until the next window */
	assert_int_equal(look(&s, &p, true, 0, false, 100, &why), BPFTUNE_GATE_CLOSE);
	assert_int_equal(why, BPFTUNE_GATE_WHY_WINDOW_END);
	assert_int_equal(s.next_ms, 5000);
	assert_int_equal(look(&s, &p, true, 0, false, 5000, &why), BPFTUNE_GATE_OPEN);
	/* this window sees it: held while seen, then calm closes it */
	assert_int_equal(look(&s, &p, true, 0, true, 5100, &why), BPFTUNE_GATE_KEEP);
	assert_int_equal(s.next_ms, 6100);
	assert_int_equal(look(&s, &p, true, 0, true, 6100, &why), BPFTUNE_GATE_KEEP);
	assert_int_equal(look(&s, &p, true, 0, false, 7100, &why), BPFTUNE_GATE_KEEP);
	assert_int_equal(look(&s, &p, true, 0, false, 8100, &why), BPFTUNE_GATE_CLOSE);
	assert_int_equal(why, BPFTUNE_GATE_WHY_CALM);
	assert_false(s.open);
	assert_int_equal(s.next_ms, 8100 + 4900);
}

/* a report read after its window closed opens the gate now, not later */
static void test_seen_when_closed(void **state)
{
	struct bpftune_gate_params p = {
		.kind = BPFTUNE_GATE_WINDOW, .calm = 2, .check_ms = 1000,
		.window_ms = 200, .every_ms = 1000,
	};
	struct bpftune_gate_state s;
	enum bpftune_gate_why why;

	(void)state;
	bpftune_gate_start(&s, &p, 0);
	assert_int_equal(look(&s, &p, true, 0, false, 0, &why), BPFTUNE_GATE_OPEN);
	assert_false(bpftune_gate_look_now(&s, 100));
	assert_int_equal(look(&s, &p, true, 0, false, 200, &why), BPFTUNE_GATE_CLOSE);
	assert_int_equal(s.next_ms, 1000);
	/* seen at 210: looked at now, and that check opens it */
	assert_true(bpftune_gate_look_now(&s, 210));
	assert_int_equal(s.next_ms, 210);
	assert_false(bpftune_gate_look_now(&s, 210));
	assert_int_equal(look(&s, &p, true, 0, true, 210, &why), BPFTUNE_GATE_OPEN);
	assert_int_equal(why, BPFTUNE_GATE_WHY_SEEN);
	/* held for the calm period from there */
	assert_int_equal(s.next_ms, 1210);
	assert_false(bpftune_gate_look_now(&s, 500));
	/* a counter gate too */
	bpftune_gate_start(&s, &counter, 0);
	look(&s, &counter, true, 7, false, 0, NULL);
	assert_true(bpftune_gate_look_now(&s, 300));
	assert_int_equal(look(&s, &counter, true, 7, true, 300, &why), BPFTUNE_GATE_OPEN);
	assert_int_equal(why, BPFTUNE_GATE_WHY_SEEN);
}

/* what opens a gate, as -S and status say it: a window from its numbers */
static void test_describe(void **state)
{
	struct bpftune_gate g = {
		.hook = "h", .kind = BPFTUNE_GATE_WINDOW, .window_ms = 200, .every_ms = 1000,
	};
	char buf[128], tiny[8];

	(void)state;
	bpftune_gate_describe(&g, buf, sizeof(buf));
	assert_string_equal(buf, "a 200 ms window every 1 s");
	g.every_ms = 2500;
	g.what = "TcpExt PruneCalled";
	bpftune_gate_describe(&g, buf, sizeof(buf));
	assert_string_equal(buf, "a 200 ms window every 2.5 s, and TcpExt PruneCalled");
	g.window_ms = 0;
	g.every_ms = 0;
	g.what = "";
	bpftune_gate_describe(&g, buf, sizeof(buf));
	assert_string_equal(buf, "a 200 ms window every 5 s");
	g.kind = BPFTUNE_GATE_COUNTER;
	g.what = "softnet_stat time_squeeze";
	bpftune_gate_describe(&g, buf, sizeof(buf));
	assert_string_equal(buf, "softnet_stat time_squeeze");
	g.what = NULL;
	bpftune_gate_describe(&g, buf, sizeof(buf));
	assert_string_equal(buf, "?");
	/* cut short, never overrun */
	g.kind = BPFTUNE_GATE_WINDOW;
	bpftune_gate_describe(&g, tiny, sizeof(tiny));
	assert_string_equal(tiny, "a 200 m");
}

static void test_window_with_reading(void **state)
{
	struct bpftune_gate_params p = {
		.kind = BPFTUNE_GATE_WINDOW, .calm = 2, .check_ms = 1000,
		.window_ms = 200, .every_ms = 2000, .reading = true, .idle_ms = 1000,
	};
	struct bpftune_gate_state s;
	enum bpftune_gate_why why;

	(void)state;
	bpftune_gate_start(&s, &p, 0);
	assert_int_equal(look(&s, &p, true, 5, false, 0, &why), BPFTUNE_GATE_OPEN);
	assert_int_equal(look(&s, &p, true, 5, false, 200, &why), BPFTUNE_GATE_CLOSE);
	/* closed: looked at every check_ms until the next window */
	assert_int_equal(s.next_ms, 1200);
	assert_int_equal(look(&s, &p, true, 5, false, 1200, &why), BPFTUNE_GATE_KEEP);
	assert_int_equal(s.next_ms, 2000);
	assert_int_equal(look(&s, &p, true, 5, false, 2000, &why), BPFTUNE_GATE_OPEN);
	assert_int_equal(why, BPFTUNE_GATE_WHY_WINDOW);
	assert_int_equal(look(&s, &p, true, 5, false, 2200, &why), BPFTUNE_GATE_CLOSE);
	/* the reading moves between windows: open at once, held by calm */
	assert_int_equal(look(&s, &p, true, 6, false, 3200, &why), BPFTUNE_GATE_OPEN);
	assert_int_equal(why, BPFTUNE_GATE_WHY_MOVED);
	assert_int_equal(s.next_ms, 4200);
	assert_int_equal(look(&s, &p, true, 6, false, 4200, &why), BPFTUNE_GATE_KEEP);
	assert_int_equal(look(&s, &p, true, 6, false, 5200, &why), BPFTUNE_GATE_CLOSE);
	assert_int_equal(why, BPFTUNE_GATE_WHY_CALM);
	/* an unreadable reading only primes again: windows go on */
	assert_int_equal(look(&s, &p, false, 0, false, 6200, &why), BPFTUNE_GATE_KEEP);
}

static void test_idle_backoff(void **state)
{
	struct bpftune_gate_params p = { .kind = BPFTUNE_GATE_EVENT };
	struct bpftune_gate_state s;
	uint64_t t = 0;
	int i;

	(void)state;
	bpftune_gate_start(&s, &p, t);
	/* unprimed: looked at again after check_ms */
	look(&s, &p, true, 3, false, t, NULL);
	assert_int_equal(s.next_ms, BPFTUNE_GATE_CHECK_MS);
	/* primed and still while closed: every idle interval */
	t = s.next_ms;
	assert_int_equal(look(&s, &p, true, 3, false, t, NULL), BPFTUNE_GATE_KEEP);
	assert_int_equal(s.next_ms, t + BPFTUNE_GATE_IDLE_MS);
	/* movement within the interval waits for its end: 1 s later at most */
	assert_int_equal(look(&s, &p, true, 4, false, t + BPFTUNE_GATE_CHECK_MS, NULL),
			 BPFTUNE_GATE_KEEP);
	t += BPFTUNE_GATE_IDLE_MS;
	assert_int_equal(look(&s, &p, true, 4, false, t, NULL), BPFTUNE_GATE_OPEN);
	/* open: every check_ms, for the calm count */
	assert_int_equal(s.next_ms, t + BPFTUNE_GATE_CHECK_MS);
	for (i = 0; i < BPFTUNE_GATE_CALM; i++) {
		t += BPFTUNE_GATE_CHECK_MS;
		look(&s, &p, true, 4, false, t, NULL);
	}
	assert_false(s.open);
	assert_int_equal(s.next_ms, t + BPFTUNE_GATE_IDLE_MS);
	/* an idle interval below check_ms means check_ms */
	p.idle_ms = 10;
	assert_int_equal(look(&s, &p, true, 4, false, s.next_ms, NULL), BPFTUNE_GATE_KEEP);
	assert_int_equal(s.next_ms, t + BPFTUNE_GATE_IDLE_MS + BPFTUNE_GATE_CHECK_MS);
}

static void test_window_idle(void **state)
{
	struct bpftune_gate_params p = {
		.kind = BPFTUNE_GATE_WINDOW, .window_ms = 200, .every_ms = 5000,
		.reading = true,
	};
	struct bpftune_gate_state s;

	(void)state;
	bpftune_gate_start(&s, &p, 0);
	assert_int_equal(look(&s, &p, true, 1, false, 0, NULL), BPFTUNE_GATE_OPEN);
	assert_int_equal(look(&s, &p, true, 1, false, 200, NULL), BPFTUNE_GATE_CLOSE);
	/* the reading between windows: every idle interval, then the window */
	assert_int_equal(s.next_ms, 200 + BPFTUNE_GATE_IDLE_MS);
	assert_int_equal(look(&s, &p, true, 1, false, s.next_ms, NULL), BPFTUNE_GATE_KEEP);
	assert_int_equal(s.next_ms, 200 + 2 * BPFTUNE_GATE_IDLE_MS);
	assert_int_equal(look(&s, &p, true, 1, false, s.next_ms, NULL), BPFTUNE_GATE_KEEP);
	assert_int_equal(s.next_ms, 5000);
}

static void test_join(void **state)
{
	struct bpftune_gate_params ev = { .kind = BPFTUNE_GATE_EVENT };
	struct bpftune_gate_params win = {
		.kind = BPFTUNE_GATE_WINDOW, .window_ms = 200, .every_ms = 5000,
		.reading = true,
	};
	struct bpftune_gate_state s;

	(void)state;
	/* due: yes, untouched */
	s = (struct bpftune_gate_state){ .next_ms = 900 };
	assert_true(bpftune_gate_join(&s, &ev, 1000));
	assert_int_equal(s.next_ms, 900);
	/* closed, due within check_ms: moved to now */
	s = (struct bpftune_gate_state){ .next_ms = 1800 };
	assert_true(bpftune_gate_join(&s, &ev, 1000));
	assert_int_equal(s.next_ms, 1000);
	/* due later than that: no */
	s = (struct bpftune_gate_state){ .next_ms = 2100 };
	assert_false(bpftune_gate_join(&s, &ev, 1000));
	assert_int_equal(s.next_ms, 2100);
	/* open: its calm count keeps its pace */
	s = (struct bpftune_gate_state){ .open = true, .next_ms = 1500 };
	assert_false(bpftune_gate_join(&s, &ev, 1000));
	/* a window gate's reading between windows joins; a window's start does not */
	s = (struct bpftune_gate_state){ .next_ms = 1500, .window_due_ms = 4000 };
	assert_true(bpftune_gate_join(&s, &win, 1000));
	s = (struct bpftune_gate_state){ .next_ms = 1500, .window_due_ms = 1500 };
	assert_false(bpftune_gate_join(&s, &win, 1000));
	/* ... unless due within the slack: it starts now, with the others */
	s = (struct bpftune_gate_state){ .next_ms = 1000 + BPFTUNE_GATE_SLACK_MS,
					 .window_due_ms = 1000 + BPFTUNE_GATE_SLACK_MS };
	assert_true(bpftune_gate_join(&s, &win, 1000));
	assert_int_equal(s.next_ms, 1000);
	assert_int_equal(s.window_due_ms, 1000);
	assert_int_equal(bpftune_gate_step(&s, &win, &(struct bpftune_gate_reading){ .ok = true },
					   1000, NULL), BPFTUNE_GATE_OPEN);
	win.reading = false;
	s = (struct bpftune_gate_state){ .next_ms = 1500, .window_due_ms = 4000 };
	assert_false(bpftune_gate_join(&s, &win, 1000));
	s = (struct bpftune_gate_state){ .next_ms = 1010, .window_due_ms = 1010 };
	assert_true(bpftune_gate_join(&s, &win, 1000));
}

static void test_sleep(void **state)
{
	struct bpftune_gate_params win = {
		.kind = BPFTUNE_GATE_WINDOW, .window_ms = 200, .every_ms = 5000,
	};
	struct bpftune_gate_state s;

	(void)state;
	/* a counter gate sleeps closed and primed, never unprimed or open */
	bpftune_gate_start(&s, &counter, 0);
	assert_false(bpftune_gate_may_sleep(&s, &counter));
	look(&s, &counter, true, 500, false, 0, NULL);
	assert_true(bpftune_gate_may_sleep(&s, &counter));
	assert_int_equal(look(&s, &counter, true, 501, false, 1000, NULL), BPFTUNE_GATE_OPEN);
	assert_false(bpftune_gate_may_sleep(&s, &counter));
	/* the alarm: looked at now, and movement meanwhile opens it */
	bpftune_gate_start(&s, &counter, 0);
	look(&s, &counter, true, 500, false, 0, NULL);
	assert_int_equal(look(&s, &counter, true, 500, false, 1000, NULL), BPFTUNE_GATE_KEEP);
	bpftune_gate_wake(&s, &counter, 90000);
	assert_int_equal(s.next_ms, 90000);
	assert_int_equal(look(&s, &counter, true, 502, false, 90000, NULL), BPFTUNE_GATE_OPEN);
	/* a window gate between windows sleeps; woken, its window begins */
	bpftune_gate_start(&s, &win, 0);
	assert_true(bpftune_gate_may_sleep(&s, &win));
	assert_int_equal(look(&s, &win, true, 0, false, 0, NULL), BPFTUNE_GATE_OPEN);
	assert_false(bpftune_gate_may_sleep(&s, &win));
	assert_int_equal(look(&s, &win, true, 0, false, 200, NULL), BPFTUNE_GATE_CLOSE);
	assert_true(bpftune_gate_may_sleep(&s, &win));
	assert_int_equal(s.window_due_ms, 5000);
	bpftune_gate_wake(&s, &win, 60000);
	assert_int_equal(look(&s, &win, true, 0, false, 60000, NULL), BPFTUNE_GATE_OPEN);
	/* with a reading, only once it is primed */
	win.reading = true;
	bpftune_gate_start(&s, &win, 0);
	assert_false(bpftune_gate_may_sleep(&s, &win));
	/* awake for the calm period, longer where the alarm is dear */
	assert_int_equal(bpftune_gate_awake_ms(0, 0, 0, 0), BPFTUNE_GATE_CALM * BPFTUNE_GATE_CHECK_MS);
	assert_int_equal(bpftune_gate_awake_ms(100, 0, 0, 0), BPFTUNE_GATE_CALM * BPFTUNE_GATE_CHECK_MS);
	/* checks not measured, 40 ms of CPU a sleep: 0.2 % of a CPU, 20 s */
	assert_int_equal(bpftune_gate_awake_ms(40000, 0, 0, 0), 20000);
	/* checks at 1 ms of CPU a second: awake until they cost 40 ms */
	assert_int_equal(bpftune_gate_awake_ms(40000, 30000, 30000, 0), 40000);
	/* cheap checks, a dear alarm: awake long, not forever */
	assert_int_equal(bpftune_gate_awake_ms(40000, 10, 30000, 0), BPFTUNE_GATE_AWAKE_MAX_MS);
	/* dear checks: the calm period still */
	assert_int_equal(bpftune_gate_awake_ms(500, 50000, 10000, 0), BPFTUNE_GATE_CALM * BPFTUNE_GATE_CHECK_MS);
	/* woken at once, twice: four times as long awake, at most 64 times */
	assert_int_equal(bpftune_gate_awake_ms(40000, 0, 0, 2), 80000);
	assert_int_equal(bpftune_gate_awake_ms(100, 0, 0, 99), 64 * BPFTUNE_GATE_CALM * BPFTUNE_GATE_CHECK_MS);
}

static void test_short_sleeps(void **state)
{
	unsigned int n = 0, i;

	(void)state;
	/* woken within a check interval: one more; a longer sleep: none */
	n = bpftune_gate_short_sleeps(n, 3);
	assert_int_equal(n, 1);
	n = bpftune_gate_short_sleeps(n, BPFTUNE_GATE_CHECK_MS - 1);
	assert_int_equal(n, 2);
	assert_int_equal(bpftune_gate_short_sleeps(n, BPFTUNE_GATE_CHECK_MS), 0);
	/* the run stops counting where the backoff stops growing */
	for (i = 0; i < 20; i++)
		n = bpftune_gate_short_sleeps(n, 0);
	assert_int_equal(n, BPFTUNE_GATE_NAP_BACKOFF);
}

static void test_cost_average(void **state)
{
	struct bpftune_gate_cost c = { 0 };

	(void)state;
	/* the first cycle seeds it, later ones move it by a quarter */
	bpftune_gate_cost_add(&c, 40000);
	assert_int_equal(c.cycle_us, 40000);
	bpftune_gate_cost_add(&c, 0);
	assert_int_equal(c.cycle_us, 30000);
	bpftune_gate_cost_add(&c, 30000);
	assert_int_equal(c.cycle_us, 30000);
	assert_int_equal(c.samples, 3);
}

/* tcp_buffer's window gate: 200 ms in every 2 s */
static const struct bpftune_gate_params window_2s = {
	.kind = BPFTUNE_GATE_WINDOW, .window_ms = 200, .every_ms = 2000,
};

static struct bpftune_gate_plan plan_of(const struct bpftune_gate_params *p,
					uint64_t cycle_us, unsigned int budget_ppm,
					bool can_pin)
{
	struct bpftune_gate_plan plan;

	bpftune_gate_plan(p, cycle_us, budget_ppm, can_pin, &plan);
	return plan;
}

static void assert_plan(const struct bpftune_gate_plan *plan,
			enum bpftune_gate_mode mode, unsigned int every_ms)
{
	assert_int_equal(plan->mode, mode);
	assert_int_equal(plan->every_ms, every_ms);
}

static void test_plan_within_budget(void **state)
{
	struct bpftune_gate_plan plan;

	(void)state;
	/* 300 us a cycle every 2 s: 150 ppm, the period stays */
	plan = plan_of(&window_2s, 300, 0, true);
	assert_plan(&plan, BPFTUNE_GATE_MODE_DETACH, 2000);
	assert_int_equal(plan.cost_ppm, 150);
	/* exactly the budget: 4 ms every 2 s is 2000 ppm */
	plan = plan_of(&window_2s, 4000, 0, true);
	assert_plan(&plan, BPFTUNE_GATE_MODE_DETACH, 2000);
	assert_int_equal(plan.cost_ppm, BPFTUNE_GATE_BUDGET_PPM);
}

static void test_plan_stretches(void **state)
{
	struct bpftune_gate_plan plan;

	(void)state;
	/* 5 ms a cycle: 2.5 s within 0.2 %, within the stretch: spaced out */
	plan = plan_of(&window_2s, 5000, 0, true);
	assert_plan(&plan, BPFTUNE_GATE_MODE_DETACH, 2500);
	assert_int_equal(plan.cost_ppm, 2000);
	/* rounded up, never under the budget's period */
	plan = plan_of(&window_2s, 5001, 0, false);
	assert_int_equal(plan.every_ms, 2501);
	assert_true(plan.cost_ppm <= BPFTUNE_GATE_BUDGET_PPM);
	/* the longest stretch is 1 s */
	plan = plan_of(&window_2s, 6000, 0, true);
	assert_plan(&plan, BPFTUNE_GATE_MODE_DETACH, 2000 + BPFTUNE_GATE_STRETCH_MS);
	/* another budget: 1 % */
	plan = plan_of(&window_2s, 25000, 10000, true);
	assert_plan(&plan, BPFTUNE_GATE_MODE_DETACH, 2500);
}

static void test_plan_pins(void **state)
{
	struct bpftune_gate_params p = window_2s;
	struct bpftune_gate_plan plan;

	(void)state;
	/* the 6.12 TCG guest: 42 ms a cycle would need 21 s windows */
	plan = plan_of(&p, 42000, 0, true);
	assert_plan(&plan, BPFTUNE_GATE_MODE_PIN, 2000);
	assert_int_equal(plan.cost_ppm, 0);
	/* just past the stretch */
	plan = plan_of(&p, 6001, 0, true);
	assert_int_equal(plan.mode, BPFTUNE_GATE_MODE_PIN);
	/* no flag: the longest period, over the budget, and says so */
	plan = plan_of(&p, 42000, 0, false);
	assert_plan(&plan, BPFTUNE_GATE_MODE_DETACH, 3000);
	assert_int_equal(plan.cost_ppm, 14000);
	/* the default period (5 s) when none is declared */
	p.every_ms = 0;
	plan = plan_of(&p, 10000, 0, true);
	assert_plan(&plan, BPFTUNE_GATE_MODE_DETACH, BPFTUNE_GATE_EVERY_MS);
	assert_int_equal(plan.cost_ppm, 2000);
}

/* a counter gate: no period to stretch; pinned if a cycle per calm period is dear */
static void test_plan_counter(void **state)
{
	struct bpftune_gate_params p = { .kind = BPFTUNE_GATE_COUNTER };
	struct bpftune_gate_plan plan;

	(void)state;
	assert_int_equal(bpftune_gate_shortest_cycle_ms(&p), 11000);
	/* natively: 300 us a cycle, at most one per 11 s (10 calm checks + 1) */
	plan = plan_of(&p, 300, 0, true);
	assert_plan(&plan, BPFTUNE_GATE_MODE_DETACH, 0);
	assert_int_equal(plan.cost_ppm, 300 * 1000 / 11000);
	/* the 6.12 TCG guest: two tracepoints' static keys, 40 ms a cycle */
	plan = plan_of(&p, 40000, 0, true);
	assert_plan(&plan, BPFTUNE_GATE_MODE_PIN, 0);
	assert_int_equal(plan.cost_ppm, 0);
	/* no flag: detached as before, over the budget */
	plan = plan_of(&p, 40000, 0, false);
	assert_plan(&plan, BPFTUNE_GATE_MODE_DETACH, 0);
	assert_int_equal(plan.cost_ppm, 40000 * 1000 / 11000);
	/* the declared calm and check: 6 x 500 ms; at the budget is within it */
	p = (struct bpftune_gate_params){ .kind = BPFTUNE_GATE_EVENT, .calm = 5,
					  .check_ms = 500 };
	assert_int_equal(bpftune_gate_shortest_cycle_ms(&p), 3000);
	plan = plan_of(&p, 6000, 0, true);
	assert_plan(&plan, BPFTUNE_GATE_MODE_DETACH, 0);
	assert_int_equal(plan.cost_ppm, BPFTUNE_GATE_BUDGET_PPM);
	plan = plan_of(&p, 6003, 0, true);
	assert_int_equal(plan.mode, BPFTUNE_GATE_MODE_PIN);
}

static void test_why_names(void **state)
{
	(void)state;
	assert_string_equal(bpftune_gate_why_name(BPFTUNE_GATE_WHY_MOVED), "the reading moved");
	assert_string_equal(bpftune_gate_why_name(BPFTUNE_GATE_WHY_NONE), "none");
	assert_string_equal(bpftune_gate_why_name((enum bpftune_gate_why)99), "none");
	assert_string_equal(bpftune_gate_why_code(BPFTUNE_GATE_WHY_UNREADABLE), "error");
	assert_string_equal(bpftune_gate_why_code(BPFTUNE_GATE_WHY_CALM), "calm");
	assert_string_equal(bpftune_gate_why_code(BPFTUNE_GATE_WHY_WINDOW_END), "window_end");
	assert_string_equal(bpftune_gate_why_code((enum bpftune_gate_why)99), "none");
	assert_string_equal(bpftune_gate_why_code(BPFTUNE_GATE_WHY_PINNED), "pinned");
	assert_string_equal(bpftune_gate_why_code(BPFTUNE_GATE_WHY_STRETCHED), "stretched");
}

int unit_run_gate(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counter_opens_when_moved),
		cmocka_unit_test(test_counter_closes_after_calm),
		cmocka_unit_test(test_counter_seen_holds),
		cmocka_unit_test(test_seen_when_closed),
		cmocka_unit_test(test_describe),
		cmocka_unit_test(test_counter_unreadable_opens),
		cmocka_unit_test(test_counter_reset_is_movement),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_window_duty_cycle),
		cmocka_unit_test(test_window_with_reading),
		cmocka_unit_test(test_idle_backoff),
		cmocka_unit_test(test_window_idle),
		cmocka_unit_test(test_join),
		cmocka_unit_test(test_cost_average),
		cmocka_unit_test(test_plan_within_budget),
		cmocka_unit_test(test_plan_stretches),
		cmocka_unit_test(test_plan_pins),
		cmocka_unit_test(test_plan_counter),
		cmocka_unit_test(test_why_names),
		cmocka_unit_test(test_sleep),
		cmocka_unit_test(test_short_sleeps),
	};

	return cmocka_run_group_tests_name("gate", tests, NULL, NULL);
}
