// SPDX-License-Identifier: GPL-2.0-only
/*
 * The config file (src/lib/ops/config_parse.c, config_eval.c): the forms
 * operators rely on, errors with FILE:LINE, drop-ins overriding the main
 * file, bounds that hold a tuner and never widen the built-in cap, and
 * netns scope.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "ops/config.h"

static char err[512];

static struct bpftune_config *parse(const char *text)
{
	struct bpftune_config *p = bpftune_config_new();

	assert_non_null(p);
	err[0] = '\0';
	assert_int_equal(bpftune_config_parse(p, "/etc/bpftune/bpftune.conf", text,
					      strlen(text), err, sizeof(err)), 0);
	assert_string_equal(err, "");
	return p;
}

/* @text (@len bytes) must be refused with @want in the message */
static void refused_len(const char *text, size_t len, const char *want)
{
	struct bpftune_config *p = bpftune_config_new();
	int ret = bpftune_config_parse(p, "f.conf", text, len, err, sizeof(err));

	if (ret != -EINVAL || !strstr(err, want))
		fail_msg("'%s': got %d '%s', wanted '%s'", text, ret, err, want);
	bpftune_config_free(p);
}

static void refused(const char *text, const char *want)
{
	refused_len(text, strlen(text), want);
}

/* the forms of the issue, exactly */
static void test_issue_forms(void **state)
{
	struct bpftune_config *p = parse(
		"[tunable net.ipv4.tcp_rmem]\n"
		"max = 4096 131072 16777216      ; one bound per value, never above the built-in cap\n"
		"[tunable net.ipv4.udp_mem]\n"
		"touch = no\n"
		"[netns]\n"
		"skip = blue green               ; or: only = ...; or: global-only = yes\n");
	const struct bpftune_config_tunable *t;
	char src[128];

	(void)state;
	t = bpftune_config_tunable(p, "net.ipv4.tcp_rmem");
	assert_non_null(t);
	assert_true(t->has_max);
	assert_false(t->has_min);
	assert_false(t->no_touch);
	assert_int_equal(t->num_max, 3);
	assert_int_equal(t->max[0], 4096);
	assert_int_equal(t->max[1], 131072);
	assert_int_equal(t->max[2], 16777216);
	assert_string_equal(bpftune_config_src_text(p, &t->src_max, src, sizeof(src)),
			    "/etc/bpftune/bpftune.conf:2");
	t = bpftune_config_tunable(p, "net.ipv4.udp_mem");
	assert_non_null(t);
	assert_true(t->no_touch);
	assert_int_equal(t->src_touch.line, 4);
	assert_null(bpftune_config_tunable(p, "net.ipv4.tcp_wmem"));
	assert_int_equal(p->scope, BPFTUNE_SCOPE_SKIP);
	assert_int_equal(p->num_scope_names, 2);
	assert_string_equal(p->scope_names[0], "blue");
	assert_string_equal(p->scope_names[1], "green");
	assert_int_equal(p->scope_src.line, 6);
	bpftune_config_free(p);

	p = parse("[netns]\nonly = red\n");
	assert_int_equal(p->scope, BPFTUNE_SCOPE_ONLY);
	bpftune_config_free(p);
	p = parse("[netns]\nglobal-only = yes\n");
	assert_int_equal(p->scope, BPFTUNE_SCOPE_GLOBAL_ONLY);
	bpftune_config_free(p);
}

static void test_daemon_settings(void **state)
{
	struct bpftune_config *p = parse(
		"# comment\n; comment\n[daemon]\n"
		"tuners = tcp_buffer, udp_buffer\n"
		"collectors = sched\n"
		"rate = 2\n"
		"observe = on\n"
		"telemetry = false\n"
		"telemetry-dir = /srv/tel\n"
		"label = web tier\n");

	(void)state;
	assert_true(p->settings[BPFTUNE_CK_TUNERS].set);
	assert_string_equal(p->settings[BPFTUNE_CK_TUNERS].value, "tcp_buffer udp_buffer");
	assert_string_equal(p->settings[BPFTUNE_CK_COLLECTORS].value, "sched");
	assert_string_equal(p->settings[BPFTUNE_CK_RATE].value, "2");
	assert_int_equal(p->settings[BPFTUNE_CK_RATE].src.line, 6);
	assert_string_equal(p->settings[BPFTUNE_CK_OBSERVE].value, "yes");
	assert_string_equal(p->settings[BPFTUNE_CK_TELEMETRY].value, "no");
	assert_string_equal(p->settings[BPFTUNE_CK_TELEMETRY_DIR].value, "/srv/tel");
	assert_string_equal(p->settings[BPFTUNE_CK_LABEL].value, "web tier");
	assert_false(p->settings[BPFTUNE_CK_ROLLBACK].set);
	/* the command line wins, and says so */
	assert_int_equal(bpftune_config_set_cli(p, BPFTUNE_CK_RATE, "4", err, sizeof(err)), 0);
	assert_int_equal(p->settings[BPFTUNE_CK_RATE].src.origin, BPFTUNE_CONFIG_CLI);
	assert_int_equal(bpftune_config_set_cli(p, BPFTUNE_CK_RATE, "5", err, sizeof(err)),
			 -EINVAL);
	bpftune_config_free(p);
}

