// SPDX-License-Identifier: GPL-2.0-only
/*
 * sysctl names and values (src/lib/core/sysctl_value.c): path building, the
 * dotted form, parsing and formatting, a format/parse round-trip property
 * test and a fuzz-style loop against a reference model of the parser.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "unit.h"
#include "core/sysctl.h"

#define PROC	"/proc/sys/"

/* ---- bpftune_sysctl_path ------------------------------------------------ */

static void expect_path(const char *name, const char *want)
{
	char path[PATH_MAX];

	memset(path, 'X', sizeof(path));
	assert_int_equal(bpftune_sysctl_path(name, path, sizeof(path)), 0);
	assert_string_equal(path, want);
}

static void test_path_dots(void **state)
{
	(void)state;
	expect_path("net.ipv4.tcp_rmem", PROC "net/ipv4/tcp_rmem");
	expect_path("net.core.somaxconn", PROC "net/core/somaxconn");
	expect_path("kernel.pid_max", PROC "kernel/pid_max");
	expect_path("vm", PROC "vm");
	expect_path("net.ipv4.conf.all.arp_ignore", PROC "net/ipv4/conf/all/arp_ignore");
	expect_path("net.ipv6.conf.veth-a.mtu", PROC "net/ipv6/conf/veth-a/mtu");
}

static void test_path_slashes_kept(void **state)
{
	(void)state;
	expect_path("net/ipv4/tcp_rmem", PROC "net/ipv4/tcp_rmem");
	/* with a slash, dots are part of a component (VLAN interface) */
	expect_path("net/ipv4/conf/eth0.1/rp_filter",
		    PROC "net/ipv4/conf/eth0.1/rp_filter");
}

static void test_path_rejects(void **state)
{
	static const char *const bad[] = {
		"", "..", "../etc/passwd", "net/../../etc/shadow", "net..ipv4",
		"net.ipv4..tcp_rmem", "net/ipv4/..", "/net/ipv4/tcp_rmem",
		"/", ".net.ipv4", ".", "net ipv4", "net.ipv4.tcp_rmem\n",
		"net\tipv4", "net;reboot", "net.ipv4.*", "net/ipv4/tcp_rmem?",
		"net\\ipv4", "net.ipv4.conf.\xc3\xa9th0.mtu", "net.ipv4.$x",
		"net:ipv4", "net.ipv4.tcp_rmem ",
	};
	char path[PATH_MAX];
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int ret = bpftune_sysctl_path(bad[i], path, sizeof(path));

		if (ret != -EINVAL)
			fail_msg("'%s' gave %d, want -EINVAL", bad[i], ret);
	}
	assert_int_equal(bpftune_sysctl_path(NULL, path, sizeof(path)), -EINVAL);
	assert_int_equal(bpftune_sysctl_path("vm", NULL, sizeof(path)), -EINVAL);
	assert_int_equal(bpftune_sysctl_path("vm", path, 0), -EINVAL);
}

static void test_path_too_long(void **state)
{
	const char *name = "net.core.somaxconn";
	size_t need = strlen(PROC) + strlen(name) + 1;
	char path[PATH_MAX], *longname;

	(void)state;
	assert_int_equal(bpftune_sysctl_path(name, path, need), 0);
	assert_string_equal(path, PROC "net/core/somaxconn");
	assert_int_equal(bpftune_sysctl_path(name, path, need - 1), -ENAMETOOLONG);
	assert_int_equal(bpftune_sysctl_path(name, path, 1), -ENAMETOOLONG);

	longname = malloc(PATH_MAX + 1);
	assert_non_null(longname);
	memset(longname, 'a', PATH_MAX);
	longname[PATH_MAX] = '\0';
	assert_int_equal(bpftune_sysctl_path(longname, path, sizeof(path)),
			 -ENAMETOOLONG);
	free(longname);
}

/* ---- bpftune_sysctl_dotted --------------------------------------------- */

