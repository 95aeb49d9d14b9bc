// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reading a loaded BPF object's global variables back from the kernel.
 * bpftune's own globals (tuner id, learning rate, ring buffer losses) are
 * read typed, through the plugin's skeleton (bpftune_bpf_read_config()).
 * What stays generic here is for globals whose names the library cannot
 * know: the samplers a plugin author declares (the exit summary and
 * metrics), found by their BTF type.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "loader/loader.h"

static const char *type_name(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	while (t && (btf_is_mod(t) || btf_is_typedef(t))) {
		/* keep the typedef's name for the __u32/__u64 family */
		if (btf_is_typedef(t)) {
			const char *n = btf__name_by_offset(btf, t->name_off);

			if (n && !strncmp(n, "__u", 3))
				return n;
		}
		t = btf__type_by_id(btf, t->type);
	}
	return t ? btf__name_by_offset(btf, t->name_off) : "";
}

int bpftune_bpf_vars(struct bpf_object *obj, const char *sec,
		     bpftune_var_cb cb, void *ctx)
{
	const struct btf *btf = obj ? bpf_object__btf(obj) : NULL;
	struct bpf_map *map = obj ? bpf_object__find_map_by_name(obj, sec) : NULL;
	const struct btf_var_secinfo *vsi;
	const struct btf_type *t;
	__u32 zero = 0;
	size_t size;
	char *data;
	int id, i, err = 0;

	if (!btf || !map || bpf_map__fd(map) < 0)
		return -ENOENT;
	size = bpf_map__value_size(map);
	data = calloc(1, size);
	if (!data)
		return -ENOMEM;
	if (bpf_map_lookup_elem(bpf_map__fd(map), &zero, data)) {
		err = -errno;
		goto out;
	}
	id = btf__find_by_name_kind(btf, sec, BTF_KIND_DATASEC);
	if (id < 0) {
		err = -ENOENT;
		goto out;
	}
	t = btf__type_by_id(btf, id);
	vsi = btf_var_secinfos(t);
	for (i = 0; i < btf_vlen(t); i++, vsi++) {
		const struct btf_type *v = btf__type_by_id(btf, vsi->type);

		if (!v || (size_t)vsi->offset + vsi->size > size)
			continue;
		cb(btf__name_by_offset(btf, v->name_off), type_name(btf, v->type),
		   data + vsi->offset, vsi->size, ctx);
	}
out:
	free(data);
	return err;
}

void *bpftune_bpf_var_ptr(struct bpf_object *obj, const char *sec,
			  const char *name, size_t size)
{
	const struct btf *btf = obj ? bpf_object__btf(obj) : NULL;
	struct bpf_map *map = obj ? bpf_object__find_map_by_name(obj, sec) : NULL;
	const struct btf_var_secinfo *vsi;
	const struct btf_type *t;
	size_t map_size = 0;
	char *data;
	int id, i;

	/* loaded: only a mapped section is shared with the programs */
	if (!btf || !map || !name ||
	    (bpf_map__fd(map) >= 0 && !(bpf_map__map_flags(map) & BPF_F_MMAPABLE)))
		return NULL;
	/*
	 * the mmapped map itself, or before load the image the map is
	 * created with (const in older libbpf: it is writable)
	 */
	data = (char *)(uintptr_t)bpf_map__initial_value(map, &map_size);
	id = btf__find_by_name_kind(btf, sec, BTF_KIND_DATASEC);
	if (!data || id < 0)
		return NULL;
	t = btf__type_by_id(btf, id);
	vsi = btf_var_secinfos(t);
	for (i = 0; i < btf_vlen(t); i++, vsi++) {
		const struct btf_type *v = btf__type_by_id(btf, vsi->type);

		if (v && vsi->size == size && (size_t)vsi->offset + size <= map_size &&
		    !strcmp(btf__name_by_offset(btf, v->name_off), name))
			return data + vsi->offset;
	}
	return NULL;
}
