// SPDX-License-Identifier: GPL-2.0-only
/* Whole-file reads of /proc and multi-key lookups (see proc_file.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kit/proc_file.h"

char *bpftune_proc_file_read(const char *path, size_t *len)
{
	size_t size = 4096, used = 0;
	char *buf = NULL, *nbuf;
	int fd, err = 0;
	ssize_t n;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
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
		n = read(fd, buf + used, size - used - 1);
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
	close(fd);
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

int bpftune_proc_file_lookup(const char *path, enum bpftune_proc_format fmt,
			     const char *const keys[],
			     struct bpftune_proc_value vals[], unsigned int n)
{
	unsigned int i;
	int found = 0, err;
	char *text;

	if (!path || (n && (!keys || !vals)))
		return -EINVAL;
	text = bpftune_proc_file_read(path, NULL);
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