static void test_dotted(void **state)
{
	char buf[64];

	(void)state;
	bpftune_sysctl_dotted("net/core/somaxconn", buf, sizeof(buf));
	assert_string_equal(buf, "net.core.somaxconn");
	bpftune_sysctl_dotted("vm", buf, sizeof(buf));
	assert_string_equal(buf, "vm");
	bpftune_sysctl_dotted("", buf, sizeof(buf));
	assert_string_equal(buf, "");
	/* truncates, always terminated */
	bpftune_sysctl_dotted("net/core/somaxconn", buf, 4);
	assert_string_equal(buf, "net");
	bpftune_sysctl_dotted("net/core/somaxconn", buf, 1);
	assert_string_equal(buf, "");
	/* zero length: nothing written */
	memset(buf, 'X', sizeof(buf));
	bpftune_sysctl_dotted("net/core/somaxconn", buf, 0);
	assert_int_equal(buf[0], 'X');
}

/* dotted and path agree on the names both accept */
static void test_dotted_path_inverse(void **state)
{
	static const char *const names[] = {
		"net.ipv4.tcp_rmem", "net.core.netdev_max_backlog", "vm.swappiness",
	};
	char path[PATH_MAX], dotted[PATH_MAX];
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		assert_int_equal(bpftune_sysctl_path(names[i], path, sizeof(path)), 0);
		bpftune_sysctl_dotted(path + strlen(PROC), dotted, sizeof(dotted));
		assert_string_equal(dotted, names[i]);
	}
}

/* ---- bpftune_sysctl_parse ---------------------------------------------- */

static void test_parse_single(void **state)
{
	long v[3] = { 0 };

	(void)state;
	assert_int_equal(bpftune_sysctl_parse("4096", v, 3), 1);
	assert_int_equal(v[0], 4096);
	assert_int_equal(bpftune_sysctl_parse("4096\n", v, 1), 1);
	assert_int_equal(v[0], 4096);
	assert_int_equal(bpftune_sysctl_parse("0", v, 1), 1);
	assert_int_equal(v[0], 0);
	assert_int_equal(bpftune_sysctl_parse("+5", v, 1), 1);
	assert_int_equal(v[0], 5);
	assert_int_equal(bpftune_sysctl_parse("007", v, 1), 1);
	assert_int_equal(v[0], 7);
}

static void test_parse_multi(void **state)
{
	long v[3] = { 0 };

	(void)state;
	/* as the kernel prints tcp_rmem */
	assert_int_equal(bpftune_sysctl_parse("4096\t131072\t6291456\n", v, 3), 3);
	assert_int_equal(v[0], 4096);
	assert_int_equal(v[1], 131072);
	assert_int_equal(v[2], 6291456);
	/* as a human writes it */
	assert_int_equal(bpftune_sysctl_parse("  1   2 \t 3  ", v, 3), 3);
	assert_int_equal(v[0], 1);
	assert_int_equal(v[1], 2);
	assert_int_equal(v[2], 3);
	assert_int_equal(bpftune_sysctl_parse("\n10\r\n20\v", v, 3), 2);
	assert_int_equal(v[0], 10);
	assert_int_equal(v[1], 20);
}

static void test_parse_negative_and_limits(void **state)
{
	long v[3] = { 0 };
	char buf[64];

	(void)state;
	assert_int_equal(bpftune_sysctl_parse("\t-1\n", v, 1), 1);
	assert_int_equal(v[0], -1);
	snprintf(buf, sizeof(buf), "%ld %ld", LONG_MIN, LONG_MAX);
	assert_int_equal(bpftune_sysctl_parse(buf, v, 3), 2);
	assert_true(v[0] == LONG_MIN);
	assert_true(v[1] == LONG_MAX);
}

static void test_parse_overflow(void **state)
{
	long v[3] = { 0 };

	(void)state;
	assert_int_equal(bpftune_sysctl_parse("9223372036854775808", v, 3), -ERANGE);
	assert_int_equal(bpftune_sysctl_parse("-9223372036854775809", v, 3), -ERANGE);
	assert_int_equal(bpftune_sysctl_parse("1 99999999999999999999999", v, 3), -ERANGE);
	/* a good parse after a failed one is not confused by a stale errno */
	assert_int_equal(bpftune_sysctl_parse("12", v, 3), 1);
	assert_int_equal(v[0], 12);
}

