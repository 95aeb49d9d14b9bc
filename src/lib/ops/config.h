/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The admin's policy file: /etc/bpftune/bpftune.conf and the drop-ins in
 * /etc/bpftune/bpftune.conf.d/NAME.conf (see bpftune.conf(5)).
 *
 * policy_parse.c and policy_eval.c are pure (parse text with libinih,
 * merge files, evaluate bounds and netns scope; unit-tested and fuzzed);
 * policy.c does the I/O (reading the files, SIGHUP, the hook in the
 * tunable write path, logging) and policy_query.c answers -q config.
 */
#ifndef BPFTUNE_POLICY_H
#define BPFTUNE_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <bpftune/bpftune.h>

#define BPFTUNE_POLICY_DEFAULT		"/etc/bpftune/bpftune.conf"
#define BPFTUNE_POLICY_MAX_FILES	64	/* main file + drop-ins */
#define BPFTUNE_POLICY_MAX_SIZE		(256 * 1024)	/* bytes per file */
#define BPFTUNE_POLICY_MAX_NAMES	64	/* names in one list */
#define BPFTUNE_POLICY_NAME_LEN		64
#define BPFTUNE_POLICY_VALUE_LEN	256
#define BPFTUNE_POLICY_TUNABLE_LEN	128
#define BPFTUNE_POLICY_MAX_TUNABLES	256

/* Where a value came from: a file of the policy and a line, or elsewhere. */
enum bpftune_policy_origin {
	BPFTUNE_POLICY_DEFAULT_VALUE,	/* not set anywhere */
	BPFTUNE_POLICY_FILE,
	BPFTUNE_POLICY_CLI,		/* the command line */
};

struct bpftune_policy_src {
	enum bpftune_policy_origin origin;
	unsigned int file;		/* index into policy->files */
	unsigned int line;
};

/* [daemon]: what the command line sets too. */
enum bpftune_policy_key {
	BPFTUNE_PK_TUNERS,
	BPFTUNE_PK_COLLECTORS,
	BPFTUNE_PK_RATE,
	BPFTUNE_PK_OBSERVE,
	BPFTUNE_PK_ROLLBACK,
	BPFTUNE_PK_TELEMETRY,
	BPFTUNE_PK_TELEMETRY_DIR,
	BPFTUNE_PK_SAMPLE_INTERVAL,
	BPFTUNE_PK_SAMPLE_NETNS,
	BPFTUNE_PK_TELEMETRY_KEEP,
	BPFTUNE_PK_TELEMETRY_MAX_MB,
	BPFTUNE_PK_LABEL,
	BPFTUNE_PK_LEGACY,
	BPFTUNE_PK_CGROUP,
	BPFTUNE_PK_JOURNAL,
	BPFTUNE_PK_METRICS_DIR,
	BPFTUNE_PK_DEBUG,
	BPFTUNE_PK_MAX,
};

enum bpftune_policy_type {
	BPFTUNE_PT_BOOL,
	BPFTUNE_PT_LONG,
	BPFTUNE_PT_PATH,	/* absolute */
	BPFTUNE_PT_TEXT,
	BPFTUNE_PT_NAMES,	/* names separated by blanks or commas */
};

