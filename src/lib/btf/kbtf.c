// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel's BTF read in place (see kbtf.h): a pass over the type
 * section through a 64 KB window builds the index of record offsets; type
 * records and strings are then read with pread() as needed, and name
 * lookups are one pass over the strings and one over the types.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "btf/kbtf.h"

#define WINDOW		(64 * 1024)
/* a bound on one record: 65535 members of 12 bytes and the header */
#define REC_MAX		(sizeof(struct btf_type) + 65535 * 12)

struct bpftune_kbtf {
	int fd;
	__u64 types;		/* file offsets of the two sections */
	__u64 strs;
	__u32 type_len;
	__u32 str_len;
	__u32 nr;		/* types, ids 1 .. nr */
	__u32 *offs;		/* offs[id - 1]: record offset in the type section */
	char *rec;		/* the last record read */
	size_t rec_len;
};

/* A read-ahead window over [start, end) of the file. */
struct window {
	int fd;
	__u64 end;
	__u64 lo, hi;		/* file range held in buf */
	char buf[WINDOW];
};

/*
 * pread() until @len bytes or the end of the file: sysfs hands out the
 * kernel's BTF at most a page per read, and records can be longer.
 */
static ssize_t pread_full(int fd, void *buf, size_t len, __u64 pos)
{
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		n = pread(fd, (char *)buf + got, len - got, pos + got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		got += n;
	}
	return got;
}

/* Pointer to [pos, pos + need) of the file, refilling the window; NULL past end. */
static const char *win_at(struct window *w, __u64 pos, size_t need)
{
	ssize_t n;
	size_t want;

	if (need > WINDOW || pos + need > w->end)
		return NULL;
	if (pos >= w->lo && pos + need <= w->hi)
		return w->buf + (pos - w->lo);
	want = w->end - pos < WINDOW ? w->end - pos : WINDOW;
	n = pread_full(w->fd, w->buf, want, pos);
	if (n < 0 || (size_t)n < need)
		return NULL;
	w->lo = pos;
	w->hi = pos + n;
	return w->buf;
}

/* Can [pos, pos + len) be read?  Through the window when it fits. */
static bool readable(struct window *w, __u64 pos, size_t len)
{
	char c;

	if (len <= WINDOW)
		return win_at(w, pos, len) != NULL;
	return pread(w->fd, &c, 1, pos + len - 1) == 1;
}

size_t bpftune_btf_rec_size(const struct btf_type *t)
{
	size_t vlen = BTF_INFO_VLEN(t->info), base = sizeof(*t);

	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_INT:
		return base + sizeof(__u32);
	case BTF_KIND_PTR: case BTF_KIND_FWD: case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE: case BTF_KIND_CONST: case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC: case BTF_KIND_FLOAT: case BTF_KIND_TYPE_TAG:
		return base;
	case BTF_KIND_ARRAY:
		return base + sizeof(struct btf_array);
	case BTF_KIND_STRUCT: case BTF_KIND_UNION:
		return base + vlen * sizeof(struct btf_member);
	case BTF_KIND_ENUM:
		return base + vlen * sizeof(struct btf_enum);
	case BTF_KIND_ENUM64:
		return base + vlen * sizeof(struct btf_enum64);
	case BTF_KIND_FUNC_PROTO:
		return base + vlen * sizeof(struct btf_param);
	case BTF_KIND_VAR:
		return base + sizeof(struct btf_var);
	case BTF_KIND_DATASEC:
		return base + vlen * sizeof(struct btf_var_secinfo);
	case BTF_KIND_DECL_TAG:
		return base + sizeof(struct btf_decl_tag);
	default:
		return 0;
	}
}

