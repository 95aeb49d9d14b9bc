/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The admin's config file: /etc/bpftune/bpftune.conf and the drop-ins in
 * /etc/bpftune/bpftune.conf.d/NAME.conf (see bpftune.conf(5)).
 *
 * config_parse.c and config_eval.c are pure (parse text with libinih,
 * merge files, evaluate bounds and netns scope; unit-tested and fuzzed);
 * config.c does the I/O (reading the files, SIGHUP, the hook in the
 * tunable write path, logging) and config_query.c answers -q config.
 */
#ifndef BPFTUNE_CONFIG_H
#define BPFTUNE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <bpftune/bpftune.h>

#define BPFTUNE_CONFIG_DEFAULT		"/etc/bpftune/bpftune.conf"
#define BPFTUNE_CONFIG_MAX_FILES	64	/* main file + drop-ins */
#define BPFTUNE_CONFIG_MAX_SIZE		(256 * 1024)	/* bytes per file */
#define BPFTUNE_CONFIG_MAX_NAMES	64	/* names in one list */
#define BPFTUNE_CONFIG_NAME_LEN		64
#define BPFTUNE_CONFIG_VALUE_LEN	256
#define BPFTUNE_CONFIG_TUNABLE_LEN	128
#define BPFTUNE_CONFIG_MAX_TUNABLES	256

/* Where a value came from: a file of the config and a line, or elsewhere. */
enum bpftune_config_origin {
	BPFTUNE_CONFIG_DEFAULT_VALUE,	/* not set anywhere */
	BPFTUNE_CONFIG_FILE,
	BPFTUNE_CONFIG_CLI,		/* the command line */
};

struct bpftune_config_src {
	enum bpftune_config_origin origin;
	unsigned int file;		/* index into config->files */
	unsigned int line;
};

/* [daemon]: what the command line sets too. */
enum bpftune_config_key {
	BPFTUNE_CK_TUNERS,
	BPFTUNE_CK_COLLECTORS,
	BPFTUNE_CK_RATE,
	BPFTUNE_CK_OBSERVE,
	BPFTUNE_CK_ROLLBACK,
	BPFTUNE_CK_TELEMETRY,
	BPFTUNE_CK_TELEMETRY_DIR,
	BPFTUNE_CK_SAMPLE_INTERVAL,
	BPFTUNE_CK_SAMPLE_NETNS,
	BPFTUNE_CK_TELEMETRY_KEEP,
	BPFTUNE_CK_TELEMETRY_MAX_MB,
	BPFTUNE_CK_LABEL,
	BPFTUNE_CK_LEGACY,
	BPFTUNE_CK_CGROUP,
	BPFTUNE_CK_JOURNAL,
	BPFTUNE_CK_METRICS_DIR,
	BPFTUNE_CK_DEBUG,
	BPFTUNE_CK_MAX,
};

enum bpftune_config_type {
	BPFTUNE_CT_BOOL,
	BPFTUNE_CT_LONG,
	BPFTUNE_CT_PATH,	/* absolute */
	BPFTUNE_CT_TEXT,
	BPFTUNE_CT_NAMES,	/* names separated by blanks or commas */
};

struct bpftune_config_keydesc {
	const char *key;		/* in the file */
	enum bpftune_config_type type;
	long min, max;			/* BPFTUNE_CT_LONG */
	/*
	 * The command-line option it stands for: "--rate" takes the value,
	 * a bool's option is given for "yes" (or for "no" when @negate);
	 * NULL: no such option.
	 */
	const char *option;
	bool negate;
	bool live;			/* SIGHUP applies it; others need a restart */
	const char *help;
	const char *def;		/* the default, for bpftune -q config */
};

const struct bpftune_config_keydesc *bpftune_config_key(enum bpftune_config_key k);

struct bpftune_config_setting {
	bool set;
	char value[BPFTUNE_CONFIG_VALUE_LEN];	/* normalised text */
	struct bpftune_config_src src;
};

/* [tunable NAME]: admin bounds, one per value (or one for all), or touch = no */
struct bpftune_config_tunable {
	char name[BPFTUNE_CONFIG_TUNABLE_LEN];	/* dotted: net.ipv4.tcp_rmem */
	bool has_min, has_max, no_touch;
	unsigned int num_min, num_max;
	long min[BPFTUNE_MAX_VALUES];
	long max[BPFTUNE_MAX_VALUES];
	struct bpftune_config_src src_min, src_max, src_touch;
};

enum bpftune_netns_scope {
	BPFTUNE_SCOPE_ALL,
	BPFTUNE_SCOPE_SKIP,		/* all but these */
	BPFTUNE_SCOPE_ONLY,		/* only these */
	BPFTUNE_SCOPE_GLOBAL_ONLY,	/* the initial netns only */
};

