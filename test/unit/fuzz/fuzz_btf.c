// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the readers of BTF the daemon parses itself: the
 * in-place kernel BTF reader (src/lib/btf/kbtf.c), the CO-RE records of
 * a .BTF.ext section and the ELF section finder (core_relo.c); plugin
 * objects and the BTF file come from outside the daemon.  make fuzz
 * FUZZ_TARGETS=btf (seeds in test/unit/fuzz/corpus/btf/: an object and
 * its .BTF section).
 *
 * Checks, besides the sanitizers: records handed out lie within the input,
 * every type the reader indexed can be read back with a known kind, and
 * string reads stay NUL-terminated within the buffer given.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "btf/core_relo.h"
#include "btf/kbtf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int seen(const struct bpf_core_relo *r, void *ctx)
{
	(*(unsigned long *)ctx) += r->kind;
	return 0;
}

static void fuzz_kbtf(const uint8_t *data, size_t size)
{
	static const char *const names[] = { "sock", "net", "", "btf_trace_x" };
	struct bpftune_kbtf *k;
	char path[64], buf[16];
	__u32 id, offs[4];
	int fd;

	fd = memfd_create("fuzz-btf", MFD_CLOEXEC);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size) {
		if (fd >= 0)
			close(fd);
		return;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (!bpftune_kbtf_open(path, &k)) {
		for (id = 1; id <= bpftune_kbtf_nr_types(k); id++) {
			const struct btf_type *t = bpftune_kbtf_type(k, id);

			if (!t || !bpftune_btf_rec_size(t))
				abort();
			if (bpftune_kbtf_str(k, t->name_off, buf, sizeof(buf)) &&
			    strlen(buf) >= sizeof(buf))
				abort();
		}
		if (!bpftune_kbtf_find_strs(k, names, 4, offs) && offs[2])
			abort();	/* the empty name is never looked up */
		bpftune_kbtf_find(k, "sock", 4);
		bpftune_kbtf_close(k);
	}
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const void *btf, *ext;
	size_t btf_len, ext_len;
	unsigned long sum = 0;

	bpftune_core_relos(data, size, seen, &sum);
	if (!bpftune_obj_btf_sections(data, size, &btf, &btf_len, &ext, &ext_len)) {
		const uint8_t *b = btf, *e = ext;

		if (b < data || b + btf_len > data + size)
			abort();
		if (e && (e < data || e + ext_len > data + size))
			abort();
	}
	fuzz_kbtf(data, size);
	return 0;
}
