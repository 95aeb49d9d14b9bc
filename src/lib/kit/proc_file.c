// SPDX-License-Identifier: GPL-2.0-only
/* Whole-file reads of /proc and multi-key lookups (see proc_file.h). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kit/proc_file.h"

/*
 * The whole of @fd from offset 0 (pread: a seq_file starts over there),
 * or NULL with errno set.
 */
static char *read_whole(int fd, size_t *len)
{
	size_t size = 4096, used = 0;
	char *buf = NULL, *nbuf;
	int err = 0;
	ssize_t n;

	for (;;) {
		/* /proc reports size 0, so grow as we go */
		if (!buf || used + 1 >= size) {
			if (buf)
				size *= 2;
			if (size > BPFTUNE_PROC_FILE_MAX) {
				err = EFBIG;
				break;
			}
			nbuf = realloc(buf, size);
			if (!nbuf) {
				err = ENOMEM;
				break;
			}
			buf = nbuf;
		}
		n = pread(fd, buf + used, size - used - 1, (off_t)used);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = errno;
			break;
		}
		if (n == 0)
			break;
		used += n;
	}
	if (err) {
		free(buf);
		errno = err;
		return NULL;
	}
	buf[used] = '\0';
	if (len)
		*len = used;
	return buf;
}

char *bpftune_proc_file_read(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;
	char *text;

	if (fd < 0)
		return NULL;
	text = read_whole(fd, len);
	err = errno;
	close(fd);
	errno = err;
	return text;
}

/*
 * Files read again and again (the gates' counters, every second or two)
 * stay open: a read is then one pread() and no path walk, open or close,
 * which were most of its cost (3 - 10 ms each in an emulated guest).
 */
#define PINNED_MAX	8

static struct {
	char *path;
	int fd;
} pinned[PINNED_MAX];
static pthread_mutex_t pinned_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * @path's pinned fd, opened now if it is not yet; -1 if no pin is free
 * (the caller opens and closes as usual), -2 if it cannot be opened (errno)
 */
static int pinned_fd(const char *path)
{
	unsigned int i;
	int fd;

	for (i = 0; i < PINNED_MAX && pinned[i].path; i++)
		if (!strcmp(pinned[i].path, path))
			return pinned[i].fd;
	if (i == PINNED_MAX)
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -2;
	pinned[i].path = strdup(path);
	if (!pinned[i].path) {
		close(fd);
		return -1;
	}
	pinned[i].fd = fd;
	return fd;
}

char *bpftune_proc_file_read_pinned(const char *path, size_t *len)
{
	char *text;
	int fd;

	pthread_mutex_lock(&pinned_lock);
	fd = pinned_fd(path);
	if (fd == -2) {
		text = NULL;
	} else if (fd < 0) {
		text = bpftune_proc_file_read(path, len);
	} else {
		text = read_whole(fd, len);
	}
	pthread_mutex_unlock(&pinned_lock);
	return text;
}

/* the lookups of bpftune_proc_file_lookup() in @text (NULL: errno) */
static int lookup_text(char *text, enum bpftune_proc_format fmt,
		       const char *const keys[],
		       struct bpftune_proc_value vals[], unsigned int n)
{
	unsigned int i;
	int found = 0, err;

	if (!text)
		return -errno;
	for (i = 0; i < n; i++) {
		memset(&vals[i], 0, sizeof(vals[i]));
		err = bpftune_proc_lookup(fmt, text, keys[i], &vals[i]);
		if (err == -ENOENT)
			continue;
		if (err) {
			found = err;
			break;
		}
		found++;
	}
	free(text);
	return found;
}

/* a lookup of @path, read through its pinned fd or opened anew */
static int lookup_file(const char *path, bool pinned,
		       enum bpftune_proc_format fmt, const char *const keys[],
		       struct bpftune_proc_value vals[], unsigned int n)
{
	if (!path || (n && (!keys || !vals)))
		return -EINVAL;
	return lookup_text(pinned ? bpftune_proc_file_read_pinned(path, NULL) :
			   bpftune_proc_file_read(path, NULL), fmt, keys, vals, n);
}

int bpftune_proc_file_lookup(const char *path, enum bpftune_proc_format fmt,
			     const char *const keys[],
			     struct bpftune_proc_value vals[], unsigned int n)
{
	return lookup_file(path, false, fmt, keys, vals, n);
}

int bpftune_proc_file_lookup_pinned(const char *path,
				    enum bpftune_proc_format fmt,
				    const char *const keys[],
				    struct bpftune_proc_value vals[],
				    unsigned int n)
{
	return lookup_file(path, true, fmt, keys, vals, n);
}
