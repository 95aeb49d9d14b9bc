// SPDX-License-Identifier: GPL-2.0-only
/*
 * A minimal kernel BTF for one BPF object's CO-RE relocations (btf_min.h).
 *
 * For each relocation, as libbpf resolves it: the local access spec
 * ("0:3:1": an index into the root, then member or array indices) gives
 * the member names along the path; the candidates are the kernel types
 * with the root's name (without a "___flavor" suffix) and kind.  In each
 * candidate, every named access is matched as libbpf's
 * bpf_core_match_member() does it - the first member of that name in
 * order, looking into anonymous struct/union members - and every array
 * access needs an array.  The output keeps, per kernel composite, the
 * members some path went through (with their bit offsets and bitfield
 * sizes, in the kernel's order) and the full type of each: ints, enums
 * and arrays as they are, composites with the members some path needs
 * (else only their size), pointers as void * (libbpf only asks that a
 * pointer be a pointer).  Typedefs and modifiers are left out: libbpf
 * skips them on both sides.  Whether a candidate's field is compatible is
 * then decided by libbpf on exactly the data it would have looked at.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>

#include "btf/btf_min.h"
#include "btf/core_relo.h"
#include "btf/kbtf.h"

#define MAX_ACC		64	/* libbpf's BPF_CORE_SPEC_MAX_LEN */
#define MAX_DEPTH	32
#define NAME_MAX_LEN	128

struct spec {
	int kind;		/* enum bpf_core_relo_kind */
	int root;		/* names[] index of the root's essential name */
	int root_kind;		/* BTF kind of the local root */
	int n_acc;
	int acc[MAX_ACC];	/* names[] index per named access, -1: array */
};

struct knode {
	__u32 kid;		/* kernel type (no typedef or modifier) */
	__u32 *members;		/* indices of the members to keep, sorted */
	unsigned int n_members;
	int new_id;		/* in the output: 0 not yet, -1 in progress */
};

struct min_ctx {
	struct bpftune_kbtf *k;
	const struct btf *local;
	char **names;
	unsigned int n_names;
	__u32 *offs;		/* kernel string offset of each name */
	__u32 **cands;		/* per name: kernel ids with that name */
	unsigned int *n_cands;
	struct spec *specs;
	unsigned int n_specs;
	struct knode *nodes;
	unsigned int n_nodes;
	__u32 *roots;		/* matched candidates, as found (typedefs kept) */
	unsigned int n_roots;
	struct btf *out;
	int void_ptr;
};

static int grow(void **p, size_t elem, unsigned int n)
{
	void *q;

	if (n & (n - 1))
		return 0;	/* capacity doubles at powers of two */
	q = realloc(*p, elem * (n ? 2 * n : 1));
	if (!q)
		return -ENOMEM;
	*p = q;
	return 0;
}

/* libbpf's flavor rule: "name___flavor" is "name" */
static size_t essential_len(const char *name)
{
	long n = strlen(name), i;

	for (i = n - 5; i >= 0; i--)
		if (name[i] != '_' && !strncmp(name + i + 1, "___", 3) && name[i + 4] != '_')
			return i + 1;
	return n;
}

static int name_index(struct min_ctx *c, const char *name, size_t len)
{
	unsigned int i;
	char *s;

	for (i = 0; i < c->n_names; i++)
		if (strlen(c->names[i]) == len && !strncmp(c->names[i], name, len))
			return i;
	if (grow((void **)&c->names, sizeof(*c->names), c->n_names))
		return -ENOMEM;
	s = strndup(name, len);
	if (!s)
		return -ENOMEM;
	c->names[c->n_names] = s;
	return c->n_names++;
}

static const struct btf_type *local_skip(const struct btf *b, __u32 *id)
{
	int r = btf__resolve_type(b, *id);

	if (r < 0)
		return NULL;
	*id = r;
	return btf__type_by_id(b, r);
}

/* Parse one relocation's local side into a spec. */
static int parse_spec(struct min_ctx *c, const struct bpf_core_relo *r,
		      struct spec *s)
{
	const char *acc = btf__name_by_offset(c->local, r->access_str_off);
	const struct btf_type *t = btf__type_by_id(c->local, r->type_id);
	__u32 id = r->type_id;
	const char *name;
	char *end;
	int idx;

