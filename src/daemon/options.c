// SPDX-License-Identifier: GPL-2.0-only
/*
 * The daemon's options: usage, the command line, and the config file's
 * [daemon] settings parsed as options under the command line's.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "core/internal.h"
#include "telemetry/telemetry.h"
#include "ops/control.h"
#include "ops/journal.h"
#include "ops/config_daemon.h"
#include "options.h"

/* KiB per CPU of a collector's ring buffers: seed 003's ftrace buffer */
#define BUFFER_KB_DEFAULT	16384
#define BUFFER_KB_MAX		(1024 * 1024)

static void usage(FILE *f)
{
	fprintf(f,
"Usage: bpftune [OPTIONS]\n"
"Watch the kernel with BPF and tune sysctls when a limit is being hit.\n\n"
"  -h, --help             show this help and exit\n"
"  -V, --version          show the version and exit\n"
"  -d, --debug            log debug messages too\n"
"  -s, --stderr           log to stderr instead of syslog\n"
"  -D, --daemonize        run in the background\n"
"  -S, --support          report what this kernel supports and exit\n"
"                         (exit 0 full, 2 legacy, 3 tracepoint-only,\n"
"                         4 unsupported, 1 error)\n"
"  -L, --legacy           use the legacy (kprobe/raw_tp) BPF objects\n"
"      --collectors LIST  also run these collectors (e.g. sched,perf;\n"
"                         repeatable); none runs unless named\n"
"      --buffer-size KB   collectors' own ring buffers: KB KiB per CPU\n"
"                         (default %d, as ftrace's buffer_size_kb)\n"
"      --keep-observer    collectors keep the events of the daemon's own\n"
"                         threads, marked, instead of leaving them out\n"
"  -a, --allow PLUGIN     load only this tuner or collector (repeatable;\n"
"                         name or file); the core mechanisms (admin-override\n"
"                         detection, netns tracking) always run\n"
"  -l, --libdir DIR       plugin directory (default %s)\n"
"  -r, --rate 0..4        learning rate: step and margin 1.5625%% .. 25%%\n"
"                         (default %d)\n"
"  -R, --rollback         restore every changed sysctl on exit\n"
"  -c, --cgroup PATH      cgroup v2 directory for cgroup programs: cgroup2\n"
"                         is mounted there if PATH is an empty directory\n"
"                         (default: the cgroup2 root)\n"
"  -q, --query QUERY      ask the running daemon (try -q help) and exit\n"
"      --json             with -q: answer in JSON\n"
"      --socket PATH      control socket (default %s)\n"
"      --journal PATH     rollback journal for -R and --restore\n"
"                         (default %s)\n"
"      --restore          restore what the journal holds (after a crash)\n"
"                         and exit\n"
"      --metrics-dir DIR  keep DIR/bpftune.prom up to date (Prometheus\n"
"                         node_exporter textfile collector)\n"
"      --config PATH      config file, with drop-ins in PATH.d/*.conf\n"
"                         (default %s; options given here win)\n"
"      --check-config     check the config file and exit\n"
"      --strategy TUNER.KEY=VALUE  as KEY = VALUE in [strategy TUNER] of the\n"
"                         config file: tcp_conn.model=PATH runs a learned model\n",
		BUFFER_KB_DEFAULT, BPFTUNE_PLUGIN_DIR, BPFTUNE_LEARNING_RATE_DEFAULT,
		BPFTUNE_CTL_DEFAULT_PATH, BPFTUNE_JOURNAL_DEFAULT,
		BPFTUNE_CONFIG_DEFAULT);
	fprintf(f,
"      --telemetry-dir DIR  one SQLite file per run in DIR\n"
"                         (default %s)\n"
"      --no-telemetry     record no telemetry\n"
"      --sample-interval MS  telemetry samples every MS ms (default %d)\n"
"      --sample-netns N   sample at most N network namespaces besides the\n"
"                         daemon's per interval, in turns (default %d, max %d)\n"
"      --telemetry-keep N  at start, remove the oldest runs' files beyond N\n"
"                         runs (default %d; 0: keep all)\n"
"      --telemetry-max-mb MB  ... and beyond MB megabytes (default %d; 0: no limit)\n"
"      --label NAME       workload/experiment name stored with the run\n"
"      --host-id ID       host_id of the rows instead of the machine's\n"
"                         (1-%d of A-Z a-z 0-9 . _ -; tests, containers)\n"
"      --observe          decide and record, but write no tunable\n",
		BPFTUNE_TELEMETRY_DIR, BPFTUNE_SAMPLE_INTERVAL_MS,
		BPFTUNE_SAMPLE_NETNS_DEFAULT, BPFTUNE_SAMPLE_NETNS_MAX,
		BPFTUNE_TELEMETRY_KEEP_DEFAULT, BPFTUNE_TELEMETRY_MAX_MB_DEFAULT,
		BPFTUNE_HOST_ID_MAX);
}

