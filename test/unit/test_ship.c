// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpftune-ship's pure parts (tools/ship/): Redis URL parsing, the
 * watermark file format and the encoding of SQLite values as stream
 * field values (round trips keep the storage class; the decoder refuses
 * everything the encoder never writes).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../tools/ship/ship.h"
#include "unit.h"

static void url_ok(const char *s, const char *host, int port, const char *path,
		   const char *user, const char *pw, int db)
{
	struct ship_url u;
	char err[256] = "";

	if (ship_url_parse(s, &u, err, sizeof(err)))
		fail_msg("%s: %s", s, err);
	assert_string_equal(u.host, host);
	assert_int_equal(u.port, port);
	assert_string_equal(u.path, path);
	assert_string_equal(u.user, user);
	assert_string_equal(u.password, pw);
	assert_int_equal(u.db, db);
}

static void url_bad(const char *s, const char *why)
{
	struct ship_url u;
	char err[256] = "";

	assert_int_equal(ship_url_parse(s, &u, err, sizeof(err)), -1);
	if (!strstr(err, why))
		fail_msg("%s: expected '%s' in '%s'", s, why, err);
}

static void test_url(void **state)
{
	(void)state;
	url_ok("redis://localhost", "localhost", 6379, "", "", "", 0);
	url_ok("redis://127.0.0.1:6380", "127.0.0.1", 6380, "", "", "", 0);
	url_ok("redis://127.0.0.1:6380/3", "127.0.0.1", 6380, "", "", "", 3);
	url_ok("redis://:secret@h:1", "h", 1, "", "", "secret", 0);
	url_ok("redis://secret@h", "h", 6379, "", "", "secret", 0);
	url_ok("redis://ship:pw@h:7000/0", "h", 7000, "", "ship", "pw", 0);
	/* percent escapes, and an '@' left unescaped in the password */
	url_ok("redis://u%40x:p%3Aw%25@h", "h", 6379, "", "u@x", "p:w%", 0);
	url_ok("redis://u:p@ss@h", "h", 6379, "", "u", "p@ss", 0);
	url_ok("redis://[::1]:6390/2", "::1", 6390, "", "", "", 2);
	url_ok("redis://[fe80::1]", "fe80::1", 6379, "", "", "", 0);
	url_ok("unix:///run/redis.sock", "", 0, "/run/redis.sock", "", "", 0);
	url_ok("unix://u:p@/run/r.sock?db=4", "", 0, "/run/r.sock", "u", "p", 4);

	url_bad("http://h", "must start with");
	url_bad("rediss://h", "TLS");
	url_bad("redis://", "no host");
	url_bad("redis://h:0", "port");
	url_bad("redis://h:65536", "port");
	url_bad("redis://h:12x", "port");
	url_bad("redis://h:", "port");
	url_bad("redis://h/x", "database");
	url_bad("redis://h/-1", "database");
	url_bad("redis://[::1", "unterminated");
	url_bad("redis://[::1]x", "after ']'");
	url_bad("redis://h*st", "bad host");
	url_bad("redis://h st:1", "bad host");
	url_bad("redis://u:%4@h", "password");
	url_bad("redis://u:%00@h", "password");
	url_bad("redis://user:@h", "needs a password");
	url_bad("unix://relative.sock", "absolute");
	url_bad("unix:///s?x=1", "?db=");
	url_bad("redis://h:6379?x=1", "query strings are not supported");
	url_bad("redis://h:6379/0?x=1", "query strings are not supported");
	url_bad("redis://h?db=2", "query strings are not supported");
	url_bad("redis://h#frag", "fragments");
	url_ok("redis://u:p?w@h", "h", 6379, "", "u", "p?w", 0);
}