	if (!t || !acc)
		return -EINVAL;
	s->kind = r->kind;
	s->n_acc = 0;
	if (r->kind == BPF_CORE_TYPE_ID_LOCAL)
		return 1;	/* needs nothing from the kernel */
	if (r->kind > BPF_CORE_ENUMVAL_VALUE)
		return -EOPNOTSUPP;	/* type matches: deep comparison */
	/*
	 * Candidates are found by the relocation's own type: its name and
	 * kind, a typedef's too (an anonymous struct behind a typedef is
	 * relocated through the typedef's name).
	 */
	name = btf__name_by_offset(c->local, t->name_off);
	if (!name || !*name)
		return -EINVAL;	/* libbpf cannot relocate anonymous roots either */
	s->root_kind = btf_kind(t);
	s->root = name_index(c, name, essential_len(name));
	if (s->root < 0)
		return s->root;
	if (r->kind >= BPF_CORE_TYPE_ID_TARGET && r->kind <= BPF_CORE_TYPE_SIZE) {
		/* type-based: by name; deep type comparisons are not kept here */
		t = local_skip(c->local, &id);
		if (!t || (!btf_is_composite(t) && !btf_is_any_enum(t)))
			return -EOPNOTSUPP;
	}
	if (r->kind >= BPF_CORE_TYPE_ID_TARGET)
		return 0;	/* type and enum value relocations: the root is enough */
	/* field: skip the index into the root, then one access per number */
	idx = strtol(acc, &end, 10);
	(void)idx;
	while (*end == ':') {
		const struct btf_member *m;

		idx = strtol(end + 1, &end, 10);
		t = local_skip(c->local, &id);
		if (!t || idx < 0 || s->n_acc >= MAX_ACC)
			return -EINVAL;
		if (btf_is_array(t)) {
			s->acc[s->n_acc++] = -1;
			id = btf_array(t)->type;
			continue;
		}
		if (!btf_is_composite(t) || idx >= btf_vlen(t))
			return -EINVAL;
		m = btf_members(t) + idx;
		name = btf__name_by_offset(c->local, m->name_off);
		if (name && *name) {
			int n = name_index(c, name, strlen(name));

			if (n < 0)
				return n;
			s->acc[s->n_acc++] = n;
		}
		id = m->type;
	}
	return *end ? -EINVAL : 0;
}

static int add_relo(const struct bpf_core_relo *r, void *ctx)
{
	struct min_ctx *c = ctx;
	int err;

	if (grow((void **)&c->specs, sizeof(*c->specs), c->n_specs))
		return -ENOMEM;
	err = parse_spec(c, r, &c->specs[c->n_specs]);
	if (err == 1)
		return 0;
	if (err)
		return err;
	c->n_specs++;
	return 0;
}

static void add_cand(__u32 id, const struct btf_type *t, unsigned int which, void *ctx)
{
	struct min_ctx *c = ctx;

	(void)t;
	if (grow((void **)&c->cands[which], sizeof(**c->cands), c->n_cands[which]))
		return;
	c->cands[which][c->n_cands[which]++] = id;
}

/* A kernel type record, copied (the reader's buffer is reused). */
static struct btf_type *kcopy(struct min_ctx *c, __u32 id)
{
	const struct btf_type *t = bpftune_kbtf_type(c->k, id);
	size_t sz;
	void *p;

	if (!t)
		return NULL;
	sz = bpftune_btf_rec_size(t);
	p = malloc(sz);
	if (p)
		memcpy(p, t, sz);
	return p;
}

/* Follow typedefs and modifiers; the resolved id, or 0. */
static __u32 kskip(struct min_ctx *c, __u32 id)
{
	int depth;

	for (depth = 0; id && depth < MAX_DEPTH; depth++) {
		const struct btf_type *t = bpftune_kbtf_type(c->k, id);

		if (!t)
			return 0;
		switch (BTF_INFO_KIND(t->info)) {
		case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE: case BTF_KIND_CONST:
		case BTF_KIND_RESTRICT: case BTF_KIND_TYPE_TAG:
			id = t->type;
			continue;
		default:
			return id;
		}
	}
	return 0;
}

static struct knode *node(struct min_ctx *c, __u32 kid)
{
	unsigned int i;

