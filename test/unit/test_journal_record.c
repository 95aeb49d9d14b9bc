// SPDX-License-Identifier: GPL-2.0-only
/*
 * Rollback journal records (src/lib/ops/journal_record.c): encode/decode
 * round trips, the checksum catching every flipped bit and every
 * truncation, strict field checks on lines whose checksum is right, key
 * matching, and random damage that must never be accepted as something
 * else than what was written.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "ops/journal.h"
#include "unit.h"

#define BOOT	"0f6f1c4e-8a8a-4b39-9e0f-2f3d1f1e2a10"

static struct bpftune_jrec rec(char type, unsigned int scope, const char *ns,
			       const char *sysctl, unsigned int n, long v0)
{
	struct bpftune_jrec r;
	unsigned int i;

	memset(&r, 0, sizeof(r));
	r.type = type;
	strcpy(r.boot_id, BOOT);
	r.scope = scope;
	snprintf(r.netns_name, sizeof(r.netns_name), "%s", ns);
	r.ino = 4026532281ULL;
	r.dev = 4;
	r.cookie = 4100;
	snprintf(r.sysctl, sizeof(r.sysctl), "%s", sysctl);
	r.num_values = n;
	for (i = 0; i < n; i++)
		r.values[i] = v0 + i;
	return r;
}

static void assert_rec_equal(const struct bpftune_jrec *a,
			     const struct bpftune_jrec *b)
{
	assert_int_equal(a->type, b->type);
	assert_string_equal(a->boot_id, b->boot_id);
	assert_int_equal(a->scope, b->scope);
	assert_string_equal(a->netns_name, b->netns_name);
	assert_true(a->ino == b->ino && a->dev == b->dev && a->cookie == b->cookie);
	assert_string_equal(a->sysctl, b->sysctl);
	assert_int_equal(a->num_values, b->num_values);
	assert_memory_equal(a->values, b->values, a->num_values * sizeof(long));
}

/* encode, check the line's shape, decode, compare */
static void roundtrip(const struct bpftune_jrec *r)
{
	char line[BPFTUNE_JREC_MAX_LINE];
	struct bpftune_jrec back;
	const char *why;
	int len;

	len = bpftune_jrec_encode(r, line, sizeof(line));
	assert_true(len > 0);
	assert_int_equal(strlen(line), len);
	assert_int_equal(line[len - 1], '\n');
	assert_null(memchr(line, '\n', len - 1));
	if (bpftune_jrec_decode(line, len - 1, &back, &why))
		fail_msg("'%s' does not decode: %s", line, why);
	assert_rec_equal(r, &back);
}

static void test_roundtrip(void **state)
{
	struct bpftune_jrec r;

	(void)state;
	r = rec('O', 0, "blue", "net.core.somaxconn", 1, 128);
	roundtrip(&r);
	r = rec('W', 1, "", "net.ipv4.tcp_rmem", 3, 4096);
	roundtrip(&r);
	r = rec('M', 2, "", "net.ipv4.tcp_wmem", 0, 0);
	roundtrip(&r);
	r = rec('O', 0, "a b%c/d", "net.core.somaxconn", 1, 1);
	/* '/' cannot be in a netns name: refused */
	{
		char line[BPFTUNE_JREC_MAX_LINE];

		assert_int_equal(bpftune_jrec_encode(&r, line, sizeof(line)), -EINVAL);
	}
	r = rec('O', 0, "a b%c\x01\xff-:@+.", "net.core.somaxconn", 1, -5);
	roundtrip(&r);
	r = rec('O', 0, "-", "kernel/pid_max", 2, LONG_MIN);
	roundtrip(&r);
	r.values[1] = LONG_MAX;
	r.ino = UINT64_MAX;
	r.cookie = 0;
	roundtrip(&r);
}

