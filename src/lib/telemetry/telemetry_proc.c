// SPDX-License-Identifier: GPL-2.0-only
/*
 * The library's one family of /proc parsers: the files the telemetry
 * sampler reads, by a declaration's key (see enum bpftune_proc_format),
 * and the ones the tuner kit reads (<bpftune/proc.h>): protocol memory,
 * per-CPU softnet_stat, CPU wait.  Each takes the whole file as one
 * NUL-terminated string.  They never write to the text and never read past
 * its end, whatever it contains: unit- and fuzz-tested.  They live here,
 * below the kit, because both the sampler and the kit use them and
 * telemetry may not call the kit (scripts/check-layers.sh).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "telemetry/telemetry_schema.h"

#define TOKEN_MAX	64

struct span {
	const char *p;
	size_t len;
};

/* The line starting at *pos; advances *pos past it.  false at the end. */
static bool next_line(const char **pos, struct span *line)
{
	const char *s = *pos, *e;

	if (!*s)
		return false;
	e = strchr(s, '\n');
	if (!e)
		e = s + strlen(s);
	line->p = s;
	line->len = e - s;
	*pos = *e ? e + 1 : e;
	return true;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* Next whitespace-separated token of a line; false when none is left. */
static bool next_token(struct span *line, struct span *tok)
{
	while (line->len && is_blank(*line->p)) {
		line->p++;
		line->len--;
	}
	if (!line->len)
		return false;
	tok->p = line->p;
	tok->len = 0;
	while (line->len && !is_blank(*line->p)) {
		line->p++;
		line->len--;
		tok->len++;
	}
	return true;
}

static bool tok_eq(const struct span *t, const char *s, size_t n)
{
	return t->len == n && !memcmp(t->p, s, n);
}

/* Token @n (0-based) of what is left of a line. */
static bool nth_token(struct span *line, long n, struct span *tok)
{
	long i;

	for (i = 0; next_token(line, tok); i++)
		if (i == n)
			return true;
	return false;
}

/* Index of the token equal to @s in a line, or -1. */
static int token_index(struct span *line, const char *s)
{
	size_t n = strlen(s);
	struct span tok;
	int i;

	for (i = 0; next_token(line, &tok); i++)
		if (tok_eq(&tok, s, n))
			return i;
	return -1;
}

/* A finite real as an integer, saturated (a plain cast of 1e300 is UB). */
static int64_t real_to_int(double d)
{
	if (d >= 0x1p63)
		return INT64_MAX;
	if (d < -0x1p63)
		return INT64_MIN;
	return (int64_t)d;
}

/* A decimal integer, else a decimal real; -EINVAL if neither. */
static int parse_number(const struct span *t, struct bpftune_proc_value *v)
{
	char buf[TOKEN_MAX];
	char *end;

	if (!t->len || t->len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, t->p, t->len);
	buf[t->len] = '\0';
	errno = 0;
	v->i = strtoll(buf, &end, 10);
	if (!errno && end != buf && !*end) {
		v->real = false;
		v->d = (double)v->i;
		return 0;
	}
	errno = 0;
	v->d = strtod(buf, &end);
	/* "inf" and "nan" parse, but no /proc counter holds them */
	if (errno || end == buf || *end || !isfinite(v->d))
		return -EINVAL;
	v->real = true;
	v->i = real_to_int(v->d);
	return 0;
}

static int parse_hex(const struct span *t, uint64_t *out)
{
	char buf[TOKEN_MAX];
	char *end;

	if (!t->len || t->len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, t->p, t->len);
	buf[t->len] = '\0';
	errno = 0;
	*out = strtoull(buf, &end, 16);
	return errno || end == buf || *end || buf[0] == '-' ? -EINVAL : 0;
}

static void set_int(struct bpftune_proc_value *v, int64_t i)
{
	v->real = false;
	v->i = i;
	v->d = (double)i;
}

/* Split "Sec.Field" at the first dot. */
static int split_key(const char *key, struct span *sec, const char **field)
{
	const char *dot = strchr(key, '.');

	if (!dot || dot == key || !dot[1])
		return -EINVAL;
	sec->p = key;
	sec->len = dot - key;
	*field = dot + 1;
	return 0;
}

/* Does the line start with the token "<sec>:"? Consumes it if so. */
static bool take_prefix(struct span *line, const struct span *sec)
{
	struct span l = *line, tok;

	if (!next_token(&l, &tok) || tok.len != sec->len + 1 ||
	    memcmp(tok.p, sec->p, sec->len) || tok.p[sec->len] != ':')
		return false;
	*line = l;
	return true;
}

/* The next line of section "<sec>:", past its prefix; false at the end. */
static bool next_in_section(const char **pos, const struct span *sec,
			    struct span *line)
{
	while (next_line(pos, line))
		if (take_prefix(line, sec))
			return true;
	return false;
}

/* /proc/net/snmp, /proc/net/netstat: a header line and a value line. */
static int lookup_snmp(const char *text, const char *key,
		       struct bpftune_proc_value *v)
{
	struct span sec, hdr, val, tok;
	const char *field, *pos = text;
	int idx;

	if (split_key(key, &sec, &field))
		return -EINVAL;
	while (next_in_section(&pos, &sec, &hdr)) {
		if (!next_line(&pos, &val) || !take_prefix(&val, &sec))
			return -EINVAL;
		idx = token_index(&hdr, field);
		if (idx < 0)
			continue;	/* the same section may appear again */
		if (!nth_token(&val, idx, &tok))
			return -EINVAL;
		return parse_number(&tok, v);
	}
	return -ENOENT;
}

/* /proc/net/sockstat: "TCP: inuse 1 orphan 0 tw 4 alloc 1 mem 162". */
static int lookup_sockstat(const char *text, const char *key,
			   struct bpftune_proc_value *v)
{
	struct span sec, line, name, val;
	const char *field, *pos = text;
	size_t flen;

	if (split_key(key, &sec, &field))
		return -EINVAL;
	flen = strlen(field);
	if (!next_in_section(&pos, &sec, &line))
		return -ENOENT;
	while (next_token(&line, &name) && next_token(&line, &val))
		if (tok_eq(&name, field, flen))
			return parse_number(&val, v);
	return -ENOENT;
}

/* meminfo, snmp6, /proc/stat: "Name[:] v0 v1 ..."; key "Name" or "Name#k". */
static int lookup_keyval(const char *text, const char *key,
			 struct bpftune_proc_value *v)
{
	const char *hash = strchr(key, '#'), *pos = text;
	struct span line, tok;
	size_t klen;
	long k = 0;

	if (hash) {
		char *end;

		errno = 0;
		k = strtol(hash + 1, &end, 10);
		if (errno || end == hash + 1 || *end || k < 0)
			return -EINVAL;
		klen = hash - key;
	} else {
		klen = strlen(key);
	}
	if (!klen)
		return -EINVAL;
	while (next_line(&pos, &line)) {
		long n = k;

		if (!next_token(&line, &tok))
			continue;
		if (tok.len && tok.p[tok.len - 1] == ':')
			tok.len--;
		if (!tok_eq(&tok, key, klen))
			continue;
		while (next_token(&line, &tok)) {
			struct bpftune_proc_value x;

			if (parse_number(&tok, &x))
				continue;	/* a unit such as "kB" */
			if (n-- == 0) {
				*v = x;
				return 0;
			}
		}
		return -ENOENT;
	}
	return -ENOENT;
}

/* /proc/pressure/{cpu,memory,io}: "some avg10=0.00 ... total=123". */
static int lookup_psi(const char *text, const char *key,
		      struct bpftune_proc_value *v)
{
	struct span sec, line, tok;
	const char *field, *pos = text;
	size_t flen;

	if (split_key(key, &sec, &field))
		return -EINVAL;
	flen = strlen(field);
	while (next_line(&pos, &line)) {
		if (!next_token(&line, &tok) || !tok_eq(&tok, sec.p, sec.len))
			continue;
		while (next_token(&line, &tok)) {
			struct span val;

			if (tok.len <= flen || memcmp(tok.p, field, flen) ||
			    tok.p[flen] != '=')
				continue;
			val.p = tok.p + flen + 1;
			val.len = tok.len - flen - 1;
			return parse_number(&val, v);
		}
		return -ENOENT;
	}
	return -ENOENT;
}

/*
 * Hex column @col summed over the rows from *@pos on (the first only if
 * @first_only); rows without it are skipped.  -ENOENT if none has it.
 */
static int sum_hex_column(const char *pos, long col, bool first_only,
			  struct bpftune_proc_value *v)
{
	struct span line, tok;
	bool found = false;
	uint64_t sum = 0;

	while (next_line(&pos, &line)) {
		uint64_t x;

		if (!nth_token(&line, col, &tok))
			continue;
		if (parse_hex(&tok, &x))
			return -EINVAL;
		sum += x;
		found = true;
		if (first_only)
			break;
	}
	if (!found)
		return -ENOENT;
	set_int(v, (int64_t)sum);
	return 0;
}

/*
 * /proc/net/stat/arp_cache and ndisc_cache: a header of names, then one
 * row of hex counters per CPU, summed.  "entries" is the table's size,
 * printed the same on every row, so it is read from the first row.
 */
static int lookup_stathdr(const char *text, const char *key,
			  struct bpftune_proc_value *v)
{
	const char *pos = text;
	struct span line;
	int idx;

	if (!next_line(&pos, &line))
		return -ENOENT;
	idx = token_index(&line, key);
	if (idx < 0)
		return -ENOENT;
	return sum_hex_column(pos, idx, !strcmp(key, "entries"), v);
}

/* /proc/net/softnet_stat: hex columns, one row per CPU; key "N". */
static int lookup_softnet(const char *text, const char *key,
			  struct bpftune_proc_value *v)
{
	char *end;
	long col;

	errno = 0;
	col = strtol(key, &end, 10);
	if (errno || end == key || *end || col < 0)
		return -EINVAL;
	return sum_hex_column(text, col, false, v);
}

static const char *const netdev_fields[] = {
	"rx_bytes", "rx_packets", "rx_errs", "rx_drop", "rx_fifo", "rx_frame",
	"rx_compressed", "rx_multicast",
	"tx_bytes", "tx_packets", "tx_errs", "tx_drop", "tx_fifo", "tx_colls",
	"tx_carrier", "tx_compressed",
};

/* /proc/net/dev: "  eth0: 1 2 ...": summed over every device but lo. */
static int lookup_netdev(const char *text, const char *key,
			 struct bpftune_proc_value *v)
{
	const unsigned int nf = sizeof(netdev_fields) / sizeof(netdev_fields[0]);
	struct span line, tok, name;
	const char *pos = text;
	unsigned int idx;
	uint64_t sum = 0;

	for (idx = 0; idx < nf; idx++)
		if (!strcmp(key, netdev_fields[idx]))
			break;
	if (idx == nf)
		return -EINVAL;
	while (next_line(&pos, &line)) {
		const char *colon = memchr(line.p, ':', line.len);
		struct bpftune_proc_value x;

		if (!colon)
			continue;	/* the two header lines */
		name.p = line.p;
		name.len = colon - line.p;
		if (!next_token(&name, &tok) || tok_eq(&tok, "lo", 2))
			continue;
		line.len -= colon + 1 - line.p;
		line.p = colon + 1;
		if (!nth_token(&line, idx, &tok))
			return -EINVAL;
		if (parse_number(&tok, &x) || x.real || x.i < 0)
			return -EINVAL;
		sum += (uint64_t)x.i;
	}
	set_int(v, (int64_t)sum);
	return 0;
}

/* /proc/loadavg: "0.10 0.20 0.30 2/345 6789". */
static int lookup_loadavg(const char *text, const char *key,
			  struct bpftune_proc_value *v)
{
	static const char *const names[] = { "load1", "load5", "load15" };
	const char *pos = text;
	struct span line, tok;
	unsigned int i;

	if (!next_line(&pos, &line))
		return -ENOENT;
	for (i = 0; i < 3; i++) {
		if (!next_token(&line, &tok))
			return -EINVAL;
		if (!strcmp(key, names[i])) {
			if (parse_number(&tok, v))
				return -EINVAL;
			if (!v->real)
				v->d = (double)v->i;
			v->real = true;
			return 0;
		}
	}
	if (!next_token(&line, &tok))
		return -EINVAL;
	if (!strcmp(key, "runnable") || !strcmp(key, "threads")) {
		const char *slash = memchr(tok.p, '/', tok.len);
		struct span part;

		if (!slash)
			return -EINVAL;
		if (!strcmp(key, "runnable")) {
			part.p = tok.p;
			part.len = slash - tok.p;
		} else {
			part.p = slash + 1;
			part.len = tok.len - (slash + 1 - tok.p);
		}
		if (parse_number(&part, v) || v->real)
			return -EINVAL;
		return 0;
	}
	return -EINVAL;
}

typedef int (*lookup_fn)(const char *text, const char *key,
			 struct bpftune_proc_value *v);

static const lookup_fn lookups[] = {
	[BPFTUNE_PROC_SNMP]	= lookup_snmp,
	[BPFTUNE_PROC_SOCKSTAT]	= lookup_sockstat,
	[BPFTUNE_PROC_KEYVAL]	= lookup_keyval,
	[BPFTUNE_PROC_PSI]	= lookup_psi,
	[BPFTUNE_PROC_STATHDR]	= lookup_stathdr,
	[BPFTUNE_PROC_SOFTNET]	= lookup_softnet,
	[BPFTUNE_PROC_NETDEV]	= lookup_netdev,
	[BPFTUNE_PROC_LOADAVG]	= lookup_loadavg,
};

int bpftune_proc_lookup(enum bpftune_proc_format fmt, const char *text,
			const char *key, struct bpftune_proc_value *v)
{
	if (!text || !key || !*key || !v ||
	    (unsigned int)fmt >= sizeof(lookups) / sizeof(lookups[0]) ||
	    !lookups[fmt])
		return -EINVAL;
	return lookups[fmt](text, key, v);
}

/* ---- the tuner kit's files ---------------------------------------------- */

int bpftune_protocols_parse(const char *text, const char *proto, long *pages,
			    bool *pressure)
{
	struct span line, tok, mem, press;
	struct bpftune_proc_value v;
	const char *pos = text;
	size_t n;

	if (!text || !proto || !pages || !pressure)
		return -EINVAL;
	n = strlen(proto);
	while (next_line(&pos, &line)) {
		/* protocol size sockets memory press ... */
		if (!next_token(&line, &tok) || !tok_eq(&tok, proto, n))
			continue;
		if (!nth_token(&line, 2, &mem) || !next_token(&line, &press) ||
		    parse_number(&mem, &v) || v.real)
			continue;
		*pages = (long)v.i;
		*pressure = tok_eq(&press, "yes", 3);
		return 0;
	}
	return -ENOENT;
}

int bpftune_schedstat_wait(const char *text, double *total)
{
	struct span line, tok;
	struct bpftune_proc_value v;
	const char *pos = text;
	int found = -ENOENT;

	if (!text || !total)
		return -EINVAL;
	*total = 0;
	while (next_line(&pos, &line)) {
		if (!next_token(&line, &tok) || tok.len < 4 ||
		    memcmp(tok.p, "cpu", 3) || tok.p[3] < '0' || tok.p[3] > '9')
			continue;
		/* cpuN and 8 fields: the 8th is the time spent waiting to run */
		if (!nth_token(&line, 7, &tok) || parse_number(&tok, &v) ||
		    v.real || v.i < 0)
			continue;
		*total += (double)v.i;
		found = 0;
	}
	return found;
}

/* Column @col of one softnet_stat row and the row's CPU (column 12). */
static int softnet_row(struct span line, unsigned int col, uint64_t *value,
		       uint64_t *cpu)
{
	struct span tok;
	unsigned int n;
	bool got = false;

	for (n = 0; next_token(&line, &tok); n++) {
		if (n != col && n != 12)
			continue;
		if (parse_hex(&tok, n == col ? value : cpu))
			return -EINVAL;
		got |= n == col;
	}
	return got ? 0 : -EINVAL;
}

int bpftune_softnet_rows(const char *text, unsigned int col, uint64_t *values,
			 unsigned int *cpus, unsigned int max)
{
	const char *pos = text;
	unsigned int rows = 0;
	struct span line;

	if (!text || !values || !cpus || col >= 16)
		return -EINVAL;
	while (rows < max && next_line(&pos, &line)) {
		uint64_t cpu = rows;

		if (softnet_row(line, col, &values[rows], &cpu) || cpu > UINT_MAX)
			return -EINVAL;
		cpus[rows++] = (unsigned int)cpu;
	}
	return (int)rows;
}

int bpftune_gauge_value(const struct bpftune_gauge *g, enum bpftune_gauge_agg agg,
			struct bpftune_proc_value *v)
{
	static const struct bpftune_gauge none;

	if (!v)
		return -EINVAL;
	if (!g)
		g = &none;
	switch (agg) {
	case BPFTUNE_GAUGE_N:
		set_int(v, (int64_t)g->n);
		return 0;
	case BPFTUNE_GAUGE_SUM:
		set_int(v, (int64_t)g->sum);
		return 0;
	case BPFTUNE_GAUGE_MAX:
		if (!g->n)
			return -ENOENT;
		set_int(v, (int64_t)g->max);
		return 0;
	case BPFTUNE_GAUGE_MEAN:
		if (!g->n)
			return -ENOENT;
		v->real = true;
		v->d = (double)g->sum / (double)g->n;
		v->i = real_to_int(v->d);
		return 0;
	}
	return -EINVAL;
}