static int parse_rate(const char *arg, unsigned int *rate)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < 0 || v > BPFTUNE_LEARNING_RATE_MAX)
		return -EINVAL;
	*rate = v;
	return 0;
}

/* a decimal number in [min, max]; -EINVAL otherwise */
static int parse_long(const char *arg, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_sample_interval(const char *arg, unsigned int *ms)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < BPFTUNE_SAMPLE_INTERVAL_MIN_MS ||
	    v > BPFTUNE_SAMPLE_INTERVAL_MAX_MS)
		return -EINVAL;
	*ms = v;
	return 0;
}

/* the daemon's own options: 1 if @c was one of them, 0 if not, -EINVAL if bad */
/*
 * "sched,perf": names of [A-Za-z0-9_-].  Copied, not cut in place: the
 * arguments are parsed once per pass (command line, config, command line).
 * The copies live in @o itself, so a pass that starts over leaks nothing.
 */
static int parse_collectors(const char *list, struct options *o)
{
	struct bpftune_allow *allow = &o->allow;
	const char *p = list;

	while (*p) {
		size_t n = strcspn(p, ", "), i;

		for (i = 0; i < n; i++)
			if (!isalnum((unsigned char)p[i]) && p[i] != '_' && p[i] != '-')
				break;
		if (i < n || n > COLLECTOR_NAME_MAX || allow->num_collectors == MAX_ALLOW) {
			fprintf(stderr, "bpftune: --collectors: %s '%.*s'\n",
				i < n || n > COLLECTOR_NAME_MAX ? "bad collector name" :
				"too many collectors named", (int)n, p);
			return -EINVAL;
		}
		if (n) {
			char *name = o->collector_buf[allow->num_collectors];

			memcpy(name, p, n);
			name[n] = '\0';
			allow->collectors[allow->num_collectors++] = name;
		}
		p += n;
		p += strspn(p, ", ");
	}
	return 0;
}

static int parse_main(int c, struct options *o)
{
	switch (c) {
	case 'h':
		usage(stdout);
		exit(0);
	case 'V':
		printf("bpftune %s (libbpf %s)\n", BPFTUNE_VERSION,
		       libbpf_version_string());
		exit(0);
	case 'd':
		o->debug = true;
		return 1;
	case 's':
		o->to_stderr = true;
		return 1;
	case 'D':
		o->daemonize = true;
		return 1;
	case 'S':
		o->support_only = true;
		return 1;
	case 'L':
		o->legacy = true;
		return 1;
	case 'a':
		if (o->allow.num == MAX_ALLOW || !*optarg) {
			fprintf(stderr, "bpftune: -a: %s\n", *optarg ?
				"too many tuners named" : "empty tuner name");
			return -EINVAL;
		}
		o->allow_names[o->allow.num++] = optarg;
		return 1;
	case 'l':
		o->libdir = optarg;
		return 1;
	case OPT_STRATEGY:
		return 1;	/* the config has it (bpftune_config_cli()) */
	case 'r':
		if (parse_rate(optarg, &o->learning_rate)) {
			fprintf(stderr, "bpftune: -r takes a learning rate from 0 to %d, not '%s'\n",
				BPFTUNE_LEARNING_RATE_MAX, optarg);
			return -EINVAL;
		}
		return 1;
	case 'R':
		o->rollback = true;
		return 1;
	case 'c':
		o->cgroup = optarg;
		return 1;
	}
	return 0;
}

/* options for operating the daemon (-q, socket, journal, metrics): as above */
static int parse_operate(int c, struct options *o)
{
	switch (c) {
	case 'q':
		o->query = optarg;
		return 1;
	case OPT_JSON:
		o->json = true;
		return 1;
	case OPT_SOCKET:
		o->socket_path = optarg;
		return 1;
	case OPT_JOURNAL:
		o->journal = optarg;
		return 1;
	case OPT_RESTORE:
		o->restore = true;
		return 1;
	case OPT_METRICS_DIR:
		o->metrics_dir = optarg;
		return 1;
	case OPT_CONFIG:
		o->config = optarg;
		return 1;
	case OPT_CHECK_CONFIG:
		o->check_config = true;
		return 1;
	}
	return 0;
}