	for (i = 0; i < c->n_nodes; i++)
		if (c->nodes[i].kid == kid)
			return &c->nodes[i];
	if (grow((void **)&c->nodes, sizeof(*c->nodes), c->n_nodes))
		return NULL;
	memset(&c->nodes[c->n_nodes], 0, sizeof(c->nodes[0]));
	c->nodes[c->n_nodes].kid = kid;
	return &c->nodes[c->n_nodes++];
}

static int keep_member(struct min_ctx *c, __u32 kid, __u32 idx)
{
	struct knode *n = node(c, kid);
	unsigned int i, j;

	if (!n)
		return -ENOMEM;
	for (i = 0; i < n->n_members && n->members[i] < idx; i++)
		;
	if (i < n->n_members && n->members[i] == idx)
		return 0;
	if (grow((void **)&n->members, sizeof(*n->members), n->n_members))
		return -ENOMEM;
	for (j = n->n_members; j > i; j--)
		n->members[j] = n->members[j - 1];
	n->members[i] = idx;
	n->n_members++;
	return 0;
}

/* A path found in one candidate: (composite, member index) pairs. */
struct path {
	__u32 kid[MAX_ACC * 4];
	__u32 idx[MAX_ACC * 4];
	unsigned int len;
};

/* The member named by kernel string @name_off in composite @kid, as libbpf. */
static int find_member(struct min_ctx *c, __u32 kid, __u32 name_off,
		       struct path *p, __u32 *next, int depth)
{
	struct btf_type *t;
	struct btf_member *m;
	int i, found = 0;

	if (depth > MAX_DEPTH || p->len >= sizeof(p->kid) / sizeof(p->kid[0]))
		return -ELOOP;
	t = kcopy(c, kid);
	if (!t)
		return -EINVAL;
	if (!btf_is_composite(t))
		goto out;
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t) && !found; i++, m++) {
		p->kid[p->len] = kid;
		p->idx[p->len++] = i;
		if (!m->name_off) {
			__u32 sub = kskip(c, m->type);

			found = sub ? find_member(c, sub, name_off, p, next, depth + 1) : 0;
		} else if (m->name_off == name_off) {
			*next = m->type;
			found = 1;
		}
		if (!found)
			p->len--;
	}
out:
	free(t);
	return found;
}

/* Walk @s through candidate @cand; keep what it went through if it matched. */
static int walk(struct min_ctx *c, const struct spec *s, __u32 cand)
{
	struct path p = { .len = 0 };
	__u32 cur = cand;
	unsigned int i;
	int a, found;

	for (a = 0; a < s->n_acc; a++) {
		const struct btf_type *t;

		cur = kskip(c, cur);
		t = cur ? bpftune_kbtf_type(c->k, cur) : NULL;
		if (!t)
			return 0;
		if (s->acc[a] < 0) {
			if (!btf_is_array(t))
				return 0;
			cur = btf_array(t)->type;
			continue;
		}
		if (!c->offs[s->acc[a]])
			return 0;	/* no such name anywhere in the kernel */
		found = find_member(c, cur, c->offs[s->acc[a]], &p, &cur, 0);
		if (found <= 0)
			return found;
	}
	for (i = 0; i < p.len; i++)
		if (keep_member(c, p.kid[i], p.idx[i]))
			return -ENOMEM;
	return 1;
}

/* A candidate some relocation matched: it is looked up by its own name. */
static int add_root(struct min_ctx *c, __u32 cand)
{
	unsigned int i;

	for (i = 0; i < c->n_roots; i++)
		if (c->roots[i] == cand)
			return 0;
	if (grow((void **)&c->roots, sizeof(*c->roots), c->n_roots))
		return -ENOMEM;
	c->roots[c->n_roots++] = cand;
	return 0;
}

static int same_kind(int local, int kernel)
{
	if (local == BTF_KIND_ENUM || local == BTF_KIND_ENUM64)
		return kernel == BTF_KIND_ENUM || kernel == BTF_KIND_ENUM64;
	return local == kernel;
}

static int mark_all(struct min_ctx *c)
{
	unsigned int i, j;
	int err;

	for (i = 0; i < c->n_specs; i++) {
		const struct spec *s = &c->specs[i];

		for (j = 0; j < c->n_cands[s->root]; j++) {
			__u32 cand = c->cands[s->root][j];
			const struct btf_type *t = bpftune_kbtf_type(c->k, cand);

			if (!t || !same_kind(s->root_kind, BTF_INFO_KIND(t->info)))
				continue;
			err = s->kind >= BPF_CORE_TYPE_ID_TARGET ? 1 : walk(c, s, cand);
			if (err > 0)
				err = add_root(c, cand);
			if (err < 0)
				return err;
		}
	}
	return 0;
}

