// SPDX-License-Identifier: GPL-2.0-only
/*
 * Network namespaces: the daemon's own (global) one, entering another one
 * for a sysctl write, and resolving the netns cookie carried by an event
 * to an fd without scanning every process.
 *
 * No netns fd is kept open between events: an open nsfs fd holds a
 * reference on its namespace, so a cached fd would keep alive a namespace
 * the admin deleted (and every device, socket and sysctl table in it).
 * The cache keeps instead what lets us open the namespace again -- its
 * /run/netns name and a pid seen in it -- with its inode and device to
 * check that what we opened is the same namespace.  fds handed out stay
 * open until bpftune_netns_release(), which the library calls once an
 * event has been handled.
 *
 * Cost per lookup: a cache hit is one open() and one fstat().  A miss
 * tries the event's pid (/proc/PID/ns/net, checked against the cookie by
 * entering the namespace) and then the named namespaces; /run/netns is
 * read again only when inotify says it changed since the last full scan.
 *
 * Inode numbers are reused once a namespace is gone.  While the netns
 * tuner tracks destruction (bpftune_netns_set_tracking()) dead namespaces
 * are forgotten as they go, so an inode match is trusted; otherwise the
 * cookie is checked by entering the namespace every time it is reopened.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/base.h"
#include "netns/netns.h"

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif

/*
 * The cache grows by blocks of NETNS_BLOCK entries as namespaces come
 * (entries never move: callers keep pointers across an add), up to
 * NETNS_BLOCKS_MAX; only then does it evict.  With a fixed 256 it
 * thrashed at 1,000 namespaces, each miss costing a scan of /run/netns
 * (bench/netns_scale.sh: 105 us of daemon CPU per connection).
 */
#define NETNS_BLOCK 32
#define NETNS_BLOCKS_MAX 256
#define NETNS_RUN_DIR "/run/netns"

struct netns_entry {
	uint64_t cookie;		/* 0: free slot */
	dev_t dev;
	ino_t ino;
	pid_t pid;			/* a task seen in it, to reopen by */
	int fd;				/* open until bpftune_netns_release() */
	unsigned long last_used;
	bool named;			/* name is its /run/netns name now */
	char name[NAME_MAX + 1];	/* kept once deleted, for the logs */
};

static struct netns_entry *blocks[NETNS_BLOCKS_MAX];
static unsigned int cache_size;		/* entries in the blocks allocated */
static unsigned int num_open;		/* entries with an fd open now */
static unsigned long use_clock;
static int global_fd = -1;
static uint64_t global_cookie;
static bool have_cookies;
static bool tracking;
static void (*_Atomic enter_hook)(void);

/*
 * Named namespaces: every name in /run/netns is in the cache once a full
 * scan has been done, until inotify reports a change or a named entry is
 * evicted (named_dirty).
 */
static int inotify_fd = -1;
static int run_watch = -1;
static bool named_dirty = true;

static struct netns_entry *slot(unsigned int i)
{
	return &blocks[i / NETNS_BLOCK][i % NETNS_BLOCK];
}

/* one more block of free entries; -ENOSPC at the most we keep */
static int cache_grow(void)
{
	unsigned int b = cache_size / NETNS_BLOCK, i;

	if (b >= NETNS_BLOCKS_MAX)
		return -ENOSPC;
	blocks[b] = calloc(NETNS_BLOCK, sizeof(*blocks[b]));
	if (!blocks[b])
		return -ENOMEM;
	for (i = 0; i < NETNS_BLOCK; i++)
		blocks[b][i].fd = -1;
	cache_size += NETNS_BLOCK;
	return 0;
}

uint64_t bpftune_global_netns_cookie(void)
{
	return global_cookie;
}

/* Cookie of the netns we are in now; the inode if cookies are missing. */
static int current_cookie(uint64_t *cookie, int ns_fd)
{
	socklen_t len = sizeof(*cookie);
	struct stat st;
	int fd;

	if (have_cookies) {
		fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return -errno;
		if (!getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, cookie, &len)) {
			close(fd);
			return 0;
		}
		close(fd);
	}
	if (fstat(ns_fd, &st))
		return -errno;
	*cookie = st.st_ino;
	return 0;
}