/* the collectors' options: as above */
static int parse_collector_opts(int c, struct options *o)
{
	long kb;

	switch (c) {
	case OPT_COLLECTORS:
		return parse_collectors(optarg, o) ? -EINVAL : 1;
	case OPT_BUFFER_SIZE:
		if (parse_long(optarg, 4, BUFFER_KB_MAX, &kb)) {
			fprintf(stderr, "bpftune: --buffer-size takes 4 to %d KiB per CPU, not '%s'\n",
				BUFFER_KB_MAX, optarg);
			return -EINVAL;
		}
		o->buffer_kb = kb;
		return 1;
	case OPT_KEEP_OBSERVER:
		o->keep_observer = true;
		return 1;
	}
	return 0;
}

/* telemetry options: as above */
static int parse_telemetry(int c, struct options *o)
{
	switch (c) {
	case OPT_TELEMETRY_DIR:
		o->telemetry_dir = optarg;
		return 1;
	case OPT_NO_TELEMETRY:
		o->no_telemetry = true;
		return 1;
	case OPT_SAMPLE_INTERVAL:
		if (parse_sample_interval(optarg, &o->sample_interval_ms)) {
			fprintf(stderr, "bpftune: --sample-interval takes %d to %d milliseconds, not '%s'\n",
				BPFTUNE_SAMPLE_INTERVAL_MIN_MS,
				BPFTUNE_SAMPLE_INTERVAL_MAX_MS, optarg);
			return -EINVAL;
		}
		return 1;
	case OPT_LABEL:
		o->label = optarg;
		return 1;
	case OPT_HOST_ID:
		if (!bpftune_host_id_valid(optarg)) {
			fprintf(stderr, "bpftune: --host-id takes 1 to %d characters of A-Z a-z 0-9 . _ -, not '%s'\n",
				BPFTUNE_HOST_ID_MAX, optarg);
			return -EINVAL;
		}
		o->host_id = optarg;
		return 1;
	case OPT_OBSERVE:
		o->observe = true;
		return 1;
	case OPT_SAMPLE_NETNS:
		if (parse_long(optarg, 0, BPFTUNE_SAMPLE_NETNS_MAX, &o->sample_netns)) {
			fprintf(stderr, "bpftune: --sample-netns takes 0 to %d namespaces, not '%s'\n",
				BPFTUNE_SAMPLE_NETNS_MAX, optarg);
			return -EINVAL;
		}
		return 1;
	case OPT_TELEMETRY_KEEP:
		if (parse_long(optarg, 0, BPFTUNE_TELEMETRY_KEEP_MAX, &o->telemetry_keep)) {
			fprintf(stderr, "bpftune: --telemetry-keep takes 0 to %d runs, not '%s'\n",
				BPFTUNE_TELEMETRY_KEEP_MAX, optarg);
			return -EINVAL;
		}
		return 1;
	case OPT_TELEMETRY_MAX_MB:
		if (parse_long(optarg, 0, BPFTUNE_TELEMETRY_MAX_MB_MAX, &o->telemetry_max_mb)) {
			fprintf(stderr, "bpftune: --telemetry-max-mb takes 0 to %ld megabytes, not '%s'\n",
				BPFTUNE_TELEMETRY_MAX_MB_MAX, optarg);
			return -EINVAL;
		}
		return 1;
	}
	return 0;
}

/* the long name of option @c, for the config's "where from" */
static const char *long_name(const struct option *lo, int c)
{
	for (; lo->name; lo++)
		if (lo->val == c)
			return lo->name;
	return NULL;
}

/* every kind of option in turn: as above */
static int parse_one(int c, struct options *o)
{
	int err = parse_main(c, o);

	if (!err)
		err = parse_operate(c, o);
	if (!err)
		err = parse_telemetry(c, o);
	return err ?: parse_collector_opts(c, o);
}