static void test_url_describe_hides_password(void **state)
{
	struct ship_url u;
	char err[64], buf[512];

	(void)state;
	assert_int_equal(ship_url_parse("redis://ship:hunter2@h:7/1", &u, err, sizeof(err)), 0);
	ship_url_describe(&u, buf, sizeof(buf));
	assert_string_equal(buf, "redis://ship:***@h:7/1");
	assert_int_equal(ship_url_parse("redis://[::1]", &u, err, sizeof(err)), 0);
	ship_url_describe(&u, buf, sizeof(buf));
	assert_string_equal(buf, "redis://[::1]:6379/0");
}

static void test_url_random(void **state)
{
	static const char alphabet[] = "redis:/unix@[]%0123456789abcdefAF?=.-";
	uint64_t seed = 42;
	struct ship_url u;
	char s[40], err[128];
	int i, k;

	(void)state;
	/* never crashes; what it accepts has a host or a path, sane numbers */
	for (i = 0; i < 200000; i++) {
		int n = unit_rand(&seed) % (sizeof(s) - 1);

		for (k = 0; k < n; k++)
			s[k] = alphabet[unit_rand(&seed) % (sizeof(alphabet) - 1)];
		s[n] = '\0';
		if (i % 3 == 0)
			memcpy(s, "redis://", n >= 8 ? 8 : n);
		if (ship_url_parse(s, &u, err, sizeof(err)))
			continue;
		assert_true(u.host[0] || u.path[0]);
		assert_true(u.path[0] || (u.port >= 1 && u.port <= 65535));
		assert_true(u.db >= 0);
	}
}

static void value_roundtrip(const struct ship_value *v, const char *expect)
{
	struct ship_ctx_ids ids = { "6f0c-run", "host-a" };
	char scratch[SHIP_ENC_SCRATCH], big[300];
	struct ship_value back;
	const char *out;
	size_t n;

	assert_int_equal(ship_encode(v, &ids, scratch, big, &out, &n), 0);
	if (expect && (n != strlen(expect) || memcmp(out, expect, n)))
		fail_msg("encoded '%.*s', expected '%s'", (int)n, out, expect);
	assert_int_equal(ship_decode(out, n, &ids, &back), 0);
	assert_int_equal(back.type, v->type);
	switch (v->type) {
	case SHIP_INT:
		assert_true(back.i == v->i);
		break;
	case SHIP_REAL:
		/* bit for bit, -0.0 included */
		assert_memory_equal(&back.r, &v->r, sizeof(double));
		break;
	case SHIP_TEXT:
	case SHIP_BLOB:
		assert_int_equal(back.n, v->n);
		assert_memory_equal(back.p, v->p, v->n);
		break;
	default:
		break;
	}
}

static void test_encode_values(void **state)
{
	const double reals[] = { 0.0, -0.0, 1.5, 0.1, -2.5e-300, 1e300, 123456789.123,
				 4.9e-324, 1.7976931348623157e308, INFINITY, -INFINITY };
	const int64_t ints[] = { 0, 1, -1, 42, INT64_MAX, INT64_MIN, 1000000000000LL };
	struct ship_value v = { .type = SHIP_NULL };
	unsigned int i;

	(void)state;
	value_roundtrip(&v, "");
	for (i = 0; i < ARRAY_SIZE(ints); i++) {
		v = (struct ship_value){ .type = SHIP_INT, .i = ints[i] };
		value_roundtrip(&v, NULL);
	}
	v = (struct ship_value){ .type = SHIP_INT, .i = -17 };
	value_roundtrip(&v, "-17");
	for (i = 0; i < ARRAY_SIZE(reals); i++) {
		v = (struct ship_value){ .type = SHIP_REAL, .r = reals[i] };
		value_roundtrip(&v, NULL);
	}
	v = (struct ship_value){ .type = SHIP_REAL, .r = 0.1 };
	value_roundtrip(&v, "f0.1");		/* the shortest exact form */
	v = (struct ship_value){ .type = SHIP_REAL, .r = 2.0 };
	value_roundtrip(&v, "f2");		/* still REAL, not INTEGER */
	v = (struct ship_value){ .type = SHIP_TEXT, .p = "12", .n = 2 };
	value_roundtrip(&v, "t12");		/* still TEXT */
	v = (struct ship_value){ .type = SHIP_TEXT, .p = "", .n = 0 };
	value_roundtrip(&v, "t");		/* empty, not NULL */
	v = (struct ship_value){ .type = SHIP_TEXT, .p = "a\0b\xff", .n = 4 };
	value_roundtrip(&v, NULL);
	v = (struct ship_value){ .type = SHIP_BLOB, .p = "\0\1\2", .n = 3 };
	value_roundtrip(&v, NULL);
	v = (struct ship_value){ .type = SHIP_BLOB, .p = "", .n = 0 };
	value_roundtrip(&v, "x");
	v = (struct ship_value){ .type = SHIP_TEXT, .p = "6f0c-run", .n = 8 };
	value_roundtrip(&v, "=r");
	v = (struct ship_value){ .type = SHIP_TEXT, .p = "host-a", .n = 6 };
	value_roundtrip(&v, "=h");
	v = (struct ship_value){ .type = SHIP_TEXT, .p = "host-ab", .n = 7 };
	value_roundtrip(&v, "thost-ab");
	v = (struct ship_value){ .type = SHIP_REAL, .r = NAN };
	assert_int_equal(ship_encode(&v, NULL, (char[SHIP_ENC_SCRATCH]){ 0 }, NULL,
				     &(const char *){ NULL }, &(size_t){ 0 }), -1);
}

