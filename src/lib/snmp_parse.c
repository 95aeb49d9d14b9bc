// SPDX-License-Identifier: GPL-2.0-only
/* /proc/net/snmp-style counter files (see snmp_parse.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "snmp_parse.h"

#define LINE_MAX_LEN	8192

/* Count each wanted name once, however often the file repeats it. */
static int first_time(uint64_t *seen, int idx)
{
	uint64_t bit = idx < 64 ? 1ULL << idx : 0;

	if (*seen & bit)
		return 0;
	*seen |= bit;
	return 1;
}

static int want_index(const char *name, const char *const *names,
		      unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!strcmp(name, names[i]))
			return (int)i;
	return -1;
}

static int parse_pairs(FILE *f, const char *table, const char *const *names,
		       uint64_t *values, unsigned int n)
{
	char *hdr, *val, *hs, *vs, *h, *v;
	size_t tlen = strlen(table);
	int found = 0, idx;
	uint64_t seen = 0;

	hdr = malloc(LINE_MAX_LEN);
	val = malloc(LINE_MAX_LEN);
	if (!hdr || !val) {
		free(hdr);
		free(val);
		return -ENOMEM;
	}
	while (fgets(hdr, LINE_MAX_LEN, f)) {
		if (strncmp(hdr, table, tlen) || hdr[tlen] != ':')
			continue;
		if (!fgets(val, LINE_MAX_LEN, f) || strncmp(val, table, tlen) ||
		    val[tlen] != ':') {
			found = -EINVAL;
			break;
		}
		h = strtok_r(hdr + tlen + 1, " \t\n", &hs);
		v = strtok_r(val + tlen + 1, " \t\n", &vs);
		for (; h && v; h = strtok_r(NULL, " \t\n", &hs),
			       v = strtok_r(NULL, " \t\n", &vs)) {
			idx = want_index(h, names, n);
			if (idx < 0)
				continue;
			values[idx] = strtoull(v, NULL, 10);
			found += first_time(&seen, idx);
		}
		break;
	}
	free(hdr);
	free(val);
	return found;
}

static int parse_keyval(FILE *f, const char *const *names, uint64_t *values,
			unsigned int n)
{
	char line[256], name[128];
	unsigned long long v;
	int found = 0, idx;
	uint64_t seen = 0;

	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%127s %llu", name, &v) != 2)
			continue;
		idx = want_index(name, names, n);
		if (idx < 0)
			continue;
		values[idx] = v;
		found += first_time(&seen, idx);
	}
	return found;
}

int bpftune_snmp_parse(FILE *f, const char *table, const char *const *names,
		       uint64_t *values, unsigned int n)
{
	if (!f || !names || !values || !n)
		return -EINVAL;
	if (table)
		return parse_pairs(f, table, names, values, n);
	return parse_keyval(f, names, values, n);
}

int bpftune_softnet_parse(FILE *f, unsigned int col, uint64_t *values,
			  unsigned int *cpus, unsigned int max)
{
	char line[512], *p, *end;
	unsigned long long cols[16];
	unsigned int rows = 0, c;

	if (!f || !values || !cpus || col >= 16)
		return -EINVAL;
	while (rows < max && fgets(line, sizeof(line), f)) {
		for (c = 0, p = line; c < 16; c++, p = end) {
			cols[c] = strtoull(p, &end, 16);
			if (end == p)
				break;
		}
		if (c <= col)
			return -EINVAL;
		values[rows] = cols[col];
		cpus[rows] = c > 12 ? (unsigned int)cols[12] : rows;
		rows++;
	}
	return (int)rows;
}
