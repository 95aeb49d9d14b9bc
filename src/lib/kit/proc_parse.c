// SPDX-License-Identifier: GPL-2.0-only
/*
 * Pure parsers of the /proc files the kit reads whole and that the
 * telemetry schema's formats do not cover: /proc/net/protocols,
 * /proc/pressure/cpu and /proc/schedstat (see proc_file.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit/proc_file.h"

/* the next line of @text into @line; NULL at the end */
static const char *next_line(const char *text, char *line, size_t len)
{
	const char *nl;
	size_t n;

	if (!text || !*text)
		return NULL;
	nl = strchr(text, '\n');
	n = nl ? (size_t)(nl - text) : strlen(text);
	if (n >= len)
		n = len - 1;
	memcpy(line, text, n);
	line[n] = '\0';
	return nl ? nl + 1 : text + strlen(text);
}

int bpftune_protocols_parse(const char *text, const char *proto, long *pages,
			    bool *pressure)
{
	char line[512], name[32], press[8];
	long size, socks, mem;

	while ((text = next_line(text, line, sizeof(line)))) {
		/* protocol size sockets memory press ... */
		if (sscanf(line, "%31s %ld %ld %ld %7s", name, &size, &socks,
			   &mem, press) != 5 || strcmp(name, proto))
			continue;
		*pages = mem;
		*pressure = !strcmp(press, "yes");
		return 0;
	}
	return -ENOENT;
}

int bpftune_psi_some_total(const char *text, double *total)
{
	unsigned long long t;
	char line[256];

	while ((text = next_line(text, line, sizeof(line))))
		if (sscanf(line, "some avg10=%*f avg60=%*f avg300=%*f total=%llu",
			   &t) == 1) {
			*total = (double)t;
			return 0;
		}
	return -ENOENT;
}

int bpftune_schedstat_wait(const char *text, double *total)
{
	unsigned long long v[8];
	char line[512];
	int found = -ENOENT;

	*total = 0;
	while ((text = next_line(text, line, sizeof(line)))) {
		if (strncmp(line, "cpu", 3) || line[3] < '0' || line[3] > '9')
			continue;
		/* cpuN and 8 fields: the 8th is the time spent waiting to run */
		if (sscanf(line, "%*s %llu %llu %llu %llu %llu %llu %llu %llu",
			   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
			   &v[7]) == 8) {
			*total += (double)v[7];
			found = 0;
		}
	}
	return found;
}