static void test_encode_refuses(void **state)
{
	char line[BPFTUNE_JREC_MAX_LINE];
	struct bpftune_jrec r;

	(void)state;
	r = rec('X', 0, "a", "net.core.somaxconn", 1, 1);
	assert_int_equal(bpftune_jrec_encode(&r, line, sizeof(line)), -EINVAL);
	r = rec('O', 2, "a", "net.core.somaxconn", 1, 1);	/* scope all on a value */
	assert_int_equal(bpftune_jrec_encode(&r, line, sizeof(line)), -EINVAL);
	r = rec('O', 0, "a", "net.core.somaxconn", 0, 1);	/* no value */
	assert_int_equal(bpftune_jrec_encode(&r, line, sizeof(line)), -EINVAL);
	r = rec('O', 0, "a", "../../etc/passwd", 1, 1);
	assert_int_equal(bpftune_jrec_encode(&r, line, sizeof(line)), -EINVAL);
	r = rec('O', 0, "a", "net core", 1, 1);
	assert_int_equal(bpftune_jrec_encode(&r, line, sizeof(line)), -EINVAL);
	r = rec('O', 0, "..", "net.core.somaxconn", 1, 1);
	assert_int_equal(bpftune_jrec_encode(&r, line, sizeof(line)), -EINVAL);
	r = rec('O', 0, "a", "net.core.somaxconn", 1, 1);
	strcpy(r.boot_id, "not-a-boot-id");
	assert_int_equal(bpftune_jrec_encode(&r, line, sizeof(line)), -EINVAL);
	/* too small a buffer: refused, not truncated */
	r = rec('O', 0, "a", "net.core.somaxconn", 1, 1);
	assert_int_equal(bpftune_jrec_encode(&r, line, 40), -ENOSPC);
}

/* A line with a correct checksum over an arbitrary body. */
static void with_crc(const char *body, char *line, size_t len)
{
	snprintf(line, len, "%s #%08lx", body,
		 crc32(0, (const Bytef *)body, strlen(body)));
}

static void expect_bad_body(const char *body)
{
	char line[BPFTUNE_JREC_MAX_LINE * 2];
	struct bpftune_jrec r;
	const char *why = NULL;

	with_crc(body, line, sizeof(line));
	if (!bpftune_jrec_decode(line, strlen(line), &r, &why))
		fail_msg("accepted: %s", line);
	assert_non_null(why);
	assert_true(strlen(why) > 0);
}

static void test_decode_checks_fields(void **state)
{
	char good[BPFTUNE_JREC_MAX_LINE];
	struct bpftune_jrec r;
	const char *why;

	(void)state;
	with_crc("O " BOOT " 0 blue 1 2 3 net.core.somaxconn 1 128", good, sizeof(good));
	assert_int_equal(bpftune_jrec_decode(good, strlen(good), &r, &why), 0);
	assert_string_equal(r.netns_name, "blue");
	assert_int_equal(r.values[0], 128);

	expect_bad_body("");
	expect_bad_body("O " BOOT " 0 blue 1 2 3 net.core.somaxconn 1");
	expect_bad_body("O " BOOT " 0 blue 1 2 3 net.core.somaxconn 1 128 129");
	expect_bad_body("O " BOOT " 0 blue 1 2 3 net.core.somaxconn 2 128");
	expect_bad_body("O " BOOT " 0 blue 1 2 3 net.core.somaxconn 4 1 2 3 4");
	expect_bad_body("O " BOOT " 0 blue 1 2 3 net.core.somaxconn 0");
	expect_bad_body("X " BOOT " 0 blue 1 2 3 net.core.somaxconn 1 128");
	expect_bad_body("OO " BOOT " 0 blue 1 2 3 net.core.somaxconn 1 128");
	expect_bad_body("O " BOOT " 3 blue 1 2 3 net.core.somaxconn 1 128");
	expect_bad_body("O " BOOT " 2 blue 1 2 3 net.core.somaxconn 1 128");
	expect_bad_body("O " BOOT "x 0 blue 1 2 3 net.core.somaxconn 1 128");
	expect_bad_body("O 0F6F1C4E-8A8A-4B39-9E0F-2F3D1F1E2A10 0 blue 1 2 3 net.core.somaxconn 1 128");
	expect_bad_body("O " BOOT " 0 blue  1 2 3 net.core.somaxconn 1 128");
	expect_bad_body("O " BOOT " 0 blue 01 2 3 net.core.somaxconn 1 128");
	expect_bad_body("O " BOOT " 0 blue -1 2 3 net.core.somaxconn 1 128");
	expect_bad_body("O " BOOT " 0 blue 18446744073709551616 2 3 net.core.somaxconn 1 128");
	expect_bad_body("O " BOOT " 0 blue 1 2 3 net.core.somaxconn 1 9223372036854775808");
	expect_bad_body("O " BOOT " 0 blue 1 2 3 net.core.somaxconn 1 -0");
	expect_bad_body("O " BOOT " 0 blue 1 2 3 net.core.somaxconn 1 +5");
	expect_bad_body("O " BOOT " 0 blue 1 2 3 net.core.somaxconn 1 12a");
	expect_bad_body("O " BOOT " 0 a/b 1 2 3 net.core.somaxconn 1 128");
	expect_bad_body("O " BOOT " 0 %2e%2e 1 2 3 net.core.somaxconn 1 128");
	expect_bad_body("O " BOOT " 0 a%2fb 1 2 3 net.core.somaxconn 1 128");
	expect_bad_body("O " BOOT " 0 a%00b 1 2 3 net.core.somaxconn 1 128");
	expect_bad_body("O " BOOT " 0 a%4 1 2 3 net.core.somaxconn 1 128");
	expect_bad_body("O " BOOT " 0 a%zz 1 2 3 net.core.somaxconn 1 128");
	expect_bad_body("O " BOOT " 0 a%4eb 1 2 3 net.core.somaxconn 1 128");	/* 'N' needs no escape */
	expect_bad_body("O " BOOT " 0 a%2D 1 2 3 net.core.somaxconn 1 128");	/* upper-case hex */
	expect_bad_body("O " BOOT " 0 %2da 1 2 3 net.core.somaxconn 1 128");	/* only a lone '-' */
	expect_bad_body("O " BOOT " 0 blue 1 2 3 ../etc/shadow 1 128");
	expect_bad_body("O " BOOT " 0 blue 1 2 3 /etc/shadow 1 128");
	expect_bad_body("O " BOOT " 0 blue 1 2 3 net..core 1 128");
	expect_bad_body("O " BOOT " 0 blue 1 2 3 net.core.somaxconn 1 128 ");
	expect_bad_body(" O " BOOT " 0 blue 1 2 3 net.core.somaxconn 1 128");
	/* M may have no values and scope 2 */
	with_crc("M " BOOT " 2 - 0 0 0 net.core.somaxconn 0", good, sizeof(good));
	assert_int_equal(bpftune_jrec_decode(good, strlen(good), &r, &why), 0);
	assert_int_equal(r.scope, BPFTUNE_JSCOPE_ALL);
}

