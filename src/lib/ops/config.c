// SPDX-License-Identifier: GPL-2.0-only
/*
 * The config file at the edges: reading the main file and its drop-ins,
 * the settings that become command-line options, checking bounds against
 * the loaded tuners' caps, SIGHUP, and the hook in the tunable write path
 * that holds a tuner at an admin bound and says so once.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ops/config.h"
#include "ops/config_daemon.h"
#include "core/internal.h"
#include "core/operate.h"
#include "plugin/plugin.h"

static struct bpftune_config *current;
static char config_path[PATH_MAX] = BPFTUNE_CONFIG_DEFAULT;
static bool path_given;		/* --config: the file must exist */
/* what the command line set: wins over every file, reload included */
static struct bpftune_config_setting cli[BPFTUNE_CK_MAX];
/* --strategy TUNER.KEY=VALUE, in order: over every file too */
static char *cli_strategy[BPFTUNE_CONFIG_MAX_STRATEGY];
static unsigned int num_cli_strategy;

/* ---- reading --------------------------------------------------------------- */

/* "PATH: " before what @err says */
static void prefix_path(const char *path, char *err, size_t err_len)
{
	char why[256];

	snprintf(why, sizeof(why), "%s", err);
	snprintf(err, err_len, "%s: %s", path, why);
}

static int parse_file(struct bpftune_config *p, const char *path, bool must,
		      char *err, size_t err_len)
{
	char *text = NULL;
	size_t len = 0;
	int ret;

	ret = bpftune_trusted_file_read(path, BPFTUNE_CONFIG_MAX_SIZE, &text, &len,
					err, err_len);
	if (ret == -ENOENT && !must)
		return 0;
	if (ret) {
		prefix_path(path, err, err_len);
		return ret;
	}
	ret = bpftune_config_parse(p, path, text, len, err, err_len);
	free(text);
	return ret;
}

static int dropin_filter(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return d->d_name[0] != '.' && n > 5 && !strcmp(d->d_name + n - 5, ".conf");
}

/* PATH, then PATH.d/ *.conf in name order */
static int load(const char *path, bool must, struct bpftune_config **out,
		char *err, size_t err_len)
{
	struct bpftune_config *p = bpftune_config_new();
	struct dirent **ents = NULL;
	char dir[PATH_MAX + 8], file[PATH_MAX + 264];
	int i, n, ret;

	if (!p) {
		snprintf(err, err_len, "out of memory");
		return -ENOMEM;
	}
	ret = parse_file(p, path, must, err, err_len);
	snprintf(dir, sizeof(dir), "%s.d", path);
	n = ret ? 0 : scandir(dir, &ents, dropin_filter, alphasort);
	for (i = 0; i < n; i++) {
		snprintf(file, sizeof(file), "%s/%s", dir, ents[i]->d_name);
		if (!ret)
			ret = parse_file(p, file, true, err, err_len);
		free(ents[i]);
	}
	free(ents);
	if (n < 0 && errno != ENOENT) {
		snprintf(err, err_len, "%s: %s", dir, strerror(errno));
		ret = -errno;
	}
	for (i = 0; !ret && i < BPFTUNE_CK_MAX; i++)
		if (cli[i].set)
			p->settings[i] = cli[i];
	for (i = 0; !ret && i < (int)num_cli_strategy; i++)
		ret = bpftune_config_strategy_cli(p, cli_strategy[i], err, err_len);
	if (ret) {
		bpftune_config_free(p);
		return ret;
	}
	*out = p;
	return 0;
}

/* ---- start-up ---------------------------------------------------------------- */

int bpftune_config_cli(const char *option, const char *arg)
{
	const struct bpftune_config_keydesc *k;
	struct bpftune_config_setting *s;
	char opt[80];
	size_t len;
	int i;

	snprintf(opt, sizeof(opt), "--%s", option ? option : "");
	if (!strcmp(opt, "--strategy") && arg) {
		if (num_cli_strategy < BPFTUNE_CONFIG_MAX_STRATEGY)
			cli_strategy[num_cli_strategy++] = strdup(arg);
		return 1;
	}
	for (i = 0; i < BPFTUNE_CK_MAX; i++) {
		k = bpftune_config_key(i);
		if (!k->option || strcmp(k->option, opt))
			continue;
		s = &cli[i];
		s->src.origin = BPFTUNE_CONFIG_CLI;
		if (k->type == BPFTUNE_CT_BOOL) {
			snprintf(s->value, sizeof(s->value), "%s", k->negate ? "no" : "yes");
		} else if (k->type == BPFTUNE_CT_NAMES && s->set) {
			len = strlen(s->value);
			snprintf(s->value + len, sizeof(s->value) - len, " %s", arg);
		} else {
			snprintf(s->value, sizeof(s->value), "%s", arg ? arg : "");
		}
		s->set = true;
		return 1;
	}
	return 0;
}