int bpftune_netns_init(void)
{
	uint64_t c = 0;
	socklen_t len = sizeof(c);
	int fd;

	if (!cache_size && cache_grow())
		return -ENOMEM;
	global_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (global_fd < 0)
		return -errno;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	have_cookies = fd >= 0 &&
		       !getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, &c, &len);
	if (fd >= 0)
		close(fd);
	/* without inotify every miss rescans /run/netns: slower, still right */
	inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	return current_cookie(&global_cookie, global_fd);
}

static void entry_close(struct netns_entry *e)
{
	if (e->fd >= 0) {
		close(e->fd);
		e->fd = -1;
		num_open--;
	}
}

static void entry_clear(struct netns_entry *e)
{
	entry_close(e);
	memset(e, 0, sizeof(*e));
	e->fd = -1;
}

void bpftune_netns_release(void)
{
	unsigned int i;

	for (i = 0; num_open && i < cache_size; i++)
		entry_close(slot(i));
}

void bpftune_netns_fini(void)
{
	unsigned int i;

	for (i = 0; i < cache_size; i++)
		entry_clear(slot(i));
	for (i = 0; i < NETNS_BLOCKS_MAX; i++) {
		free(blocks[i]);
		blocks[i] = NULL;
	}
	cache_size = 0;
	if (inotify_fd >= 0)
		close(inotify_fd);
	inotify_fd = -1;
	run_watch = -1;
	named_dirty = true;
	if (global_fd >= 0)
		close(global_fd);
	global_fd = -1;
}

void bpftune_netns_set_tracking(bool on)
{
	tracking = on;
}

void bpftune_netns_flush(void)
{
	unsigned int i;

	for (i = 0; i < cache_size; i++)
		if (slot(i)->fd < 0)
			entry_clear(slot(i));
	named_dirty = true;
}

bool bpftune_netns_tracking(void)
{
	return tracking;
}

unsigned int bpftune_netns_cached(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < cache_size; i++)
		n += slot(i)->cookie != 0;
	return n;
}

void bpftune_netns_on_enter(void (*fn)(void))
{
	enter_hook = fn;
}

/* this thread is inside bpftune_netns_enter(), not in the global netns */
static __thread bool entered;

bool bpftune_netns_entered(void)
{
	return entered;
}

int bpftune_netns_enter(int netns_fd, int *saved)
{
	void (*hook)(void);

	*saved = 0;
	if (netns_fd < 0)
		return 0;
	bpftune_cap_raise();
	if (setns(netns_fd, CLONE_NEWNET)) {
		int err = -errno;

		bpftune_cap_lower();
		return err;
	}
	*saved = 1;
	entered = true;
	hook = enter_hook;
	if (hook)
		hook();
	return 0;
}

void bpftune_netns_leave(int saved)
{
	if (!saved)
		return;
	if (setns(global_fd, CLONE_NEWNET))
		bpftune_log(LOG_ERR, "cannot return to the global netns: %s",
			    strerror(errno));
	else
		entered = false;
	bpftune_cap_lower();
}

int bpftune_netns_cookie_of_fd(int fd, uint64_t *cookie)
{
	int saved, err;

	err = bpftune_netns_enter(fd, &saved);
	if (err)
		return err;
	err = current_cookie(cookie, fd);
	bpftune_netns_leave(saved);
	return err;
}

static struct netns_entry *cache_find(uint64_t cookie)
{
	unsigned int i;

	if (!cookie)
		return NULL;
	for (i = 0; i < cache_size; i++)
		if (slot(i)->cookie == cookie) {
			slot(i)->last_used = ++use_clock;
			return slot(i);
		}
	return NULL;
}

static struct netns_entry *cache_find_ino(dev_t dev, ino_t ino)
{
	unsigned int i;

	for (i = 0; i < cache_size; i++)
		if (slot(i)->cookie && slot(i)->ino == ino && slot(i)->dev == dev)
			return slot(i);
	return NULL;
}

static struct netns_entry *cache_add(uint64_t cookie, const struct stat *st)
{
	struct netns_entry *e = NULL;
	unsigned int i;

	for (i = 0; i < cache_size; i++) {
		if (!slot(i)->cookie) {
			e = slot(i);
			break;
		}
		/* an entry with an fd open is in use by the current event */
		if (slot(i)->fd < 0 && (!e || slot(i)->last_used < e->last_used))
			e = slot(i);
	}
	/* every entry a live namespace: more room before evicting one */
	if (i == cache_size && !cache_grow())
		e = slot(i);
	if (!e)
		return NULL;
	if (e->cookie && e->named)
		named_dirty = true;	/* a name we knew is no longer cached */
	entry_clear(e);
	e->cookie = cookie;
	e->dev = st->st_dev;
	e->ino = st->st_ino;
	e->last_used = ++use_clock;
	return e;
}

