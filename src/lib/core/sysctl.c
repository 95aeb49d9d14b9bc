// SPDX-License-Identifier: GPL-2.0-only
/*
 * sysctl reads and writes through /proc/sys, in a given network namespace.
 * /proc/sys/net resolves to the netns of the task that opens the file, so
 * the file is opened (and used) while the thread is inside that netns.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/internal.h"
#include "core/sysctl.h"

#define SYSCTL_BUF 256

/*
 * Open a sysctl's /proc file from inside @netns_fd.  On success the thread
 * is left in that netns: the caller does its I/O, closes the fd, and calls
 * bpftune_netns_leave(*saved).
 */
static int sysctl_open(int netns_fd, const char *name, int flags, int *saved)
{
	char path[PATH_MAX];
	int fd, err;

	err = bpftune_sysctl_path(name, path, sizeof(path));
	if (err)
		return err;
	err = bpftune_netns_enter(netns_fd, saved);
	if (err)
		return err;
	fd = open(path, flags | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		bpftune_netns_leave(*saved);
		return err;
	}
	return fd;
}

static int read_file(int netns_fd, const char *name, char *buf, size_t len)
{
	int fd, saved, err = 0;
	ssize_t n;

	fd = sysctl_open(netns_fd, name, O_RDONLY, &saved);
	if (fd < 0)
		return fd;
	n = read(fd, buf, len - 1);
	if (n < 0)
		err = -errno;
	else
		buf[n] = '\0';
	close(fd);
	bpftune_netns_leave(saved);
	return err;
}

static int write_file(int netns_fd, const char *name, const char *buf)
{
	size_t len = strlen(buf);
	int fd, saved, err = 0;
	ssize_t n;

	/* NET_ADMIN for net sysctls of namespaces owned by other user ns */
	bpftune_cap_raise();
	fd = sysctl_open(netns_fd, name, O_WRONLY, &saved);
	if (fd < 0) {
		bpftune_cap_lower();
		return fd;
	}
	n = write(fd, buf, len);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	close(fd);
	bpftune_netns_leave(saved);
	bpftune_cap_lower();
	return err;
}

int bpftune_sysctl_read(int netns_fd, const char *name, long *values,
			unsigned int max_values)
{
	char buf[SYSCTL_BUF];
	int err;

	err = read_file(netns_fd, name, buf, sizeof(buf));
	if (err)
		return err;
	if (bpftune_sysctl_is_cpumask(name))
		return max_values ? bpftune_cpumask_parse(buf, values) : -E2BIG;
	return bpftune_sysctl_parse(buf, values, max_values);
}

int bpftune_sysctl_write(int netns_fd, const char *name, const long *values,
			 unsigned int num_values)
{
	char buf[SYSCTL_BUF];
	int err;

	if (bpftune_sysctl_is_cpumask(name))
		err = num_values == 1 ? bpftune_cpumask_format(values[0], buf, sizeof(buf)) :
					-EINVAL;
	else
		err = bpftune_sysctl_format(values, num_values, buf, sizeof(buf));
	if (err < 0)
		return err;
	return write_file(netns_fd, name, buf);
}

int bpftune_sysctl_read_string(int netns_fd, const char *name, char *buf,
			       size_t len)
{
	int err;

	if (len < 2)
		return -EINVAL;
	err = read_file(netns_fd, name, buf, len);
	if (err)
		return err;
	buf[strcspn(buf, "\n")] = '\0';
	return (int)strlen(buf);
}

int bpftune_sysctl_write_string(int netns_fd, const char *name,
				const char *value)
{
	return write_file(netns_fd, name, value);
}