static int add_arg(char ***argv, int *argc, const char *s)
{
	char **a = realloc(*argv, (*argc + 2) * sizeof(*a));

	if (!a)
		return -ENOMEM;
	*argv = a;
	a[*argc] = strdup(s);
	if (!a[*argc])
		return -ENOMEM;
	a[++*argc] = NULL;
	return 0;
}

/* The file's [daemon] settings as command-line options, for parse_args(). */
static int settings_argv(const struct bpftune_config *p, int *argc, char ***argv)
{
	char names[BPFTUNE_CONFIG_MAX_NAMES][BPFTUNE_CONFIG_NAME_LEN];
	unsigned int i, j, n;
	int err = add_arg(argv, argc, "bpftune");

	for (i = 0; !err && i < BPFTUNE_CK_MAX; i++) {
		const struct bpftune_config_keydesc *k = bpftune_config_key(i);
		const struct bpftune_config_setting *s = &p->settings[i];

		if (!s->set || s->src.origin != BPFTUNE_CONFIG_FILE || !k->option)
			continue;
		if (k->type == BPFTUNE_CT_BOOL) {
			if (bpftune_config_yes(s->value) != k->negate)
				err = add_arg(argv, argc, k->option);
			continue;
		}
		if (k->type != BPFTUNE_CT_NAMES) {
			err = add_arg(argv, argc, k->option);
			err = err ?: add_arg(argv, argc, s->value);
			continue;
		}
		n = bpftune_config_names(s->value, names, BPFTUNE_CONFIG_MAX_NAMES);
		for (j = 0; !err && j < n; j++) {
			err = add_arg(argv, argc, k->option);
			err = err ?: add_arg(argv, argc, names[j]);
		}
	}
	return err;
}

void bpftune_config_argv_free(int argc, char **argv)
{
	int i;

	for (i = 0; argv && i < argc; i++)
		free(argv[i]);
	free(argv);
}

int bpftune_config_start(const char *path, int *argc, char ***argv)
{
	char err[2 * PATH_MAX];
	int ret;

	if (path) {
		snprintf(config_path, sizeof(config_path), "%s", path);
		path_given = true;
	}
	*argc = 0;
	*argv = NULL;
	bpftune_config_hook_start();
	ret = load(config_path, path_given, &current, err, sizeof(err));
	if (!ret)
		ret = settings_argv(current, argc, argv);
	if (ret) {
		fprintf(stderr, "bpftune: invalid config: %s\n", err);
		return ret;
	}
	return 0;
}

/* ---- bounds against the loaded tuners' caps ------------------------------------ */

static int resolve(struct bpftune_config *p, bool quiet, char *err, size_t err_len)
{
	unsigned int i, id, j;
	char msg[320];
	int ret;

	for (i = 0; i < p->num_tunables; i++) {
		struct bpftune_config_tunable *pt = &p->tunables[i];
		const struct bpftune_tuner *t;
		bool managed = false;

		for (id = 0; id < bpftune_num_tuners(); id++) {
			if (!(t = bpftune_tuner_get(id)))
				continue;
			for (j = 0; j < t->ops->num_tunables; j++) {
				const struct bpftune_tunable_desc *d = &t->ops->tunables[j];

				if (strcmp(d->name, pt->name))
					continue;
				managed = true;
				ret = bpftune_config_check_cap(pt, d->num_values, d->min,
							       d->max, msg, sizeof(msg));
				if (ret < 0) {
					char src[PATH_MAX + 16];

					bpftune_config_src_text(p, pt->has_max ? &pt->src_max :
								&pt->src_min, src, sizeof(src));
					snprintf(err, err_len, "%s: %s", src, msg);
					return ret;
				}
				if (ret && !quiet)
					bpftune_log(LOG_WARNING, "config: %s", msg);
			}
		}
		if (!managed && !quiet)
			bpftune_log(LOG_NOTICE, "config: [tunable %s]: no loaded tuner manages it",
				    pt->name);
	}
	return 0;
}

static void log_summary(const struct bpftune_config *p, const char *what)
{
	char files[512] = "";
	size_t off = 0;
	unsigned int i;

	for (i = 0; i < p->num_files && off < sizeof(files); i++)
		off += snprintf(files + off, sizeof(files) - off, "%s%s", i ? ", " : "",
				p->files[i]);
	bpftune_log(LOG_NOTICE, "config %s: %s; %u tunable%s bounded, netns scope %s",
		    what, p->num_files ? files : "no config file", p->num_tunables,
		    p->num_tunables == 1 ? "" : "s",
		    p->scope == BPFTUNE_SCOPE_SKIP ? "all but the listed" :
		    p->scope == BPFTUNE_SCOPE_ONLY ? "only the listed" :
		    p->scope == BPFTUNE_SCOPE_GLOBAL_ONLY ? "initial netns only" : "all");
}

int bpftune_config_resolve(void)
{
	char err[2 * PATH_MAX];
	int ret;

	if (!current)
		return 0;
	ret = resolve(current, false, err, sizeof(err));
	if (ret) {
		bpftune_log(LOG_ERR, "invalid config: %s", err);
		fprintf(stderr, "bpftune: invalid config: %s\n", err);
		return ret;
	}
	log_summary(current, "in force");
	return 0;
}

