// SPDX-License-Identifier: GPL-2.0-only
/*
 * Rollback journal records: encoding and strict decoding of one line
 * (format in journal.h).  The journal is read back after a crash, so
 * decoding trusts nothing: every field is checked and the line's CRC-32
 * must match.  Pure code, unit-tested and fuzzed.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "core/appendf.h"
#include "ops/journal.h"

#define MAX_TOKENS	(9 + BPFTUNE_MAX_VALUES)

static bool name_char_plain(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-' ||
	       c == ':' || c == '@' || c == '+';
}

static bool sysctl_valid(const char *s, size_t n)
{
	size_t i;

	if (!n || n >= BPFTUNE_JREC_SYSCTL_LEN || s[0] == '.' || s[0] == '/')
		return false;
	for (i = 0; i < n; i++) {
		unsigned char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '_' ||
		      c == '-' || c == '/'))
			return false;
		if (i + 1 < n && (c == '.' || c == '/') &&
		    (s[i + 1] == '.' || s[i + 1] == '/'))
			return false;
	}
	return true;
}

static bool netns_name_valid(const char *s)
{
	return *s && strcmp(s, ".") && strcmp(s, "..") && !strchr(s, '/') &&
	       strlen(s) <= NAME_MAX;
}

static bool boot_id_valid(const char *s, size_t n)
{
	size_t i;

	if (n != BPFTUNE_BOOT_ID_LEN)
		return false;
	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f') ||
		      s[i] == '-'))
			return false;
	return true;
}

int bpftune_jrec_encode(const struct bpftune_jrec *r, char *buf, size_t len)
{
	size_t off = 0, i;
	uint32_t crc;
	int err;

	if ((r->type != BPFTUNE_JREC_ORIG && r->type != BPFTUNE_JREC_WRITTEN &&
	     r->type != BPFTUNE_JREC_MANUAL) ||
	    r->scope > BPFTUNE_JSCOPE_ALL ||
	    (r->scope == BPFTUNE_JSCOPE_ALL && r->type != BPFTUNE_JREC_MANUAL) ||
	    !boot_id_valid(r->boot_id, strlen(r->boot_id)) ||
	    !sysctl_valid(r->sysctl, strlen(r->sysctl)) ||
	    r->num_values > BPFTUNE_MAX_VALUES ||
	    (!r->num_values && r->type != BPFTUNE_JREC_MANUAL) ||
	    (r->netns_name[0] && !netns_name_valid(r->netns_name)))
		return -EINVAL;
	err = bpftune_appendf(buf, len, &off, "%c %s %u ", r->type, r->boot_id, r->scope);
	if (!r->netns_name[0]) {
		err = err ?: bpftune_appendf(buf, len, &off, "-");
	} else {
		for (i = 0; !err && r->netns_name[i]; i++) {
			unsigned char c = r->netns_name[i];

			if (name_char_plain(c) && !(i == 0 && c == '-' && !r->netns_name[1]))
				err = bpftune_appendf(buf, len, &off, "%c", c);
			else
				err = bpftune_appendf(buf, len, &off, "%%%02x", c);
		}
	}
	err = err ?: bpftune_appendf(buf, len, &off, " %llu %llu %llu %s %u",
			 (unsigned long long)r->ino, (unsigned long long)r->dev,
			 (unsigned long long)r->cookie, r->sysctl, r->num_values);
	for (i = 0; !err && i < r->num_values; i++)
		err = bpftune_appendf(buf, len, &off, " %ld", r->values[i]);
	if (err)
		return err;
	crc = crc32(0, (const Bytef *)buf, off);
	err = bpftune_appendf(buf, len, &off, " #%08x\n", crc);
	if (err || off > BPFTUNE_JREC_MAX_LINE)
		return -ENOSPC;
	return off;
}

static int parse_u64(const char *s, uint64_t *v)
{
	uint64_t x = 0;

	if (!*s || (s[0] == '0' && s[1]))
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || x > (UINT64_MAX - (*s - '0')) / 10)
			return -EINVAL;
		x = x * 10 + (*s - '0');
	}
	*v = x;
	return 0;
}

static int parse_long(const char *s, long *v)
{
	bool neg = *s == '-';
	uint64_t x;

	if (parse_u64(s + neg, &x) || (neg && !x))
		return -EINVAL;
	if (neg ? x > (uint64_t)LONG_MAX + 1 : x > (uint64_t)LONG_MAX)
		return -EINVAL;
	*v = neg ? (long)(0 - x) : (long)x;
	return 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static int parse_name(const char *s, char *out, size_t len)
{
	size_t n = 0;

	if (!strcmp(s, "-")) {
		out[0] = '\0';
		return 0;
	}
	for (; *s; s++) {
		int c = (unsigned char)*s;

		if (c == '%') {
			int hi = hexval(s[1]), lo = hi < 0 ? -1 : hexval(s[2]);

			if (lo < 0)
				return -EINVAL;
			c = hi << 4 | lo;
			s += 2;
			/* one spelling per name: escapes only where encode puts them */
			if (!c || (name_char_plain(c) &&
				   !(c == '-' && n == 0 && !s[1])))
				return -EINVAL;
		} else if (!name_char_plain(c)) {
			return -EINVAL;
		}
		if (n + 1 >= len)
			return -EINVAL;
		out[n++] = c;
	}
	out[n] = '\0';
	return netns_name_valid(out) ? 0 : -EINVAL;
}