static void forget_name(const char *name)
{
	unsigned int i;

	for (i = 0; i < cache_size; i++)
		if (slot(i)->cookie && !strcmp(slot(i)->name, name))
			slot(i)->named = false;
}

/*
 * Apply what inotify saw in /run/netns: a deleted (or renamed) name no
 * longer names its namespace, and anything new needs a scan.
 */
static void named_sync(void)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	const struct inotify_event *ev;
	ssize_t n;
	char *p;
	unsigned int i;

	if (inotify_fd < 0) {
		named_dirty = true;
		return;
	}
	if (run_watch < 0) {
		run_watch = inotify_add_watch(inotify_fd, NETNS_RUN_DIR,
					      IN_CREATE | IN_DELETE | IN_MOVED_FROM |
					      IN_MOVED_TO | IN_DELETE_SELF |
					      IN_MOVE_SELF | IN_ONLYDIR);
		named_dirty = true;
		/* no /run/netns: nothing is named, a scan costs one opendir */
		if (run_watch < 0)
			return;
	}
	while ((n = read(inotify_fd, buf, sizeof(buf))) > 0) {
		for (p = buf; p < buf + n; p += sizeof(*ev) + ev->len) {
			ev = (const struct inotify_event *)p;
			named_dirty = true;
			if (ev->mask & (IN_Q_OVERFLOW | IN_IGNORED |
					IN_DELETE_SELF | IN_MOVE_SELF)) {
				for (i = 0; i < cache_size; i++)
					slot(i)->named = false;
				if (ev->mask & IN_IGNORED)
					run_watch = -1;
			} else if (ev->len && (ev->mask & (IN_DELETE | IN_MOVED_FROM))) {
				forget_name(ev->name);
			}
		}
	}
}

static bool same_file(const struct stat *st, const struct netns_entry *e)
{
	return st->st_ino == e->ino && st->st_dev == e->dev;
}

/* Open @path and check it is @e's namespace; -1 if not. */
static int reopen(const char *path, const struct netns_entry *e)
{
	uint64_t cookie;
	struct stat st;
	int fd;

	/* no O_NOFOLLOW: /proc/PID/ns/net is a magic symlink; fstat() checks it */
	bpftune_cap_raise();
	fd = open(path, O_RDONLY | O_CLOEXEC);
	bpftune_cap_lower();
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !same_file(&st, e))
		goto fail;
	/* the inode may be a newer namespace's if we cannot see deaths */
	if (!tracking && have_cookies &&
	    (bpftune_netns_cookie_of_fd(fd, &cookie) || cookie != e->cookie))
		goto fail;
	return fd;
fail:
	close(fd);
	return -1;
}

/* An fd for a cached namespace, by name or by its pid; -1 if neither works. */
static int entry_open(struct netns_entry *e)
{
	char path[PATH_MAX];
	int fd = -1;

	if (e->fd >= 0)
		return e->fd;
	if (e->named) {
		named_sync();
		if (e->named) {
			snprintf(path, sizeof(path), NETNS_RUN_DIR "/%s", e->name);
			fd = reopen(path, e);
			if (fd < 0)
				e->named = false;
		}
	}
	if (fd < 0 && e->pid > 0) {
		snprintf(path, sizeof(path), "/proc/%d/ns/net", e->pid);
		fd = reopen(path, e);
		if (fd < 0)
			e->pid = 0;
	}
	if (fd < 0)
		return -1;
	e->fd = fd;
	num_open++;
	return fd;
}

/*
 * Open a netns file and learn its cookie, entering it unless the cache
 * already knows the namespace by its inode (and can trust that).  On
 * success returns the entry, with *fdp the open fd (the caller keeps it
 * or closes it).
 */
