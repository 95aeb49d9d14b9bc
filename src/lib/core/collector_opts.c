// SPDX-License-Identifier: GPL-2.0-only
/*
 * The collectors' options (--buffer-size, --keep-observer) and the one
 * thing the daemon does with them itself: the size of a collector's own
 * ring buffers, set between open and load (libbpftune.h).
 */
#include <errno.h>
#include <string.h>
#include <bpf/libbpf.h>

#include "core/internal.h"

#define RINGBUF_SHARED	"bpftune_ringbuf"
/* the kernel takes at most this much for one ring buffer */
#define RINGBUF_MAX	(1UL << 30)

static struct bpftune_collector_opts opts;

void bpftune_set_collector_opts(const struct bpftune_collector_opts *o)
{
	opts = *o;
}

const struct bpftune_collector_opts *bpftune_collector_opts(void)
{
	return &opts;
}

unsigned long bpftune_collector_ringbuf_bytes(unsigned long kb, int ncpus)
{
	unsigned long want, size = 4096;

	if (ncpus <= 0)
		ncpus = 1;
	if (kb > RINGBUF_MAX / 1024 / (unsigned long)ncpus)
		return RINGBUF_MAX;
	want = kb * 1024 * (unsigned long)ncpus;
	while (size < want)
		size <<= 1;
	return size;
}

int bpftune_collector_size_buffers(struct bpftune_tuner *t)
{
	int ncpus = libbpf_num_possible_cpus();
	struct bpf_map *map;

	if (t->ops->kind != BPFTUNE_KIND_COLLECTOR || !opts.buffer_kb)
		return 0;
	if (ncpus <= 0)
		return ncpus ? ncpus : -EINVAL;
	bpf_object__for_each_map(map, t->obj) {
		unsigned long size = bpftune_collector_ringbuf_bytes(opts.buffer_kb, ncpus);
		int err;

		if (bpf_map__type(map) != BPF_MAP_TYPE_RINGBUF ||
		    !strcmp(bpf_map__name(map), RINGBUF_SHARED))
			continue;
		err = bpf_map__set_max_entries(map, size);
		if (err) {
			bpftune_log(LOG_ERR, "collector %s: cannot size ring buffer %s to %lu bytes: %s",
				    t->ops->name, bpf_map__name(map), size, strerror(-err));
			return err;
		}
	}
	return 0;
}
