// SPDX-License-Identifier: GPL-2.0-only
/*
 * Parsing the config file with libinih (pure: text in, struct out).  The
 * text is fed to ini_parse_stream() line by line from memory, so that
 * every value knows its line and every error says FILE:LINE.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ini.h>

#include "ops/config.h"
#include "ops/journal.h"
#include "telemetry/telemetry.h"

#define NO_OPT	NULL

static const struct bpftune_config_keydesc keys[BPFTUNE_CK_MAX] = {
	[BPFTUNE_CK_TUNERS] = { "tuners", BPFTUNE_CT_NAMES, 0, 0, "--allow", false, false,
		"load only these tuners", "every tuner in the plugin directory" },
	[BPFTUNE_CK_COLLECTORS] = { "collectors", BPFTUNE_CT_NAMES, 0, 0, "--collectors", false, false,
		"collector plugins to run (sched, perf)", "none" },
	[BPFTUNE_CK_RATE] = { "rate", BPFTUNE_CT_LONG, 0, BPFTUNE_LEARNING_RATE_MAX, "--rate",
		false, false, "learning rate 0..4", "4" },
	[BPFTUNE_CK_OBSERVE] = { "observe", BPFTUNE_CT_BOOL, 0, 0, "--observe", false, true,
		"decide and record, write no tunable", "no" },
	[BPFTUNE_CK_ROLLBACK] = { "rollback", BPFTUNE_CT_BOOL, 0, 0, "--rollback", false, false,
		"restore every changed sysctl on exit", "no" },
	[BPFTUNE_CK_TELEMETRY] = { "telemetry", BPFTUNE_CT_BOOL, 0, 0, "--no-telemetry", true,
		false, "record telemetry", "yes" },
	[BPFTUNE_CK_TELEMETRY_DIR] = { "telemetry-dir", BPFTUNE_CT_PATH, 0, 0, "--telemetry-dir",
		false, false, "telemetry directory", BPFTUNE_TELEMETRY_DIR },
	[BPFTUNE_CK_SAMPLE_INTERVAL] = { "sample-interval", BPFTUNE_CT_LONG,
		BPFTUNE_SAMPLE_INTERVAL_MIN_MS, BPFTUNE_SAMPLE_INTERVAL_MAX_MS,
		"--sample-interval", false, false, "telemetry sample interval (ms)", "1000" },
	[BPFTUNE_CK_SAMPLE_NETNS] = { "sample-netns", BPFTUNE_CT_LONG, 0,
		BPFTUNE_SAMPLE_NETNS_MAX, "--sample-netns", false, false,
		"namespaces sampled per interval", "16" },
	[BPFTUNE_CK_TELEMETRY_KEEP] = { "telemetry-keep", BPFTUNE_CT_LONG, 0,
		BPFTUNE_TELEMETRY_KEEP_MAX, "--telemetry-keep", false, false,
		"telemetry runs kept", "100" },
	[BPFTUNE_CK_TELEMETRY_MAX_MB] = { "telemetry-max-mb", BPFTUNE_CT_LONG, 0,
		BPFTUNE_TELEMETRY_MAX_MB_MAX, "--telemetry-max-mb", false, false,
		"telemetry size limit (MB)", "1024" },
	[BPFTUNE_CK_LABEL] = { "label", BPFTUNE_CT_TEXT, 0, 0, "--label", false, false,
		"workload name stored with each run", "none" },
	[BPFTUNE_CK_LEGACY] = { "legacy", BPFTUNE_CT_BOOL, 0, 0, "--legacy", false, false,
		"use the legacy BPF objects", "no" },
	[BPFTUNE_CK_CGROUP] = { "cgroup", BPFTUNE_CT_PATH, 0, 0, "--cgroup", false, false,
		"cgroup v2 directory for cgroup programs", "the cgroup2 root" },
	[BPFTUNE_CK_JOURNAL] = { "journal", BPFTUNE_CT_PATH, 0, 0, "--journal", false, false,
		"rollback journal", BPFTUNE_JOURNAL_DEFAULT },
	[BPFTUNE_CK_METRICS_DIR] = { "metrics-dir", BPFTUNE_CT_PATH, 0, 0, "--metrics-dir",
		false, false, "Prometheus textfile directory", "none" },
	[BPFTUNE_CK_DEBUG] = { "debug", BPFTUNE_CT_BOOL, 0, 0, "--debug", false, false,
		"log debug messages", "no" },
};

const struct bpftune_config_keydesc *bpftune_config_key(enum bpftune_config_key k)
{
	return k < BPFTUNE_CK_MAX ? &keys[k] : NULL;
}

struct bpftune_config *bpftune_config_new(void)
{
	return calloc(1, sizeof(struct bpftune_config));
}

void bpftune_config_free(struct bpftune_config *p)
{
	unsigned int i;

	if (!p)
		return;
	for (i = 0; i < p->num_files; i++)
		free(p->files[i]);
	free(p->tunables);
	free(p);
}

const char *bpftune_config_src_text(const struct bpftune_config *p,
				    const struct bpftune_config_src *s,
				    char *buf, size_t len)
{
	switch (s->origin) {
	case BPFTUNE_CONFIG_FILE:
		snprintf(buf, len, "%s:%u", s->file < p->num_files ?
			 p->files[s->file] : "?", s->line);
		break;
	case BPFTUNE_CONFIG_CLI:
		snprintf(buf, len, "command line");
		break;
	default:
		snprintf(buf, len, "default");
	}
	return buf;
}

bool bpftune_config_yes(const char *value)
{
	return !strcmp(value, "yes") || !strcmp(value, "true") ||
	       !strcmp(value, "on") || !strcmp(value, "1");
}

static bool is_no(const char *value)
{
	return !strcmp(value, "no") || !strcmp(value, "false") ||
	       !strcmp(value, "off") || !strcmp(value, "0");
}

unsigned int bpftune_config_names(const char *value,
				  char names[][BPFTUNE_CONFIG_NAME_LEN],
				  unsigned int max)
{
	unsigned int n = 0;
	size_t len;

	while (*value && n < max) {
		value += strspn(value, " \t,");
		len = strcspn(value, " \t,");
		if (!len)
			break;
		if (len >= BPFTUNE_CONFIG_NAME_LEN)
			len = BPFTUNE_CONFIG_NAME_LEN - 1;
		memcpy(names[n], value, len);
		names[n++][len] = '\0';
		value += strcspn(value, " \t,");
	}
	return n;
}

/* names in @value, whatever their number; UINT_MAX if one is too long */
static unsigned int count_names(const char *value)
{
	unsigned int n = 0;
	size_t len;

	for (;;) {
		value += strspn(value, " \t,");
		if (!*value)
			return n;
		len = strcspn(value, " \t,");
		if (len >= BPFTUNE_CONFIG_NAME_LEN)
			return UINT_MAX;
		n++;
		value += len;
	}
}