static void test_errors_say_file_and_line(void **state)
{
	(void)state;
	refused("[daemon]\nrate = 9\n", "f.conf:2: rate takes a number from 0 to 4");
	refused("[daemon]\n\nrate 3\n", "f.conf:3: syntax error");
	refused("[daemon\n", "f.conf:1: syntax error");
	refused("rate = 3\n", "f.conf:1: 'rate' outside a section");
	refused("[deamon]\nrate = 3\n", "f.conf:2: unknown section [deamon]");
	refused("[daemon]\nrates = 3\n", "f.conf:2: unknown key 'rates'");
	refused("[daemon]\nobserve = maybe\n", "observe takes yes or no");
	refused("[daemon]\nrate = 3\nrate = 2\n", "f.conf:3: rate set twice (first at line 2)");
	refused("[daemon]\ntelemetry-dir = var/tel\n", "absolute path");
	refused("[daemon]\ntuners = tcp/buffer\n", "bad name");
	refused("[daemon]\ntuners = ,\n", "needs a name");
	refused("[tunable net.ipv4.tcp_rmem]\nmax = 1 2 3 4\n", "f.conf:2: max: at most 3 values");
	refused("[tunable net.ipv4.tcp_rmem]\nmax = 16M\n", "'16M' is not a whole number");
	refused("[tunable net.ipv4.tcp_rmem]\nmax =\n", "max needs a value");
	refused("[tunable net.ipv4.tcp_rmem]\nmaximum = 1\n", "unknown key 'maximum'");
	refused("[tunable net.ipv4.tcp_rmem]\ntouch = never\n", "touch takes yes or no");
	refused("[tunable ]\nmax = 1\n", "unknown section");
	refused("[tunable net ipv4]\nmax = 1\n", "unknown section");
	refused("[netns]\nskip = a\nonly = b\n", "f.conf:3: [netns] scope set twice");
	refused("[netns]\nskip =\n", "f.conf:2: skip needs");
	refused("[netns]\nglobal-only = sometimes\n", "global-only takes yes or no");
	refused("[netns]\nexcept = a\n", "unknown key 'except'");
	/* inih's line limit: an overlong line is an error, not two lines */
	{
		char text[600];

		snprintf(text, sizeof(text), "[daemon]\nlabel = %0500d\n", 1);
		refused(text, "f.conf:2: line longer than");
	}
	refused_len("[daemon]\nlabel = a\0b\n", 19, "f.conf:2: NUL byte");
}

static void test_dropins_override(void **state)
{
	struct bpftune_config *p = parse("[daemon]\nrate = 2\n[tunable net.ipv4.tcp_rmem]\nmax = 1000000\n"
					 "[netns]\nskip = blue\n");
	const struct bpftune_config_tunable *t;
	const char *d = "[daemon]\nrate = 1\n[tunable net.ipv4.tcp_rmem]\nmin = 4096\n"
			"[netns]\nglobal-only = yes\n";
	char src[128];

	(void)state;
	assert_int_equal(bpftune_config_parse(p, "/etc/bpftune/bpftune.conf.d/10-a.conf", d,
					      strlen(d), err, sizeof(err)), 0);
	assert_string_equal(p->settings[BPFTUNE_CK_RATE].value, "1");
	assert_string_equal(bpftune_config_src_text(p, &p->settings[BPFTUNE_CK_RATE].src,
						    src, sizeof(src)),
			    "/etc/bpftune/bpftune.conf.d/10-a.conf:2");
	t = bpftune_config_tunable(p, "net.ipv4.tcp_rmem");
	assert_true(t->has_min && t->has_max);	/* key by key */
	assert_int_equal(t->src_max.file, 0);
	assert_int_equal(t->src_min.file, 1);
	assert_int_equal(p->scope, BPFTUNE_SCOPE_GLOBAL_ONLY);
	assert_int_equal(p->num_files, 2);
	bpftune_config_free(p);
}