static const char *kname(struct min_ctx *c, __u32 off, char *buf)
{
	if (!off)
		return NULL;
	return bpftune_kbtf_str(c->k, off, buf, NAME_MAX_LEN);
}

static int emit(struct min_ctx *c, __u32 kid, int depth);

/*
 * @members, @count: the node's kept members (the node itself may move
 * while the member types are emitted: the node array grows).
 */
static int emit_composite(struct min_ctx *c, const __u32 *members,
			  unsigned int count, struct btf_type *t, int depth)
{
	const struct btf_member *m = btf_members(t);
	char buf[NAME_MAX_LEN];
	int *types, id, err = 0;
	unsigned int i;

	types = calloc(count ? count : 1, sizeof(*types));
	if (!types)
		return -ENOMEM;
	for (i = 0; i < count && err >= 0; i++) {
		if (members[i] >= btf_vlen(t))
			err = -EINVAL;
		else
			err = types[i] = emit(c, m[members[i]].type, depth + 1);
	}
	if (err < 0)
		goto out;
	id = btf_is_struct(t) ? btf__add_struct(c->out, kname(c, t->name_off, buf), t->size) :
				btf__add_union(c->out, kname(c, t->name_off, buf), t->size);
	err = id;
	for (i = 0; i < count && err >= 0; i++) {
		__u32 mi = members[i];

		err = btf__add_field(c->out, kname(c, m[mi].name_off, buf), types[i],
				     btf_member_bit_offset(t, mi),
				     btf_member_bitfield_size(t, mi));
	}
	if (err >= 0)
		err = id;
out:
	free(types);
	return err;
}

static int emit_enum(struct min_ctx *c, struct btf_type *t)
{
	char buf[NAME_MAX_LEN], vbuf[NAME_MAX_LEN];
	int i, id, err = 0;

	if (btf_is_enum(t)) {
		const struct btf_enum *e = btf_enum(t);

		id = btf__add_enum(c->out, kname(c, t->name_off, buf), t->size);
		for (i = 0; i < btf_vlen(t) && id >= 0 && !err; i++, e++)
			err = btf__add_enum_value(c->out, kname(c, e->name_off, vbuf), e->val);
	} else {
		const struct btf_enum64 *e = btf_enum64(t);

		id = btf__add_enum64(c->out, kname(c, t->name_off, buf), t->size,
				     btf_kflag(t));
		for (i = 0; i < btf_vlen(t) && id >= 0 && !err; i++, e++)
			err = btf__add_enum64_value(c->out, kname(c, e->name_off, vbuf),
						    btf_enum64_value(e));
	}
	return err < 0 ? err : id;
}

/* The output id of kernel type @kid (typedefs and modifiers skipped). */
static int emit(struct min_ctx *c, __u32 kid, int depth)
{
	char buf[NAME_MAX_LEN];
	struct btf_type *t;
	struct knode *n;
	int id, elem, index;

	kid = kskip(c, kid);
	if (!kid)
		return 0;	/* void */
	if (depth > MAX_DEPTH)
		return -ELOOP;
	n = node(c, kid);
	if (!n)
		return -ENOMEM;
	if (n->new_id)
		return n->new_id > 0 ? n->new_id : -ELOOP;
	t = kcopy(c, kid);
	if (!t)
		return -EINVAL;
	n->new_id = -1;
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
		id = btf_int_offset(t) || btf_int_bits(t) != t->size * 8 ? -EOPNOTSUPP :
		     btf__add_int(c->out, kname(c, t->name_off, buf), t->size,
				  btf_int_encoding(t));
		break;
	case BTF_KIND_PTR:
		if (!c->void_ptr)
			c->void_ptr = btf__add_ptr(c->out, 0);
		id = c->void_ptr;
		break;
	case BTF_KIND_ARRAY:
		elem = emit(c, btf_array(t)->type, depth + 1);
		index = elem < 0 ? elem : emit(c, btf_array(t)->index_type, depth + 1);
		id = index < 0 ? index :
		     btf__add_array(c->out, index, elem, btf_array(t)->nelems);
		break;
	case BTF_KIND_STRUCT: case BTF_KIND_UNION:
		/* marking is over: the member list itself no longer changes */
		id = emit_composite(c, n->members, n->n_members, t, depth);
		break;
	case BTF_KIND_ENUM: case BTF_KIND_ENUM64:
		id = emit_enum(c, t);
		break;
	case BTF_KIND_FWD:
		id = btf__add_fwd(c->out, kname(c, t->name_off, buf),
				  btf_kflag(t) ? BTF_FWD_UNION : BTF_FWD_STRUCT);
		break;
	case BTF_KIND_FLOAT:
		id = btf__add_float(c->out, kname(c, t->name_off, buf), t->size);
		break;
	default:
		id = -EOPNOTSUPP;
	}
	free(t);
	n = node(c, kid);	/* emit() of members may have grown the array */
	n->new_id = id < 0 ? 0 : id;
	return id;
}

