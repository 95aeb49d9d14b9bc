// SPDX-License-Identifier: GPL-2.0-only
/*
 * The daemon's main loop: one epoll set, callbacks per fd.  The ring
 * buffer, signals, the control socket, timers (timerfd) and inotify all
 * register here; nothing wakes the daemon unless one of them is ready.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "core/internal.h"
#include "core/loop.h"

struct watch {
	struct watch *next;
	int fd;
	bpftune_fd_cb cb;
	void *ctx;
};

static int epfd = -1;
static struct watch *watches;
static struct watch *deleted;	/* freed once the current batch is done */
static bool stopping;

static void free_deleted(void)
{
	struct watch *w;

	while ((w = deleted)) {
		deleted = w->next;
		free(w);
	}
}

int bpftune_loop_init(void)
{
	if (epfd >= 0)
		return 0;
	epfd = epoll_create1(EPOLL_CLOEXEC);
	return epfd < 0 ? -errno : 0;
}

int bpftune_loop_add(int fd, bpftune_fd_cb cb, void *ctx)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct watch *w;

	if (epfd < 0 || fd < 0 || !cb)
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->fd = fd;
	w->cb = cb;
	w->ctx = ctx;
	ev.data.ptr = w;
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev)) {
		int err = -errno;

		free(w);
		return err;
	}
	w->next = watches;
	watches = w;
	return 0;
}

int bpftune_loop_del(int fd)
{
	struct watch **p, *w;

	for (p = &watches; (w = *p); p = &w->next) {
		if (w->fd != fd)
			continue;
		*p = w->next;
		epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL);
		/* a callback may delete a watch of this batch: free it later */
		w->cb = NULL;
		w->next = deleted;
		deleted = w;
		return 0;
	}
	return -ENOENT;
}

int bpftune_loop_mod(int fd, uint32_t events)
{
	struct epoll_event ev = { .events = events };
	struct watch *w;

	for (w = watches; w; w = w->next) {
		if (w->fd != fd)
			continue;
		ev.data.ptr = w;
		return epoll_ctl(epfd, EPOLL_CTL_MOD, fd, &ev) ? -errno : 0;
	}
	return -ENOENT;
}

void bpftune_loop_stop(void)
{
	stopping = true;
}

int bpftune_loop_run(void)
{
	struct epoll_event out[16];
	int n, i;

	stopping = false;
	while (!stopping) {
		n = epoll_wait(epfd, out, BPFTUNE_ARRAY_SIZE(out), -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		for (i = 0; i < n && !stopping; i++) {
			struct watch *w = out[i].data.ptr, *cur;

			/* skip watches deleted earlier in this batch */
			for (cur = watches; cur && cur != w; cur = cur->next)
				;
			if (cur && cur->cb)
				cur->cb(cur->fd, out[i].events, cur->ctx);
		}
		free_deleted();
	}
	return 0;
}

void bpftune_loop_fini(void)
{
	while (watches)
		bpftune_loop_del(watches->fd);
	free_deleted();
	if (epfd >= 0)
		close(epfd);
	epfd = -1;
}