static void test_decode_refuses(void **state)
{
	static const char *const bad[] = {
		"-", "01", "-0", "+1", "1a", " 1", "9223372036854775808",
		"-9223372036854775809", "f", "fnan", "f0x1p3", "f 1", "f1e", "f+1",
		"=", "=x", "=rr", "q", "ZZ",
	};
	struct ship_ctx_ids ids = { "r", "h" };
	struct ship_value v;
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		if (!ship_decode(bad[i], strlen(bad[i]), &ids, &v))
			fail_msg("'%s' decoded", bad[i]);
	assert_int_equal(ship_decode("=r", 2, NULL, &v), -1);
	assert_int_equal(ship_decode("-9223372036854775808", 20, &ids, &v), 0);
	assert_true(v.i == INT64_MIN);
}

static void test_digest(void **state)
{
	uint64_t a = ship_digest(ship_digest(SHIP_DIGEST_INIT, "ab", 2), "c", 1);
	uint64_t b = ship_digest(ship_digest(SHIP_DIGEST_INIT, "a", 1), "bc", 2);

	(void)state;
	assert_true(a != b);
	assert_true(ship_digest(SHIP_DIGEST_INIT, "x", 1) ==
		    ship_digest(SHIP_DIGEST_INIT, "x", 1));
}

static void fill_wm(struct ship_wm *wm)
{
	struct ship_wm_table *t;

	ship_wm_init(wm);
	strcpy(wm->run_id, "5b1e0c1a-6e0f-4c1e-9d4b-1f2e3d4c5b6a");
	strcpy(wm->host_id, "host-a");
	wm->size = 1 << 20;
	wm->wal_size = 4096;
	wm->mtime_ns = 1700000000123456789LL;
	wm->done = true;
	t = ship_wm_table(wm, "events", true);
	t->rowid = 12345;
	t->digest = 0xfedcba9876543210ULL;
	t = ship_wm_table(wm, "samples_tcp", true);
	t->rowid = 0;
	t->digest = SHIP_DIGEST_INIT;
}