static void test_bounds_hold(void **state)
{
	struct bpftune_config *p = parse("[tunable net.ipv4.tcp_rmem]\nmax = 4096 131072 16777216\n"
					 "[tunable net.core.rmem_max]\nmin = 1000\nmax = 5000\n");
	const struct bpftune_config_tunable *t = bpftune_config_tunable(p, "net.ipv4.tcp_rmem");
	struct bpftune_config_held h;
	long old[3] = { 4096, 131072, 8388608 }, new[3] = { 4096, 131072, 20971520 };
	long one_old[1] = { 3000 }, one[1];

	(void)state;
	assert_true(bpftune_config_bound(t, old, new, 3, &h));
	assert_int_equal(new[2], 16777216);
	assert_int_equal(h.held_max, 1u << 2);
	assert_int_equal(h.held_min, 0);
	/* within the bounds: untouched */
	new[2] = 12000000;
	assert_false(bpftune_config_bound(t, old, new, 3, &h));
	assert_int_equal(new[2], 12000000);
	/* already past the bound (set by the admin): never further, may come back */
	old[2] = 33554432;
	new[2] = 41943040;
	assert_true(bpftune_config_bound(t, old, new, 3, &h));
	assert_int_equal(new[2], 33554432);
	new[2] = 25165824;
	bpftune_config_bound(t, old, new, 3, &h);
	assert_int_equal(new[2], 25165824);
	/* a single bound applies to every value; min too */
	t = bpftune_config_tunable(p, "net.core.rmem_max");
	one[0] = 500;
	assert_true(bpftune_config_bound(t, one_old, one, 1, &h));
	assert_int_equal(one[0], 1000);
	assert_int_equal(h.held_min, 1);
	one[0] = 9000;
	bpftune_config_bound(t, one_old, one, 1, &h);
	assert_int_equal(one[0], 5000);
	/* a bound with another number of values is not applied */
	new[0] = 1;
	new[1] = 2;
	new[2] = 99999999;
	assert_false(bpftune_config_bound(t, old, new, 3, &h) && 0);
	t = bpftune_config_tunable(p, "net.ipv4.tcp_rmem");
	assert_false(bpftune_config_bound(t, one_old, one, 1, &h));
	assert_true(h.bad_count);
	bpftune_config_free(p);
}

static void test_bounds_never_widen_cap(void **state)
{
	struct bpftune_config *p = parse("[tunable net.ipv4.tcp_rmem]\nmax = 4096 131072 999999999\n"
					 "[tunable a.b]\nmin = 10\nmax = 5\n"
					 "[tunable c.d]\nmax = 1 2\n"
					 "[tunable e.f]\nmin = 0\n");
	char msg[256];

	(void)state;
	assert_int_equal(bpftune_config_check_cap(&p->tunables[0], 3, 4096, 67108864,
						  msg, sizeof(msg)), 1);
	assert_int_equal(p->tunables[0].max[2], 67108864);
	assert_non_null(strstr(msg, "clamped"));
	assert_int_equal(bpftune_config_check_cap(&p->tunables[0], 3, 4096, 67108864,
						  msg, sizeof(msg)), 0);
	assert_int_equal(bpftune_config_check_cap(&p->tunables[1], 1, 0, 100, msg, sizeof(msg)),
			 -EINVAL);
	assert_non_null(strstr(msg, "min 10 is above max 5"));
	assert_int_equal(bpftune_config_check_cap(&p->tunables[2], 3, 0, 100, msg, sizeof(msg)),
			 -EINVAL);
	assert_int_equal(bpftune_config_check_cap(&p->tunables[3], 1, 1, 100, msg, sizeof(msg)), 1);
	assert_int_equal(p->tunables[3].min[0], 1);
	bpftune_config_free(p);
}