static void test_parse_garbage(void **state)
{
	static const char *const bad[] = {
		"abc", "1 abc", "12abc", "0x10", "1.5", "-", "+", "1,2", "1-2",
		"--1", "+-1", "- 1", "1\x01", "\xff", "one", "4096\t131072\tmax",
	};
	long v[3];
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int ret = bpftune_sysctl_parse(bad[i], v, 3);

		if (ret != -EINVAL)
			fail_msg("'%s' gave %d, want -EINVAL", bad[i], ret);
	}
}

static void test_parse_empty(void **state)
{
	long v[3];

	(void)state;
	assert_int_equal(bpftune_sysctl_parse("", v, 3), -EINVAL);
	assert_int_equal(bpftune_sysctl_parse(" \t\n", v, 3), -EINVAL);
	assert_int_equal(bpftune_sysctl_parse(NULL, v, 3), -EINVAL);
	assert_int_equal(bpftune_sysctl_parse("", v, 0), -EINVAL);
}

static void test_parse_too_many(void **state)
{
	/* v[3] is a canary: never written with max = 3 */
	long v[4] = { 0, 0, 0, 0x5a5a };

	(void)state;
	assert_int_equal(bpftune_sysctl_parse("1 2 3", v, 3), 3);
	assert_int_equal(bpftune_sysctl_parse("1 2 3 4", v, 3), -E2BIG);
	assert_int_equal(bpftune_sysctl_parse("1 2 3 4 5 6 7 8", v, 3), -E2BIG);
	assert_int_equal(v[3], 0x5a5a);
	assert_int_equal(bpftune_sysctl_parse("1", v, 0), -E2BIG);
	assert_int_equal(bpftune_sysctl_parse("1 2", v, 1), -E2BIG);
	/* trailing whitespace is not a value */
	assert_int_equal(bpftune_sysctl_parse("1 2 3 \n\t", v, 3), 3);
	assert_int_equal(v[3], 0x5a5a);
}

/* ---- bpftune_sysctl_format --------------------------------------------- */

static void test_format(void **state)
{
	const long one[] = { 4096 }, three[] = { 4096, 131072, 6291456 };
	const long neg[] = { -1, 0, LONG_MIN };
	char buf[128], want[128];

	(void)state;
	assert_int_equal(bpftune_sysctl_format(one, 1, buf, sizeof(buf)), 4);
	assert_string_equal(buf, "4096");
	assert_int_equal(bpftune_sysctl_format(three, 3, buf, sizeof(buf)),
			 strlen("4096\t131072\t6291456"));
	assert_string_equal(buf, "4096\t131072\t6291456");
	snprintf(want, sizeof(want), "-1\t0\t%ld", LONG_MIN);
	assert_int_equal(bpftune_sysctl_format(neg, 3, buf, sizeof(buf)), strlen(want));
	assert_string_equal(buf, want);
}

static void test_format_no_space(void **state)
{
	const long three[] = { 4096, 131072, 6291456 };
	const char *want = "4096\t131072\t6291456";
	size_t len, need = strlen(want) + 1;
	char buf[64];

	(void)state;
	assert_int_equal(bpftune_sysctl_format(three, 3, buf, need), need - 1);
	assert_string_equal(buf, want);
	for (len = 1; len < need; len++) {
		/* canary right after the buffer given */
		memset(buf, 'X', sizeof(buf));
		assert_int_equal(bpftune_sysctl_format(three, 3, buf, len), -ENOSPC);
		assert_int_equal(buf[len], 'X');
		/* what was written is terminated within the buffer */
		assert_true(memchr(buf, '\0', len) != NULL);
	}
}

