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

#include "core/internal.h"
#include "core/sysctl.h"

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

void bpftune_sysctl_format_line(const long *values, unsigned int n, char *buf,
				size_t len)
{
	if (!len)
		return;
	if (bpftune_sysctl_format(values, n, buf, len) < 0)
		snprintf(buf, len, "?");
	for (; *buf; buf++)
		if (*buf == '\t')
			*buf = ' ';
}

/*
 * sysctls whose value is a CPU bitmap printed in hex ("%*pb": 32-bit
 * groups, comma-separated, most significant first), e.g. "3" or
 * "00000000,00000003".  They are read and written as one number: the
 * mask of CPUs 0..63.
 */
bool bpftune_sysctl_is_cpumask(const char *name)
{
	static const char *const masks[] = {
		"net.core.flow_limit_cpu_bitmap",
	};
	char dotted[128];
	unsigned int i;

	if (!name)
		return false;
	bpftune_sysctl_dotted(name, dotted, sizeof(dotted));
	for (i = 0; i < sizeof(masks) / sizeof(masks[0]); i++)
		if (!strcmp(dotted, masks[i]))
			return true;
	return false;
}

/*
 * Parse a hex CPU bitmap into *mask.  -EINVAL for anything but hex digits
 * and commas (and surrounding whitespace), or a group of more than 32
 * bits; -ERANGE if a CPU past 63 is set.
 */
int bpftune_cpumask_parse(const char *buf, long *mask)
{
	unsigned long long m = 0, group = 0;
	unsigned int digits = 0;
	bool high = false;
	const char *p;

	if (!buf || !mask)
		return -EINVAL;
	for (p = buf; *p && isspace((unsigned char)*p); p++)
		;
	for (; *p && !isspace((unsigned char)*p); p++) {
		if (*p == ',') {
			if (!digits)
				return -EINVAL;
			/* each group is 32 bits: shift what came before */
			if (m >> 32)
				high = true;
			m = (m << 32) | group;
			group = 0;
			digits = 0;
			continue;
		}
		if (!isxdigit((unsigned char)*p))
			return -EINVAL;
		if (++digits > 8)
			return -EINVAL;
		group = (group << 4) | (unsigned int)(isdigit((unsigned char)*p) ?
			*p - '0' : tolower((unsigned char)*p) - 'a' + 10);
	}
	if (!digits)
		return -EINVAL;
	for (; *p; p++)
		if (!isspace((unsigned char)*p))
			return -EINVAL;
	if (m >> 32)
		high = true;
	m = (m << 32) | group;
	/* CPU 63 would make the long negative */
	if (high || (m >> 63))
		return -ERANGE;
	*mask = (long)m;
	return 1;
}

/* Format a CPU bitmap the way the kernel parses it: "3", "1,00000003". */
int bpftune_cpumask_format(long mask, char *buf, size_t len)
{
	unsigned long long m = (unsigned long long)mask;
	int ret;

	if (!buf || !len || mask < 0)
		return -EINVAL;
	if (m >> 32)
		ret = snprintf(buf, len, "%llx,%08llx", m >> 32, m & 0xffffffffULL);
	else
		ret = snprintf(buf, len, "%llx", m);
	if (ret < 0 || (size_t)ret >= len)
		return -ENOSPC;
	return ret;
}