static void test_netns_scope(void **state)
{
	struct bpftune_config *p = parse("[netns]\nskip = blue green\n");

	(void)state;
	assert_true(bpftune_config_netns_in_scope(p, "", true));
	assert_false(bpftune_config_netns_in_scope(p, "blue", false));
	assert_true(bpftune_config_netns_in_scope(p, "red", false));
	assert_true(bpftune_config_netns_in_scope(p, "", false));	/* unnamed */
	bpftune_config_free(p);
	p = parse("[netns]\nonly = blue global\n");
	assert_true(bpftune_config_netns_in_scope(p, "blue", false));
	assert_true(bpftune_config_netns_in_scope(p, "", true));
	assert_false(bpftune_config_netns_in_scope(p, "red", false));
	assert_false(bpftune_config_netns_in_scope(p, "", false));
	bpftune_config_free(p);
	p = parse("[netns]\nonly = blue\n");
	assert_false(bpftune_config_netns_in_scope(p, "", true));
	bpftune_config_free(p);
	p = parse("[netns]\nglobal-only = yes\n");
	assert_true(bpftune_config_netns_in_scope(p, "", true));
	assert_false(bpftune_config_netns_in_scope(p, "blue", false));
	bpftune_config_free(p);
	p = parse("[netns]\nglobal-only = no\n");
	assert_true(bpftune_config_netns_in_scope(p, "blue", false));
	bpftune_config_free(p);
	assert_true(bpftune_config_netns_in_scope(NULL, "blue", false));
}

/* random bytes and mutated valid files: an answer, never a crash */
static void test_garbage(void **state)
{
	static const char base[] = "[daemon]\nrate = 2\ntuners = a b\n[tunable x.y]\nmax = 1 2 3\n"
				   "min = 0\ntouch = yes\n[netns]\nskip = a\n";
	uint64_t seed = 42;
	char buf[256];
	unsigned int i, j, len;

	(void)state;
	for (i = 0; i < 3000; i++) {
		struct bpftune_config *p = bpftune_config_new();

		len = sizeof(base) - 1;
		memcpy(buf, base, len);
		for (j = 0; j < 1 + unit_rand(&seed) % 8; j++)
			buf[unit_rand(&seed) % len] = (char)unit_rand(&seed);
		if (i % 3 == 0)
			len = unit_rand(&seed) % len;
		bpftune_config_parse(p, "g", buf, len, err, sizeof(err));
		bpftune_config_free(p);
	}
}

/* [strategy TUNER] model = PATH, and --strategy TUNER.KEY=VALUE over it */
static void test_strategy(void **state)
{
	struct bpftune_config *p = parse("[strategy tcp_conn]\nmodel = /etc/bpftune/cc.model\n");
	const struct bpftune_config_strategy *s;

	(void)state;
	s = bpftune_config_strategy(p, "tcp_conn", "model");
	assert_non_null(s);
	assert_string_equal(s->value, "/etc/bpftune/cc.model");
	assert_int_equal(s->src.line, 2);
	assert_null(bpftune_config_strategy(p, "tcp_buffer", "model"));
	assert_int_equal(bpftune_config_strategy_cli(p, "tcp_conn.model=/tmp/b.model", err,
						     sizeof(err)), 0);
	s = bpftune_config_strategy(p, "tcp_conn", "model");
	assert_string_equal(s->value, "/tmp/b.model");
	assert_int_equal(s->src.origin, BPFTUNE_CONFIG_CLI);
	assert_int_equal(p->num_strategies, 1);
	assert_int_equal(bpftune_config_strategy_cli(p, "tcp_conn=/x", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "TUNER.KEY=VALUE"));
	assert_int_equal(bpftune_config_strategy_cli(p, "tcp_conn.model=rel", err, sizeof(err)),
			 -EINVAL);
	bpftune_config_free(p);
	refused("[strategy tcp_conn]\nmodel = cc.model\n", "f.conf:2: model takes an absolute path");
	refused("[strategy tcp_conn]\nepsilon = 0.1\n", "unknown key 'epsilon' in [strategy tcp_conn]");
	refused("[strategy tcp conn]\nmodel = /a\n", "bad tuner name");
	refused("[strategy tcp_conn]\nmodel = /a\nmodel = /b\n", "f.conf:3: model set twice");
}

int unit_run_config(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_issue_forms),
		cmocka_unit_test(test_daemon_settings),
		cmocka_unit_test(test_errors_say_file_and_line),
		cmocka_unit_test(test_dropins_override),
		cmocka_unit_test(test_bounds_hold),
		cmocka_unit_test(test_bounds_never_widen_cap),
		cmocka_unit_test(test_netns_scope),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_strategy),
	};

	return cmocka_run_group_tests_name("config", tests, NULL, NULL);
}
