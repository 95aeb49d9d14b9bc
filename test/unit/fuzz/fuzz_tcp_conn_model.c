// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for tcp_conn's model files
 * (src/tuners/tcp_conn/tcp_conn_model.c): any bytes as a model file.
 * Whatever it is given, the parser answers 0 or -EINVAL with a message;
 * a parsed model compiles or is refused by name, and the compiled tree's
 * walk (tcp_conn_model_walk.h, as the sockops program runs it) ends.
 * As the checksum would stop nearly every mutation at the last line, a
 * first byte of 0x01 reseals the rest: the bytes up to its last
 * "checksum" line get a fresh, matching one.
 *   make fuzz FUZZ_TARGETS=tcp_conn_model FUZZ_SECS=60
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../../src/tuners/tcp_conn/tcp_conn_model.h"
#include "../../../src/tuners/tcp_conn/tcp_conn_model_walk.h"

static const char names[TCP_CONN_CC_MAX][TCP_CONN_CC_NAME] = {
	"cubic", "bbr", "htcp", "dctcp",
};

/* @data without its checksum line, with a matching one (malloc'd) */
static char *reseal(const uint8_t *data, size_t size, size_t *len)
{
	const char *end = (const char *)data + size, *at = NULL, *p;
	size_t keep;
	char *s;

	for (p = (const char *)data; p && p < end;
	     p = memchr(p, '\n', end - p), p = p ? p + 1 : NULL)
		if ((size_t)(end - p) >= 8 && !memcmp(p, "checksum", 8))
			at = p;
	keep = at ? (size_t)(at - (const char *)data) : size;
	s = malloc(keep + 40);
	if (!s)
		return NULL;
	memcpy(s, data, keep);
	*len = keep + snprintf(s + keep, 40, "checksum fnv1a64 %016llx\n",
			       (unsigned long long)tcp_conn_model_fnv1a64(data, keep));
	return s;
}

static void exercise(const struct tcp_conn_model *m)
{
	struct tcp_conn_model_map *map = malloc(sizeof(*map));
	__u64 x[TCP_CONN_F_SLOTS];
	char err[256];
	unsigned int i, j;

	if (!map)
		return;
	for (j = 1; j <= TCP_CONN_CC_MAX; j++) {
		if (tcp_conn_model_compile(m, names, j, map, err, sizeof(err)))
			continue;
		for (i = 0; i < 16; i++) {
			memset(x, 0, sizeof(x));
			x[i % TCP_CONN_F_SLOTS] = i & 1 ? UINT64_MAX : map->lo[i % TCP_CONN_F_SLOTS];
			if (tcp_conn_model_walk(map, x) >= (int)j)
				abort();	/* an action the daemon does not have */
		}
	}
	free(map);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tcp_conn_model *m = malloc(sizeof(*m));
	char err[256] = "", *text = NULL;
	size_t len = size;
	int ret;

	if (!m)
		return 0;
	if (size && data[0] == 0x01) {
		text = reseal(data + 1, size - 1, &len);
		if (!text) {
			free(m);
			return 0;
		}
	}
	ret = tcp_conn_model_parse(text ? text : (const char *)data, len, m, err, sizeof(err));
	if (ret && (ret != -EINVAL || !err[0]))
		abort();	/* every refusal says why */
	if (!ret)
		exercise(m);
	free(text);
	free(m);
	return 0;
}