static struct netns_entry *learn(int dirfd, const char *path, int *fdp,
				 const char *name)
{
	struct netns_entry *e;
	uint64_t cookie;
	struct stat st;
	int fd;

	*fdp = -1;
	/* no O_NOFOLLOW: /proc/PID/ns/net is a magic symlink; the cookie is checked */
	bpftune_cap_raise();
	fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	bpftune_cap_lower();
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st))
		goto fail;
	e = cache_find_ino(st.st_dev, st.st_ino);
	/*
	 * Trusted, unless a /run/netns @name would go to an entry that does
	 * not hold it yet: the inode may be a dead namespace's, reused
	 * before its death was seen (its cookie then differs).
	 */
	if (e && (!have_cookies ||
		  (tracking && (!name || (e->named && !strcmp(e->name, name)))))) {
		*fdp = fd;
		return e;
	}
	if (bpftune_netns_cookie_of_fd(fd, &cookie))
		goto fail;		/* not a netns file (yet) */
	if (e && e->cookie != cookie)
		entry_clear(e);		/* that namespace is gone: inode reused */
	else if (e)
		goto out;
	e = cache_find(cookie);
	if (e) {
		/* known by cookie: the inode changed only if we were wrong */
		e->dev = st.st_dev;
		e->ino = st.st_ino;
	} else {
		e = cache_add(cookie, &st);
		if (!e)
			goto fail;
	}
out:
	*fdp = fd;
	return e;
fail:
	close(fd);
	return NULL;
}

/* Keep @fd as @e's open fd, or close it if @e has one already. */
static int entry_keep(struct netns_entry *e, int fd)
{
	if (e->fd >= 0) {
		close(fd);
		return e->fd;
	}
	e->fd = fd;
	num_open++;
	return fd;
}

/*
 * Find @cookie among the named namespaces.  Skipped when nothing changed
 * in /run/netns since a scan that put every name in the cache.
 */
static struct netns_entry *scan_named(uint64_t cookie)
{
	struct netns_entry *e, *found = NULL;
	struct dirent *d;
	bool complete = true;
	DIR *dir;
	int fd;

	named_sync();
	if (!named_dirty)
		return NULL;
	named_dirty = false;
	dir = opendir(NETNS_RUN_DIR);
	if (!dir)
		return NULL;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		e = learn(dirfd(dir), d->d_name, &fd, d->d_name);
		if (!e) {
			/* "ip netns add" creates the file before mounting it */
			complete = false;
			continue;
		}
		close(fd);
		snprintf(e->name, sizeof(e->name), "%s", d->d_name);
		e->named = true;
		if (e->cookie == cookie)
			found = e;
	}
	closedir(dir);
	if (!complete)
		named_dirty = true;
	return found;
}

int bpftune_netns_fd_for_cookie(uint64_t cookie)
{
	struct netns_entry *e;
	int fd;

	if (bpftune_netns_is_global(cookie))
		return -1;
	e = cache_find(cookie);
	if (e) {
		fd = entry_open(e);
		if (fd >= 0)
			return fd;
	}
	e = scan_named(cookie);
	if (e) {
		fd = entry_open(e);
		if (fd >= 0)
			return fd;
	}
	return -ESRCH;
}

int bpftune_netns_fd_for_event(const struct bpftune_event *ev)
{
	struct netns_entry *e;
	char path[64];
	int fd;

	if (bpftune_netns_is_global(ev->netns_cookie))
		return -1;
	e = cache_find(ev->netns_cookie);
	if (e) {
		fd = entry_open(e);
		if (fd >= 0)
			return fd;
	}
	/* the task behind the event is usually still in that netns */
	if (ev->pid) {
		snprintf(path, sizeof(path), "/proc/%u/ns/net", ev->pid);
		e = learn(AT_FDCWD, path, &fd, NULL);
		if (e && e->cookie == ev->netns_cookie) {
			e->pid = ev->pid;
			return entry_keep(e, fd);
		}
		if (e) {
			/* remember where that pid is, it may help later */
			if (!e->pid)
				e->pid = ev->pid;
			close(fd);
		}
	}
	e = scan_named(ev->netns_cookie);
	if (e) {
		fd = entry_open(e);
		if (fd >= 0)
			return fd;
	}
	return -ESRCH;
}

void bpftune_netns_forget(uint64_t cookie)
{
	struct netns_entry *e = cache_find(cookie);

	if (!e)
		return;
	/*
	 * Its name may be a live namespace's: the kernel reuses a dead
	 * namespace's inode, and a scan that came before its death was
	 * seen gave the new namespace's name to this entry.  Names are
	 * looked for again, or the new one stays unnamed for good.
	 */
	if (e->named)
		named_dirty = true;
	entry_clear(e);
}