static void test_decode_checksum(void **state)
{
	char line[BPFTUNE_JREC_MAX_LINE], bad[BPFTUNE_JREC_MAX_LINE];
	struct bpftune_jrec r = rec('O', 0, "blue", "net.core.somaxconn", 1, 128), back;
	const char *why;
	int len, i, bit;

	(void)state;
	len = bpftune_jrec_encode(&r, line, sizeof(line)) - 1;
	/* every single flipped bit is caught */
	for (i = 0; i < len; i++) {
		for (bit = 0; bit < 8; bit++) {
			memcpy(bad, line, len);
			bad[i] ^= 1 << bit;
			if (!bpftune_jrec_decode(bad, len, &back, &why))
				fail_msg("byte %d bit %d flipped: accepted", i, bit);
		}
	}
	/* every truncation is caught (a torn write) */
	for (i = 0; i < len; i++)
		if (!bpftune_jrec_decode(line, i, &back, &why))
			fail_msg("truncated to %d bytes: accepted", i);
	memcpy(bad, line, len);
	bad[len - 1] = bad[len - 1] == '0' ? '1' : '0';
	assert_int_equal(bpftune_jrec_decode(bad, len, &back, &why), -EBADMSG);
	assert_string_equal(why, "checksum mismatch");
	/* too long a line is refused before anything is looked at */
	memset(bad, 'a', sizeof(bad));
	assert_int_equal(bpftune_jrec_decode(bad, sizeof(bad), &back, &why), -EINVAL);
}

/* Random damage: never a crash, and anything accepted is canonical. */
static void test_decode_random_damage(void **state)
{
	char line[BPFTUNE_JREC_MAX_LINE], bad[BPFTUNE_JREC_MAX_LINE];
	char again[BPFTUNE_JREC_MAX_LINE];
	struct bpftune_jrec r = rec('W', 0, "ns-1", "net.ipv4.tcp_rmem", 3, 4096), back;
	uint64_t seed = 7;
	const char *why;
	int len, i, k, n, accepted = 0;

	(void)state;
	len = bpftune_jrec_encode(&r, line, sizeof(line)) - 1;
	for (i = 0; i < 100000; i++) {
		memcpy(bad, line, len);
		n = len;
		for (k = 1 + unit_rand(&seed) % 4; k > 0; k--) {
			switch (unit_rand(&seed) % 3) {
			case 0:
				bad[unit_rand(&seed) % n] = unit_rand(&seed);
				break;
			case 1:
				n = unit_rand(&seed) % (n + 1);
				break;
			default:
				if (n < (int)sizeof(bad) - 1)
					bad[n++] = unit_rand(&seed);
			}
			if (!n)
				break;
		}
		if (bpftune_jrec_decode(bad, n, &back, &why))
			continue;
		/* what decodes encodes to exactly the same line */
		accepted++;
		assert_int_equal(bpftune_jrec_encode(&back, again, sizeof(again)), n + 1);
		assert_memory_equal(again, bad, n);
	}
	/* only the mutations that changed nothing get through */
	assert_true(accepted < 2000);
}