/* ---- parsing state and errors ----------------------------------------- */

struct parse {
	struct bpftune_config *p;
	unsigned int file;		/* index of the file being parsed */
	const char *pos, *end;		/* the text not yet read */
	unsigned int line;		/* of the line inih works on */
	unsigned int err_line;		/* first error of ours, or 0 */
	char *err;
	size_t err_len;
};

static int fail(struct parse *ps, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(struct parse *ps, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (ps->err_line)
		return 0;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ps->err_line = ps->line ? ps->line : 1;
	snprintf(ps->err, ps->err_len, "%s:%u: %s", ps->p->files[ps->file],
		 ps->err_line, msg);
	return 0;	/* inih: this line is in error */
}

/* inih's fgets: one line of the text, overlong lines and NULs refused */
static char *read_line(char *str, int num, void *stream)
{
	struct parse *ps = stream;
	const char *nl;
	size_t len, take;

	if (ps->pos >= ps->end || num < 2)
		return NULL;
	ps->line++;
	nl = memchr(ps->pos, '\n', ps->end - ps->pos);
	len = nl ? (size_t)(nl - ps->pos) + 1 : (size_t)(ps->end - ps->pos);
	take = len;
	if (take > (size_t)num - 1) {
		fail(ps, "line longer than %d characters", num - 3);
		take = 0;	/* inih sees an empty line */
	} else if (memchr(ps->pos, '\0', len)) {
		fail(ps, "NUL byte in the text");
		take = 0;
	}
	memcpy(str, ps->pos, take);
	str[take] = '\0';
	ps->pos += len;
	return str;
}

static struct bpftune_config_src here(const struct parse *ps)
{
	struct bpftune_config_src s = {
		.origin = BPFTUNE_CONFIG_FILE, .file = ps->file, .line = ps->line,
	};

	return s;
}

/* a value already set by this file: a mistake worth refusing */
static bool twice(struct parse *ps, const struct bpftune_config_src *s,
		  const char *what)
{
	if (s->origin != BPFTUNE_CONFIG_FILE || s->file != ps->file)
		return false;
	fail(ps, "%s set twice (first at line %u)", what, s->line);
	return true;
}

/* ---- values --------------------------------------------------------------- */

static int parse_long_value(const char *s, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	if (errno || end == s || *end)
		return -EINVAL;
	return 0;
}

static bool name_ok(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (!n || n >= max)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_-.:@+", *s))
			return false;
	return true;
}

/* check @value for @k; normalised into @out */
static int check_value(const struct bpftune_config_keydesc *k, const char *value,
		       char *out, size_t out_len, char *why, size_t why_len)
{
	char names[BPFTUNE_CONFIG_MAX_NAMES][BPFTUNE_CONFIG_NAME_LEN];
	unsigned int i, n;
	size_t off = 0;
	long v;

	if (!*value) {
		snprintf(why, why_len, "%s needs a value", k->key);
		return -EINVAL;
	}
	if (strlen(value) >= out_len) {
		snprintf(why, why_len, "%s: value too long", k->key);
		return -EINVAL;
	}
	switch (k->type) {
	case BPFTUNE_CT_BOOL:
		if (!bpftune_config_yes(value) && !is_no(value)) {
			snprintf(why, why_len, "%s takes yes or no, not '%s'", k->key, value);
			return -EINVAL;
		}
		snprintf(out, out_len, "%s", bpftune_config_yes(value) ? "yes" : "no");
		return 0;
	case BPFTUNE_CT_LONG:
		if (parse_long_value(value, &v) || v < k->min || v > k->max) {
			snprintf(why, why_len, "%s takes a number from %ld to %ld, not '%s'",
				 k->key, k->min, k->max, value);
			return -EINVAL;
		}
		snprintf(out, out_len, "%ld", v);
		return 0;
	case BPFTUNE_CT_PATH:
		if (value[0] != '/' || strpbrk(value, " \t")) {
			snprintf(why, why_len, "%s takes an absolute path, not '%s'", k->key, value);
			return -EINVAL;
		}
		break;
	case BPFTUNE_CT_TEXT:
		for (i = 0; value[i]; i++)
			if (!isprint((unsigned char)value[i])) {
				snprintf(why, why_len, "%s: not printable text", k->key);
				return -EINVAL;
			}
		break;
	case BPFTUNE_CT_NAMES:
		n = bpftune_config_names(value, names, BPFTUNE_CONFIG_MAX_NAMES);
		for (i = 0; i < n; i++) {
			if (!name_ok(names[i], BPFTUNE_CONFIG_NAME_LEN)) {
				snprintf(why, why_len, "%s: bad name '%.64s'", k->key, names[i]);
				return -EINVAL;
			}
			off += snprintf(out + off, out_len - off, "%s%s", i ? " " : "", names[i]);
		}
		if (!n || count_names(value) > n) {
			snprintf(why, why_len, n ? "%s: at most %d names of at most %d characters" :
				 "%s needs a name", k->key, BPFTUNE_CONFIG_MAX_NAMES,
				 BPFTUNE_CONFIG_NAME_LEN - 1);
			return -EINVAL;
		}
		return 0;
	}
	snprintf(out, out_len, "%s", value);
	return 0;
}

static int find_key(const char *name)
{
	int k;

	for (k = 0; k < BPFTUNE_CK_MAX; k++)
		if (!strcmp(keys[k].key, name))
			return k;
	return -1;
}

int bpftune_config_set_cli(struct bpftune_config *p, enum bpftune_config_key k,
			   const char *value, char *err, size_t err_len)
{
	struct bpftune_config_setting *s;

	if (k >= BPFTUNE_CK_MAX)
		return -EINVAL;
	s = &p->settings[k];
	if (check_value(&keys[k], value, s->value, sizeof(s->value), err, err_len))
		return -EINVAL;
	s->set = true;
	s->src.origin = BPFTUNE_CONFIG_CLI;
	return 0;
}

/* ---- sections ------------------------------------------------------------ */

static int on_daemon(struct parse *ps, const char *name, const char *value)
{
	struct bpftune_config_setting *s, tmp;
	char why[200];
	int k = find_key(name);

	if (k < 0)
		return fail(ps, "unknown key '%.64s' in [daemon]", name);
	s = &ps->p->settings[k];
	if (twice(ps, &s->src, name))
		return 0;
	if (check_value(&keys[k], value, tmp.value, sizeof(tmp.value), why, sizeof(why)))
		return fail(ps, "%s", why);
	memcpy(s->value, tmp.value, sizeof(s->value));
	s->set = true;
	s->src = here(ps);
	return 1;
}

static int on_netns(struct parse *ps, const char *name, const char *value)
{
	struct bpftune_config *p = ps->p;
	enum bpftune_netns_scope scope;
	unsigned int i, n;

	if (!strcmp(name, "skip"))
		scope = BPFTUNE_SCOPE_SKIP;
	else if (!strcmp(name, "only"))
		scope = BPFTUNE_SCOPE_ONLY;
	else if (!strcmp(name, "global-only"))
		scope = BPFTUNE_SCOPE_GLOBAL_ONLY;
	else
		return fail(ps, "unknown key '%.64s' in [netns] (skip, only or global-only)", name);
	if (p->scope_src.origin == BPFTUNE_CONFIG_FILE && p->scope_src.file == ps->file)
		return fail(ps, "[netns] scope set twice (first at line %u): use one of skip, only, global-only",
			    p->scope_src.line);
	if (scope == BPFTUNE_SCOPE_GLOBAL_ONLY) {
		if (!bpftune_config_yes(value) && !is_no(value))
			return fail(ps, "global-only takes yes or no, not '%.64s'", value);
		if (is_no(value))
			scope = BPFTUNE_SCOPE_ALL;
		n = 0;
	} else {
		n = bpftune_config_names(value, p->scope_names, BPFTUNE_CONFIG_MAX_NAMES);
		if (!n)
			return fail(ps, "%s needs namespace names", name);
		if (count_names(value) > n)
			return fail(ps, "%s: at most %d names of at most %d characters", name,
				    BPFTUNE_CONFIG_MAX_NAMES, BPFTUNE_CONFIG_NAME_LEN - 1);
		for (i = 0; i < n; i++)
			if (!name_ok(p->scope_names[i], BPFTUNE_CONFIG_NAME_LEN))
				return fail(ps, "bad namespace name '%.64s'",
					    p->scope_names[i]);
	}
	p->scope = scope;
	p->num_scope_names = n;
	p->scope_src = here(ps);
	return 1;
}

static struct bpftune_config_tunable *tunable_get(struct parse *ps, const char *name)
{
	struct bpftune_config *p = ps->p;
	struct bpftune_config_tunable *t;
	unsigned int i;

	for (i = 0; i < p->num_tunables; i++)
		if (!strcmp(p->tunables[i].name, name))
			return &p->tunables[i];
	if (p->num_tunables == BPFTUNE_CONFIG_MAX_TUNABLES) {
		fail(ps, "more than %d tunables", BPFTUNE_CONFIG_MAX_TUNABLES);
		return NULL;
	}
	t = realloc(p->tunables, (p->num_tunables + 1) * sizeof(*t));
	if (!t) {
		fail(ps, "out of memory");
		return NULL;
	}
	p->tunables = t;
	t = &t[p->num_tunables++];
	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "%s", name);
	return t;
}

