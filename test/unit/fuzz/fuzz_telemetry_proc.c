// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the /proc parsers of the telemetry sampler
 * (src/lib/telemetry/telemetry_proc.c): bpftune_proc_lookup() in every
 * layout (snmp, sockstat, key/value, PSI, stat header, softnet, net/dev,
 * loadavg), with the key a plugin's table declaration names.  Built and
 * run by make fuzz (test/unit/fuzz/fuzz.mk, README.md there).
 *
 * Input: the first byte picks the layout (0 and 9 are invalid ones), the
 * key runs to the first newline, the rest is the file's text.
 *
 * Checks, besides the sanitizers: the result is 0, -ENOENT or -EINVAL; a
 * value found is finite, and an integer one is exact (d == i).
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "telemetry/telemetry_schema.h"

#define FUZZ_MAX_INPUT	16384

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bpftune_proc_value v;
	const uint8_t *nl;
	char *key, *text;
	size_t klen;
	int fmt, ret;

	if (size < 2 || size > FUZZ_MAX_INPUT)
		return 0;
	fmt = data[0] % (BPFTUNE_PROC_LOADAVG + 2);
	data++;
	size--;
	nl = memchr(data, '\n', size);
	klen = nl ? (size_t)(nl - data) : size;
	key = malloc(klen + 1);
	text = malloc(size - klen + 1);
	if (!key || !text)
		abort();
	memcpy(key, data, klen);
	key[klen] = '\0';
	if (nl)
		memcpy(text, nl + 1, size - klen - 1);
	text[nl ? size - klen - 1 : 0] = '\0';

	memset(&v, 0xa5, sizeof(v));
	ret = bpftune_proc_lookup((enum bpftune_proc_format)fmt, text, key, &v);
	if (ret && ret != -ENOENT && ret != -EINVAL)
		abort();
	if (!ret) {
		if (!isfinite(v.d))
			abort();
		if (!v.real && v.d != (double)v.i)
			abort();
	}
	free(key);
	free(text);
	return 0;
}
