// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel BTF read in place (src/lib/btf/kbtf.c), the CO-RE records of
 * .BTF.ext (core_relo.c) and the minimal BTF built from them (btf_min.c),
 * on BTF made here with libbpf's writer: a "kernel" with nested anonymous
 * members, a bitfield, an array and a typedef'd anonymous struct, and a
 * "program" whose local types are laid out differently.  That the minimal
 * BTF relocates real objects exactly as the kernel's does is checked on
 * the kernel (test/btf_min.bats).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/btf.h>

#include "btf/btf_min.h"
#include "btf/core_relo.h"
#include "btf/kbtf.h"
#include "unit.h"

static char kpath[64];

/* the "kernel": struct sock { int pad; union { int y; struct { int z; }; };
 * unsigned char flags:4; int arr[4]; }, typedef struct { long c; } atomic_t,
 * struct other { int x; }, enum drop { A = 1, B = 7 } */
static int write_kernel(void)
{
	struct btf *b = btf__new_empty();
	int i_int, i_uc, i_long, anon_s, anon_u, arr, sock, anon_a, err = 0;
	const void *raw;
	__u32 len;
	FILE *f;

	i_int = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	i_uc = btf__add_int(b, "unsigned char", 1, 0);
	i_long = btf__add_int(b, "long", 8, BTF_INT_SIGNED);
	anon_s = btf__add_struct(b, NULL, 4);
	btf__add_field(b, "z", i_int, 0, 0);
	anon_u = btf__add_union(b, NULL, 4);
	btf__add_field(b, "y", i_int, 0, 0);
	btf__add_field(b, NULL, anon_s, 0, 0);
	arr = btf__add_array(b, i_int, i_int, 4);
	sock = btf__add_struct(b, "sock", 32);
	btf__add_field(b, "pad", i_int, 0, 0);
	btf__add_field(b, NULL, anon_u, 32, 0);
	btf__add_field(b, "flags", i_uc, 64, 4);
	btf__add_field(b, "arr", arr, 96, 0);
	anon_a = btf__add_struct(b, NULL, 8);
	btf__add_field(b, "c", i_long, 0, 0);
	btf__add_typedef(b, "atomic_t", anon_a);
	btf__add_struct(b, "other", 4);
	btf__add_field(b, "x", i_int, 0, 0);
	btf__add_enum(b, "drop", 4);
	btf__add_enum_value(b, "A", 1);
	btf__add_enum_value(b, "B", 7);
	(void)sock;
	raw = btf__raw_data(b, &len);
	snprintf(kpath, sizeof(kpath), "/tmp/bpftune-unit-kbtf.%d", getpid());
	f = fopen(kpath, "wb");
	if (!f || fwrite(raw, 1, len, f) != len)
		err = -1;
	if (f)
		fclose(f);
	btf__free(b);
	return err;
}

static int setup(void **state)
{
	(void)state;
	return write_kernel();
}

static int teardown(void **state)
{
	(void)state;
	unlink(kpath);
	return 0;
}

static void test_kbtf_lookup(void **state)
{
	static const char *const names[] = { "sock", "flags", "no_such_name", "atomic_t" };
	struct bpftune_kbtf *k;
	const struct btf_type *t;
	__u32 offs[4];
	char buf[32];
	int id;

	(void)state;
	assert_int_equal(bpftune_kbtf_open(kpath, &k), 0);
	assert_int_equal(bpftune_kbtf_nr_types(k), 11);
	id = bpftune_kbtf_find(k, "sock", BTF_KIND_STRUCT);
	assert_true(id > 0);
	t = bpftune_kbtf_type(k, id);
	assert_non_null(t);
	assert_int_equal(BTF_INFO_VLEN(t->info), 4);
	assert_int_equal(t->size, 32);
	assert_string_equal(bpftune_kbtf_str(k, t->name_off, buf, sizeof(buf)), "sock");
	assert_int_equal(bpftune_kbtf_find(k, "sock", BTF_KIND_UNION), -ENOENT);
	assert_int_equal(bpftune_kbtf_find(k, "atomic_t", BTF_KIND_TYPEDEF) > 0, 1);
	assert_int_equal(bpftune_kbtf_find_strs(k, names, 4, offs), 0);
	assert_true(offs[0] && offs[1] && offs[3]);
	assert_int_equal(offs[2], 0);
	assert_null(bpftune_kbtf_type(k, 0));
	assert_null(bpftune_kbtf_type(k, bpftune_kbtf_nr_types(k) + 1));
	bpftune_kbtf_close(k);
}