static void test_same_key(void **state)
{
	struct bpftune_jrec a = rec('O', 0, "blue", "net.core.somaxconn", 1, 1);
	struct bpftune_jrec b = a, g = rec('O', 1, "", "net.core.somaxconn", 1, 1);
	struct bpftune_jrec all = rec('M', 2, "", "net.core.somaxconn", 0, 0);

	(void)state;
	assert_true(bpftune_jrec_same_key(&a, &b));
	b.type = 'W';
	b.values[0] = 99;
	assert_true(bpftune_jrec_same_key(&a, &b));
	b.cookie++;		/* same inode, other netns: inode reused */
	assert_false(bpftune_jrec_same_key(&a, &b));
	b = a;
	strcpy(b.netns_name, "renamed");	/* a name is not the identity */
	assert_true(bpftune_jrec_same_key(&a, &b));
	b = a;
	strcpy(b.sysctl, "net.core.rmem_max");
	assert_false(bpftune_jrec_same_key(&a, &b));
	assert_false(bpftune_jrec_same_key(&a, &g));
	g.cookie = 1;
	g.ino = 2;
	assert_true(bpftune_jrec_same_key(&g, &(struct bpftune_jrec){ .scope = 1,
			.sysctl = "net.core.somaxconn" }));
	assert_true(bpftune_jrec_same_key(&all, &a));
	assert_true(bpftune_jrec_same_key(&g, &all));
	assert_false(bpftune_jrec_same_key(&all, &(struct bpftune_jrec){
			.sysctl = "net.core.rmem_max" }));
}

static bool drop_cookie(const struct bpftune_jrec *r, void *ctx)
{
	return r->scope == BPFTUNE_JSCOPE_NETNS && r->cookie == *(uint64_t *)ctx;
}

/* Compaction: the records of one netns go, everything else stays as it is. */
static void test_filter(void **state)
{
	struct bpftune_jrec r[5] = {
		rec('O', BPFTUNE_JSCOPE_NETNS, "a", "net.core.somaxconn", 1, 128),
		rec('W', BPFTUNE_JSCOPE_NETNS, "a", "net.core.somaxconn", 1, 256),
		rec('O', BPFTUNE_JSCOPE_GLOBAL, "", "net.core.somaxconn", 1, 4096),
		rec('O', BPFTUNE_JSCOPE_NETNS, "b", "net.core.somaxconn", 1, 64),
		rec('M', BPFTUNE_JSCOPE_ALL, "", "net.ipv4.tcp_rmem", 0, 0),
	};
	char in[4096], copy[4096], want[4096];
	size_t len = 0, wlen = 0, n;
	uint64_t gone = 4100, other = 1;
	unsigned int i;
	int l;

	(void)state;
	r[2].cookie = 0;
	r[3].cookie = 4200;
	r[4].cookie = 0;
	for (i = 0; i < 5; i++) {
		l = bpftune_jrec_encode(&r[i], in + len, sizeof(in) - len);
		assert_true(l > 0);
		if (i >= 2) {
			memcpy(want + wlen, in + len, l);
			wlen += l;
		}
		len += l;
	}
	/* a damaged line and a torn one stay, for the restore to report */
	memcpy(in + len, "garbage\nO torn", 14);
	memcpy(want + wlen, "garbage\nO torn", 14);
	len += 14;
	wlen += 14;
	memcpy(copy, in, len);
	n = bpftune_jrec_filter(in, len, drop_cookie, &gone, in);
	assert_int_equal(n, wlen);
	assert_memory_equal(in, want, wlen);
	/* nothing of that netns: unchanged */
	assert_int_equal(bpftune_jrec_filter(copy, len, drop_cookie, &other, copy), len);
	assert_int_equal(bpftune_jrec_filter(copy, 0, drop_cookie, &other, copy), 0);
}

int unit_run_journal_record(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_encode_refuses),
		cmocka_unit_test(test_decode_checks_fields),
		cmocka_unit_test(test_decode_checksum),
		cmocka_unit_test(test_decode_random_damage),
		cmocka_unit_test(test_same_key),
		cmocka_unit_test(test_filter),
	};

	return cmocka_run_group_tests_name("journal_record", tests, NULL, NULL);
}
