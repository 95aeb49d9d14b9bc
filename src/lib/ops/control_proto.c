// SPDX-License-Identifier: GPL-2.0-only
/*
 * Control protocol, the pure part: parsing a request line that came from
 * a socket (so anything: empty, binary, huge), and bounded reply buffers
 * with a JSON string escaper.  No I/O here; unit-tested and fuzzed.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/control.h"

static const struct {
	const char *name;
	const char *help;
	bool json;
} queries[BPFTUNE_Q_MAX] = {
	[BPFTUNE_Q_HELP] = { "help", "this list", true },
	[BPFTUNE_Q_TUNERS] = { "tuners",
		"loaded tuners: state, BPF mode, learning rate, strategies, per-netns states",
		true },
	[BPFTUNE_Q_TUNABLES] = { "tunables",
		"every tunable: tuner, sysctl, type, hard cap and why", true },
	[BPFTUNE_Q_STATUS] = { "status",
		"current values read now, globally and in each netns where they were changed",
		true },
	[BPFTUNE_Q_SUMMARY] = { "summary", "the changes made so far", true },
	[BPFTUNE_Q_ROLLBACK] = { "rollback",
		"the sysctl -w commands that would restore the original values", true },
	[BPFTUNE_Q_METRICS] = { "metrics", "Prometheus text format metrics", false },
	[BPFTUNE_Q_CONFIG] = { "config",
		"the config in force (bpftune.conf) and where each value came from", true },
};

const char *bpftune_query_name(enum bpftune_query q)
{
	return q < BPFTUNE_Q_MAX ? queries[q].name : "?";
}

const char *bpftune_query_help(enum bpftune_query q)
{
	return q < BPFTUNE_Q_MAX ? queries[q].help : "";
}

bool bpftune_query_has_json(enum bpftune_query q)
{
	return q < BPFTUNE_Q_MAX && queries[q].json;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Copy at most 32 bytes of a token for an error message (already text). */
static void quote_token(const char *s, size_t n, char *buf, size_t len)
{
	snprintf(buf, len, "%.*s%s", (int)(n > 32 ? 32 : n), s, n > 32 ? "..." : "");
}

static int lookup(const char *s, size_t n, enum bpftune_query *q)
{
	unsigned int i;

	for (i = 0; i < BPFTUNE_Q_MAX; i++)
		if (strlen(queries[i].name) == n && !memcmp(queries[i].name, s, n)) {
			*q = i;
			return 0;
		}
	return -ENOENT;
}

int bpftune_request_parse(const char *buf, size_t len,
			  struct bpftune_request *req, char *err,
			  size_t err_len)
{
	const char *tok[3], *p, *end;
	size_t tlen[3], i;
	unsigned int ntok = 0;
	char word[48];

	err[0] = '\0';
	if (len > BPFTUNE_CTL_MAX_REQUEST) {
		snprintf(err, err_len, "request too long (at most %d bytes)",
			 BPFTUNE_CTL_MAX_REQUEST);
		return -E2BIG;
	}
	/* one optional line ending, nothing after it */
	if (len && buf[len - 1] == '\n')
		len--;
	if (len && buf[len - 1] == '\r')
		len--;
	for (i = 0; i < len; i++) {
		unsigned char c = buf[i];

		if ((c < 0x20 && c != '\t') || c > 0x7e) {
			snprintf(err, err_len, "request is not one line of text (byte 0x%02x at offset %zu)",
				 c, i);
			return -EINVAL;
		}
	}
	end = buf + len;
	for (p = buf; p < end && ntok < 3;) {
		while (p < end && is_blank(*p))
			p++;
		if (p == end)
			break;
		tok[ntok] = p;
		while (p < end && !is_blank(*p))
			p++;
		tlen[ntok] = p - tok[ntok];
		ntok++;
	}
	if (!ntok) {
		snprintf(err, err_len, "empty request; try 'help'");
		return -ENODATA;
	}
	while (p < end && is_blank(*p))
		p++;
	if (p != end || ntok > 2) {
		snprintf(err, err_len, "too many words; a request is '<query> [--json]'");
		return -EINVAL;
	}
	req->json = false;
	if (ntok == 2) {
		if (!((tlen[1] == 6 && !memcmp(tok[1], "--json", 6)) ||
		      (tlen[1] == 4 && !memcmp(tok[1], "json", 4)))) {
			quote_token(tok[1], tlen[1], word, sizeof(word));
			snprintf(err, err_len, "unknown option '%s'; only --json", word);
			return -EINVAL;
		}
		req->json = true;
	}
	if (lookup(tok[0], tlen[0], &req->query)) {
		/* "jstatus" is "status --json" */
		if (tlen[0] < 2 || tok[0][0] != 'j' || req->json ||
		    lookup(tok[0] + 1, tlen[0] - 1, &req->query)) {
			quote_token(tok[0], tlen[0], word, sizeof(word));
			snprintf(err, err_len, "unknown query '%s'; try 'help'", word);
			return -ENOENT;
		}
		req->json = true;
	}
	if (req->json && !queries[req->query].json) {
		snprintf(err, err_len, "%s has no JSON form", queries[req->query].name);
		return -EINVAL;
	}
	return 0;
}