static void test_kbtf_bad_files(void **state)
{
	char path[64];
	struct bpftune_kbtf *k;
	unsigned char junk[64] = { 0x9f, 0xeb, 1, 0, 24, 0, 0, 0 };
	FILE *f;

	(void)state;
	assert_int_equal(bpftune_kbtf_open("/nonexistent/btf", &k), -ENOENT);
	snprintf(path, sizeof(path), "/tmp/bpftune-unit-junk.%d", getpid());
	/* magic, version, header length 24, then types claiming 1000 bytes */
	junk[12] = 0xe8;
	junk[13] = 0x03;
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(junk, 1, sizeof(junk), f), sizeof(junk));
	fclose(f);
	assert_int_equal(bpftune_kbtf_open(path, &k), -EINVAL);
	junk[0] = 0;	/* bad magic */
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(junk, 1, sizeof(junk), f), sizeof(junk));
	fclose(f);
	assert_int_equal(bpftune_kbtf_open(path, &k), -EINVAL);
	unlink(path);
}

/* a .BTF.ext with a CO-RE part of @n records */
static size_t make_ext(unsigned char *buf, const struct bpf_core_relo *r, unsigned int n)
{
	__u32 hdr[8] = { 0 }, v;
	size_t off = sizeof(hdr);

	hdr[0] = 0xeB9F | (1 << 16);	/* magic, version 1, flags 0 */
	hdr[1] = sizeof(hdr);
	hdr[6] = 0;			/* core_relo_off */
	hdr[7] = 4 + 8 + n * sizeof(*r);
	memcpy(buf, hdr, sizeof(hdr));
	v = sizeof(*r);
	memcpy(buf + off, &v, 4);
	off += 4;
	v = 0;				/* section name */
	memcpy(buf + off, &v, 4);
	v = n;
	memcpy(buf + off + 4, &v, 4);
	off += 8;
	memcpy(buf + off, r, n * sizeof(*r));
	return off + n * sizeof(*r);
}

static int count_relo(const struct bpf_core_relo *r, void *ctx)
{
	(void)r;
	(*(int *)ctx)++;
	return 0;
}

static void test_core_relos_parse(void **state)
{
	struct bpf_core_relo r[2] = {
		{ .insn_off = 8, .type_id = 1, .access_str_off = 1, .kind = 0 },
		{ .insn_off = 16, .type_id = 2, .access_str_off = 5, .kind = 2 },
	};
	unsigned char buf[256];
	size_t len = make_ext(buf, r, 2);
	int n = 0;

	(void)state;
	assert_int_equal(bpftune_core_relos(buf, len, count_relo, &n), 0);
	assert_int_equal(n, 2);
	/* every truncation is refused or yields fewer whole records */
	for (size_t l = 0; l < len; l++) {
		n = 0;
		assert_true(bpftune_core_relos(buf, l, count_relo, &n) == -EINVAL || n < 2);
	}
	/* a record count beyond the section */
	buf[32 + 8] = 200;
	assert_int_equal(bpftune_core_relos(buf, len, count_relo, &n), -EINVAL);
	/* no CO-RE part (an older, shorter header): nothing, no error */
	buf[4] = 24;
	n = 0;
	assert_int_equal(bpftune_core_relos(buf, len, count_relo, &n), 0);
	assert_int_equal(n, 0);
	buf[0] = 0;
	assert_int_equal(bpftune_core_relos(buf, len, count_relo, &n), -EINVAL);
}

/* the minimal BTF as "struct.member@bit_offset:bitfield" lines */
static void describe(const void *raw, __u32 len, char *out, size_t out_len)
{
	struct btf *b = btf__new(raw, len);
	__u32 id, n;

	assert_non_null(b);
	out[0] = '\0';
	n = btf__type_cnt(b);
	for (id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(b, id);
		const char *tn = btf__name_by_offset(b, t->name_off);
		int i;

		if (btf_is_typedef(t) || btf_is_enum(t))
			snprintf(out + strlen(out), out_len - strlen(out), "%s %s;",
				 btf_is_typedef(t) ? "typedef" : "enum", tn);
		if (!btf_is_composite(t))
			continue;
		for (i = 0; i < btf_vlen(t); i++)
			snprintf(out + strlen(out), out_len - strlen(out), "%s.%s@%u:%u;",
				 *tn ? tn : "?", btf__name_by_offset(b, btf_members(t)[i].name_off),
				 btf_member_bit_offset(t, i), btf_member_bitfield_size(t, i));
	}
	btf__free(b);
}

