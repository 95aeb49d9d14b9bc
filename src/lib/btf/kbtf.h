/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel's BTF, read in place.  /sys/kernel/btf/vmlinux is megabytes
 * (5.5 MB on a 6.18 kernel) and libbpf's parser holds it twice while it
 * copies it; the daemon needs a few dozen of its types.  This reader keeps
 * only an index of where each type record starts (4 bytes per type) and
 * reads records and names with pread() when asked, so looking types up
 * costs a fraction of a megabyte.  See btf_min.c for what it is used for.
 */
#ifndef BPFTUNE_KBTF_H
#define BPFTUNE_KBTF_H

#include <stddef.h>
#include <linux/btf.h>
#include <linux/types.h>

#define BPFTUNE_KBTF_PATH	"/sys/kernel/btf/vmlinux"

struct bpftune_kbtf;

/* Open a raw BTF file (the kernel's, or a test's); 0 or -errno. */
int bpftune_kbtf_open(const char *path, struct bpftune_kbtf **kp);
void bpftune_kbtf_close(struct bpftune_kbtf *k);

/* Number of types; valid ids are 1 .. this. */
__u32 bpftune_kbtf_nr_types(const struct bpftune_kbtf *k);

/*
 * Type record @id: its header, followed by its kind's data (members,
 * enumerators, ...), in a buffer of @k valid until the next call that
 * reads a type.  NULL if @id is out of range or the read fails.
 */
const struct btf_type *bpftune_kbtf_type(struct bpftune_kbtf *k, __u32 id);

/* String at @off into @buf (truncated, NUL-terminated); NULL on error. */
const char *bpftune_kbtf_str(struct bpftune_kbtf *k, __u32 off, char *buf,
			     size_t len);

/*
 * Where each of @n names is in the string section: @offs[i] is its offset,
 * or 0 if the kernel has no such string (offset 0 is the empty string).
 * One pass over the strings.  0 or -errno.
 */
int bpftune_kbtf_find_strs(struct bpftune_kbtf *k, const char *const *names,
			   unsigned int n, __u32 *offs);

/*
 * Call @fn for every type whose name offset is one of the @n @offs (one
 * pass over the types); @fn gets the index into @offs.  0 or -errno.
 */
int bpftune_kbtf_find_types(struct bpftune_kbtf *k, const __u32 *offs,
			    unsigned int n,
			    void (*fn)(__u32 id, const struct btf_type *t,
				       unsigned int which, void *ctx),
			    void *ctx);

/*
 * Convenience: the first type named @name of @kind; -ENOENT if none.
 * A pass over the strings and one over the types: for one or two names.
 */
int bpftune_kbtf_find(struct bpftune_kbtf *k, const char *name, int kind);

/* Size of a type record (header and data) from its header; 0 if unknown. */
size_t bpftune_btf_rec_size(const struct btf_type *t);

#endif /* BPFTUNE_KBTF_H */
