// SPDX-License-Identifier: GPL-2.0-only
/* Replacing a file atomically (see file_replace.h). */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/file_replace.h"

static int write_all(int fd, const char *data, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, data, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		data += n;
		len -= n;
	}
	return 0;
}

/* the rename is an update of the directory: make it durable too */
static void sync_dir(const char *path)
{
	char copy[PATH_MAX];
	int dfd;

	if (snprintf(copy, sizeof(copy), "%s", path) >= (int)sizeof(copy))
		return;
	dfd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
}

int bpftune_file_replace(const char *path, const void *data, size_t len,
			 const struct bpftune_replace *how)
{
	int flags = O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC;
	int fd, err;

	flags |= how->fd ? O_RDWR | O_APPEND : O_WRONLY;
	fd = open(how->tmp, flags, how->mode);
	if (fd < 0)
		return -errno;
	err = write_all(fd, data, len);
	if (!err && fchmod(fd, how->mode))
		err = -errno;
	if (!err && how->sync && fdatasync(fd))
		err = -errno;
	if (!err && how->lock && flock(fd, LOCK_EX | LOCK_NB))
		err = -errno;
	if (!how->fd || err) {
		if (close(fd) && !err)
			err = -errno;
		fd = -1;
	}
	if (!err && rename(how->tmp, path))
		err = -errno;
	if (err) {
		if (fd >= 0)
			close(fd);
		unlink(how->tmp);
		return err;
	}
	if (how->sync)
		sync_dir(path);
	if (how->fd)
		*how->fd = fd;
	return 0;
}