/* A root as found: a typedef stays a typedef (of its emitted type). */
static int emit_root(struct min_ctx *c, __u32 kid)
{
	const struct btf_type *t = bpftune_kbtf_type(c->k, kid);
	char buf[NAME_MAX_LEN];
	__u32 name_off, under;
	int id;

	if (!t)
		return -EINVAL;
	if (!btf_is_typedef(t))
		return emit(c, kid, 0);
	name_off = t->name_off;
	under = t->type;
	id = emit(c, under, 0);
	return id < 0 ? id : btf__add_typedef(c->out, kname(c, name_off, buf), id);
}

static void ctx_free(struct min_ctx *c)
{
	unsigned int i;

	for (i = 0; i < c->n_names; i++) {
		free(c->names[i]);
		if (c->cands)
			free(c->cands[i]);
	}
	for (i = 0; i < c->n_nodes; i++)
		free(c->nodes[i].members);
	free(c->roots);
	free(c->names);
	free(c->offs);
	free(c->cands);
	free(c->n_cands);
	free(c->specs);
	free(c->nodes);
	btf__free(c->out);
}

static int lookup_names(struct min_ctx *c)
{
	int err;

	c->offs = calloc(c->n_names, sizeof(*c->offs));
	c->cands = calloc(c->n_names, sizeof(*c->cands));
	c->n_cands = calloc(c->n_names, sizeof(*c->n_cands));
	if (!c->offs || !c->cands || !c->n_cands)
		return -ENOMEM;
	err = bpftune_kbtf_find_strs(c->k, (const char *const *)c->names,
				     c->n_names, c->offs);
	return err ?: bpftune_kbtf_find_types(c->k, c->offs, c->n_names, add_cand, c);
}

int bpftune_btf_min_ext(struct bpftune_kbtf *k, const struct btf *local,
			const void *ext, size_t ext_len, void **data, __u32 *size)
{
	struct min_ctx c = { .k = k, .local = local };
	const void *raw;
	unsigned int i;
	int err;

	err = bpftune_core_relos(ext, ext_len, add_relo, &c);
	if (!err && !c.n_specs)
		err = -ENOENT;
	err = err ?: lookup_names(&c);
	err = err ?: mark_all(&c);
	if (!err) {
		c.out = btf__new_empty();
		err = c.out ? 0 : -ENOMEM;
	}
	for (i = 0; !err && i < c.n_roots; i++) {
		int id = emit_root(&c, c.roots[i]);

		err = id < 0 ? id : 0;
	}
	if (!err) {
		raw = btf__raw_data(c.out, size);
		*data = raw ? malloc(*size) : NULL;
		if (*data)
			memcpy(*data, raw, *size);
		else
			err = -ENOMEM;
	}
	ctx_free(&c);
	return err;
}

int bpftune_btf_min(struct bpftune_kbtf *k, const void *image, size_t len,
		    void **data, __u32 *size)
{
	const void *btf, *ext;
	size_t btf_len, ext_len;
	struct btf *local;
	int err;

	err = bpftune_obj_btf_sections(image, len, &btf, &btf_len, &ext, &ext_len);
	if (err)
		return err;
	if (!ext)
		return -ENOENT;
	local = btf__new(btf, btf_len);
	if (!local)
		return -errno ? -errno : -EINVAL;
	err = bpftune_btf_min_ext(k, local, ext, ext_len, data, size);
	btf__free(local);
	return err;
}
