// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sleeping gates' alarm (gate_wake.h).  The object is loaded when a
 * gate that may sleep is set, and kept; its ring buffer's epoll fd stays
 * on the loop, so arming is the attaches alone (raw tracepoints, by
 * name: no BTF needed).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>

#include "base/base.h"
#include "core/gate_wake.h"
#include "core/loop.h"
#include "gate_wake.skel.h"

#define MAX_LINKS	8

static struct gate_wake_bpf *skel;
static struct ring_buffer *rb;
static struct bpf_link *links[MAX_LINKS];
static char link_names[MAX_LINKS][64];
static unsigned int num_links;
static bpftune_gate_wake_fn wake_fn;
static bool rung;

static int on_ring(void *ctx, void *data, size_t len)
{
	(void)ctx;
	(void)data;
	(void)len;
	rung = true;
	return 0;
}

static void on_readable(int fd, uint32_t events, void *ctx)
{
	bpftune_gate_wake_fn fn = wake_fn;

	(void)fd;
	(void)events;
	(void)ctx;
	rung = false;
	ring_buffer__consume(rb);
	/* a late record of an alarm already handled rings nothing */
	if (!rung || !num_links)
		return;
	/* @fn disarms (and measures what that costs) */
	if (fn)
		fn();
	else
		bpftune_gate_wake_disarm();
}

int bpftune_gate_wake_load(void)
{
	int err;

	if (skel)
		return 0;
	bpftune_cap_raise();
	skel = gate_wake_bpf__open_and_load();
	bpftune_cap_lower();
	if (!skel)
		return errno ? -errno : -EINVAL;
	rb = ring_buffer__new(bpf_map__fd(skel->maps.gate_wake_ringbuf), on_ring, NULL, NULL);
	if (!rb)
		err = errno ? -errno : -ENOMEM;
	else
		err = bpftune_loop_add(ring_buffer__epoll_fd(rb), on_readable, NULL);
	if (err) {
		bpftune_gate_wake_fini();
		return err;
	}
	return 0;
}

/* attach to @name unless attached already: 0 or -errno */
static int attach_one(const char *name)
{
	struct bpf_link *l;
	unsigned int i;

	for (i = 0; i < num_links; i++)
		if (!strcmp(link_names[i], name))
			return 0;
	if (num_links == MAX_LINKS)
		return -E2BIG;
	l = bpf_program__attach_raw_tracepoint(skel->progs.gate_wake, name);
	if (!l)
		return errno ? -errno : -EINVAL;
	snprintf(link_names[num_links], sizeof(link_names[num_links]), "%s", name);
	links[num_links++] = l;
	return 0;
}

int bpftune_gate_wake_arm(const char *tps, bpftune_gate_wake_fn fn)
{
	char name[64];
	size_t n;
	int err;

	bpftune_gate_wake_disarm();
	err = bpftune_gate_wake_load();
	if (err)
		return err;
	bpftune_cap_raise();
	while (!err && tps && *tps) {
		tps += strspn(tps, " ");
		n = strcspn(tps, " ");
		if (!n)
			break;
		if (n >= sizeof(name)) {
			err = -ENAMETOOLONG;
			break;
		}
		memcpy(name, tps, n);
		name[n] = '\0';
		tps += n;
		err = attach_one(name);
	}
	bpftune_cap_lower();
	if (!err && !num_links)
		err = -EINVAL;
	if (err) {
		bpftune_gate_wake_disarm();
		return err;
	}
	wake_fn = fn;
	__atomic_store_n(&skel->bss->gate_wake_armed, 1u, __ATOMIC_RELEASE);
	return 0;
}

void bpftune_gate_wake_disarm(void)
{
	if (skel)
		__atomic_store_n(&skel->bss->gate_wake_armed, 0u, __ATOMIC_RELEASE);
	while (num_links)
		bpf_link__destroy(links[--num_links]);
	wake_fn = NULL;
}

void bpftune_gate_wake_fini(void)
{
	bpftune_gate_wake_disarm();
	if (rb) {
		bpftune_loop_del(ring_buffer__epoll_fd(rb));
		ring_buffer__free(rb);
		rb = NULL;
	}
	gate_wake_bpf__destroy(skel);
	skel = NULL;
}