/* The entry for @cookie, looking for its /run/netns name if unknown. */
static const struct netns_entry *named_entry(uint64_t cookie)
{
	struct netns_entry *e = cache_find(cookie), *found;

	if (e && e->named) {
		named_sync();
		if (e->named)
			return e;
	}
	found = scan_named(cookie);
	return found ? found : e;
}

/*
 * The /run/netns name of @cookie's namespace into @name ("" if none),
 * from the cache: a scan of /run/netns only if it changed since the last.
 */
void bpftune_netns_name(uint64_t cookie, char *name, size_t len)
{
	const struct netns_entry *e = named_entry(cookie);

	snprintf(name, len, "%s", e && e->named ? e->name : "");
}

const char *bpftune_netns_describe(uint64_t cookie, char *buf, size_t len)
{
	const struct netns_entry *e;

	if (bpftune_netns_is_global(cookie)) {
		snprintf(buf, len, "global netns");
		return buf;
	}
	e = named_entry(cookie);
	if (e && e->named)
		snprintf(buf, len, "netns %s (cookie %llu)", e->name,
			 (unsigned long long)cookie);
	else if (e && e->name[0])
		snprintf(buf, len, "netns cookie %llu (was %s)",
			 (unsigned long long)cookie, e->name);
	else
		snprintf(buf, len, "netns cookie %llu",
			 (unsigned long long)cookie);
	return buf;
}

/* "ip netns exec NAME " for replaying a change, or "" if unnamed/global */
const char *bpftune_netns_exec_prefix(uint64_t cookie, char *buf, size_t len)
{
	const struct netns_entry *e;

	buf[0] = '\0';
	if (bpftune_netns_is_global(cookie))
		return buf;
	e = named_entry(cookie);
	if (e && e->named)
		snprintf(buf, len, "ip netns exec %s ", e->name);
	return buf;
}

/*
 * Namespaces for the telemetry sampler, which runs in another thread and
 * may not touch the cache: where to open each one and what it must be.
 * Named ones are refreshed first (a scan only if /run/netns changed).
 * Round robin: each call starts after the last namespace the previous one
 * returned, so with more than @max every one gets its turn.
 */
unsigned int bpftune_netns_sample_list(struct bpftune_netns_ref *refs,
				       unsigned int max, unsigned int *known)
{
	static unsigned int cursor;
	unsigned int i, n = 0, k = 0, start = cursor;

	named_sync();
	if (named_dirty)
		scan_named(0);
	for (i = 0; i < cache_size; i++) {
		unsigned int idx = (start + i) % cache_size;
		const struct netns_entry *e = slot(idx);
		struct bpftune_netns_ref *r;

		if (!e->cookie || e->cookie == global_cookie ||
		    (!e->named && e->pid <= 0))
			continue;
		k++;
		if (n == max)
			continue;
		r = &refs[n++];
		r->cookie = e->cookie;
		r->dev = e->dev;
		r->ino = e->ino;
		if (e->named)
			snprintf(r->path, sizeof(r->path), NETNS_RUN_DIR "/%s", e->name);
		else
			snprintf(r->path, sizeof(r->path), "/proc/%d/ns/net", e->pid);
		cursor = (idx + 1) % cache_size;
	}
	*known = k;
	return n;
}

/*
 * Enter @ref's namespace from the calling thread (any thread): open it,
 * check it is still that namespace (inode, then cookie: inodes are
 * reused), setns(), close the fd.  Only the thread's own netns holds a
 * reference until bpftune_netns_leave(@saved).  0 or -errno.
 */
int bpftune_netns_enter_ref(const struct bpftune_netns_ref *ref, int *saved)
{
	uint64_t cookie;
	struct stat st;
	int fd, err;

	*saved = 0;
	bpftune_cap_raise();
	fd = open(ref->path, O_RDONLY | O_CLOEXEC);
	err = fd < 0 ? -errno : 0;
	bpftune_cap_lower();
	if (err)
		return err;
	if (fstat(fd, &st) || st.st_ino != ref->ino || st.st_dev != ref->dev) {
		close(fd);
		return -ESRCH;
	}
	err = bpftune_netns_enter(fd, saved);
	close(fd);
	if (err)
		return err;
	if (have_cookies && (current_cookie(&cookie, -1) || cookie != ref->cookie)) {
		bpftune_netns_leave(*saved);
		*saved = 0;
		return -ESRCH;
	}
	return 0;
}