#define BAD(msg) do { *why = msg; return -EINVAL; } while (0)

int bpftune_jrec_decode(const char *line, size_t len, struct bpftune_jrec *r,
			const char **why)
{
	char copy[BPFTUNE_JREC_MAX_LINE], *tok[MAX_TOKENS + 1], *p;
	unsigned int ntok = 0, i;
	const char *hash;
	uint64_t v;
	uint32_t crc;
	size_t body;

	*why = "";
	memset(r, 0, sizeof(*r));
	if (len >= BPFTUNE_JREC_MAX_LINE)
		BAD("line too long");
	if (memchr(line, '\0', len) || memchr(line, '\n', len))
		BAD("stray NUL or newline");
	/* " #xxxxxxxx" at the end */
	if (len < 10 || line[len - 10] != ' ' || line[len - 9] != '#')
		BAD("no checksum");
	for (i = len - 8; i < len; i++)
		if (hexval(line[i]) < 0)
			BAD("bad checksum field");
	body = len - 10;
	hash = line + len - 8;
	for (crc = 0, i = 0; i < 8; i++)
		crc = crc << 4 | hexval(hash[i]);
	if (crc != crc32(0, (const Bytef *)line, body)) {
		*why = "checksum mismatch";
		return -EBADMSG;
	}
	memcpy(copy, line, body);
	copy[body] = '\0';
	for (p = copy; ntok <= MAX_TOKENS;) {
		tok[ntok++] = p;
		p = strchr(p, ' ');
		if (!p)
			break;
		*p++ = '\0';
	}
	if (ntok > MAX_TOKENS || ntok < 9)
		BAD("wrong number of fields");
	for (i = 0; i < ntok; i++)
		if (!*tok[i])
			BAD("empty field");
	if (strlen(tok[0]) != 1 || !strchr("OWM", tok[0][0]))
		BAD("unknown record type");
	r->type = tok[0][0];
	if (!boot_id_valid(tok[1], strlen(tok[1])))
		BAD("bad boot id");
	memcpy(r->boot_id, tok[1], BPFTUNE_BOOT_ID_LEN + 1);
	if (strlen(tok[2]) != 1 || tok[2][0] < '0' || tok[2][0] > '2')
		BAD("bad scope");
	r->scope = tok[2][0] - '0';
	if (r->scope == BPFTUNE_JSCOPE_ALL && r->type != BPFTUNE_JREC_MANUAL)
		BAD("scope 'every netns' on a value record");
	if (parse_name(tok[3], r->netns_name, sizeof(r->netns_name)))
		BAD("bad netns name");
	if (parse_u64(tok[4], &r->ino) || parse_u64(tok[5], &r->dev) ||
	    parse_u64(tok[6], &r->cookie))
		BAD("bad netns inode, device or cookie");
	if (!sysctl_valid(tok[7], strlen(tok[7])))
		BAD("bad sysctl name");
	strcpy(r->sysctl, tok[7]);
	if (parse_u64(tok[8], &v) || v > BPFTUNE_MAX_VALUES ||
	    (!v && r->type != BPFTUNE_JREC_MANUAL))
		BAD("bad value count");
	r->num_values = v;
	if (ntok != 9 + r->num_values)
		BAD("value count does not match the values");
	for (i = 0; i < r->num_values; i++)
		if (parse_long(tok[9 + i], &r->values[i]))
			BAD("bad value");
	return 0;
}

bool bpftune_jrec_same_key(const struct bpftune_jrec *a,
			   const struct bpftune_jrec *b)
{
	if (strcmp(a->sysctl, b->sysctl))
		return false;
	if (a->scope == BPFTUNE_JSCOPE_ALL || b->scope == BPFTUNE_JSCOPE_ALL)
		return true;
	if (a->scope != b->scope)
		return false;
	if (a->scope == BPFTUNE_JSCOPE_GLOBAL)
		return true;
	return a->ino == b->ino && a->dev == b->dev && a->cookie == b->cookie;
}

size_t bpftune_jrec_filter(const char *in, size_t len,
			   bool (*drop)(const struct bpftune_jrec *r, void *ctx),
			   void *ctx, char *out)
{
	const char *p = in, *end = in + len, *nl;
	struct bpftune_jrec r;
	const char *why;
	size_t n = 0, l;

	while (p < end) {
		nl = memchr(p, '\n', end - p);
		l = (nl ? nl + 1 : end) - p;
		/* what does not decode stays: the restore reports it */
		if (!nl || bpftune_jrec_decode(p, l - 1, &r, &why) || !drop(&r, ctx)) {
			memmove(out + n, p, l);
			n += l;
		}
		p += l;
	}
	return n;
}
