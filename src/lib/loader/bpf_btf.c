// SPDX-License-Identifier: GPL-2.0-only
/*
 * What loading needs from the kernel's BTF, without libbpf parsing it per
 * object (5.5 MB read and copied: a transient 11 MB each time).  The kernel
 * BTF is opened once through the in-place reader (kbtf.h: an index of 4
 * bytes per type) and kept while tuners are being loaded; each object then
 * gets the minimal BTF its CO-RE relocations need (btf_min.h) as libbpf's
 * btf_custom_path, in a memfd, and tracepoint targets are looked up in the
 * index.  bpftune_kernel_btf_release() gives the index back when start-up
 * (or a hot plug) is over.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "base/base.h"
#include "btf/btf_min.h"
#include "btf/kbtf.h"
#include "loader/loader.h"

#define MAX_PENDING	64

static struct bpftune_kbtf *kbtf;
static bool kbtf_tried;

/* memfds of minimal BTFs, until their object is loaded */
static struct {
	const struct bpf_object *obj;
	int fd;
} pending[MAX_PENDING];

struct bpftune_kbtf *bpftune_kernel_btf(void)
{
	int err;

	if (kbtf || kbtf_tried)
		return kbtf;
	kbtf_tried = true;
	err = bpftune_kbtf_open(BPFTUNE_KBTF_PATH, &kbtf);
	if (err) {
		kbtf = NULL;
		bpftune_log(LOG_DEBUG, "kernel BTF %s: %s; libbpf reads it per object",
			    BPFTUNE_KBTF_PATH, strerror(-err));
	}
	return kbtf;
}

void bpftune_kernel_btf_release(void)
{
	unsigned int i;

	bpftune_kbtf_close(kbtf);
	kbtf = NULL;
	kbtf_tried = false;
	for (i = 0; i < MAX_PENDING; i++) {
		if (pending[i].obj && pending[i].fd >= 0)
			close(pending[i].fd);
		pending[i].obj = NULL;
	}
}

int bpftune_bpf_min_btf(const void *image, size_t size, char *path,
			size_t path_len, int *fdp)
{
	struct bpftune_kbtf *k = bpftune_kernel_btf();
	void *data = NULL;
	__u32 len = 0;
	int fd, err;

	*fdp = -1;
	if (!k)
		return -ENOENT;
	err = bpftune_btf_min(k, image, size, &data, &len);
	if (err)
		return err;
	fd = memfd_create("bpftune-btf", MFD_CLOEXEC);
	if (fd < 0 || write(fd, data, len) != (ssize_t)len) {
		err = fd < 0 ? -errno : -EIO;
		if (fd >= 0)
			close(fd);
		free(data);
		return err;
	}
	free(data);
	snprintf(path, path_len, "/proc/self/fd/%d", fd);
	*fdp = fd;
	return 0;
}

void bpftune_bpf_min_btf_keep(const struct bpf_object *obj, int fd)
{
	unsigned int i;

	if (fd < 0)
		return;
	for (i = 0; i < MAX_PENDING; i++) {
		if (!pending[i].obj) {
			pending[i].obj = obj;
			pending[i].fd = fd;
			return;
		}
	}
	close(fd);	/* cannot happen: one object loads at a time */
}

void bpftune_bpf_min_btf_done(const struct bpf_object *obj)
{
	unsigned int i;

	for (i = 0; i < MAX_PENDING; i++) {
		if (pending[i].obj == obj) {
			close(pending[i].fd);
			pending[i].obj = NULL;
		}
	}
}

struct tp_ctx {
	bool *exists;
};

static void tp_found(__u32 id, const struct btf_type *t, unsigned int which, void *ctx)
{
	struct tp_ctx *c = ctx;

	(void)id;
	if (BTF_INFO_KIND(t->info) == BTF_KIND_TYPEDEF)
		c->exists[which] = true;
}

int bpftune_kernel_tracepoints(const char *const *tps, unsigned int n,
			       bool *exists)
{
	struct bpftune_kbtf *k = bpftune_kernel_btf();
	struct tp_ctx c = { .exists = exists };
	char **names;
	__u32 *offs;
	unsigned int i;
	int err = -ENOMEM;

	if (!k)
		return -ENOENT;
	names = calloc(n ? n : 1, sizeof(*names));
	offs = calloc(n ? n : 1, sizeof(*offs));
	if (!names || !offs)
		goto out;
	for (i = 0; i < n; i++) {
		exists[i] = false;
		if (asprintf(&names[i], "btf_trace_%s", tps[i]) < 0) {
			names[i] = NULL;
			goto out;
		}
	}
	err = bpftune_kbtf_find_strs(k, (const char *const *)names, n, offs);
	err = err ?: bpftune_kbtf_find_types(k, offs, n, tp_found, &c);
out:
	for (i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
	free(offs);
	return err;
}