/* "4096 131072 16777216": one to BPFTUNE_MAX_VALUES numbers */
static int parse_bounds(struct parse *ps, const char *key, const char *value,
			long *v, unsigned int *n)
{
	char buf[BPFTUNE_CONFIG_VALUE_LEN], *tok, *save = NULL;

	if (strlen(value) >= sizeof(buf))
		return fail(ps, "%s: value too long", key);
	snprintf(buf, sizeof(buf), "%s", value);
	*n = 0;
	for (tok = strtok_r(buf, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		if (*n == BPFTUNE_MAX_VALUES)
			return fail(ps, "%s: at most %d values", key, BPFTUNE_MAX_VALUES);
		if (parse_long_value(tok, &v[*n]))
			return fail(ps, "%s: '%.64s' is not a whole number", key, tok);
		(*n)++;
	}
	if (!*n)
		return fail(ps, "%s needs a value", key);
	return 1;
}

static int on_tunable(struct parse *ps, const char *tname, const char *name,
		      const char *value)
{
	struct bpftune_config_tunable *t = tunable_get(ps, tname);
	long v[BPFTUNE_MAX_VALUES] = { 0 };
	unsigned int n = 0;

	if (!t)
		return 0;
	if (!strcmp(name, "touch")) {
		if (twice(ps, &t->src_touch, "touch"))
			return 0;
		if (!bpftune_config_yes(value) && !is_no(value))
			return fail(ps, "touch takes yes or no, not '%.64s'", value);
		t->no_touch = is_no(value);
		t->src_touch = here(ps);
		return 1;
	}
	if (strcmp(name, "min") && strcmp(name, "max"))
		return fail(ps, "unknown key '%.64s' in [tunable %s] (min, max or touch)",
			    name, tname);
	if (twice(ps, name[1] == 'i' ? &t->src_min : &t->src_max, name) ||
	    !parse_bounds(ps, name, value, v, &n))
		return 0;
	if (name[1] == 'i') {
		memcpy(t->min, v, sizeof(v));
		t->num_min = n;
		t->has_min = true;
		t->src_min = here(ps);
	} else {
		memcpy(t->max, v, sizeof(v));
		t->num_max = n;
		t->has_max = true;
		t->src_max = here(ps);
	}
	return 1;
}

/* ---- [strategy TUNER] ---------------------------------------------------- */

const struct bpftune_config_strategy *
bpftune_config_strategy(const struct bpftune_config *p, const char *tuner,
			const char *key)
{
	unsigned int i;

	for (i = 0; i < p->num_strategies; i++)
		if (!strcmp(p->strategies[i].tuner, tuner) &&
		    !strcmp(p->strategies[i].key, key))
			return &p->strategies[i];
	return NULL;
}

/* check and store @tuner's @key = @value; NULL with @why if refused */
static struct bpftune_config_strategy *
strategy_set(struct bpftune_config *p, const char *tuner, const char *key,
	     const char *value, char *why, size_t why_len)
{
	struct bpftune_config_strategy *s;

	if (!name_ok(tuner, BPFTUNE_CONFIG_NAME_LEN)) {
		snprintf(why, why_len, "bad tuner name '%.64s'", tuner);
		return NULL;
	}
	if (strcmp(key, "model")) {
		snprintf(why, why_len, "unknown key '%.64s' in [strategy %s] (model)", key, tuner);
		return NULL;
	}
	if (value[0] != '/' || strpbrk(value, " \t") ||
	    strlen(value) >= BPFTUNE_CONFIG_VALUE_LEN) {
		snprintf(why, why_len, "model takes an absolute path, not '%.64s'", value);
		return NULL;
	}
	s = (struct bpftune_config_strategy *)bpftune_config_strategy(p, tuner, key);
	if (!s) {
		if (p->num_strategies == BPFTUNE_CONFIG_MAX_STRATEGY) {
			snprintf(why, why_len, "more than %d strategy settings",
				 BPFTUNE_CONFIG_MAX_STRATEGY);
			return NULL;
		}
		s = &p->strategies[p->num_strategies++];
		memset(s, 0, sizeof(*s));
		snprintf(s->tuner, sizeof(s->tuner), "%s", tuner);
		snprintf(s->key, sizeof(s->key), "%s", key);
	}
	snprintf(s->value, sizeof(s->value), "%s", value);
	return s;
}

int bpftune_config_strategy_cli(struct bpftune_config *p, const char *arg,
				char *err, size_t err_len)
{
	char buf[BPFTUNE_CONFIG_VALUE_LEN + 2 * BPFTUNE_CONFIG_NAME_LEN], why[200];
	struct bpftune_config_strategy *s;
	char *dot, *eq;

	snprintf(buf, sizeof(buf), "%s", arg);
	dot = strchr(buf, '.');
	eq = dot ? strchr(dot, '=') : NULL;
	if (!dot || !eq || strlen(arg) >= sizeof(buf)) {
		snprintf(err, err_len, "--strategy takes TUNER.KEY=VALUE, not '%.64s'", arg);
		return -EINVAL;
	}
	*dot = *eq = '\0';
	s = strategy_set(p, buf, dot + 1, eq + 1, why, sizeof(why));
	if (!s) {
		snprintf(err, err_len, "--strategy %.64s: %s", arg, why);
		return -EINVAL;
	}
	s->src.origin = BPFTUNE_CONFIG_CLI;
	return 0;
}

static int on_strategy(struct parse *ps, const char *tuner, const char *name,
		       const char *value)
{
	const struct bpftune_config_strategy *old;
	struct bpftune_config_strategy *s;
	char why[200];

	old = bpftune_config_strategy(ps->p, tuner, name);
	if (old && twice(ps, &old->src, name))
		return 0;
	s = strategy_set(ps->p, tuner, name, value, why, sizeof(why));
	if (!s)
		return fail(ps, "%s", why);
	s->src = here(ps);
	return 1;
}

/* "strategy NAME" -> NAME */
static bool strategy_section(const char *section, char *name, size_t len)
{
	const char *s;

	if (strncmp(section, "strategy", 8) || !isspace((unsigned char)section[8]))
		return false;
	s = section + 8;
	s += strspn(s, " \t");
	if (!*s || strlen(s) >= len)
		return false;
	snprintf(name, len, "%s", s);
	return true;
}

/* "tunable net.ipv4.tcp_rmem" (or net/ipv4/tcp_rmem) -> the dotted name */
static bool tunable_section(const char *section, char *name, size_t len)
{
	const char *s;
	size_t i;

	if (strncmp(section, "tunable", 7) || !isspace((unsigned char)section[7]))
		return false;
	s = section + 7;
	s += strspn(s, " \t");
	if (!*s || strlen(s) >= len)
		return false;
	for (i = 0; s[i]; i++) {
		if (!isalnum((unsigned char)s[i]) && !strchr("_-./", s[i]))
			return false;
		name[i] = s[i] == '/' ? '.' : s[i];
	}
	name[i] = '\0';
	return name[0] != '.' && name[i - 1] != '.';
}

static int on_value(void *user, const char *section, const char *name,
		    const char *value)
{
	struct parse *ps = user;
	char tname[BPFTUNE_CONFIG_TUNABLE_LEN];

	if (!strcmp(section, "daemon"))
		return on_daemon(ps, name, value);
	if (!strcmp(section, "netns"))
		return on_netns(ps, name, value);
	if (tunable_section(section, tname, sizeof(tname)))
		return on_tunable(ps, tname, name, value);
	if (strategy_section(section, tname, sizeof(tname)))
		return on_strategy(ps, tname, name, value);
	if (!*section)
		return fail(ps, "'%.64s' outside a section ([daemon], [netns], [tunable NAME] or [strategy TUNER])",
			    name);
	return fail(ps, "unknown section [%.80s] ([daemon], [netns], [tunable NAME] or [strategy TUNER])",
		    section);
}

int bpftune_config_parse(struct bpftune_config *p, const char *file,
			 const char *text, size_t len, char *err,
			 size_t err_len)
{
	struct parse ps = {
		.p = p, .pos = text, .end = text + len, .err = err,
		.err_len = err_len,
	};
	int ret;

	if (p->num_files == BPFTUNE_CONFIG_MAX_FILES) {
		snprintf(err, err_len, "%s: more than %d config files", file,
			 BPFTUNE_CONFIG_MAX_FILES);
		return -EINVAL;
	}
	p->files[p->num_files] = strdup(file);
	if (!p->files[p->num_files]) {
		snprintf(err, err_len, "%s: out of memory", file);
		return -ENOMEM;
	}
	ps.file = p->num_files++;
	/* an indented line is a line of its own, not a continuation */
	ini_allow_multiline = false;
	ret = ini_parse_stream(read_line, &ps, on_value, &ps);
	if (ret > 0 && (!ps.err_line || (unsigned int)ret < ps.err_line))
		snprintf(err, err_len, "%s:%d: syntax error (expected [section], name = value or a comment)",
			 file, ret);
	else if (ret < 0)
		snprintf(err, err_len, "%s: cannot parse (error %d)", file, ret);
	return ret || ps.err_line ? -EINVAL : 0;
}