static void test_format_invalid(void **state)
{
	const long one[] = { 1 };
	char buf[16];

	(void)state;
	assert_int_equal(bpftune_sysctl_format(one, 0, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(bpftune_sysctl_format(one, 1, buf, 0), -EINVAL);
}

/* the log line: tabs become spaces, "?" when the values do not fit */
static void test_format_line(void **state)
{
	const long three[] = { 4096, 131072, -6 };
	char buf[32], small[8];

	(void)state;
	bpftune_sysctl_format_line(three, 3, buf, sizeof(buf));
	assert_string_equal(buf, "4096 131072 -6");
	bpftune_sysctl_format_line(three, 3, small, sizeof(small));
	assert_string_equal(small, "?");
	bpftune_sysctl_format_line(three, 0, buf, sizeof(buf));
	assert_string_equal(buf, "?");
}

/* ---- properties --------------------------------------------------------- */

#define RT_MAX_VALUES	8
/* 20 characters for LONG_MIN, a separator each, and the terminator */
#define RT_BUF_LEN	(RT_MAX_VALUES * 21 + 1)

static long random_value(uint64_t *rnd)
{
	switch (unit_rand(rnd) % 6) {
	case 0:
		return LONG_MIN;
	case 1:
		return LONG_MAX;
	case 2:
		return (long)(unit_rand(rnd) % 2001) - 1000;
	case 3:
		return (long)(unit_rand(rnd) % 100000000);
	default:
		return (long)unit_rand(rnd);
	}
}

/* random arrays: format -> parse gives them back, with any whitespace */
static void test_roundtrip(void **state)
{
	static const char ws[] = " \t\n\v\f\r";
	uint64_t rnd = 0x9e3779b97f4a7c15ULL;
	unsigned int iter;

	(void)state;
	for (iter = 0; iter < 20000; iter++) {
		long in[RT_MAX_VALUES], out[RT_MAX_VALUES + 1];
		char buf[RT_BUF_LEN], spaced[RT_BUF_LEN * 4];
		unsigned int n = 1 + unit_rand(&rnd) % RT_MAX_VALUES, i;
		size_t off = 0;
		int len;

		for (i = 0; i < n; i++)
			in[i] = random_value(&rnd);
		len = bpftune_sysctl_format(in, n, buf, sizeof(buf));
		assert_true(len > 0);
		assert_int_equal((size_t)len, strlen(buf));
		assert_int_equal(bpftune_sysctl_parse(buf, out, RT_MAX_VALUES), n);
		assert_memory_equal(in, out, n * sizeof(long));
		/* exactly n slots is enough, n - 1 is not */
		assert_int_equal(bpftune_sysctl_parse(buf, out, n), n);
		assert_int_equal(bpftune_sysctl_parse(buf, out, n - 1), -E2BIG);

		/* same values, random runs of whitespace around and between */
		for (i = 0; i < n; i++) {
			unsigned int k = (i ? 1 : 0) + unit_rand(&rnd) % 3;

			while (k--)
				spaced[off++] = ws[unit_rand(&rnd) % (sizeof(ws) - 1)];
			off += snprintf(spaced + off, sizeof(spaced) - off, "%ld", in[i]);
		}
		if (unit_rand(&rnd) & 1)
			spaced[off++] = '\n';
		spaced[off] = '\0';
		assert_int_equal(bpftune_sysctl_parse(spaced, out, RT_MAX_VALUES), n);
		assert_memory_equal(in, out, n * sizeof(long));
	}
}

/*
 * Reference model of bpftune_sysctl_parse(): tokens split on C-locale
 * whitespace; each is [+-]?digits in range of long, checked in order.
 */
static int is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' ||
	       c == '\r';
}

static int model_parse(const char *p, long *values, unsigned int max)
{
	unsigned int n = 0;

	for (;;) {
		unsigned long long mag = 0, lim;
		int neg = 0, digits = 0, over = 0;

		while (*p && is_ws(*p))
			p++;
		if (!*p)
			break;
		if (n >= max)
			return -E2BIG;
		if (*p == '+' || *p == '-')
			neg = *p++ == '-';
		lim = neg ? (unsigned long long)LONG_MAX + 1 : LONG_MAX;
		for (; *p >= '0' && *p <= '9'; p++, digits++) {
			if (over || mag > (lim - (*p - '0')) / 10)
				over = 1;
			else
				mag = mag * 10 + (*p - '0');
		}
		if (!digits)
			return -EINVAL;
		if (over)
			return -ERANGE;
		if (*p && !is_ws(*p))
			return -EINVAL;
		values[n++] = neg ? (long)(0 - mag) : (long)mag;
	}
	return n ? (int)n : -EINVAL;
}

static void random_input(uint64_t *rnd, char *buf, size_t len)
{
	static const char alphabet[] = "0123456789012345678901234567890123456789"
				       "   \t\t\n+-.x/_aZ\x7f\x80\xff";
	size_t n = unit_rand(rnd) % len, i;

	for (i = 0; i < n; i++)
		buf[i] = alphabet[unit_rand(rnd) % (sizeof(alphabet) - 1)];
	buf[n] = '\0';
}

static void test_fuzz_parse_vs_model(void **state)
{
	uint64_t rnd = 12345;
	unsigned int iter;

	(void)state;
	for (iter = 0; iter < 200000; iter++) {
		long got[3] = { 0 }, want[3] = { 0 };
		char buf[72];
		unsigned int max = unit_rand(&rnd) % 4;
		int ret, ref;

		random_input(&rnd, buf, sizeof(buf));
		ret = bpftune_sysctl_parse(buf, got, max);
		ref = model_parse(buf, want, max);
		if (ret != ref)
			fail_msg("parse('%s', max %u) = %d, model says %d", buf,
				 max, ret, ref);
		if (ret > 0) {
			char out[RT_BUF_LEN];

			assert_memory_equal(got, want, ret * sizeof(long));
			/* whatever parses formats and parses back the same */
			assert_true(bpftune_sysctl_format(got, ret, out, sizeof(out)) > 0);
			assert_int_equal(bpftune_sysctl_parse(out, want, 3), ret);
			assert_memory_equal(got, want, ret * sizeof(long));
		}
	}
}

static int path_char_ok(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.' ||
	       c == '/';
}

static void test_fuzz_path(void **state)
{
	static const char alphabet[] = "net.ipv4/_-abc019..//  \t*$\\\n\x80\xff";
	uint64_t rnd = 777;
	unsigned int iter;

	(void)state;
	for (iter = 0; iter < 200000; iter++) {
		char name[48], path[64];
		size_t n = unit_rand(&rnd) % sizeof(name), i;
		size_t len = 1 + unit_rand(&rnd) % sizeof(path);
		int ret;

		for (i = 0; i < n; i++)
			name[i] = alphabet[unit_rand(&rnd) % (sizeof(alphabet) - 1)];
		name[n] = '\0';
		ret = bpftune_sysctl_path(name, path, len);
		if (ret == -EINVAL || ret == -ENAMETOOLONG)
			continue;
		assert_int_equal(ret, 0);
		/* accepted: under /proc/sys, no "..", only allowed characters */
		assert_true(strlen(path) < len);
		assert_int_equal(strncmp(path, PROC, strlen(PROC)), 0);
		assert_null(strstr(path, ".."));
		assert_true(n > 0 && name[0] != '/' && name[0] != '.');
		for (i = strlen(PROC); path[i]; i++)
			assert_true(path_char_ok(path[i]));
		/* dotted names map dots to slashes, slash names are kept */
		if (!strchr(name, '/'))
			assert_null(strchr(path + strlen(PROC), '.'));
		else
			assert_string_equal(path + strlen(PROC), name);
	}
}

int unit_run_sysctl_value(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path_dots),
		cmocka_unit_test(test_path_slashes_kept),
		cmocka_unit_test(test_path_rejects),
		cmocka_unit_test(test_path_too_long),
		cmocka_unit_test(test_dotted),
		cmocka_unit_test(test_dotted_path_inverse),
		cmocka_unit_test(test_parse_single),
		cmocka_unit_test(test_parse_multi),
		cmocka_unit_test(test_parse_negative_and_limits),
		cmocka_unit_test(test_parse_overflow),
		cmocka_unit_test(test_parse_garbage),
		cmocka_unit_test(test_parse_empty),
		cmocka_unit_test(test_parse_too_many),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_format_no_space),
		cmocka_unit_test(test_format_invalid),
		cmocka_unit_test(test_format_line),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_fuzz_parse_vs_model),
		cmocka_unit_test(test_fuzz_path),
	};

	return cmocka_run_group_tests_name("sysctl_value", tests, NULL, NULL);
}
