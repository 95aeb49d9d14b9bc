// SPDX-License-Identifier: GPL-2.0-only
/*
 * Finding a network namespace again, possibly after a daemon restart.
 * A cookie alone cannot be turned into an fd by a new process, so we keep
 * what lets us find the netns (its /run/netns name, its nsfs inode and
 * device) and the cookie, which is never reused within a boot, to make
 * sure that what we found is the netns we changed (inode numbers are).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/base.h"
#include "netns/netns.h"

#define NETNS_RUN_DIR	"/run/netns"

/* Name in /run/netns of the netns with this inode/device, if any. */
static void find_name(uint64_t ino, uint64_t dev, char *name, size_t len)
{
	struct dirent *d;
	struct stat st;
	DIR *dir;

	name[0] = '\0';
	dir = opendir(NETNS_RUN_DIR);
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		if (fstatat(dirfd(dir), d->d_name, &st, 0))
			continue;
		if (st.st_ino == ino && st.st_dev == dev) {
			snprintf(name, len, "%s", d->d_name);
			break;
		}
	}
	closedir(dir);
}

int bpftune_netns_identify(uint64_t cookie, struct bpftune_netns_id *id)
{
	struct stat st;
	int fd;

	memset(id, 0, sizeof(*id));
	if (bpftune_netns_is_global(cookie)) {
		id->global = true;
		id->cookie = bpftune_global_netns_cookie();
		if (stat("/proc/self/ns/net", &st))
			return -errno;
	} else {
		fd = bpftune_netns_fd_for_cookie(cookie);
		if (fd < -1)
			return fd;
		if (fstat(fd, &st))
			return -errno;
		id->cookie = cookie;
	}
	id->ino = st.st_ino;
	id->dev = st.st_dev;
	/* the cache's name: a scan of /run/netns per call is O(namespaces) */
	if (!id->global)
		bpftune_netns_name(cookie, id->name, sizeof(id->name));
	return 0;
}

static bool same_ns(const struct stat *st, const struct bpftune_netns_id *id)
{
	return st->st_ino == id->ino && st->st_dev == id->dev;
}

/* Open the netns of some process whose netns has this inode/device. */
static int scan_procs(const struct bpftune_netns_id *id)
{
	char path[NAME_MAX + 16];
	struct dirent *d;
	struct stat st;
	int fd = -ESRCH;
	DIR *dir;

	dir = opendir("/proc");
	if (!dir)
		return -errno;
	bpftune_cap_raise();
	while (fd < 0 && (d = readdir(dir))) {
		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/ns/net", d->d_name);
		if (stat(path, &st) || !same_ns(&st, id))
			continue;
		fd = open(path, O_RDONLY | O_CLOEXEC);
		/* the process may have exited or moved: check again */
		if (fd >= 0 && (fstat(fd, &st) || !same_ns(&st, id))) {
			close(fd);
			fd = -ESRCH;
		}
	}
	bpftune_cap_lower();
	closedir(dir);
	return fd;
}

static int open_named(const char *name, const struct bpftune_netns_id *id)
{
	struct stat st;
	int dfd, fd;

	dfd = open(NETNS_RUN_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -ESRCH;
	fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	close(dfd);
	if (fd < 0)
		return -ESRCH;
	if (fstat(fd, &st) || !same_ns(&st, id)) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

int bpftune_netns_find(const struct bpftune_netns_id *id)
{
	char name[NAME_MAX + 1];
	struct stat st;
	uint64_t cookie;
	int fd, err;

	if (id->global) {
		if (stat("/proc/self/ns/net", &st))
			return -errno;
		return same_ns(&st, id) ? -1 : -ESTALE;
	}
	fd = id->name[0] ? open_named(id->name, id) : -ESRCH;
	if (fd < 0) {
		/* renamed, or never had a name: look for it by inode */
		find_name(id->ino, id->dev, name, sizeof(name));
		fd = name[0] ? open_named(name, id) : scan_procs(id);
	}
	if (fd < 0)
		return fd == -ESTALE ? -ESRCH : fd;
	err = bpftune_netns_cookie_of_fd(fd, &cookie);
	if (err || cookie != id->cookie) {
		close(fd);
		/* the inode was reused by a newer netns: ours is gone */
		return err ? err : -ESTALE;
	}
	return fd;
}

const char *bpftune_netns_id_describe(const struct bpftune_netns_id *id,
				      char *buf, size_t len)
{
	if (id->global)
		snprintf(buf, len, "global netns");
	else if (id->name[0])
		snprintf(buf, len, "netns %s (cookie %llu)", id->name,
			 (unsigned long long)id->cookie);
	else
		snprintf(buf, len, "netns cookie %llu",
			 (unsigned long long)id->cookie);
	return buf;
}
