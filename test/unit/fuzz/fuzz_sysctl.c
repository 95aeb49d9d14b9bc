// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the pure sysctl helpers (src/lib/core/sysctl_value.c):
 * bpftune_sysctl_parse(), bpftune_sysctl_format() and bpftune_sysctl_path().
 * Built and run by make fuzz (test/unit/fuzz/fuzz.mk, README.md there).
 *
 * Checks, besides the sanitizers: parse returns a count in 1..max or one of
 * -EINVAL/-ERANGE/-E2BIG; what parses formats and parses back the same;
 * an accepted name maps to a path under /proc/sys with no "..".
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "core/sysctl.h"

#define FUZZ_MAX_INPUT	4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	long values[BPFTUNE_MAX_VALUES + 1], again[BPFTUNE_MAX_VALUES + 1];
	char *in, path[256], out[128];
	unsigned int max;
	int n;

	if (!size || size > FUZZ_MAX_INPUT)
		return 0;
	/* first byte picks the value limit, the rest is the text */
	max = data[0] % (BPFTUNE_MAX_VALUES + 2);
	in = malloc(size);
	if (!in)
		return 0;
	memcpy(in, data + 1, size - 1);
	in[size - 1] = '\0';

	n = bpftune_sysctl_parse(in, values, max);
	if (n > 0) {
		if ((unsigned int)n > max)
			abort();
		if (bpftune_sysctl_format(values, n, out, sizeof(out)) <= 0)
			abort();
		if (bpftune_sysctl_parse(out, again, n) != n ||
		    memcmp(values, again, n * sizeof(long)))
			abort();
	} else if (n != -EINVAL && n != -ERANGE && n != -E2BIG) {
		abort();
	}

	/* the same text as a sysctl name, with a buffer of varying size */
	if (bpftune_sysctl_path(in, path, 1 + data[0] % sizeof(path)) == 0) {
		if (strncmp(path, "/proc/sys/", 10) || strstr(path, ".."))
			abort();
	}
	free(in);
	return 0;
}
