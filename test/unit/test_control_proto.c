// SPDX-License-Identifier: GPL-2.0-only
/*
 * Control socket protocol (src/lib/ops/control_proto.c): request parsing on
 * good, bad, binary, oversized and random input; the bounded reply
 * buffer; the JSON string escaper, checked by decoding its output again.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/control.h"
#include "unit.h"

static int parse(const char *s, size_t len, struct bpftune_request *r,
		 char *err, size_t err_len)
{
	return bpftune_request_parse(s, len, r, err, err_len);
}

static void expect_ok(const char *s, enum bpftune_query q, bool json)
{
	struct bpftune_request r = { .query = BPFTUNE_Q_MAX, .json = !json };
	char err[160];

	if (parse(s, strlen(s), &r, err, sizeof(err)))
		fail_msg("'%s' refused: %s", s, err);
	assert_int_equal(r.query, q);
	assert_int_equal(r.json, json);
}

/* the reason is one printable line */
static void check_reason(const char *err)
{
	const char *p;

	assert_true(strlen(err) > 0);
	for (p = err; *p; p++)
		if (*p < 0x20 || *p > 0x7e)
			fail_msg("reason has byte 0x%02x", (unsigned char)*p);
}

static void expect_err_len(const char *s, size_t len, int want)
{
	struct bpftune_request r;
	char err[160];
	int got = parse(s, len, &r, err, sizeof(err));

	if (got != want)
		fail_msg("request of %zu bytes: got %d, want %d (%s)", len, got, want, err);
	check_reason(err);
}

static void expect_err(const char *s, int want)
{
	expect_err_len(s, strlen(s), want);
}

static void test_parse_good(void **state)
{
	(void)state;
	expect_ok("help", BPFTUNE_Q_HELP, false);
	expect_ok("help\n", BPFTUNE_Q_HELP, false);
	expect_ok("help\r\n", BPFTUNE_Q_HELP, false);
	expect_ok("help\r", BPFTUNE_Q_HELP, false);
	expect_ok("  tuners  \n", BPFTUNE_Q_TUNERS, false);
	expect_ok("\ttunables\t--json", BPFTUNE_Q_TUNABLES, true);
	expect_ok("status --json\n", BPFTUNE_Q_STATUS, true);
	expect_ok("status json", BPFTUNE_Q_STATUS, true);
	expect_ok("jstatus\n", BPFTUNE_Q_STATUS, true);
	expect_ok("jsummary", BPFTUNE_Q_SUMMARY, true);
	expect_ok("rollback", BPFTUNE_Q_ROLLBACK, false);
	expect_ok("jrollback", BPFTUNE_Q_ROLLBACK, true);
	expect_ok("jhelp", BPFTUNE_Q_HELP, true);
	expect_ok("metrics", BPFTUNE_Q_METRICS, false);
	expect_ok("config", BPFTUNE_Q_CONFIG, false);
	expect_ok("jconfig", BPFTUNE_Q_CONFIG, true);
}

static void test_parse_bad(void **state)
{
	(void)state;
	expect_err("", -ENODATA);
	expect_err("\n", -ENODATA);
	expect_err("\r\n", -ENODATA);
	expect_err("   \t ", -ENODATA);
	expect_err("foo", -ENOENT);
	expect_err("j", -ENOENT);
	expect_err("jfoo", -ENOENT);
	expect_err("jstatus --json", -ENOENT);
	expect_err("Status", -ENOENT);
	expect_err("stat", -ENOENT);
	expect_err("statuss", -ENOENT);
	expect_err("metrics --json", -EINVAL);
	expect_err("jmetrics", -EINVAL);
	expect_err("status --yaml", -EINVAL);
	expect_err("status --json extra", -EINVAL);
	expect_err("status --json --json", -EINVAL);
	expect_err("help\nhelp\n", -EINVAL);
	expect_err("help\n\n", -EINVAL);
	expect_err("he\x7flp", -EINVAL);
	expect_err("help\x80", -EINVAL);
	expect_err("\xff\xfe", -EINVAL);
	expect_err("\x1b[31mhelp", -EINVAL);
	expect_err_len("help\0", 5, -EINVAL);
	expect_err_len("\0\0\0\0", 4, -EINVAL);
}

