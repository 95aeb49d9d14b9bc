// SPDX-License-Identifier: GPL-2.0-only
/*
 * Redis URLs:
 *   redis://[[user]:password@]host[:port][/db]
 *   unix://[[user]:password@]/path/to/socket[?db=N]
 * user and password may be percent-encoded (%40 for '@').  host may be
 * an IPv6 address in brackets.  rediss:// (TLS) is refused: Debian's
 * hiredis 0.14 has no TLS.  Pure code: unit-tested and fuzzed.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ship.h"

#define REDIS_PORT	6379
#define HOST_CHARS	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.-_:"

bool ship_id_valid(const char *s)
{
	size_t n = strlen(s);

	return n && n <= SHIP_ID_MAX && strspn(s, SHIP_ID_CHARS) == n;
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* percent-decode @n bytes of @s into @out (@outlen with NUL); 0 or -1 */
static int pct_decode(const char *s, size_t n, char *out, size_t outlen)
{
	size_t i, o = 0;

	for (i = 0; i < n; i++) {
		int c = (unsigned char)s[i];

		if (c == '%') {
			int hi, lo;

			if (i + 2 >= n)
				return -1;
			hi = hexval(s[i + 1]);
			lo = hexval(s[i + 2]);
			if (hi < 0 || lo < 0)
				return -1;
			c = hi << 4 | lo;
			i += 2;
		}
		if (c == 0 || o + 1 >= outlen)
			return -1;
		out[o++] = (char)c;
	}
	out[o] = '\0';
	return 0;
}

static int parse_uint(const char *s, size_t n, long max, long *v)
{
	long r = 0;
	size_t i;

	if (!n || n > 10)
		return -1;
	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		r = r * 10 + (s[i] - '0');
	}
	if (r > max)
		return -1;
	*v = r;
	return 0;
}

/* "[user]:password" or "password" before '@' */
static int parse_userinfo(const char *s, size_t n, struct ship_url *u,
			  char *err, size_t errlen)
{
	const char *colon = memchr(s, ':', n);

	if (!colon) {
		/* redis-cli's form: the userinfo is the password */
		if (pct_decode(s, n, u->password, sizeof(u->password)))
			return fail(err, errlen, "bad password in the URL (too long, NUL or bad %%-escape)");
		return 0;
	}
	if (pct_decode(s, colon - s, u->user, sizeof(u->user)))
		return fail(err, errlen, "bad user name in the URL (too long, NUL or bad %%-escape)");
	if (pct_decode(colon + 1, n - (colon + 1 - s), u->password, sizeof(u->password)))
		return fail(err, errlen, "bad password in the URL (too long, NUL or bad %%-escape)");
	if (u->user[0] && !u->password[0])
		return fail(err, errlen, "a user name needs a password (redis://user:password@host)");
	return 0;
}

/* host[:port] or [v6][:port] */
static int parse_hostport(const char *s, size_t n, struct ship_url *u,
			  char *err, size_t errlen)
{
	const char *host = s, *port = NULL;
	size_t hlen = n;
	long v;

	if (n && s[0] == '[') {
		const char *end = memchr(s, ']', n);

		if (!end)
			return fail(err, errlen, "unterminated [IPv6 address] in the URL");
		host = s + 1;
		hlen = end - host;
		if (end + 1 < s + n) {
			if (end[1] != ':')
				return fail(err, errlen, "expected ':port' after ']' in the URL");
			port = end + 2;
		}
	} else {
		const char *colon = memchr(s, ':', n);

		if (colon) {
			hlen = colon - s;
			port = colon + 1;
		}
	}
	if (!hlen || hlen >= sizeof(u->host))
		return fail(err, errlen, "no host (or one too long) in the URL");
	/* a name, an IPv4 address, or in brackets an IPv6 one */
	if (strspn(host, HOST_CHARS) < hlen || (host == s && memchr(host, ':', hlen)))
		return fail(err, errlen, "bad host name in the URL");
	memcpy(u->host, host, hlen);
	u->host[hlen] = '\0';
	u->port = REDIS_PORT;
	if (port) {
		if (parse_uint(port, s + n - port, 65535, &v) || !v)
			return fail(err, errlen, "the port must be 1 to 65535");
		u->port = (int)v;
	}
	return 0;
}

static int parse_db(const char *s, size_t n, struct ship_url *u, char *err, size_t errlen)
{
	long v;

	if (!n)
		return 0;
	if (parse_uint(s, n, 1L << 30, &v))
		return fail(err, errlen, "the database must be a number (redis://host:port/DB)");
	u->db = (int)v;
	return 0;
}

static int parse_unix(const char *rest, struct ship_url *u, char *err, size_t errlen)
{
	const char *q = strchr(rest, '?');
	size_t n = q ? (size_t)(q - rest) : strlen(rest);

	if (!n || rest[0] != '/' || n >= sizeof(u->path))
		return fail(err, errlen, "unix:// needs an absolute socket path");
	memcpy(u->path, rest, n);
	u->path[n] = '\0';
	if (!q)
		return 0;
	if (strncmp(q, "?db=", 4))
		return fail(err, errlen, "unix:// takes only ?db=N after the path");
	return parse_db(q + 4, strlen(q + 4), u, err, errlen);
}

int ship_url_parse(const char *s, struct ship_url *u, char *err, size_t errlen)
{
	const char *rest, *at, *slash;
	bool is_unix = false;
	size_t n;

	memset(u, 0, sizeof(*u));
	if (!strncmp(s, "redis://", 8)) {
		rest = s + 8;
	} else if (!strncmp(s, "unix://", 7)) {
		rest = s + 7;
		is_unix = true;
	} else if (!strncmp(s, "rediss://", 9)) {
		return fail(err, errlen, "rediss:// (TLS) is not supported: Debian's hiredis has no TLS; use a TLS tunnel (stunnel, spiped) and redis:// to it");
	} else {
		return fail(err, errlen, "the URL must start with redis:// or unix://");
	}
	/* userinfo: up to the last '@' (a password may hold an unescaped '@') */
	at = strrchr(rest, '@');
	if (at) {
		if (parse_userinfo(rest, at - rest, u, err, errlen))
			return -1;
		rest = at + 1;
	}
	if (is_unix)
		return parse_unix(rest, u, err, errlen);
	if (strchr(rest, '?'))
		return fail(err, errlen, "query strings are not supported in redis:// URLs (the database is redis://host:port/DB)");
	if (strchr(rest, '#'))
		return fail(err, errlen, "fragments ('#') are not supported in redis:// URLs");
	slash = strchr(rest, '/');
	n = slash ? (size_t)(slash - rest) : strlen(rest);
	if (parse_hostport(rest, n, u, err, errlen))
		return -1;
	if (slash && parse_db(slash + 1, strlen(slash + 1), u, err, errlen))
		return -1;
	return 0;
}

void ship_url_describe(const struct ship_url *u, char *buf, size_t len)
{
	const char *who = u->user[0] ? u->user : "";
	const char *at = u->user[0] || u->password[0] ? "@" : "";
	const char *pw = u->password[0] ? ":***" : "";

	if (u->path[0])
		snprintf(buf, len, "unix://%s%s%s%s", who, pw, at, u->path);
	else if (strchr(u->host, ':'))
		snprintf(buf, len, "redis://%s%s%s[%s]:%d/%d", who, pw, at, u->host,
			 u->port, u->db);
	else
		snprintf(buf, len, "redis://%s%s%s%s:%d/%d", who, pw, at, u->host,
			 u->port, u->db);
}
