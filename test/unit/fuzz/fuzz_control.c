// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the control socket's request parser and reply
 * buffer (src/lib/ops/control_proto.c).  Built and run by make fuzz
 * (test/unit/fuzz/fuzz.mk, README.md there); the unit tests run a
 * deterministic random loop too.
 *
 * Checks, besides the sanitizers: a request is accepted only if it is at
 * most BPFTUNE_CTL_MAX_REQUEST bytes of printable text naming a known
 * query, refused otherwise with a one-line printable reason; the same
 * bytes as a JSON string always come out as printable, quoted JSON.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ops/control.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_reason(const char *err)
{
	if (!*err)
		abort();
	for (; *err; err++)
		if (*err < 0x20 || *err > 0x7e)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bpftune_request req;
	struct bpftune_buf b;
	char err[160], *s;
	size_t i;
	int ret;

	ret = bpftune_request_parse((const char *)data, size, &req, err, sizeof(err));
	if (ret == 0) {
		if (size > BPFTUNE_CTL_MAX_REQUEST || req.query >= BPFTUNE_Q_MAX ||
		    (req.json && !bpftune_query_has_json(req.query)))
			abort();
		for (i = 0; i < size; i++)
			if ((data[i] < 0x20 || data[i] > 0x7e) && data[i] != '\t' &&
			    !(data[i] == '\n' && i == size - 1) &&
			    !(data[i] == '\r' && i >= size - 2))
				abort();
	} else if (ret == -ENODATA || ret == -E2BIG || ret == -EINVAL || ret == -ENOENT) {
		check_reason(err);
	} else {
		abort();
	}

	/* the same bytes (up to a NUL) as a JSON string */
	s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	bpftune_buf_init(&b, 1 + size * 6 + 2);
	if (bpftune_buf_json_str(&b, s) || b.overflow)
		abort();
	if (b.len < 2 || b.data[0] != '"' || b.data[b.len - 1] != '"')
		abort();
	for (i = 0; i < b.len; i++)
		if (b.data[i] < 0x20 || b.data[i] > 0x7e)
			abort();
	bpftune_buf_free(&b);
	free(s);
	return 0;
}
