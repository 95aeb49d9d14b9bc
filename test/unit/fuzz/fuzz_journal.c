// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the rollback journal's record decoder
 * (src/lib/ops/journal_record.c), which reads back a file a crash may have
 * torn.  Built and run by make fuzz (test/unit/fuzz/fuzz.mk, README.md
 * there).
 *
 * The input is split into lines as the restore does; each line is also
 * tried with a correct checksum appended, so that the fuzzer reaches the
 * field checks behind the CRC.  Checks, besides the
 * sanitizers: a decoded record is well-formed (type, scope, value count,
 * a sysctl name without "..", a netns name without '/') and encodes back
 * to exactly the line it came from, so nothing is accepted that the
 * daemon could not have written.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "ops/journal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_line(const char *line, size_t len)
{
	char again[BPFTUNE_JREC_MAX_LINE];
	struct bpftune_jrec r;
	const char *why = NULL;
	int ret, n;

	ret = bpftune_jrec_decode(line, len, &r, &why);
	if (ret) {
		if ((ret != -EINVAL && ret != -EBADMSG) || !why || !*why)
			abort();
		return;
	}
	if (!strchr("OWM", r.type) || r.scope > BPFTUNE_JSCOPE_ALL ||
	    r.num_values > BPFTUNE_MAX_VALUES ||
	    (r.type != 'M' && (!r.num_values || r.scope == BPFTUNE_JSCOPE_ALL)) ||
	    strstr(r.sysctl, "..") || strchr(r.netns_name, '/'))
		abort();
	n = bpftune_jrec_encode(&r, again, sizeof(again));
	if (n != (int)len + 1 || memcmp(again, line, len) || again[len] != '\n')
		abort();
}

/* @line with a checksum that matches, as if the daemon had written it */
static void check_with_crc(const char *line, size_t len)
{
	char buf[BPFTUNE_JREC_MAX_LINE + 16];

	if (len + 10 >= sizeof(buf))
		return;
	memcpy(buf, line, len);
	snprintf(buf + len, sizeof(buf) - len, " #%08lx",
		 crc32(0, (const Bytef *)line, len));
	check_line(buf, len + 10);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size, *nl;

	while (p < end) {
		nl = memchr(p, '\n', end - p);
		check_line(p, (nl ? nl : end) - p);
		check_with_crc(p, (nl ? nl : end) - p);
		if (!nl)
			break;
		p = nl + 1;
	}
	return 0;
}