static void test_parse_sizes(void **state)
{
	char buf[BPFTUNE_CTL_MAX_REQUEST + 64];
	struct bpftune_request r;
	char err[160];

	(void)state;
	/* exactly the limit, newline included, is fine */
	memset(buf, ' ', sizeof(buf));
	memcpy(buf + BPFTUNE_CTL_MAX_REQUEST - 5, "help\n", 5);
	assert_int_equal(parse(buf, BPFTUNE_CTL_MAX_REQUEST, &r, err, sizeof(err)), 0);
	assert_int_equal(r.query, BPFTUNE_Q_HELP);
	/* one byte more is not */
	memset(buf, ' ', sizeof(buf));
	memcpy(buf + BPFTUNE_CTL_MAX_REQUEST - 4, "help\n", 5);
	expect_err_len(buf, BPFTUNE_CTL_MAX_REQUEST + 1, -E2BIG);
	/* a long unknown word is quoted shortened, the reason still fits */
	memset(buf, 'x', BPFTUNE_CTL_MAX_REQUEST);
	expect_err_len(buf, BPFTUNE_CTL_MAX_REQUEST, -ENOENT);
	parse(buf, BPFTUNE_CTL_MAX_REQUEST, &r, err, sizeof(err));
	assert_non_null(strstr(err, "..."));
	/* a tiny error buffer is never overrun */
	memset(err, 'Z', sizeof(err));
	assert_int_equal(parse("nope", 4, &r, err, 8), -ENOENT);
	assert_int_equal(strlen(err), 7);
	assert_int_equal(err[8], 'Z');
}

/* Random bytes and random mixes of real words: any answer must be sane. */
static void test_parse_random(void **state)
{
	static const char *const words[] = {
		"help", "status", "jstatus", "--json", "json", "metrics", " ",
		"\t", "\n", "\r\n", "x", "\0", "\xff", "tuners",
	};
	uint64_t seed = 0x5eed;
	char buf[BPFTUNE_CTL_MAX_REQUEST + 32], err[160];
	struct bpftune_request r;
	unsigned int i, j;

	(void)state;
	for (i = 0; i < 200000; i++) {
		size_t len = 0, n;
		int ret;

		if (i & 1) {
			len = unit_rand(&seed) % sizeof(buf);
			for (j = 0; j < len; j++)
				buf[j] = unit_rand(&seed);
		} else {
			n = unit_rand(&seed) % 6;
			for (j = 0; j < n; j++) {
				const char *w = words[unit_rand(&seed) % (sizeof(words) / sizeof(words[0]))];
				size_t wl = *w ? strlen(w) : 1;

				if (len + wl > sizeof(buf))
					break;
				memcpy(buf + len, w, wl);
				len += wl;
			}
		}
		ret = parse(buf, len, &r, err, sizeof(err));
		if (ret == 0) {
			assert_true(r.query < BPFTUNE_Q_MAX);
			assert_true(len <= BPFTUNE_CTL_MAX_REQUEST);
			assert_false(r.json && !bpftune_query_has_json(r.query));
			continue;
		}
		if (ret != -ENODATA && ret != -E2BIG && ret != -EINVAL && ret != -ENOENT)
			fail_msg("unexpected %d", ret);
		check_reason(err);
	}
}

static void test_query_names(void **state)
{
	unsigned int q;
	char req[64];

	(void)state;
	for (q = 0; q < BPFTUNE_Q_MAX; q++) {
		assert_true(strlen(bpftune_query_help(q)) > 0);
		expect_ok(bpftune_query_name(q), q, false);
		snprintf(req, sizeof(req), "j%s", bpftune_query_name(q));
		if (bpftune_query_has_json(q))
			expect_ok(req, q, true);
		else
			expect_err(req, -EINVAL);
	}
	assert_string_equal(bpftune_query_name(BPFTUNE_Q_MAX), "?");
}

/* ---- buffers ---------------------------------------------------------------- */

