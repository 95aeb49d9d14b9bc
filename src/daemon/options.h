/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The daemon's options: the command line and the config file's [daemon]
 * settings (src/daemon/options.c).
 */
#ifndef BPFTUNE_DAEMON_OPTIONS_H
#define BPFTUNE_DAEMON_OPTIONS_H

#include <stdbool.h>

#include "plugin/plugin.h"

#define MAX_ALLOW 64
#define COLLECTOR_NAME_MAX 32

struct options {
	bool debug, to_stderr, daemonize, support_only, legacy, rollback;
	bool auto_legacy;		/* no fentry here: legacy objects chosen */
	unsigned int learning_rate;
	const char *libdir;
	const char *cgroup;
	struct bpftune_allow allow;
	char *allow_names[MAX_ALLOW];
	char *collector_names[MAX_ALLOW];	/* --collectors, split at commas */
	/* their copies: every pass fills them again, nothing to free */
	char collector_buf[MAX_ALLOW][COLLECTOR_NAME_MAX + 1];
	unsigned int collectors_file;	/* collectors named by the config file */
	/* telemetry (telemetry.h) */
	const char *telemetry_dir, *label, *host_id;
	unsigned long buffer_kb;	/* --buffer-size */
	bool keep_observer;
	bool no_telemetry, observe;
	unsigned int sample_interval_ms;
	long sample_netns, telemetry_keep, telemetry_max_mb;	/* -1: default */
	const char *query;		/* -q: be the control socket's client */
	bool json;
	const char *socket_path;
	const char *journal;
	bool restore;
	const char *metrics_dir;
	const char *config;		/* --config: the config file */
	bool check_config;
	unsigned int allow_file;	/* tuners named by the config file */
};

/* parse_args() runs on the command line, then the config's options, then the command line again */
enum { ARGS_CLI_FIRST, ARGS_CONFIG, ARGS_CLI };

/* long-only options */
enum {
	OPT_JSON = 0x100,
	OPT_SOCKET,
	OPT_JOURNAL,
	OPT_RESTORE,
	OPT_METRICS_DIR,
	OPT_CONFIG,
	OPT_CHECK_CONFIG,
};

/* long-only telemetry options */
enum {
	OPT_TELEMETRY_DIR = 0x200,
	OPT_NO_TELEMETRY,
	OPT_SAMPLE_INTERVAL,
	OPT_LABEL,
	OPT_OBSERVE,
	OPT_SAMPLE_NETNS,
	OPT_TELEMETRY_KEEP,
	OPT_TELEMETRY_MAX_MB,
	OPT_HOST_ID,
	OPT_COLLECTORS,
	OPT_STRATEGY,
	OPT_BUFFER_SIZE,
	OPT_KEEP_OBSERVER,
};

/* parse @argv (pass ARGS_*) into @o; 0 or -EINVAL (said on stderr) */
int daemon_parse_args(int argc, char **argv, struct options *o, int pass);
/*
 * The config file: its [daemon] settings are options, then the command
 * line is parsed again over them.  @fargv is kept: options point into it.
 */
int daemon_apply_config(struct options *o, int argc, char **argv,
			int *fargc, char ***fargv);

/* log each collector --collectors names that the plugin directory lacks */
void daemon_check_collectors(const struct options *o);

#endif /* BPFTUNE_DAEMON_OPTIONS_H */