int daemon_parse_args(int argc, char **argv, struct options *o, int pass)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "debug", no_argument, NULL, 'd' },
		{ "stderr", no_argument, NULL, 's' },
		{ "daemonize", no_argument, NULL, 'D' },
		{ "support", no_argument, NULL, 'S' },
		{ "legacy", no_argument, NULL, 'L' },
		{ "allow", required_argument, NULL, 'a' },
		{ "libdir", required_argument, NULL, 'l' },
		{ "rate", required_argument, NULL, 'r' },
		{ "rollback", no_argument, NULL, 'R' },
		{ "cgroup", required_argument, NULL, 'c' },
		{ "query", required_argument, NULL, 'q' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "socket", required_argument, NULL, OPT_SOCKET },
		{ "journal", required_argument, NULL, OPT_JOURNAL },
		{ "restore", no_argument, NULL, OPT_RESTORE },
		{ "metrics-dir", required_argument, NULL, OPT_METRICS_DIR },
		{ "config", required_argument, NULL, OPT_CONFIG },
		{ "check-config", no_argument, NULL, OPT_CHECK_CONFIG },
		{ "telemetry-dir", required_argument, NULL, OPT_TELEMETRY_DIR },
		{ "no-telemetry", no_argument, NULL, OPT_NO_TELEMETRY },
		{ "sample-interval", required_argument, NULL, OPT_SAMPLE_INTERVAL },
		{ "label", required_argument, NULL, OPT_LABEL },
		{ "observe", no_argument, NULL, OPT_OBSERVE },
		{ "sample-netns", required_argument, NULL, OPT_SAMPLE_NETNS },
		{ "telemetry-keep", required_argument, NULL, OPT_TELEMETRY_KEEP },
		{ "telemetry-max-mb", required_argument, NULL, OPT_TELEMETRY_MAX_MB },
		{ "host-id", required_argument, NULL, OPT_HOST_ID },
		{ "collectors", required_argument, NULL, OPT_COLLECTORS },
		{ "strategy", required_argument, NULL, OPT_STRATEGY },
		{ "buffer-size", required_argument, NULL, OPT_BUFFER_SIZE },
		{ "keep-observer", no_argument, NULL, OPT_KEEP_OBSERVER },
		{ NULL, 0, NULL, 0 },
	};
	int c, err;

	/* the command line again: over the defaults and the config's options */
	if (pass != ARGS_CLI) {
		o->learning_rate = BPFTUNE_LEARNING_RATE_DEFAULT;
		o->libdir = BPFTUNE_PLUGIN_DIR;
		o->sample_netns = o->telemetry_keep = o->telemetry_max_mb = -1;
		o->buffer_kb = BUFFER_KB_DEFAULT;
	}
	o->allow.names = o->allow_names;
	o->allow.collectors = o->collector_names;
	optind = 0;	/* from the start, every pass */
	while ((c = getopt_long(argc, argv, "hVdsDSLa:l:r:Rc:"
				"q:", longopts, NULL)) != -1) {
		if (pass == ARGS_CLI_FIRST)
			bpftune_config_cli(long_name(longopts, c), optarg);
		/* -a on the command line replaces the config's tuners */
		if (c == 'a' && pass == ARGS_CLI && o->allow_file)
			o->allow.num = o->allow_file = 0;
		/* and --collectors its collectors */
		if (c == OPT_COLLECTORS && pass == ARGS_CLI && o->collectors_file)
			o->allow.num_collectors = o->collectors_file = 0;
		err = parse_one(c, o);
		if (err < 0)
			return err;
		if (!err) {
			usage(stderr);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "bpftune: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return -EINVAL;
	}
	if (pass == ARGS_CONFIG) {
		o->allow_file = o->allow.num;
		o->collectors_file = o->allow.num_collectors;
	}
	return 0;
}

int daemon_apply_config(struct options *o, int argc, char **argv,
			int *fargc, char ***fargv)
{
	const char *config = o->config;
	bool check = o->check_config;
	sigset_t hup;

	/* SIGHUP waits for the event loop's signalfd, not kill us first */
	sigemptyset(&hup);
	sigaddset(&hup, SIGHUP);
	sigprocmask(SIG_BLOCK, &hup, NULL);
	if (bpftune_config_start(config, fargc, fargv))
		return -EINVAL;
	memset(o, 0, sizeof(*o));
	if (daemon_parse_args(*fargc, *fargv, o, ARGS_CONFIG)) {
		fprintf(stderr, "bpftune: invalid config in %s\n",
			bpftune_config_path(NULL));
		return -EINVAL;
	}
	if (daemon_parse_args(argc, argv, o, ARGS_CLI))
		return -EINVAL;
	o->config = config;
	o->check_config = check;
	return 0;
}

void daemon_check_collectors(const struct options *o)
{
	char file[NAME_MAX + 1];
	unsigned int i;
	int dfd = open(o->libdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	for (i = 0; i < o->allow.num_collectors; i++) {
		snprintf(file, sizeof(file), "%s_collector.so", o->allow.collectors[i]);
		if (dfd < 0 || faccessat(dfd, file, F_OK, 0))
			bpftune_log(LOG_ERR, "collector %s: no %s in %s", o->allow.collectors[i],
				    file, o->libdir);
	}
	if (dfd >= 0)
		close(dfd);
}