/* Walk the type section: @fn(id, header, record offset); stops on non-zero. */
static int scan_types(struct bpftune_kbtf *k,
		      int (*fn)(struct bpftune_kbtf *k, __u32 id,
				const struct btf_type *t, __u32 off, void *ctx),
		      void *ctx)
{
	struct window *w = malloc(sizeof(*w));
	__u64 pos = k->types;
	__u32 id = 0;
	int err = 0;

	if (!w)
		return -ENOMEM;
	w->fd = k->fd;
	w->end = k->types + k->type_len;
	w->lo = w->hi = 0;
	while (pos < w->end) {
		const struct btf_type *t;
		size_t sz;

		t = (const void *)win_at(w, pos, sizeof(*t));
		if (!t) {
			err = -EINVAL;
			break;
		}
		sz = bpftune_btf_rec_size(t);
		/* the whole record in the section and in the file */
		if (!sz || pos + sz > w->end || !readable(w, pos, sz)) {
			err = -EINVAL;
			break;
		}
		t = (const void *)win_at(w, pos, sizeof(*t));
		err = fn(k, ++id, t, pos - k->types, ctx);
		if (err)
			break;
		pos += sz;
	}
	free(w);
	return err;
}

static int count_type(struct bpftune_kbtf *k, __u32 id,
		      const struct btf_type *t, __u32 off, void *ctx)
{
	(void)t;
	(void)off;
	(void)ctx;
	k->nr = id;
	return 0;
}

static int index_type(struct bpftune_kbtf *k, __u32 id,
		      const struct btf_type *t, __u32 off, void *ctx)
{
	(void)t;
	(void)ctx;
	if (id > k->nr)
		return -EINVAL;
	k->offs[id - 1] = off;
	return 0;
}

static int read_header(struct bpftune_kbtf *k)
{
	struct btf_header h;

	if (pread_full(k->fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h))
		return -EINVAL;
	if (h.magic != BTF_MAGIC || h.version != BTF_VERSION ||
	    h.hdr_len < sizeof(h) || h.type_off > UINT32_MAX - h.type_len ||
	    h.str_off > UINT32_MAX - h.str_len)
		return -EINVAL;
	k->types = (__u64)h.hdr_len + h.type_off;
	k->type_len = h.type_len;
	k->strs = (__u64)h.hdr_len + h.str_off;
	k->str_len = h.str_len;
	return 0;
}

int bpftune_kbtf_open(const char *path, struct bpftune_kbtf **kp)
{
	struct bpftune_kbtf *k = calloc(1, sizeof(*k));
	int err;

	if (!k)
		return -ENOMEM;
	k->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (k->fd < 0) {
		err = -errno;
		free(k);
		return err;
	}
	/* two passes: count, then index (no realloc of a 0.5 MB array) */
	err = read_header(k);
	err = err ?: scan_types(k, count_type, NULL);
	if (!err) {
		k->offs = malloc((k->nr ? k->nr : 1) * sizeof(*k->offs));
		err = k->offs ? scan_types(k, index_type, NULL) : -ENOMEM;
	}
	if (err) {
		bpftune_kbtf_close(k);
		return err;
	}
	*kp = k;
	return 0;
}

void bpftune_kbtf_close(struct bpftune_kbtf *k)
{
	if (!k)
		return;
	if (k->fd >= 0)
		close(k->fd);
	free(k->offs);
	free(k->rec);
	free(k);
}

__u32 bpftune_kbtf_nr_types(const struct bpftune_kbtf *k)
{
	return k->nr;
}

const struct btf_type *bpftune_kbtf_type(struct bpftune_kbtf *k, __u32 id)
{
	struct btf_type h;
	__u64 pos;
	size_t sz;

	if (!id || id > k->nr)
		return NULL;
	pos = k->types + k->offs[id - 1];
	if (pread_full(k->fd, &h, sizeof(h), pos) != (ssize_t)sizeof(h))
		return NULL;
	sz = bpftune_btf_rec_size(&h);
	if (!sz || sz > REC_MAX)
		return NULL;
	if (sz > k->rec_len) {
		char *p = realloc(k->rec, sz);

		if (!p)
			return NULL;
		k->rec = p;
		k->rec_len = sz;
	}
	if (pread_full(k->fd, k->rec, sz, pos) != (ssize_t)sz)
		return NULL;
	return (const struct btf_type *)k->rec;
}

const char *bpftune_kbtf_str(struct bpftune_kbtf *k, __u32 off, char *buf,
			     size_t len)
{
	ssize_t n;
	size_t want = len - 1;

	if (!len || off >= k->str_len)
		return NULL;
	if (want > k->str_len - off)
		want = k->str_len - off;
	n = pread_full(k->fd, buf, want, k->strs + off);
	if (n < 0)
		return NULL;
	buf[n] = '\0';
	return buf;
}