static void test_min_btf(void **state)
{
	struct btf *local = btf__new_empty();
	struct bpf_core_relo r[5];
	unsigned char ext[512];
	struct bpftune_kbtf *k;
	int i_int, i_long, arr, sock, anon, td, en;
	char text[1024];
	void *data;
	__u32 size;

	(void)state;
	/* the program's view: struct sock { int z; int arr[4]; unsigned char
	 * flags; } (no union, other order), atomic_t, enum drop, struct gone */
	i_int = btf__add_int(local, "int", 4, BTF_INT_SIGNED);
	i_long = btf__add_int(local, "long", 8, BTF_INT_SIGNED);
	arr = btf__add_array(local, i_int, i_int, 4);
	sock = btf__add_struct(local, "sock___local", 24);
	btf__add_field(local, "z", i_int, 0, 0);
	btf__add_field(local, "arr", arr, 32, 0);
	anon = btf__add_struct(local, NULL, 8);
	btf__add_field(local, "c", i_long, 0, 0);
	td = btf__add_typedef(local, "atomic_t", anon);
	en = btf__add_enum(local, "drop", 4);
	btf__add_enum_value(local, "B", 0);
	/* sock.z (through the kernel's anonymous union and struct) */
	r[0] = (struct bpf_core_relo){ 0, sock, btf__add_str(local, "0:0"), BPF_CORE_FIELD_BYTE_OFFSET };
	/* sock.arr[2] */
	r[1] = (struct bpf_core_relo){ 8, sock, btf__add_str(local, "0:1:2"), BPF_CORE_FIELD_BYTE_OFFSET };
	/* atomic_t.c: the typedef is what is looked up */
	r[2] = (struct bpf_core_relo){ 16, td, btf__add_str(local, "0:0"), BPF_CORE_FIELD_BYTE_OFFSET };
	/* enum drop, value B */
	r[3] = (struct bpf_core_relo){ 24, en, btf__add_str(local, "0"), BPF_CORE_ENUMVAL_VALUE };
	/* local type id: needs nothing */
	r[4] = (struct bpf_core_relo){ 32, sock, btf__add_str(local, "0"), BPF_CORE_TYPE_ID_LOCAL };
	assert_int_equal(bpftune_kbtf_open(kpath, &k), 0);
	assert_int_equal(bpftune_btf_min_ext(k, local, ext, make_ext(ext, r, 5), &data, &size), 0);
	describe(data, size, text, sizeof(text));
	/* kept: the path to z (anonymous union at 32, anonymous struct in it),
	 * arr, atomic_t's c; not kept: pad and flags, struct other */
	assert_non_null(strstr(text, "sock.@32:0;"));
	assert_non_null(strstr(text, "?.z@0:0;"));
	assert_non_null(strstr(text, "sock.arr@96:0;"));
	assert_non_null(strstr(text, "?.c@0:0;"));
	assert_non_null(strstr(text, "typedef atomic_t;"));
	assert_non_null(strstr(text, "enum drop;"));
	assert_null(strstr(text, "pad"));
	assert_null(strstr(text, "flags"));
	assert_null(strstr(text, "other"));
	free(data);
	/* a relocation of a kind not handled (type matches): the caller falls back */
	r[0].kind = 12;
	assert_int_equal(bpftune_btf_min_ext(k, local, ext, make_ext(ext, r, 1), &data, &size),
			 -EOPNOTSUPP);
	/* only a local type id: the object needs nothing */
	assert_int_equal(bpftune_btf_min_ext(k, local, ext, make_ext(ext, &r[4], 1), &data,
					     &size), -ENOENT);
	bpftune_kbtf_close(k);
	btf__free(local);
}

static void test_min_btf_bitfield(void **state)
{
	struct btf *local = btf__new_empty();
	struct bpf_core_relo r;
	unsigned char ext[256];
	struct bpftune_kbtf *k;
	int uc, sock;
	char text[512];
	void *data;
	__u32 size;

	(void)state;
	uc = btf__add_int(local, "unsigned char", 1, 0);
	sock = btf__add_struct(local, "sock", 4);
	btf__add_field(local, "flags", uc, 0, 4);
	r = (struct bpf_core_relo){ 0, sock, btf__add_str(local, "0:0"), BPF_CORE_FIELD_LSHIFT_U64 };
	assert_int_equal(bpftune_kbtf_open(kpath, &k), 0);
	assert_int_equal(bpftune_btf_min_ext(k, local, ext, make_ext(ext, &r, 1), &data, &size), 0);
	describe(data, size, text, sizeof(text));
	/* the kernel's bit offset and bitfield size */
	assert_non_null(strstr(text, "sock.flags@64:4;"));
	free(data);
	bpftune_kbtf_close(k);
	btf__free(local);
}

int unit_run_btf_min(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kbtf_lookup),
		cmocka_unit_test(test_kbtf_bad_files),
		cmocka_unit_test(test_core_relos_parse),
		cmocka_unit_test(test_min_btf),
		cmocka_unit_test(test_min_btf_bitfield),
	};

	return cmocka_run_group_tests_name("btf_min", tests, setup, teardown);
}
