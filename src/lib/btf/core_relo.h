/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The CO-RE relocations of a BPF object, read from its ELF image: the
 * .BTF and .BTF.ext sections, and the records of .BTF.ext's CO-RE part.
 * libbpf has no public API for the records; the format is the kernel's
 * (struct bpf_core_relo in linux/bpf.h, grouped per program section).
 */
#ifndef BPFTUNE_CORE_RELO_H
#define BPFTUNE_CORE_RELO_H

#include <stddef.h>
#include <linux/bpf.h>
#include <linux/types.h>

/*
 * The .BTF and .BTF.ext sections of an ELF object in memory (pointers into
 * @image).  .BTF.ext may be missing (no relocations): *ext is NULL then.
 * 0, or -EINVAL if the image is not an ELF object with a .BTF section.
 */
int bpftune_obj_btf_sections(const void *image, size_t len,
			     const void **btf, size_t *btf_len,
			     const void **ext, size_t *ext_len);

/*
 * Call @fn for each CO-RE relocation record in the .BTF.ext bytes @ext;
 * stops at @fn's first non-zero return and returns it.  0, or -EINVAL for
 * a malformed section (every length and count is checked against @len).
 */
int bpftune_core_relos(const void *ext, size_t len,
		       int (*fn)(const struct bpf_core_relo *r, void *ctx),
		       void *ctx);

#endif /* BPFTUNE_CORE_RELO_H */