static void test_watermark_roundtrip(void **state)
{
	struct ship_wm *wm = malloc(sizeof(*wm)), *back = malloc(sizeof(*back));
	char buf[4096];
	int n;

	(void)state;
	fill_wm(wm);
	n = ship_wm_format(wm, buf, sizeof(buf));
	assert_true(n > 0);
	assert_non_null(strstr(buf, "table events 12345 fedcba9876543210\n"));
	assert_int_equal(ship_wm_parse(buf, n, back), 0);
	assert_string_equal(back->run_id, wm->run_id);
	assert_string_equal(back->host_id, "host-a");
	assert_true(back->done && !back->unverified);
	assert_true(back->size == wm->size && back->wal_size == 4096 &&
		    back->mtime_ns == wm->mtime_ns);
	assert_int_equal(back->num_tables, 2);
	assert_true(ship_wm_table(back, "events", false)->rowid == 12345);
	assert_true(ship_wm_table(back, "events", false)->digest == 0xfedcba9876543210ULL);
	assert_null(ship_wm_table(back, "nope", false));
	/* too small a buffer */
	assert_int_equal(ship_wm_format(wm, buf, 20), -1);
	free(wm);
	free(back);
}

/* every strict prefix (a torn write) and every damaged line: "nothing shipped" */
static void test_watermark_damage(void **state)
{
	static const char *const bad_lines[] = {
		"bpftune-ship watermark 2\n", "run bad id!\n", "host \n",
		"file 1 2 3 4 0\n", "file 1 2 3 0\n", "file -1 2 3 0 0\n",
		"table events 12 0123\n", "table events x 0123456789abcdef\n",
		"table bad/name 1 0123456789abcdef\n", "table events 1 0123456789abcdeg\n",
		"table events 1 0123456789abcdef extra\n", "mystery line\n",
	};
	struct ship_wm *wm = malloc(sizeof(*wm)), *back = malloc(sizeof(*back));
	char buf[2048], bad[4096];
	unsigned int i;
	int n, k;

	(void)state;
	fill_wm(wm);
	n = ship_wm_format(wm, buf, sizeof(buf));
	for (k = 0; k < n; k++) {
		/* a prefix ending at a line end is a shorter valid file, if complete */
		int rc = ship_wm_parse(buf, k, back);

		if (!rc)
			assert_true(buf[k - 1] == '\n' && back->num_tables < 2);
		else
			assert_int_equal(back->num_tables, 0);
	}
	/* a repeated table */
	snprintf(bad, sizeof(bad), "%stable events 1 0123456789abcdef\n", buf);
	assert_int_equal(ship_wm_parse(bad, strlen(bad), back), -1);
	for (i = 0; i < ARRAY_SIZE(bad_lines); i++) {
		const char *at = i < 3 ? strstr(buf, i == 0 ? "bpftune" : i == 1 ? "run" : "host") :
			i < 6 ? strstr(buf, "file") : strstr(buf, "table events");
		const char *eol = strchr(at, '\n') + 1;

		snprintf(bad, sizeof(bad), "%.*s%s%s", (int)(at - buf), buf, bad_lines[i], eol);
		if (!ship_wm_parse(bad, strlen(bad), back))
			fail_msg("accepted: %s", bad_lines[i]);
		assert_int_equal(back->num_tables, 0);
		assert_string_equal(back->run_id, "");
	}
	free(wm);
	free(back);
}

static void test_watermark_full(void **state)
{
	struct ship_wm *wm = malloc(sizeof(*wm));
	char name[16];
	unsigned int i;

	(void)state;
	ship_wm_init(wm);
	for (i = 0; i < SHIP_MAX_TABLES; i++) {
		snprintf(name, sizeof(name), "t%u", i);
		assert_non_null(ship_wm_table(wm, name, true));
	}
	assert_null(ship_wm_table(wm, "one_more", true));
	assert_null(ship_wm_table(wm, "bad name", true));
	free(wm);
}

int unit_run_ship(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_url),
		cmocka_unit_test(test_url_describe_hides_password),
		cmocka_unit_test(test_url_random),
		cmocka_unit_test(test_encode_values),
		cmocka_unit_test(test_decode_refuses),
		cmocka_unit_test(test_digest),
		cmocka_unit_test(test_watermark_roundtrip),
		cmocka_unit_test(test_watermark_damage),
		cmocka_unit_test(test_watermark_full),
	};

	return cmocka_run_group_tests_name("ship", tests, NULL, NULL);
}
