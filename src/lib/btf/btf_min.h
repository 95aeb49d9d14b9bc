/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The part of the kernel's BTF a BPF object's CO-RE relocations need, as a
 * small BTF of its own for libbpf's btf_custom_path: libbpf then never
 * parses the kernel's (megabytes, held twice while it copies them) for
 * that object.  The same idea as bpftool's "gen min_core_btf", done at
 * load time against the running kernel through the in-place reader of
 * kbtf.h.  What the relocations can see is exactly what they would see in
 * the kernel's BTF: for each relocation, the candidate types libbpf would
 * find there, with the members along its access path (offsets, bitfield
 * sizes) and the full type of the field it reads.
 */
#ifndef BPFTUNE_BTF_MIN_H
#define BPFTUNE_BTF_MIN_H

#include <stddef.h>
#include <linux/types.h>

struct bpftune_kbtf;

/*
 * The minimal BTF for the object @image (an ELF BPF object in memory):
 * raw BTF bytes in *@data (malloc'd; the caller frees) and *@size.
 * -ENOENT: the object has no CO-RE relocations (it needs no kernel BTF
 * for them); -EOPNOTSUPP: a relocation this does not handle (the caller
 * lets libbpf use the kernel's BTF); other -errno on errors.
 */
int bpftune_btf_min(struct bpftune_kbtf *k, const void *image, size_t len,
		    void **data, __u32 *size);

/* The same from the object's parsed .BTF and its raw .BTF.ext bytes. */
struct btf;
int bpftune_btf_min_ext(struct bpftune_kbtf *k, const struct btf *local,
			const void *ext, size_t ext_len, void **data, __u32 *size);

#endif /* BPFTUNE_BTF_MIN_H */
