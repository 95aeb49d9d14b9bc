// SPDX-License-Identifier: GPL-2.0-only
/*
 * CO-RE relocation records of a BPF object image (see core_relo.h).  The
 * .BTF.ext layout: a header whose optional tail gives the CO-RE part's
 * offset and length (relative to the end of the header); that part is a
 * record size, then per program section {section name, count, records}.
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>

#include "btf/core_relo.h"

#define BTF_EXT_MAGIC	0xeB9F

struct ext_header {
	__u16 magic;
	__u8 version;
	__u8 flags;
	__u32 hdr_len;
	__u32 func_info_off, func_info_len;
	__u32 line_info_off, line_info_len;
	__u32 core_relo_off, core_relo_len;	/* optional */
};

static __u32 get32(const unsigned char *p)
{
	__u32 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

int bpftune_core_relos(const void *ext, size_t len,
		       int (*fn)(const struct bpf_core_relo *r, void *ctx),
		       void *ctx)
{
	const unsigned char *p = ext, *end;
	struct ext_header h = { 0 };
	__u32 rec_size;
	size_t hl;

	if (len < 8)
		return -EINVAL;
	memcpy(&h, p, 8);
	hl = h.hdr_len;
	if (h.magic != BTF_EXT_MAGIC || hl < 8 || hl > len)
		return -EINVAL;
	memcpy(&h, p, hl < sizeof(h) ? hl : sizeof(h));
	if (hl < sizeof(h) || !h.core_relo_len)
		return 0;	/* no CO-RE part */
	if (h.core_relo_off > len - hl || h.core_relo_len > len - hl - h.core_relo_off ||
	    h.core_relo_len < sizeof(__u32))
		return -EINVAL;
	p += hl + h.core_relo_off;
	end = p + h.core_relo_len;
	rec_size = get32(p);
	p += sizeof(__u32);
	if (rec_size < sizeof(struct bpf_core_relo) || rec_size > 256)
		return -EINVAL;
	while (p < end) {
		__u32 num, i;

		if ((size_t)(end - p) < 2 * sizeof(__u32))
			return -EINVAL;
		num = get32(p + sizeof(__u32));
		p += 2 * sizeof(__u32);
		if (num > (size_t)(end - p) / rec_size)
			return -EINVAL;
		for (i = 0; i < num; i++, p += rec_size) {
			struct bpf_core_relo r;
			int err;

			memcpy(&r, p, sizeof(r));
			err = fn(&r, ctx);
			if (err)
				return err;
		}
	}
	return 0;
}

int bpftune_obj_btf_sections(const void *image, size_t len,
			     const void **btf, size_t *btf_len,
			     const void **ext, size_t *ext_len)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	Elf *e;
	int err = -EINVAL;

	*btf = *ext = NULL;
	*btf_len = *ext_len = 0;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	/* read only: libelf converts nothing for a same-endian object */
	e = elf_memory((char *)image, len);
	if (!e)
		return -EINVAL;
	if (elf_kind(e) != ELF_K_ELF || elf_getshdrstrndx(e, &shstrndx))
		goto out;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			goto out;
		name = elf_strptr(e, shstrndx, sh.sh_name);
		if (!name || (strcmp(name, ".BTF") && strcmp(name, ".BTF.ext")))
			continue;
		d = elf_rawdata(scn, NULL);
		if (!d || !d->d_buf)
			goto out;
		if (!strcmp(name, ".BTF")) {
			*btf = d->d_buf;
			*btf_len = d->d_size;
		} else {
			*ext = d->d_buf;
			*ext_len = d->d_size;
		}
	}
	err = *btf ? 0 : -EINVAL;
out:
	elf_end(e);
	return err;
}
