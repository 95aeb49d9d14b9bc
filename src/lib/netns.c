// SPDX-License-Identifier: GPL-2.0-only
/*
 * Network namespaces: the daemon's own (global) one, entering another one
 * for a sysctl write, and resolving the netns cookie carried by an event
 * to an fd without scanning every process: the event's pid gives a
 * candidate (/proc/PID/ns/net) that is checked against the cookie, and
 * named namespaces in /run/netns are the fallback.  Resolved fds are
 * cached, bounded, least recently used first out.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif

#define NETNS_CACHE_SIZE 64
#define NETNS_RUN_DIR "/run/netns"

struct netns_entry {
	uint64_t cookie;
	ino_t ino;
	int fd;
	unsigned long last_used;
	char name[NAME_MAX + 1];	/* /run/netns name, if it has one */
};

static struct netns_entry cache[NETNS_CACHE_SIZE];
static unsigned long use_clock;
static int global_fd = -1;
static uint64_t global_cookie;
static bool have_cookies;

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

	global_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (global_fd < 0)
		return -errno;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	have_cookies = fd >= 0 &&
		       !getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, &c, &len);
	if (fd >= 0)
		close(fd);
	return current_cookie(&global_cookie, global_fd);
}

void bpftune_netns_fini(void)
{
	int i;

	for (i = 0; i < NETNS_CACHE_SIZE; i++) {
		if (cache[i].fd > 0)
			close(cache[i].fd);
		memset(&cache[i], 0, sizeof(cache[i]));
	}
	if (global_fd >= 0)
		close(global_fd);
	global_fd = -1;
}

int bpftune_netns_enter(int netns_fd, int *saved)
{
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
	return 0;
}

void bpftune_netns_leave(int saved)
{
	if (!saved)
		return;
	if (setns(global_fd, CLONE_NEWNET))
		bpftune_log(LOG_ERR, "cannot return to the global netns: %s",
			    strerror(errno));
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
	int i;

	for (i = 0; i < NETNS_CACHE_SIZE; i++)
		if (cache[i].fd > 0 && cache[i].cookie == cookie) {
			cache[i].last_used = ++use_clock;
			return &cache[i];
		}
	return NULL;
}

static struct netns_entry *cache_find_ino(ino_t ino)
{
	int i;

	for (i = 0; i < NETNS_CACHE_SIZE; i++)
		if (cache[i].fd > 0 && cache[i].ino == ino)
			return &cache[i];
	return NULL;
}

/* Takes ownership of fd. */
static struct netns_entry *cache_add(int fd, uint64_t cookie, ino_t ino,
				     const char *name)
{
	struct netns_entry *e = &cache[0];
	int i;

	for (i = 0; i < NETNS_CACHE_SIZE; i++) {
		if (cache[i].fd <= 0) {
			e = &cache[i];
			break;
		}
		if (cache[i].last_used < e->last_used)
			e = &cache[i];
	}
	if (e->fd > 0)
		close(e->fd);
	e->fd = fd;
	e->cookie = cookie;
	e->ino = ino;
	e->last_used = ++use_clock;
	snprintf(e->name, sizeof(e->name), "%s", name ? name : "");
	return e;
}

/* Open a netns file and add it to the cache (by inode, so at most once). */
static struct netns_entry *cache_open(int dirfd, const char *path,
				      const char *name)
{
	struct netns_entry *e;
	uint64_t cookie;
	struct stat st;
	int fd;

	fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st))
		goto err;
	e = cache_find_ino(st.st_ino);
	if (e) {
		close(fd);
		if (name && !e->name[0])
			snprintf(e->name, sizeof(e->name), "%s", name);
		return e;
	}
	if (bpftune_netns_cookie_of_fd(fd, &cookie))
		goto err;
	return cache_add(fd, cookie, st.st_ino, name);
err:
	close(fd);
	return NULL;
}

/* Look through the named namespaces; returns the entry for @cookie. */
static struct netns_entry *scan_named(uint64_t cookie)
{
	struct netns_entry *e, *found = NULL;
	struct dirent *d;
	DIR *dir;

	dir = opendir(NETNS_RUN_DIR);
	if (!dir)
		return NULL;
	while (!found && (d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		e = cache_open(dirfd(dir), d->d_name, d->d_name);
		if (e && e->cookie == cookie)
			found = e;
	}
	closedir(dir);
	return found;
}

int bpftune_netns_fd_for_cookie(uint64_t cookie)
{
	struct netns_entry *e;

	if (bpftune_netns_is_global(cookie))
		return -1;
	e = cache_find(cookie);
	if (!e)
		e = scan_named(cookie);
	return e ? e->fd : -ESRCH;
}

int bpftune_netns_fd_for_event(const struct bpftune_event *ev)
{
	struct netns_entry *e;
	char path[64];

	if (bpftune_netns_is_global(ev->netns_cookie))
		return -1;
	e = cache_find(ev->netns_cookie);
	if (e)
		return e->fd;
	snprintf(path, sizeof(path), "/proc/%u/ns/net", ev->pid);
	bpftune_cap_raise();
	e = cache_open(AT_FDCWD, path, NULL);
	bpftune_cap_lower();
	if (e && e->cookie == ev->netns_cookie)
		return e->fd;
	e = scan_named(ev->netns_cookie);
	return e ? e->fd : -ESRCH;
}

const char *bpftune_netns_describe(uint64_t cookie, char *buf, size_t len)
{
	struct netns_entry *e;

	if (bpftune_netns_is_global(cookie)) {
		snprintf(buf, len, "global netns");
		return buf;
	}
	e = cache_find(cookie);
	if (!e || !e->name[0])
		e = scan_named(cookie);
	if (e && e->name[0])
		snprintf(buf, len, "netns %s (cookie %llu)", e->name,
			 (unsigned long long)cookie);
	else
		snprintf(buf, len, "netns cookie %llu",
			 (unsigned long long)cookie);
	return buf;
}

/* "ip netns exec NAME " for replaying a change, or "" if unnamed/global */
const char *bpftune_netns_exec_prefix(uint64_t cookie, char *buf, size_t len)
{
	struct netns_entry *e;

	buf[0] = '\0';
	if (bpftune_netns_is_global(cookie))
		return buf;
	e = cache_find(cookie);
	if (!e || !e->name[0])
		e = scan_named(cookie);
	if (e && e->name[0])
		snprintf(buf, len, "ip netns exec %s ", e->name);
	return buf;
}
