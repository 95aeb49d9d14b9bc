// SPDX-License-Identifier: GPL-2.0-only
/*
 * Files that decide what the daemon writes (the config, a tuner's model)
 * are read only when nobody but root can have written them: the same
 * rule the plugin directory follows for code.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpftune/libbpftune.h>

/* 0, or -errno with why @st is refused in @err */
static int refusal(const struct stat *st, size_t max, char *err, size_t err_len)
{
	if (!S_ISREG(st->st_mode)) {
		snprintf(err, err_len, "refused: not a regular file");
		return -EPERM;
	}
	if (st->st_uid != 0 || (st->st_mode & (S_IWGRP | S_IWOTH))) {
		snprintf(err, err_len, "refused: must be owned by root and writable by root only");
		return -EPERM;
	}
	if ((unsigned long long)st->st_size > max) {
		if (max % 1024)
			snprintf(err, err_len, "refused: larger than %zu bytes", max);
		else
			snprintf(err, err_len, "refused: larger than %zu KiB", max / 1024);
		return -EFBIG;
	}
	return 0;
}

int bpftune_trusted_file_read(const char *path, size_t max, char **text,
			      size_t *len, char *err, size_t err_len)
{
	struct stat st;
	ssize_t n;
	int fd, ret;

	*text = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, err_len, "cannot open it: %s", strerror(-ret));
		return ret;
	}
	if (fstat(fd, &st)) {
		ret = -errno;
		snprintf(err, err_len, "cannot stat it: %s", strerror(-ret));
	} else {
		ret = refusal(&st, max, err, err_len);
	}
	if (ret) {
		close(fd);
		return ret;
	}
	*text = malloc(st.st_size + 1);
	if (!*text) {
		close(fd);
		snprintf(err, err_len, "cannot read it: out of memory");
		return -ENOMEM;
	}
	/* one byte more than its size: a file that grew meanwhile shows */
	n = read(fd, *text, st.st_size + 1);
	ret = n < 0 ? -errno : -EIO;
	close(fd);
	if (n != st.st_size) {
		snprintf(err, err_len, "cannot read it: %s",
			 n < 0 ? strerror(-ret) : "it changed while read");
		free(*text);
		*text = NULL;
		return ret;
	}
	(*text)[n] = '\0';
	*len = n;
	return 0;
}