/* ---- reply buffers ------------------------------------------------------ */

void bpftune_buf_init(struct bpftune_buf *b, size_t max)
{
	memset(b, 0, sizeof(*b));
	b->max = max;
}

void bpftune_buf_free(struct bpftune_buf *b)
{
	free(b->data);
	bpftune_buf_init(b, b->max);
}

void bpftune_buf_reset(struct bpftune_buf *b)
{
	b->len = 0;
	b->overflow = false;
	if (b->data)
		b->data[0] = '\0';
}

static int reserve(struct bpftune_buf *b, size_t n)
{
	size_t want, cap;
	char *d;

	if (b->overflow)
		return -ENOSPC;
	if (n > b->max || b->len + n + 1 > b->max) {
		b->overflow = true;
		return -ENOSPC;
	}
	want = b->len + n + 1;
	if (want <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 256;
	while (cap < want)
		cap *= 2;
	if (cap > b->max)
		cap = b->max;
	d = realloc(b->data, cap);
	if (!d) {
		b->overflow = true;
		return -ENOMEM;
	}
	b->data = d;
	b->cap = cap;
	return 0;
}

int bpftune_buf_add(struct bpftune_buf *b, const char *s, size_t n)
{
	int err = reserve(b, n);

	if (err)
		return err;
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

int bpftune_buf_printf(struct bpftune_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n, err;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->overflow = true;
		return -EINVAL;
	}
	err = reserve(b, n);
	if (err)
		return err;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, n + 1, fmt, ap);
	va_end(ap);
	b->len += n;
	return 0;
}

int bpftune_buf_json_str(struct bpftune_buf *b, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p;
	char esc[7];
	int err;

	if (!s)
		return bpftune_buf_add(b, "null", 4);
	err = bpftune_buf_add(b, "\"", 1);
	for (p = (const unsigned char *)s; !err && *p; p++) {
		switch (*p) {
		case '"':
			err = bpftune_buf_add(b, "\\\"", 2);
			break;
		case '\\':
			err = bpftune_buf_add(b, "\\\\", 2);
			break;
		case '\n':
			err = bpftune_buf_add(b, "\\n", 2);
			break;
		case '\t':
			err = bpftune_buf_add(b, "\\t", 2);
			break;
		case '\r':
			err = bpftune_buf_add(b, "\\r", 2);
			break;
		default:
			if (*p < 0x20 || *p >= 0x7f) {
				/*
				 * Control bytes, DEL and bytes that may not be
				 * UTF-8 (netns names, comm): escape one by one
				 * so the output is always valid JSON.
				 */
				esc[0] = '\\';
				esc[1] = 'u';
				esc[2] = '0';
				esc[3] = '0';
				esc[4] = hex[*p >> 4];
				esc[5] = hex[*p & 15];
				err = bpftune_buf_add(b, esc, 6);
			} else {
				err = bpftune_buf_add(b, (const char *)p, 1);
			}
		}
	}
	return err ?: bpftune_buf_add(b, "\"", 1);
}

void bpftune_buf_json_values(struct bpftune_buf *b, const long *v, unsigned int n)
{
	unsigned int i;

	bpftune_buf_add(b, "[", 1);
	for (i = 0; i < n; i++)
		bpftune_buf_printf(b, "%s%ld", i ? "," : "", v[i]);
	bpftune_buf_add(b, "]", 1);
}

void bpftune_values_text(const long *v, unsigned int n, const char *sep,
			 char *buf, size_t len)
{
	size_t off = 0;
	unsigned int i;

	if (!len)
		return;
	buf[0] = '\0';
	for (i = 0; i < n && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%ld", i ? sep : "", v[i]);
}