/*
 * [strategy TUNER]: how a tuner decides.  Keys: model = PATH (a learned
 * model file the tuner runs, falling back to its hand rule).  The command
 * line's --strategy TUNER.KEY=VALUE sets the same.
 */
#define BPFTUNE_CONFIG_MAX_STRATEGY	32
struct bpftune_config_strategy {
	char tuner[BPFTUNE_CONFIG_NAME_LEN];
	char key[BPFTUNE_CONFIG_NAME_LEN];
	char value[BPFTUNE_CONFIG_VALUE_LEN];
	struct bpftune_config_src src;
};

/* the initial netns in skip/only lists */
#define BPFTUNE_CONFIG_GLOBAL_NETNS	"global"

struct bpftune_config {
	char *files[BPFTUNE_CONFIG_MAX_FILES];
	unsigned int num_files;
	struct bpftune_config_setting settings[BPFTUNE_CK_MAX];
	struct bpftune_config_tunable *tunables;
	unsigned int num_tunables;
	enum bpftune_netns_scope scope;
	char scope_names[BPFTUNE_CONFIG_MAX_NAMES][BPFTUNE_CONFIG_NAME_LEN];
	unsigned int num_scope_names;
	struct bpftune_config_src scope_src;
	struct bpftune_config_strategy strategies[BPFTUNE_CONFIG_MAX_STRATEGY];
	unsigned int num_strategies;
};

/* ---- config_parse.c (pure) ---- */
struct bpftune_config *bpftune_config_new(void);
void bpftune_config_free(struct bpftune_config *p);
/*
 * Parse one file's text into @p; files parsed later override earlier ones
 * key by key.  Returns 0, or -EINVAL with "FILE:LINE: what" in @err (the
 * first problem; @p is then only fit to be freed).
 */
int bpftune_config_parse(struct bpftune_config *p, const char *file,
			 const char *text, size_t len, char *err,
			 size_t err_len);
/* @value for key @k as if from the command line; -EINVAL with @err */
int bpftune_config_set_cli(struct bpftune_config *p, enum bpftune_config_key k,
			   const char *value, char *err, size_t err_len);
/*
 * --strategy TUNER.KEY=VALUE from the command line: wins over the files.
 * 0, or -EINVAL with what is wrong in @err.
 */
int bpftune_config_strategy_cli(struct bpftune_config *p, const char *arg,
				char *err, size_t err_len);
/* the [strategy @tuner] setting @key, or NULL */
const struct bpftune_config_strategy *
bpftune_config_strategy(const struct bpftune_config *p, const char *tuner,
			const char *key);
/* "FILE:LINE", "command line" or "default" */
const char *bpftune_config_src_text(const struct bpftune_config *p,
				    const struct bpftune_config_src *s,
				    char *buf, size_t len);
/* split a NAMES value; returns the count (at most @max) */
unsigned int bpftune_config_names(const char *value,
				  char names[][BPFTUNE_CONFIG_NAME_LEN],
				  unsigned int max);
bool bpftune_config_yes(const char *value);

/* ---- config_eval.c (pure) ---- */
const struct bpftune_config_tunable *
bpftune_config_tunable(const struct bpftune_config *p, const char *name);
/* is the netns called @name (BPFTUNE_CONFIG_GLOBAL_NETNS: initial) in scope? */
bool bpftune_config_netns_in_scope(const struct bpftune_config *p,
				   const char *name, bool global);

/* what the admin's bounds did to a write */
struct bpftune_config_held {
	unsigned int held_max;		/* bit i: value i held at max */
	unsigned int held_min;
	bool bad_count;			/* the bound has another number of values */
};

/*
 * Keep @new (n values, @old the live ones) within @pt's bounds: a value
 * never goes past a bound, and one already past it never moves further
 * out.  Returns true if any value was held.
 */
bool bpftune_config_bound(const struct bpftune_config_tunable *pt,
			  const long *old, long *new, unsigned int n,
			  struct bpftune_config_held *h);
/*
 * Check @pt against a tunable of @n values with the built-in cap
 * [cap_min, cap_max]: -EINVAL if a bound has neither 1 nor @n values or
 * min > max; bounds outside the cap are clamped to it (returns how many,
 * with what was done in @msg).
 */
int bpftune_config_check_cap(struct bpftune_config_tunable *pt,
			     unsigned int n, long cap_min, long cap_max,
			     char *msg, size_t msg_len);

#endif /* BPFTUNE_CONFIG_H */
