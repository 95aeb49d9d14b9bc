// SPDX-License-Identifier: GPL-2.0-only
/* /proc/net/softnet_stat per CPU (see softnet_parse.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kit/softnet_parse.h"

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