/* --check-config: register the plugins (no BPF loaded) to check the bounds */
static void add_plugin(const char *file, const struct bpftune_tuner_ops *ops,
		       void *handle, int fd, void *ctx)
{
	(void)ctx;
	if (!ops)
		return;
	if (!bpftune_tuner_add(ops, handle, fd, file)) {
		dlclose(handle);
		close(fd);
	}
}

int bpftune_config_check(const char *libdir, const struct bpftune_allow *allow)
{
	int ret;

	if (bpftune_plugin_dir_scan(libdir, allow, add_plugin, NULL)) {
		printf("%s: valid; bounds not checked against the tuners' caps: cannot read the plugins in %s\n",
		       config_path, libdir);
		return 0;
	}
	ret = bpftune_config_resolve();
	bpftune_tuners_fini();
	if (!ret)
		printf("%s: valid\n", config_path);
	return ret;
}

/* ---- SIGHUP ---------------------------------------------------------------------- */

/* the settings the daemon started with: most take effect only then */
static struct bpftune_config_setting started[BPFTUNE_CK_MAX];
static bool have_started;

const struct bpftune_config *bpftune_config_current(void)
{
	return current;
}

const struct bpftune_config_setting *bpftune_config_started(enum bpftune_config_key k)
{
	return have_started && k < BPFTUNE_CK_MAX ? &started[k] : NULL;
}

const char *bpftune_config_path(bool *given)
{
	if (given)
		*given = path_given;
	return config_path;
}

void bpftune_config_running(void)
{
	if (current)
		memcpy(started, current->settings, sizeof(started));
	have_started = true;
}

static bool same_setting(const struct bpftune_config_setting *a,
			 const struct bpftune_config_setting *b)
{
	return a->set == b->set && (!a->set || !strcmp(a->value, b->value));
}

/* what a new config changes in [daemon]: applied if live, else noted */
static void apply_settings(const struct bpftune_config *p)
{
	char src[PATH_MAX + 16];
	unsigned int i;

	for (i = 0; i < BPFTUNE_CK_MAX; i++) {
		const struct bpftune_config_keydesc *k = bpftune_config_key(i);
		const struct bpftune_config_setting *s = &p->settings[i];

		if (same_setting(s, &started[i]) &&
		    (!current || same_setting(s, &current->settings[i])))
			continue;
		bpftune_config_src_text(p, &s->src, src, sizeof(src));
		if (i == BPFTUNE_CK_OBSERVE) {
			bool on = s->set && bpftune_config_yes(s->value);

			if (on != bpftune_observe_only())
				bpftune_log(LOG_NOTICE, "config: observe = %s (%s): %s",
					    on ? "yes" : "no", s->set ? src : "default",
					    on ? "tuners decide and are recorded; no tunable is written" :
					    "tunables are written again");
			bpftune_set_observe_only(on);
		} else if (!current || !same_setting(s, &current->settings[i])) {
			bpftune_log(LOG_NOTICE, "config: [daemon] %s %s%s (%s): takes effect at the next start",
				    k->key, s->set ? "= " : "unset", s->set ? s->value : "",
				    s->set ? src : "default");
		}
	}
}

/* every started tuner that asks for it re-reads its settings */
static void tuners_reload(void)
{
	struct bpftune_tuner *t;
	unsigned int id;

	for (id = 0; id < bpftune_num_tuners(); id++) {
		t = bpftune_tuner_get(id);
		if (t && t->started && BPFTUNE_OPS_HAS(t->ops, reload) && t->ops->reload)
			t->ops->reload(t, t->priv);
	}
}

const char *bpftune_strategy_setting(const struct bpftune_tuner *t, const char *key)
{
	const struct bpftune_config_strategy *s;

	if (!t || !key || !current)
		return NULL;
	s = bpftune_config_strategy(current, t->ops->name, key);
	return s ? s->value : NULL;
}

int bpftune_config_reload(void)
{
	struct bpftune_config *p;
	char err[2 * PATH_MAX];
	int ret;

	bpftune_log(LOG_INFO, "config: re-reading %s", config_path);
	ret = load(config_path, path_given, &p, err, sizeof(err));
	if (!ret) {
		ret = resolve(p, true, err, sizeof(err));
		if (ret)
			bpftune_config_free(p);
	}
	if (ret) {
		bpftune_log(LOG_ERR, "config: reload refused, the old config stays: %s", err);
		return ret;
	}
	apply_settings(p);
	resolve(p, false, err, sizeof(err));
	bpftune_config_free(current);
	current = p;
	bpftune_config_hook_reset();
	log_summary(p, "reloaded");
	tuners_reload();
	return 0;
}

void bpftune_config_fini(void)
{
	while (num_cli_strategy)
		free(cli_strategy[--num_cli_strategy]);
	bpftune_config_free(current);
	current = NULL;
	bpftune_config_hook_reset();
	bpftune_config_hook_stop();
}