struct bpftune_policy_keydesc {
	const char *key;		/* in the file */
	enum bpftune_policy_type type;
	long min, max;			/* BPFTUNE_PT_LONG */
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

const struct bpftune_policy_keydesc *bpftune_policy_key(enum bpftune_policy_key k);

struct bpftune_policy_setting {
	bool set;
	char value[BPFTUNE_POLICY_VALUE_LEN];	/* normalised text */
	struct bpftune_policy_src src;
};

/* [tunable NAME]: admin bounds, one per value (or one for all), or touch = no */
struct bpftune_policy_tunable {
	char name[BPFTUNE_POLICY_TUNABLE_LEN];	/* dotted: net.ipv4.tcp_rmem */
	bool has_min, has_max, no_touch;
	unsigned int num_min, num_max;
	long min[BPFTUNE_MAX_VALUES];
	long max[BPFTUNE_MAX_VALUES];
	struct bpftune_policy_src src_min, src_max, src_touch;
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
#define BPFTUNE_POLICY_MAX_STRATEGY	32
struct bpftune_policy_strategy {
	char tuner[BPFTUNE_POLICY_NAME_LEN];
	char key[BPFTUNE_POLICY_NAME_LEN];
	char value[BPFTUNE_POLICY_VALUE_LEN];
	struct bpftune_policy_src src;
};

/* the initial netns in skip/only lists */
#define BPFTUNE_POLICY_GLOBAL_NETNS	"global"

struct bpftune_policy {
	char *files[BPFTUNE_POLICY_MAX_FILES];
	unsigned int num_files;
	struct bpftune_policy_setting settings[BPFTUNE_PK_MAX];
	struct bpftune_policy_tunable *tunables;
	unsigned int num_tunables;
	enum bpftune_netns_scope scope;
	char scope_names[BPFTUNE_POLICY_MAX_NAMES][BPFTUNE_POLICY_NAME_LEN];
	unsigned int num_scope_names;
	struct bpftune_policy_src scope_src;
	struct bpftune_policy_strategy strategies[BPFTUNE_POLICY_MAX_STRATEGY];
	unsigned int num_strategies;
};

/* ---- policy_parse.c (pure) ---- */
struct bpftune_policy *bpftune_policy_new(void);
void bpftune_policy_free(struct bpftune_policy *p);
/*
 * Parse one file's text into @p; files parsed later override earlier ones
 * key by key.  Returns 0, or -EINVAL with "FILE:LINE: what" in @err (the
 * first problem; @p is then only fit to be freed).
 */
int bpftune_policy_parse(struct bpftune_policy *p, const char *file,
			 const char *text, size_t len, char *err,
			 size_t err_len);
/* @value for key @k as if from the command line; -EINVAL with @err */
int bpftune_policy_set_cli(struct bpftune_policy *p, enum bpftune_policy_key k,
			   const char *value, char *err, size_t err_len);
/*
 * --strategy TUNER.KEY=VALUE from the command line: wins over the files.
 * 0, or -EINVAL with what is wrong in @err.
 */
int bpftune_policy_strategy_cli(struct bpftune_policy *p, const char *arg,
				char *err, size_t err_len);
/* the [strategy @tuner] setting @key, or NULL */
const struct bpftune_policy_strategy *
bpftune_policy_strategy(const struct bpftune_policy *p, const char *tuner,
			const char *key);
/* "FILE:LINE", "command line" or "default" */
const char *bpftune_policy_src_text(const struct bpftune_policy *p,
				    const struct bpftune_policy_src *s,
				    char *buf, size_t len);
/* split a NAMES value; returns the count (at most @max) */
unsigned int bpftune_policy_names(const char *value,
				  char names[][BPFTUNE_POLICY_NAME_LEN],
				  unsigned int max);
bool bpftune_policy_yes(const char *value);

/* ---- policy_eval.c (pure) ---- */
const struct bpftune_policy_tunable *
bpftune_policy_tunable(const struct bpftune_policy *p, const char *name);
/* is the netns called @name (BPFTUNE_POLICY_GLOBAL_NETNS: initial) in scope? */
bool bpftune_policy_netns_in_scope(const struct bpftune_policy *p,
				   const char *name, bool global);

/* what the admin's bounds did to a write */
struct bpftune_policy_held {
	unsigned int held_max;		/* bit i: value i held at max */
	unsigned int held_min;
	bool bad_count;			/* the bound has another number of values */
};

/*
 * Keep @new (n values, @old the live ones) within @pt's bounds: a value
 * never goes past a bound, and one already past it never moves further
 * out.  Returns true if any value was held.
 */
bool bpftune_policy_bound(const struct bpftune_policy_tunable *pt,
			  const long *old, long *new, unsigned int n,
			  struct bpftune_policy_held *h);
/*
 * Check @pt against a tunable of @n values with the built-in cap
 * [cap_min, cap_max]: -EINVAL if a bound has neither 1 nor @n values or
 * min > max; bounds outside the cap are clamped to it (returns how many,
 * with what was done in @msg).
 */
int bpftune_policy_check_cap(struct bpftune_policy_tunable *pt,
			     unsigned int n, long cap_min, long cap_max,
			     char *msg, size_t msg_len);

#endif /* BPFTUNE_POLICY_H */
