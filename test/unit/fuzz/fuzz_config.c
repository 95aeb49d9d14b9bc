// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the config file parser (src/lib/ops/config_parse.c
 * and config_eval.c): any bytes as a main file and, split at the first
 * 0xff byte, a drop-in after it.  Whatever it is given, the parser answers
 * (0 or -EINVAL with FILE:LINE) and a parsed config evaluates.
 *   make fuzz FUZZ_TARGETS=config FUZZ_SECS=60
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ops/config.h"

static void exercise(struct bpftune_config *p)
{
	long old[BPFTUNE_MAX_VALUES] = { 10, 20, 30 };
	long new[BPFTUNE_MAX_VALUES] = { 1, 1000000, 1L << 40 };
	struct bpftune_config_held h;
	char msg[256], src[300];
	unsigned int i;

	for (i = 0; i < p->num_tunables; i++) {
		bpftune_config_bound(&p->tunables[i], old, new, 1 + i % 3, &h);
		bpftune_config_check_cap(&p->tunables[i], 1 + i % 3, 0, 1 << 20, msg, sizeof(msg));
		bpftune_config_src_text(p, &p->tunables[i].src_max, src, sizeof(src));
	}
	bpftune_config_netns_in_scope(p, "blue", false);
	bpftune_config_netns_in_scope(p, "", true);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bpftune_config *p = bpftune_config_new();
	const uint8_t *split = memchr(data, 0xff, size);
	size_t first = split ? (size_t)(split - data) : size;
	char err[512];
	int ret;

	if (!p)
		return 0;
	ret = bpftune_config_parse(p, "fuzz.conf", (const char *)data, first, err, sizeof(err));
	if (ret && ret != -EINVAL)
		abort();
	if (!ret && split)
		ret = bpftune_config_parse(p, "fuzz.conf.d/a.conf", (const char *)split + 1,
					   size - first - 1, err, sizeof(err));
	if (ret && !strstr(err, "fuzz.conf"))
		abort();	/* every refusal names its file */
	if (!ret)
		exercise(p);
	bpftune_config_free(p);
	return 0;
}
