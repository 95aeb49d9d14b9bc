// SPDX-License-Identifier: GPL-2.0-only
/*
 * One SQLite value as one Redis stream field value, keeping its storage
 * class so that a dump rebuilds the very same row:
 *   ""            NULL
 *   -?[0-9]+      INTEGER, canonical decimal (Redis keeps it as an integer)
 *   f<number>     REAL: the shortest of %.15g/%.16g/%.17g that reads back
 *                 exactly; finf, f-inf
 *   t<bytes>      TEXT
 *   x<bytes>      BLOB
 *   =r, =h        TEXT equal to the run's run_id / host_id
 * Pure code: unit-tested and fuzzed (the decoder).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ship.h"

/* snprintf("%lld") costs more than the rest of a row's encoding */
size_t ship_i64toa(int64_t v, char *buf)
{
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	char tmp[20];
	size_t n = 0, i = 0;

	do {
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		buf[i++] = '-';
	while (n)
		buf[i++] = tmp[--n];
	return i;
}

static size_t fmt_real(double r, char *buf)
{
	int prec;

	if (isinf(r))
		return (size_t)snprintf(buf, SHIP_ENC_SCRATCH, "f%s", r < 0 ? "-inf" : "inf");
	for (prec = 15; prec < 17; prec++) {
		snprintf(buf, SHIP_ENC_SCRATCH, "f%.*g", prec, r);
		if (strtod(buf + 1, NULL) == r)
			break;
	}
	return (size_t)snprintf(buf, SHIP_ENC_SCRATCH, "f%.*g", prec, r);
}

static bool same(const char *id, const char *p, size_t n)
{
	return id && strlen(id) == n && !memcmp(id, p, n);
}

int ship_encode(const struct ship_value *v, const struct ship_ctx_ids *ids,
		char *scratch, char *big, const char **out, size_t *outlen)
{
	switch (v->type) {
	case SHIP_NULL:
		*out = scratch;
		*outlen = 0;
		return 0;
	case SHIP_INT:
		*out = scratch;
		*outlen = ship_i64toa(v->i, scratch);
		return 0;
	case SHIP_REAL:
		if (isnan(v->r))
			return -1;
		*out = scratch;
		*outlen = fmt_real(v->r, scratch);
		return 0;
	case SHIP_TEXT:
		if (ids && same(ids->run_id, v->p, v->n)) {
			*out = "=r";
			*outlen = 2;
			return 0;
		}
		if (ids && same(ids->host_id, v->p, v->n)) {
			*out = "=h";
			*outlen = 2;
			return 0;
		}
		big[0] = 't';
		break;
	case SHIP_BLOB:
		big[0] = 'x';
		break;
	default:
		return -1;
	}
	if (v->n)
		memcpy(big + 1, v->p, v->n);
	*out = big;
	*outlen = v->n + 1;
	return 0;
}

/* canonical decimal int64: -?(0|[1-9][0-9]*), no -0, no overflow */
static int decode_int(const char *p, size_t n, int64_t *out)
{
	bool neg = p[0] == '-';
	uint64_t v = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	size_t i = neg;

	if (i == n || (p[i] == '0' && (n - i > 1 || neg)))
		return -1;
	for (; i < n; i++) {
		unsigned int d = (unsigned char)p[i] - '0';

		if (d > 9 || v > (lim - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

static int decode_real(const char *p, size_t n, double *out)
{
	char buf[SHIP_ENC_SCRATCH], *end;

	if (!n || n >= sizeof(buf))
		return -1;
	memcpy(buf, p, n);
	buf[n] = '\0';
	/* only what fmt_real writes: no hex floats, nan, spaces, '+' */
	if (strspn(buf, "0123456789.e+-infINF") != n || buf[0] == '+')
		return -1;
	errno = 0;
	*out = strtod(buf, &end);
	if (end != buf + n || isnan(*out))
		return -1;
	return 0;
}

int ship_decode(const char *p, size_t n, const struct ship_ctx_ids *ids,
		struct ship_value *v)
{
	memset(v, 0, sizeof(*v));
	if (!n) {
		v->type = SHIP_NULL;
		return 0;
	}
	if (p[0] == '-' || (p[0] >= '0' && p[0] <= '9')) {
		v->type = SHIP_INT;
		return decode_int(p, n, &v->i);
	}
	switch (p[0]) {
	case 'f':
		v->type = SHIP_REAL;
		return decode_real(p + 1, n - 1, &v->r);
	case 't':
	case 'x':
		v->type = p[0] == 't' ? SHIP_TEXT : SHIP_BLOB;
		v->p = p + 1;
		v->n = n - 1;
		return 0;
	case '=':
		if (n != 2 || !ids)
			return -1;
		v->type = SHIP_TEXT;
		v->p = p[1] == 'r' ? ids->run_id : p[1] == 'h' ? ids->host_id : NULL;
		if (!v->p)
			return -1;
		v->n = strlen(v->p);
		return 0;
	}
	return -1;
}

uint64_t ship_digest(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= c[i];
		h *= 0x100000001b3ULL;
	}
	/* the length too: "ab","c" and "a","bc" differ */
	h ^= (uint64_t)n;
	h *= 0x100000001b3ULL;
	return h;
}
