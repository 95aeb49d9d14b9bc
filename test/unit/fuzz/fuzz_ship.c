// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for what bpftune-ship parses from outside
 * (tools/ship/): the Redis URL of its command line or environment, its
 * watermark files (a crash or a full disk may leave them torn) and the
 * stream field values `fleet dump` decodes.  Not part of the unit-test
 * binary or of make check: make fuzz FUZZ_TARGETS=ship (seeds in
 * test/unit/fuzz/corpus/ship/).
 *
 * The first byte picks the parser.  Checks, besides the sanitizers: an
 * accepted URL has a host or an absolute socket path and a port in
 * range; an accepted watermark has valid ids and formats back to text
 * that parses to the same watermark; an accepted value encodes back to
 * a value that decodes to the same thing.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../../tools/ship/ship.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_url(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), err[256], desc[600];
	struct ship_url u;

	if (!s)
		return;
	memcpy(s, data, size);
	s[size] = '\0';
	if (!ship_url_parse(s, &u, err, sizeof(err))) {
		if (u.path[0]) {
			if (u.path[0] != '/')
				abort();
		} else if (!u.host[0] || u.port < 1 || u.port > 65535) {
			abort();
		}
		if (u.db < 0 || (u.user[0] && !u.password[0]))
			abort();
		ship_url_describe(&u, desc, sizeof(desc));
		/* a described URL never shows the password */
		if (u.password[0] && !strstr(desc, ":***@"))
			abort();
	} else if (!err[0]) {
		abort();		/* a refusal always says why */
	}
	free(s);
}

static void same_wm(const struct ship_wm *a, const struct ship_wm *b)
{
	unsigned int i;

	if (strcmp(a->run_id, b->run_id) || strcmp(a->host_id, b->host_id) ||
	    a->done != b->done || a->unverified != b->unverified || a->size != b->size ||
	    a->wal_size != b->wal_size || a->mtime_ns != b->mtime_ns ||
	    a->num_tables != b->num_tables)
		abort();
	for (i = 0; i < a->num_tables; i++)
		if (strcmp(a->tables[i].name, b->tables[i].name) ||
		    a->tables[i].rowid != b->tables[i].rowid ||
		    a->tables[i].digest != b->tables[i].digest)
			abort();
}

static void fuzz_watermark(const uint8_t *data, size_t size)
{
	static struct ship_wm wm, back;
	static char buf[SHIP_MAX_TABLES * 128 + 1024];
	unsigned int i;
	int n;

	if (ship_wm_parse((const char *)data, size, &wm)) {
		if (wm.num_tables || wm.run_id[0])
			abort();	/* refused: reset to "nothing shipped" */
		return;
	}
	if (!ship_id_valid(wm.run_id) || !ship_id_valid(wm.host_id))
		abort();
	for (i = 0; i < wm.num_tables; i++)
		if (!ship_id_valid(wm.tables[i].name) || wm.tables[i].rowid < 0)
			abort();
	n = ship_wm_format(&wm, buf, sizeof(buf));
	if (n < 0 || ship_wm_parse(buf, n, &back))
		abort();
	same_wm(&wm, &back);
}

static void fuzz_value(const uint8_t *data, size_t size)
{
	struct ship_ctx_ids ids = { "run-1", "host-1" };
	char scratch[SHIP_ENC_SCRATCH], *big = malloc(size + 2);
	struct ship_value v, back;
	const char *out;
	size_t n;

	if (!big)
		return;
	if (!ship_decode((const char *)data, size, &ids, &v)) {
		if (ship_encode(&v, &ids, scratch, big, &out, &n) ||
		    ship_decode(out, n, &ids, &back) || back.type != v.type)
			abort();
		if ((v.type == SHIP_INT && back.i != v.i) ||
		    (v.type == SHIP_REAL && memcmp(&back.r, &v.r, sizeof(double))) ||
		    ((v.type == SHIP_TEXT || v.type == SHIP_BLOB) &&
		     (back.n != v.n || memcmp(back.p, v.p, v.n))))
			abort();
	}
	free(big);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	switch (data[0] % 3) {
	case 0:
		fuzz_url(data + 1, size - 1);
		break;
	case 1:
		fuzz_watermark(data + 1, size - 1);
		break;
	default:
		fuzz_value(data + 1, size - 1);
	}
	return 0;
}
