// SPDX-License-Identifier: GPL-2.0-only
/*
 * A tuner's per-netns state table (src/lib/core/netns_priv.c): creation, the
 * global netns key, LRU recycling at the limit, and freeing on netns
 * state changes, each free told to the observers (the kit's correlation
 * windows forget that netns through it).  The clock and the global netns's cookie are stubbed here:
 * their real homes (timer.c, netns.c) need a running daemon.
 */
#include <errno.h>
#include <string.h>

#include "core/internal.h"
#include "core/observer.h"
#include "unit.h"

#define GLOBAL_COOKIE	1

static uint64_t fake_now;
static unsigned int released;
static unsigned int freed_seen;
static uint64_t freed_cookie;

uint64_t bpftune_now_ms(void)
{
	return fake_now;
}

uint64_t bpftune_global_netns_cookie(void)
{
	return GLOBAL_COOKIE;
}

struct my_ns {
	struct bpftune_netns_priv ns;
	bool pending;
	int inited;
};

static void my_init(struct bpftune_netns_priv *p)
{
	((struct my_ns *)p)->inited = 1;
}

static bool my_busy(const struct bpftune_netns_priv *p)
{
	return ((const struct my_ns *)p)->pending;
}

static void my_release(struct bpftune_tuner *t, void *priv,
		       struct bpftune_netns_priv *p)
{
	(void)t;
	(void)priv;
	(void)p;
	released++;
}

static struct bpftune_tuner tuner;

static void my_entry_freed(const struct bpftune_tuner *t, uint64_t cookie)
{
	assert_ptr_equal(t, &tuner);
	freed_seen++;
	freed_cookie = cookie;
}

static struct bpftune_observer freed_observer = {
	.netns_entry_freed = my_entry_freed,
};

static struct my_ns *get(uint64_t cookie, uint32_t pid)
{
	struct bpftune_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.netns_cookie = cookie;
	ev.pid = pid;
	fake_now++;
	return bpftune_netns_table_get(&tuner, &ev);
}

static int setup_max(void **state, unsigned int max)
{
	const struct bpftune_netns_table_ops ops = {
		.size = sizeof(struct my_ns), .max = max, .init = my_init,
		.busy = my_busy, .release = my_release,
	};

	(void)state;
	memset(&tuner, 0, sizeof(tuner));
	released = freed_seen = 0;
	freed_cookie = 0;
	fake_now = 1000;
	bpftune_observer_add(&freed_observer);
	return bpftune_netns_table_init(&tuner, &ops);
}

static int setup(void **state)
{
	return setup_max(state, 0);
}

static int setup3(void **state)
{
	return setup_max(state, 3);
}

static int teardown(void **state)
{
	(void)state;
	bpftune_netns_table_fini(&tuner);
	/* every entry freed was told, once */
	assert_int_equal(freed_seen, released);
	bpftune_observer_remove(&freed_observer);
	return 0;
}

static void test_init_checks(void **state)
{
	struct bpftune_netns_table_ops small = { .size = 1 };
	struct bpftune_netns_table_ops ok = { .size = sizeof(struct my_ns) };

	(void)state;
	assert_int_equal(bpftune_netns_table_init(&tuner, &ok), -EEXIST);
	assert_int_equal(bpftune_netns_table_init(&tuner, &small), -EINVAL);
	assert_int_equal(bpftune_netns_table_init(NULL, &ok), -EINVAL);
	assert_null(bpftune_netns_table_get(&tuner, NULL));
}

static void test_get_find_global(void **state)
{
	struct my_ns *a, *g;

	(void)state;
	assert_null(bpftune_netns_table_find(&tuner, 42));
	a = get(42, 7);
	assert_non_null(a);
	assert_int_equal(a->inited, 1);
	assert_int_equal(a->ns.cookie, 42);
	assert_int_equal(a->ns.pid, 7);
	/* the same netns again: the same entry, pid and last use updated */
	assert_ptr_equal(get(42, 9), a);
	assert_int_equal(a->ns.pid, 9);
	assert_ptr_equal(get(42, 0), a);
	assert_int_equal(a->ns.pid, 9);	/* no pid keeps the last one */
	/* the global netns's real cookie and 0 are one entry, keyed 0 */
	g = get(GLOBAL_COOKIE, 1);
	assert_int_equal(g->ns.cookie, 0);
	assert_ptr_equal(get(0, 1), g);
	assert_ptr_equal(bpftune_netns_table_find(&tuner, GLOBAL_COOKIE), g);
	assert_int_equal(bpftune_netns_table_count(&tuner), 2);
}

static void test_lru_recycling(void **state)
{
	struct my_ns *a, *b, *c, *d;

	(void)state;
	a = get(10, 1);
	b = get(11, 1);
	c = get(12, 1);
	get(10, 1);		/* a is now the most recently used */
	b->pending = true;	/* b has something to undo: never recycled */
	d = get(13, 1);		/* full: c, the LRU idle one, goes */
	assert_non_null(d);
	assert_int_equal(released, 1);
	assert_int_equal(freed_seen, 1);
	assert_int_equal(freed_cookie, 12);
	assert_null(bpftune_netns_table_find(&tuner, 12));
	assert_ptr_equal(bpftune_netns_table_find(&tuner, 10), a);
	assert_ptr_equal(bpftune_netns_table_find(&tuner, 11), b);
	assert_int_equal(bpftune_netns_table_count(&tuner), 3);
	/* everything busy: no room, nothing freed */
	a->pending = d->pending = true;
	assert_null(get(14, 1));
	assert_int_equal(released, 1);
	assert_int_equal(bpftune_netns_table_count(&tuner), 3);
	(void)c;
}

static void test_state_changes(void **state)
{
	struct my_ns *p;
	unsigned int n = 0;

	(void)state;
	get(20, 1);
	get(21, 1);
	get(22, 1);
	get(GLOBAL_COOKIE, 1);
	/* ACTIVE frees nothing; GONE or MANUAL in one netns frees that one */
	bpftune_netns_table_state(&tuner, 20, BPFTUNE_STATE_ACTIVE);
	assert_int_equal(bpftune_netns_table_count(&tuner), 4);
	bpftune_netns_table_state(&tuner, 20, BPFTUNE_STATE_GONE);
	bpftune_netns_table_state(&tuner, 21, BPFTUNE_STATE_MANUAL);
	assert_int_equal(released, 2);
	assert_int_equal(freed_cookie, 21);
	assert_null(bpftune_netns_table_find(&tuner, 20));
	assert_null(bpftune_netns_table_find(&tuner, 21));
	bpftune_netns_table_for_each(&tuner, p)
		n++;
	assert_int_equal(n, 2);
	/* the admin took the global netns: stopped everywhere */
	bpftune_netns_table_state(&tuner, GLOBAL_COOKIE, BPFTUNE_STATE_MANUAL);
	assert_int_equal(bpftune_netns_table_count(&tuner), 0);
	assert_int_equal(released, 4);
}

static void test_fini_releases(void **state)
{
	(void)state;
	get(30, 1);
	get(31, 1);
	bpftune_netns_table_fini(&tuner);
	assert_int_equal(released, 2);
	assert_int_equal(bpftune_netns_table_count(&tuner), 0);
	assert_null(get(32, 1));	/* no table any more */
	bpftune_netns_table_fini(&tuner);	/* twice is harmless */
}

int unit_run_netns_priv(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_init_checks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_get_find_global, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lru_recycling, setup3, teardown),
		cmocka_unit_test_setup_teardown(test_state_changes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fini_releases, setup, teardown),
	};

	return cmocka_run_group_tests_name("netns_priv", tests, NULL, NULL);
}
