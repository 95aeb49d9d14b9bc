// SPDX-License-Identifier: GPL-2.0-only
/*
 * Test helper: does the minimal BTF the daemon builds for an object
 * (src/lib/btf/btf_min.c) relocate it exactly as the kernel's whole BTF
 * does?  For each object file given: load it twice on the running kernel,
 * once with btf_custom_path = its minimal BTF and once letting libbpf parse
 * the kernel's, and compare every loaded program's final instructions
 * (map fds, which differ between the two loads, masked).  Programs of a
 * type the kernel refuses are left out of both loads.  Prints one line
 * per object; exit status 1 if any differs or fails.
 *
 * usage: btf_min_check [--perturb] OBJECT.bpf.o...   (root; loads BPF)
 * --perturb moves every struct member of the minimal BTF 4 bytes on, to
 * show that a wrong minimal BTF does not pass.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "btf/btf_min.h"
#include "btf/kbtf.h"

static void *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	void *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) > 0 && !fseek(f, 0, SEEK_SET)) {
		buf = malloc(n);
		if (buf && fread(buf, 1, n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		*len = n;
	}
	fclose(f);
	return buf;
}

static int silent(enum libbpf_print_level l, const char *fmt, va_list ap)
{
	(void)l;
	(void)fmt;
	(void)ap;
	return 0;
}

/* program types that need more than the kernel may give (fentry, kprobe) */
static bool optional_type(const struct bpf_program *p)
{
	enum bpf_prog_type t = bpf_program__type(p);

	return t == BPF_PROG_TYPE_KPROBE ||
	       (t == BPF_PROG_TYPE_TRACING &&
		bpf_program__expected_attach_type(p) != BPF_TRACE_RAW_TP &&
		bpf_program__expected_attach_type(p) != BPF_TRACE_ITER);
}

static struct bpf_object *load(const void *img, size_t len, const char *btf,
			       bool skip_optional, int *err)
{
	LIBBPF_OPTS(bpf_object_open_opts, o, .btf_custom_path = btf);
	struct bpf_object *obj = bpf_object__open_mem(img, len, &o);
	struct bpf_program *p;

	if (!obj) {
		*err = -errno;
		return NULL;
	}
	bpf_object__for_each_program(p, obj)
		if (skip_optional && optional_type(p))
			bpf_program__set_autoload(p, false);
	*err = bpf_object__load(obj);
	if (*err) {
		bpf_object__close(obj);
		return NULL;
	}
	return obj;
}

/* 0 if every program's instructions match, map fds aside */
static int compare(struct bpf_object *a, struct bpf_object *b, unsigned int *progs)
{
	struct bpf_program *pa, *pb;

	*progs = 0;
	bpf_object__for_each_program(pa, a) {
		const struct bpf_insn *ia, *ib;
		size_t n, i;

		pb = bpf_object__find_program_by_name(b, bpf_program__name(pa));
		if (!pb || bpf_program__autoload(pa) != bpf_program__autoload(pb))
			return -1;
		if (!bpf_program__autoload(pa))
			continue;
		n = bpf_program__insn_cnt(pa);
		if (n != bpf_program__insn_cnt(pb))
			return -1;
		ia = bpf_program__insns(pa);
		ib = bpf_program__insns(pb);
		for (i = 0; i < n; i++) {
			struct bpf_insn x = ia[i], y = ib[i];

			/* ldimm64 of a map: its fd (and value offset half) differ */
			if (x.code == (BPF_LD | BPF_IMM | BPF_DW) && x.src_reg &&
			    i + 1 < n) {
				x.imm = y.imm = 0;
				if (memcmp(&x, &y, sizeof(x)))
					return -1;
				i++;
				continue;
			}
			if (memcmp(&x, &y, sizeof(x)))
				return -1;
		}
		(*progs)++;
	}
	return 0;
}

static bool perturb;

/* every plain (non-bitfield) struct member 4 bytes further on */
static void shift_members(void *raw, __u32 len)
{
	struct btf *b = btf__new(raw, len);
	const void *out;
	__u32 id, n, out_len;

	if (!b)
		return;
	n = btf__type_cnt(b);
	for (id = 1; id < n; id++) {
		struct btf_type *t = (struct btf_type *)btf__type_by_id(b, id);
		struct btf_member *m;
		int i;

		if (!btf_is_struct(t) || btf_kflag(t))
			continue;
		for (i = 0, m = btf_members(t); i < btf_vlen(t); i++, m++)
			m->offset += 32;
	}
	out = btf__raw_data(b, &out_len);
	if (out && out_len == len)
		memcpy(raw, out, len);
	btf__free(b);
}

static int check(struct bpftune_kbtf *k, const char *path)
{
	struct bpf_object *a = NULL, *b = NULL;
	char btf_path[64];
	unsigned int progs = 0;
	void *img, *min = NULL;
	__u32 min_len = 0;
	size_t len = 0;
	int err, fd = -1;
	bool skip = false;

	img = slurp(path, &len);
	if (!img) {
		printf("%s: cannot read\n", path);
		return 1;
	}
	err = bpftune_btf_min(k, img, len, &min, &min_len);
	if (err == -ENOENT) {
		printf("%s: no CO-RE relocations\n", path);
		free(img);
		return 0;
	}
	if (!err && perturb)
		shift_members(min, min_len);
	if (!err) {
		fd = memfd_create("btf-min-check", 0);
		err = fd < 0 || write(fd, min, min_len) != (ssize_t)min_len ? -EIO : 0;
		snprintf(btf_path, sizeof(btf_path), "/proc/self/fd/%d", fd);
	}
	if (!err) {
		b = load(img, len, NULL, false, &err);
		if (!b) {
			skip = true;	/* a program type this kernel refuses */
			b = load(img, len, NULL, true, &err);
		}
	}
	if (b)
		a = load(img, len, btf_path, skip, &err);
	if (!err && a && b)
		err = compare(a, b, &progs) ? -EBADMSG : 0;
	printf("%s: %s (%u programs compared, minimal BTF %u bytes)\n", path,
	       err ? strerror(-err) : "same instructions", progs, min_len);
	bpf_object__close(a);
	bpf_object__close(b);
	if (fd >= 0)
		close(fd);
	free(min);
	free(img);
	return err ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct bpftune_kbtf *k;
	int i, rc = 0;

	if (argc > 1 && !strcmp(argv[1], "--perturb")) {
		perturb = true;
		argv++;
		argc--;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: %s [--perturb] OBJECT.bpf.o...\n", argv[0]);
		return 2;
	}
	if (bpftune_kbtf_open(BPFTUNE_KBTF_PATH, &k)) {
		fprintf(stderr, "no kernel BTF\n");
		return 2;
	}
	libbpf_set_print(silent);
	for (i = 1; i < argc; i++)
		rc |= check(k, argv[i]);
	bpftune_kbtf_close(k);
	return rc;
}