static void test_buf_grows_and_limits(void **state)
{
	struct bpftune_buf b;
	unsigned int i;

	(void)state;
	bpftune_buf_init(&b, 1000);
	for (i = 0; i < 99; i++)
		assert_int_equal(bpftune_buf_printf(&b, "%09u\n", i), 0);
	assert_int_equal(b.len, 990);
	assert_int_equal(strlen(b.data), 990);
	assert_memory_equal(b.data + 980, "000000098\n", 10);
	/* 990 + 10 + NUL does not fit in 1000 */
	assert_int_equal(bpftune_buf_add(&b, "0123456789", 10), -ENOSPC);
	assert_true(b.overflow);
	/* once overflowed, nothing more is added */
	assert_int_equal(bpftune_buf_add(&b, "x", 1), -ENOSPC);
	assert_int_equal(b.len, 990);
	bpftune_buf_reset(&b);
	assert_false(b.overflow);
	assert_int_equal(b.len, 0);
	assert_string_equal(b.data, "");
	assert_int_equal(bpftune_buf_printf(&b, "%s", "ok"), 0);
	assert_string_equal(b.data, "ok");
	bpftune_buf_free(&b);
	assert_null(b.data);
	assert_int_equal(b.max, 1000);
}

/* Decode a JSON string (what we emit: \" \\ \n \t \r \u00XX) back. */
static int json_decode(const char *in, char *out, size_t len)
{
	size_t o = 0;

	if (*in++ != '"')
		return -1;
	while (*in && *in != '"') {
		unsigned int c = (unsigned char)*in++;

		if (c < 0x20 || c > 0x7e)
			return -1;	/* raw control or non-ASCII byte */
		if (c == '\\') {
			switch (*in++) {
			case '"': c = '"'; break;
			case '\\': c = '\\'; break;
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'u':
				if (strncmp(in, "00", 2) || sscanf(in + 2, "%2x", &c) != 1)
					return -1;
				in += 4;
				break;
			default:
				return -1;
			}
		}
		if (o + 1 >= len)
			return -1;
		out[o++] = c;
	}
	if (*in++ != '"' || *in)
		return -1;
	out[o] = '\0';
	return 0;
}

static void test_json_escape(void **state)
{
	struct bpftune_buf b;
	char in[64], out[64];
	uint64_t seed = 42;
	unsigned int i, j;

	(void)state;
	bpftune_buf_init(&b, 4096);
	bpftune_buf_json_str(&b, "a\"b\\c\nd\te\x01\x7f\xc3\xa9");
	assert_string_equal(b.data, "\"a\\\"b\\\\c\\nd\\te\\u0001\\u007f\\u00c3\\u00a9\"");
	bpftune_buf_reset(&b);
	bpftune_buf_json_str(&b, NULL);
	assert_string_equal(b.data, "null");
	for (i = 0; i < 20000; i++) {
		size_t n = unit_rand(&seed) % (sizeof(in) - 1);

		for (j = 0; j < n; j++)
			in[j] = 1 + unit_rand(&seed) % 255;
		in[n] = '\0';
		bpftune_buf_reset(&b);
		assert_int_equal(bpftune_buf_json_str(&b, in), 0);
		if (json_decode(b.data, out, sizeof(out)))
			fail_msg("bad JSON string: %s", b.data);
		assert_string_equal(in, out);
	}
	bpftune_buf_free(&b);
}

static void test_json_escape_overflow(void **state)
{
	struct bpftune_buf b;

	(void)state;
	/* every byte escapes to 6: 8 bytes need 50 */
	bpftune_buf_init(&b, 40);
	assert_int_equal(bpftune_buf_json_str(&b, "\x01\x01\x01\x01\x01\x01\x01\x01"),
			 -ENOSPC);
	assert_true(b.overflow);
	assert_true(b.len < 40);
	bpftune_buf_free(&b);
}

int unit_run_control_proto(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_good),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_parse_sizes),
		cmocka_unit_test(test_parse_random),
		cmocka_unit_test(test_query_names),
		cmocka_unit_test(test_buf_grows_and_limits),
		cmocka_unit_test(test_json_escape),
		cmocka_unit_test(test_json_escape_overflow),
	};

	return cmocka_run_group_tests_name("control_proto", tests, NULL, NULL);
}
