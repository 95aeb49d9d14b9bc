// SPDX-License-Identifier: GPL-2.0-only
/*
 * Pure sysctl name and value handling: no I/O, so it is unit-tested and
 * fuzzable on its own.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>

#include "internal.h"

/*
 * "net.ipv4.tcp_rmem" or "net/ipv4/tcp_rmem" -> "/proc/sys/net/ipv4/tcp_rmem".
 * A name with a slash is taken as is, so interface names with dots
 * ("net/ipv4/conf/eth0.1/rp_filter") can be given.  Refuses empty names,
 * "..", and anything but [A-Za-z0-9_.-/].
 */
int bpftune_sysctl_path(const char *name, char *path, size_t len)
{
	bool has_slash;
	size_t i, n;
	int ret;

	if (!name || !*name || !path || !len)
		return -EINVAL;
	if (strstr(name, "..") || name[0] == '/' || name[0] == '.')
		return -EINVAL;
	has_slash = strchr(name, '/') != NULL;
	ret = snprintf(path, len, "/proc/sys/%s", name);
	if (ret < 0 || (size_t)ret >= len)
		return -ENAMETOOLONG;
	n = strlen(path);
	for (i = strlen("/proc/sys/"); i < n; i++) {
		unsigned char c = path[i];

		if (!isalnum(c) && c != '_' && c != '-' && c != '.' && c != '/')
			return -EINVAL;
		if (c == '.' && !has_slash)
			path[i] = '/';
	}
	return 0;
}

/* "net/core/somaxconn" -> "net.core.somaxconn" */
void bpftune_sysctl_dotted(const char *slash_name, char *buf, size_t len)
{
	size_t i;

	if (!len)
		return;
	for (i = 0; slash_name[i] && i + 1 < len; i++)
		buf[i] = slash_name[i] == '/' ? '.' : slash_name[i];
	buf[i] = '\0';
}

/*
 * Parse whitespace-separated integers.  Returns the count, -EINVAL on
 * anything that is not an integer, -ERANGE on overflow, -E2BIG if there
 * are more than @max values.
 */
int bpftune_sysctl_parse(const char *buf, long *values, unsigned int max)
{
	const char *p = buf;
	unsigned int n = 0;

	if (!buf)
		return -EINVAL;
	for (;;) {
		char *end;
		long v;

		while (*p && isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		if (n >= max)
			return -E2BIG;
		errno = 0;
		v = strtol(p, &end, 10);
		if (end == p)
			return -EINVAL;
		if (errno == ERANGE)
			return -ERANGE;
		if (*end && !isspace((unsigned char)*end))
			return -EINVAL;
		values[n++] = v;
		p = end;
	}
	return n ? (int)n : -EINVAL;
}

/* Format as the kernel expects for multi-value sysctls: tab-separated. */
int bpftune_sysctl_format(const long *values, unsigned int n, char *buf,
			  size_t len)
{
	size_t off = 0;
	unsigned int i;

	if (!n || !len)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		int ret = snprintf(buf + off, len - off, "%s%ld",
				   i ? "\t" : "", values[i]);

		if (ret < 0 || (size_t)ret >= len - off)
			return -ENOSPC;
		off += ret;
	}
	return (int)off;
}