/* FNV-1a over a NUL-terminated string */
static __u32 hash_str(const char *s, size_t n)
{
	__u32 h = 2166136261u;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

int bpftune_kbtf_find_strs(struct bpftune_kbtf *k, const char *const *names,
			   unsigned int n, __u32 *offs)
{
	unsigned int i, slots = 1, *tab;
	struct window *w;
	__u64 pos;
	int err = 0;

	while (slots < 2 * n + 2)
		slots <<= 1;
	tab = calloc(slots, sizeof(*tab));	/* name index + 1, 0 empty */
	w = malloc(sizeof(*w));
	if (!tab || !w) {
		free(tab);
		free(w);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		unsigned int s = hash_str(names[i], strlen(names[i])) & (slots - 1);

		offs[i] = 0;
		while (tab[s])
			s = (s + 1) & (slots - 1);
		tab[s] = i + 1;
	}
	w->fd = k->fd;
	w->end = k->strs + k->str_len;
	w->lo = w->hi = 0;
	for (pos = k->strs; pos < w->end;) {
		const char *p = win_at(w, pos, 1), *nul;
		size_t avail, len;
		unsigned int s;

		if (!p) {
			err = -EINVAL;
			break;
		}
		avail = w->hi - pos;
		nul = memchr(p, '\0', avail);
		if (!nul) {
			/*
			 * the string runs past the window: refill at its start,
			 * unless the window already starts there (the file ends
			 * before the header says)
			 */
			if (avail >= WINDOW || w->hi >= w->end || w->lo == pos) {
				err = -EINVAL;
				break;
			}
			w->lo = w->hi = 0;
			continue;
		}
		len = nul - p;
		/* the empty name is offset 0, wherever else an empty string is */
		for (s = hash_str(p, len) & (slots - 1); len && tab[s]; s = (s + 1) & (slots - 1)) {
			const char *want = names[tab[s] - 1];

			if (strlen(want) == len && !memcmp(want, p, len) && pos > k->strs)
				offs[tab[s] - 1] = pos - k->strs;
		}
		pos += len + 1;
	}
	free(tab);
	free(w);
	return err;
}

struct find_ctx {
	const __u32 *offs;
	unsigned int n;
	void (*fn)(__u32 id, const struct btf_type *t, unsigned int which, void *ctx);
	void *ctx;
};

static int match_type(struct bpftune_kbtf *k, __u32 id,
		      const struct btf_type *t, __u32 off, void *ctx)
{
	struct find_ctx *f = ctx;
	unsigned int i;

	(void)k;
	(void)off;
	if (!t->name_off)
		return 0;
	for (i = 0; i < f->n; i++)
		if (f->offs[i] == t->name_off)
			f->fn(id, t, i, f->ctx);
	return 0;
}

int bpftune_kbtf_find_types(struct bpftune_kbtf *k, const __u32 *offs,
			    unsigned int n,
			    void (*fn)(__u32 id, const struct btf_type *t,
				       unsigned int which, void *ctx),
			    void *ctx)
{
	struct find_ctx f = { .offs = offs, .n = n, .fn = fn, .ctx = ctx };

	return scan_types(k, match_type, &f);
}

struct first_ctx {
	int kind;
	int id;
};

static void first_of_kind(__u32 id, const struct btf_type *t, unsigned int which,
			  void *ctx)
{
	struct first_ctx *c = ctx;

	(void)which;
	if (c->id < 0 && (int)BTF_INFO_KIND(t->info) == c->kind)
		c->id = id;
}

int bpftune_kbtf_find(struct bpftune_kbtf *k, const char *name, int kind)
{
	struct first_ctx c = { .kind = kind, .id = -ENOENT };
	__u32 off;
	int err;

	err = bpftune_kbtf_find_strs(k, &name, 1, &off);
	if (err)
		return err;
	if (!off)
		return -ENOENT;
	err = bpftune_kbtf_find_types(k, &off, 1, first_of_kind, &c);
	return err ?: c.id;
}
