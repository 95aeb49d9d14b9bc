// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the /proc parsers the tuner kit reads:
 * bpftune_cpumask_parse()/format() (src/lib/core/sysctl_value.c),
 * bpftune_softnet_rows(), and /proc/net/protocols and /proc/schedstat
 * (src/lib/telemetry/telemetry_proc.c, the library's one /proc parser
 * family; fuzz_telemetry_proc.c covers its lookups by key).
 * Built and run by make fuzz (test/unit/fuzz/fuzz.mk, README.md there).
 *
 * Checks, besides the sanitizers: a mask that parses formats and parses
 * back the same; the parsers return a count or -EINVAL, never more rows
 * than asked for.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "telemetry/telemetry_schema.h"
#include "core/sysctl.h"

#define FUZZ_MAX_INPUT	8192

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t rows[8];
	unsigned int cpus[8];
	long m, again, pages;
	bool pressure;
	double total;
	char *in, out[32];
	int n;

	if (!size || size > FUZZ_MAX_INPUT)
		return 0;
	in = malloc(size + 1);
	if (!in)
		return 0;
	memcpy(in, data, size);
	in[size] = '\0';

	n = bpftune_cpumask_parse(in, &m);
	if (n == 1) {
		if (m < 0 || bpftune_cpumask_format(m, out, sizeof(out)) <= 0 ||
		    bpftune_cpumask_parse(out, &again) != 1 || again != m)
			abort();
	} else if (n != -EINVAL && n != -ERANGE) {
		abort();
	}

	n = bpftune_softnet_rows(in, data[0] % 16, rows, cpus, 8);
	if (n > 8 || (n < 0 && n != -EINVAL))
		abort();
	n = bpftune_protocols_parse(in, "TCP", &pages, &pressure);
	if (n && n != -ENOENT)
		abort();
	n = bpftune_schedstat_wait(in, &total);
	if (n && n != -ENOENT)
		abort();
	free(in);
	return 0;
}
