// SPDX-License-Identifier: GPL-2.0-only
/*
 * Detaching a tracepoint attached through perf (a tracepoint program, a
 * kprobe) waits for a grace period in the kernel: 50-70 ms each here, so a
 * tuner with a few of them took a quarter of a second to stop.  The links
 * of one object are independent: each is destroyed on a thread of its own
 * and the waits overlap.
 */
#include <pthread.h>
#include <stdlib.h>
#include <bpf/libbpf.h>

#include "loader/loader.h"

#define LINK_THREADS_MAX	16

struct link_share {
	struct bpf_link **links;
	unsigned int num, first, stride;
};

static void *destroy_share(void *arg)
{
	const struct link_share *s = arg;
	unsigned int i;

	for (i = s->first; i < s->num; i += s->stride)
		bpf_link__destroy(s->links[i]);
	return NULL;
}

void bpftune_links_destroy(struct bpf_link **links, unsigned int num)
{
	struct link_share share[LINK_THREADS_MAX];
	pthread_t tid[LINK_THREADS_MAX];
	bool started[LINK_THREADS_MAX] = { false };
	unsigned int n = num < LINK_THREADS_MAX ? num : LINK_THREADS_MAX, i;

	for (i = 0; i < n; i++) {
		share[i] = (struct link_share){ links, num, i, n };
		/* the first share is this thread's own, as is any not started */
		if (i)
			started[i] = !pthread_create(&tid[i], NULL, destroy_share,
						     &share[i]);
	}
	for (i = 0; i < n; i++)
		if (!started[i])
			destroy_share(&share[i]);
	for (i = 1; i < n; i++)
		if (started[i])
			pthread_join(tid[i], NULL);
}
