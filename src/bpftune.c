// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpftune: the daemon.  Parses the command line, probes what the kernel
 * supports, loads the tuner plugins, then blocks on the shared ring buffer
 * and dispatches events until SIGINT/SIGTERM.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <malloc.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include <systemd/sd-daemon.h>

#include "core/internal.h"
#include "core/cgroup.h"
#include "core/loop.h"
#include "core/plugin_dir.h"
#include "telemetry/telemetry.h"
#include "ops/control.h"
#include "ops/journal.h"
#include "core/operate.h"

#define MAX_ALLOW 64

struct options {
	bool debug, to_stderr, daemonize, support_only, legacy, rollback;
	unsigned int learning_rate;
	const char *libdir;
	const char *cgroup;
	struct bpftune_allow allow;
	char *allow_names[MAX_ALLOW];
	char *collector_names[MAX_ALLOW];	/* --collectors, split at commas */
	/* telemetry (telemetry.h) */
	const char *telemetry_dir, *label;
	bool no_telemetry, observe;
	unsigned int sample_interval_ms;
	long sample_netns, telemetry_keep, telemetry_max_mb;	/* -1: default */
	const char *query;		/* -q: be the control socket's client */
	bool json;
	const char *socket_path;
	const char *journal;
	bool restore;
	const char *metrics_dir;
};

/* long-only options */
enum {
	OPT_JSON = 0x100,
	OPT_SOCKET,
	OPT_JOURNAL,
	OPT_RESTORE,
	OPT_METRICS_DIR,
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
	OPT_COLLECTORS,
};

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
"  -a, --allow TUNER      load only this tuner (repeatable; name or file)\n"
"      --collectors LIST  also run these collectors (e.g. sched,perf;\n"
"                         repeatable); none runs unless named\n"
"  -l, --libdir DIR       plugin directory (default %s)\n"
"  -r, --rate 0..4        learning rate: step and margin 1.5625%% .. 25%%\n"
"                         (default %d)\n"
"  -R, --rollback         restore every changed sysctl on exit\n"
"  -c, --cgroup PATH      cgroup v2 directory for cgroup programs\n"
"                         (default: the cgroup2 root)\n"
"  -q, --query QUERY      ask the running daemon (try -q help) and exit\n"
"      --json             with -q: answer in JSON\n"
"      --socket PATH      control socket (default %s)\n"
"      --journal PATH     rollback journal for -R and --restore\n"
"                         (default %s)\n"
"      --restore          restore what the journal holds (after a crash)\n"
"                         and exit\n"
"      --metrics-dir DIR  keep DIR/bpftune.prom up to date (Prometheus\n"
"                         node_exporter textfile collector)\n",
		BPFTUNE_PLUGIN_DIR, BPFTUNE_LEARNING_RATE_DEFAULT,
		BPFTUNE_CTL_DEFAULT_PATH, BPFTUNE_JOURNAL_DEFAULT);
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
"      --observe          decide and record, but write no tunable\n",
		BPFTUNE_TELEMETRY_DIR, BPFTUNE_SAMPLE_INTERVAL_MS,
		BPFTUNE_SAMPLE_NETNS_DEFAULT, BPFTUNE_SAMPLE_NETNS_MAX,
		BPFTUNE_TELEMETRY_KEEP_DEFAULT, BPFTUNE_TELEMETRY_MAX_MB_DEFAULT);
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

/* "sched,perf": names of [A-Za-z0-9_-], kept in place (optarg is ours) */
static int parse_collectors(char *list, struct bpftune_allow *allow)
{
	char *name, *save = NULL;

	for (name = strtok_r(list, ", ", &save); name;
	     name = strtok_r(NULL, ", ", &save)) {
		const char *c;

		for (c = name; *c; c++)
			if (!isalnum((unsigned char)*c) && *c != '_' && *c != '-')
				break;
		if (*c || c - name > 32 || allow->num_collectors == MAX_ALLOW) {
			fprintf(stderr, "bpftune: --collectors: %s '%s'\n",
				*c || c - name > 32 ? "bad collector name" :
				"too many collectors named", name);
			return -EINVAL;
		}
		allow->collectors[allow->num_collectors++] = name;
	}
	return 0;
}

/* a collector named by --collectors that the plugin directory lacks */
static void check_collectors(const struct options *o)
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

static int parse_args(int argc, char **argv, struct options *o)
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
		{ "collectors", required_argument, NULL, OPT_COLLECTORS },
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
		{ "telemetry-dir", required_argument, NULL, OPT_TELEMETRY_DIR },
		{ "no-telemetry", no_argument, NULL, OPT_NO_TELEMETRY },
		{ "sample-interval", required_argument, NULL, OPT_SAMPLE_INTERVAL },
		{ "label", required_argument, NULL, OPT_LABEL },
		{ "observe", no_argument, NULL, OPT_OBSERVE },
		{ "sample-netns", required_argument, NULL, OPT_SAMPLE_NETNS },
		{ "telemetry-keep", required_argument, NULL, OPT_TELEMETRY_KEEP },
		{ "telemetry-max-mb", required_argument, NULL, OPT_TELEMETRY_MAX_MB },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	o->learning_rate = BPFTUNE_LEARNING_RATE_DEFAULT;
	o->libdir = BPFTUNE_PLUGIN_DIR;
	o->sample_netns = o->telemetry_keep = o->telemetry_max_mb = -1;
	o->allow.names = o->allow_names;
	o->allow.collectors = o->collector_names;
	while ((c = getopt_long(argc, argv, "hVdsDSLa:l:r:Rc:"
				"q:", longopts, NULL)) != -1) {
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
			break;
		case 's':
			o->to_stderr = true;
			break;
		case 'D':
			o->daemonize = true;
			break;
		case 'S':
			o->support_only = true;
			break;
		case 'L':
			o->legacy = true;
			break;
		case 'a':
			if (o->allow.num == MAX_ALLOW || !*optarg) {
				fprintf(stderr, "bpftune: -a: %s\n", *optarg ?
					"too many tuners named" : "empty tuner name");
				return -EINVAL;
			}
			o->allow_names[o->allow.num++] = optarg;
			break;
		case 'l':
			o->libdir = optarg;
			break;
		case OPT_COLLECTORS:
			if (parse_collectors(optarg, &o->allow))
				return -EINVAL;
			break;
		case 'r':
			if (parse_rate(optarg, &o->learning_rate)) {
				fprintf(stderr, "bpftune: -r takes a learning rate from 0 to %d, not '%s'\n",
					BPFTUNE_LEARNING_RATE_MAX, optarg);
				return -EINVAL;
			}
			break;
		case 'R':
			o->rollback = true;
			break;
		case 'c':
			o->cgroup = optarg;
			break;
		case 'q':
			o->query = optarg;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case OPT_SOCKET:
			o->socket_path = optarg;
			break;
		case OPT_JOURNAL:
			o->journal = optarg;
			break;
		case OPT_RESTORE:
			o->restore = true;
			break;
		case OPT_METRICS_DIR:
			o->metrics_dir = optarg;
			break;
		case OPT_TELEMETRY_DIR:
			o->telemetry_dir = optarg;
			break;
		case OPT_NO_TELEMETRY:
			o->no_telemetry = true;
			break;
		case OPT_SAMPLE_INTERVAL:
			if (parse_sample_interval(optarg, &o->sample_interval_ms)) {
				fprintf(stderr, "bpftune: --sample-interval takes %d to %d milliseconds, not '%s'\n",
					BPFTUNE_SAMPLE_INTERVAL_MIN_MS,
					BPFTUNE_SAMPLE_INTERVAL_MAX_MS, optarg);
				return -EINVAL;
			}
			break;
		case OPT_LABEL:
			o->label = optarg;
			break;
		case OPT_OBSERVE:
			o->observe = true;
			break;
		case OPT_SAMPLE_NETNS:
			if (parse_long(optarg, 0, BPFTUNE_SAMPLE_NETNS_MAX, &o->sample_netns)) {
				fprintf(stderr, "bpftune: --sample-netns takes 0 to %d namespaces, not '%s'\n",
					BPFTUNE_SAMPLE_NETNS_MAX, optarg);
				return -EINVAL;
			}
			break;
		case OPT_TELEMETRY_KEEP:
			if (parse_long(optarg, 0, BPFTUNE_TELEMETRY_KEEP_MAX, &o->telemetry_keep)) {
				fprintf(stderr, "bpftune: --telemetry-keep takes 0 to %d runs, not '%s'\n",
					BPFTUNE_TELEMETRY_KEEP_MAX, optarg);
				return -EINVAL;
			}
			break;
		case OPT_TELEMETRY_MAX_MB:
			if (parse_long(optarg, 0, BPFTUNE_TELEMETRY_MAX_MB_MAX, &o->telemetry_max_mb)) {
				fprintf(stderr, "bpftune: --telemetry-max-mb takes 0 to %ld megabytes, not '%s'\n",
					BPFTUNE_TELEMETRY_MAX_MB_MAX, optarg);
				return -EINVAL;
			}
			break;
		default:
			usage(stderr);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "bpftune: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return -EINVAL;
	}
	return 0;
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	char buf[1024];
	size_t n;

	if (!bpftune_log_debug_enabled())
		return 0;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	n = strlen(buf);
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	bpftune_log(LOG_DEBUG, "libbpf%s: %s", level == LIBBPF_WARN ? " warning" : "",
		    buf);
	return 0;
}

/* ---- bpftune -S -------------------------------------------------------- */

struct report_ctx {
	bool legacy;
	unsigned int runnable;
};

static void report_tuner(const char *file, const struct bpftune_tuner_ops *ops,
			 void *handle, int fd, void *ctx)
{
	struct report_ctx *r = ctx;
	struct bpf_object *obj = NULL;
	char why[512] = "";
	int err;

	if (!ops) {
		printf("  %-24s skipped: plugin refused (see the log)\n", file);
		return;
	}
	err = bpftune_bpf_open(r->legacy ? &ops->legacy : &ops->full, ops->name,
			       r->legacy, &obj, why, sizeof(why));
	if (!err)
		err = bpftune_bpf_select_programs(obj, bpftune_support(), why,
						  sizeof(why));
	if (err) {
		printf("  %-24s skipped: %s\n", ops->name, why);
	} else {
		printf("  %-24s will run\n", ops->name);
		r->runnable++;
	}
	bpf_object__close(obj);
	dlclose(handle);
	close(fd);
}

static int report_support(const struct options *o)
{
	const struct bpftune_support *s = bpftune_support();
	struct report_ctx r = { .legacy = o->legacy };
	enum bpftune_feature f;
	const char *sep = "";

	printf("bpftune %s: support level: %s\n", BPFTUNE_VERSION,
	       bpftune_support_level_name(s->level));
	if (s->level != BPFTUNE_SUPPORT_FULL) {
		printf("  reason:");
		if (!s->ok[BPFTUNE_FEAT_FENTRY]) {
			printf(" fentry: %s", s->why[BPFTUNE_FEAT_FENTRY]);
			sep = ";";
		}
		if (s->level != BPFTUNE_SUPPORT_LEGACY && !s->ok[BPFTUNE_FEAT_KPROBE])
			printf("%s kprobe: %s", sep, s->why[BPFTUNE_FEAT_KPROBE]);
		printf("\n");
	}
	printf("hooks:\n");
	for (f = 0; f < BPFTUNE_FEAT_MAX; f++) {
		if (f == BPFTUNE_FEAT_NETNS_COOKIE)
			continue;
		printf("  %-14s %s%s%s\n", bpftune_feature_name(f),
		       s->ok[f] ? "yes" : "no", s->ok[f] ? "" : ": ",
		       s->ok[f] ? "" : s->why[f]);
	}
	printf("netns cookie:    %s%s%s\n",
	       s->ok[BPFTUNE_FEAT_NETNS_COOKIE] ? "supported" : "not supported",
	       s->ok[BPFTUNE_FEAT_NETNS_COOKIE] ? "" : ": ",
	       s->ok[BPFTUNE_FEAT_NETNS_COOKIE] ? "" : s->why[BPFTUNE_FEAT_NETNS_COOKIE]);
	printf("tuners in %s (%s objects):\n", o->libdir, o->legacy ? "legacy" : "full");
	if (bpftune_plugin_dir_scan(o->libdir, &o->allow, report_tuner, &r))
		printf("  plugin directory refused (see the log)\n");
	return bpftune_support_level_exit(s->level);
}

/* ---- the daemon ---------------------------------------------------------- */

struct start_ctx {
	struct bpftune_bpf_opts bpf;
	unsigned int running;
};

static void start_tuner(const char *file, const struct bpftune_tuner_ops *ops,
			void *handle, int fd, void *ctx)
{
	struct start_ctx *sc = ctx;
	struct bpftune_tuner *t;

	if (!ops)
		return;
	t = bpftune_tuner_add(ops, handle, fd, file);
	if (!t) {
		dlclose(handle);
		close(fd);
		return;
	}
	if (bpftune_tuner_start(t, &sc->bpf)) {
		bpftune_tuner_remove(t);
		return;
	}
	sc->running++;
}

static int on_event(void *ctx, void *data, size_t size)
{
	(void)ctx;
	bpftune_dispatch(data, size);
	return 0;
}

static void on_ringbuf(int fd, uint32_t events, void *ctx)
{
	(void)fd;
	(void)events;
	ring_buffer__consume(ctx);
}

static void on_signal(int fd, uint32_t events, void *ctx)
{
	struct signalfd_siginfo si;

	(void)events;
	(void)ctx;
	if (read(fd, &si, sizeof(si)) != sizeof(si))
		return;
	bpftune_log(LOG_NOTICE, "%s received: shutting down",
		    strsignal(si.ssi_signo));
	bpftune_loop_stop();
}

/* Block until SIGINT/SIGTERM, dispatching events: no timer, no busy loop. */
static int event_loop(struct ring_buffer *rb)
{
	sigset_t mask;
	int sfd, err;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (sfd < 0)
		return -errno;
	err = bpftune_loop_add(sfd, on_signal, NULL);
	err = err ?: bpftune_loop_add(ring_buffer__epoll_fd(rb), on_ringbuf, rb);
	if (!err) {
		sd_notify(0, "READY=1");
		err = bpftune_loop_run();
		sd_notify(0, "STOPPING=1");
		ring_buffer__consume(rb);
	}
	bpftune_loop_del(ring_buffer__epoll_fd(rb));
	bpftune_loop_del(sfd);
	close(sfd);
	return err;
}

/* ---- operating the daemon: control socket, journal, metrics, hot plug ---- */

static struct ring_buffer *the_rb;

static void drain_events(void)
{
	if (the_rb)
		ring_buffer__consume(the_rb);
}

/* bpftune --restore: put back what a killed daemon left in the journal */
static int restore_only(const struct options *o)
{
	int err;

	err = bpftune_journal_open(o->journal);
	if (!err) {
		err = bpftune_journal_restore();
		bpftune_journal_close();
	}
	bpftune_netns_fini();
	return err ? 1 : 0;
}

/* -R: restore what a crashed run left behind, then journal this run */
static int start_journal(const struct options *o)
{
	int err = bpftune_journal_open(o->journal);

	if (err) {
		bpftune_log(LOG_ERR, "-R needs the rollback journal; exiting");
		return err;
	}
	bpftune_journal_restore();
	bpftune_journal_start();
	return 0;
}

static int start_operations(const struct options *o, const struct start_ctx *sc)
{
	struct bpftune_daemon_info info = {
		.legacy = o->legacy,
		.rollback = o->rollback,
		.journal = o->rollback ? (o->journal ?: BPFTUNE_JOURNAL_DEFAULT) : NULL,
		.metrics_dir = o->metrics_dir,
	};
	unsigned int id;
	int err;

	/* both sides of each tuner must use the same delta */
	for (id = 0; id < bpftune_num_tuners(); id++)
		if (bpftune_tuner_get(id))
			bpftune_check_learning_rate(bpftune_tuner_get(id));
	/* a daemon without queries still tunes: not fatal */
	bpftune_control_init(o->socket_path, &info);
	bpftune_hotplug_init(o->libdir, &o->allow, &sc->bpf, drain_events);
	if (o->metrics_dir) {
		err = bpftune_metrics_init(o->metrics_dir);
		if (err)
			return err;
	}
	return 0;
}

/* --observe, and telemetry unless --no-telemetry; never fatal */
static void init_telemetry(const struct options *o, int argc, char **argv)
{
	struct bpftune_telemetry_opts t = {
		.dir = o->telemetry_dir, .label = o->label,
		.sample_interval_ms = o->sample_interval_ms,
		.sample_netns = o->sample_netns,
		.keep_files = o->telemetry_keep,
		.max_mb = o->telemetry_max_mb,
		.learning_rate = o->learning_rate, .legacy = o->legacy,
		.observe_only = o->observe, .argc = argc, .argv = argv,
	};

	bpftune_set_observe_only(o->observe);
	if (o->observe)
		bpftune_log(LOG_NOTICE, "observe-only (--observe): tuners decide and are recorded; no tunable is written");
	if (!o->no_telemetry)
		bpftune_telemetry_init(&t);
}

int main(int argc, char **argv)
{
	struct options o = { 0 };
	struct start_ctx sc = { 0 };
	struct ring_buffer *rb = NULL;
	const struct bpftune_support *s;
	int err, ret = 1;

	if (parse_args(argc, argv, &o))
		return 1;
	if (o.query)
		return bpftune_control_client(o.socket_path, o.query, o.json);
	bpftune_log_init(o.to_stderr || o.support_only || o.restore ? BPFTUNE_LOG_STDERR :
			 BPFTUNE_LOG_SYSLOG, o.debug ? LOG_DEBUG : LOG_INFO);
	libbpf_set_print(libbpf_print);
	if (o.daemonize && !o.support_only && daemon(0, 0)) {
		bpftune_log(LOG_ERR, "cannot daemonize: %s", strerror(errno));
		return 1;
	}
	err = bpftune_cap_init();
	if (err)
		return 1;
	err = bpftune_netns_init();
	if (err) {
		bpftune_log(LOG_ERR, "cannot open the daemon's netns: %s", strerror(-err));
		return 1;
	}
	if (o.restore)
		return restore_only(&o);
	bpftune_set_learning_rate(o.learning_rate);
	err = bpftune_loop_init();
	if (err) {
		bpftune_log(LOG_ERR, "cannot create the event loop: %s", strerror(-err));
		return 1;
	}
	bpftune_support_probe(NULL);
	s = bpftune_support();
	if (o.support_only) {
		ret = report_support(&o);
		goto out;
	}
	bpftune_log(LOG_INFO, "bpftune %s starting: support level %s, learning rate %u",
		    BPFTUNE_VERSION, bpftune_support_level_name(s->level),
		    o.learning_rate);
	if (s->level == BPFTUNE_SUPPORT_NONE) {
		bpftune_log(LOG_ERR, "this kernel cannot run bpftune: %s%s%s",
			    !s->ok[BPFTUNE_FEAT_RINGBUF] ? s->why[BPFTUNE_FEAT_RINGBUF] :
			    "no tracepoint hook type works: tp_btf: ",
			    !s->ok[BPFTUNE_FEAT_RINGBUF] ? "" : s->why[BPFTUNE_FEAT_TP_BTF],
			    "");
		goto out;
	}
	if (o.legacy && !(s->ok[BPFTUNE_FEAT_KPROBE] && s->ok[BPFTUNE_FEAT_RAW_TP])) {
		bpftune_log(LOG_ERR, "legacy mode (-L) needs kprobes and raw tracepoints, but this kernel cannot attach %s: %s",
			    !s->ok[BPFTUNE_FEAT_KPROBE] ? "kprobes" : "raw tracepoints",
			    !s->ok[BPFTUNE_FEAT_KPROBE] ? s->why[BPFTUNE_FEAT_KPROBE] :
			    s->why[BPFTUNE_FEAT_RAW_TP]);
		goto out;
	}
	if (o.rollback && start_journal(&o))
		goto out;
	init_telemetry(&o, argc, argv);
	sc.bpf.legacy = o.legacy;
	sc.bpf.cgroup_fd = bpftune_cgroup_open(o.cgroup);
	if (sc.bpf.cgroup_fd < 0)
		bpftune_log(LOG_WARNING, "no cgroup %s: %s; tuners with cgroup programs will be skipped",
			    o.cgroup ? o.cgroup : "v2 hierarchy",
			    strerror(-sc.bpf.cgroup_fd));
	check_collectors(&o);
	if (bpftune_plugin_dir_scan(o.libdir, &o.allow, start_tuner, &sc))
		goto out;
	if (!sc.running) {
		bpftune_log(LOG_ERR, "no tuner can run on this system; exiting");
		goto out;
	}
	rb = ring_buffer__new(bpftune_ringbuf_fd(), on_event, NULL, NULL);
	if (!rb) {
		bpftune_log(LOG_ERR, "cannot set up the ring buffer: %s", strerror(errno));
		goto out;
	}
	the_rb = rb;
	if (start_operations(&o, &sc))
		goto out;
	bpftune_telemetry_start();
	/*
	 * Loading parsed the kernel's BTF once per object (megabytes each);
	 * freed, but kept by malloc: give it back before running for months.
	 */
	malloc_trim(0);
	bpftune_log(LOG_INFO, "bpftune running with %u tuner%s", sc.running,
		    sc.running == 1 ? "" : "s");
	err = event_loop(rb);
	if (err)
		bpftune_log(LOG_ERR, "event loop failed: %s", strerror(-err));
	bpftune_print_summary();
	if (o.rollback && bpftune_journal_restore())
		err = err ?: -EIO;
	ret = err ? 1 : 0;
out:
	bpftune_telemetry_stop(ret);
	bpftune_control_fini();
	bpftune_hotplug_fini();
	bpftune_metrics_fini();
	bpftune_journal_close();
	the_rb = NULL;
	bpftune_tuners_fini();
	ring_buffer__free(rb);
	bpftune_ringbuf_close();
	if (sc.bpf.cgroup_fd > 0)
		close(sc.bpf.cgroup_fd);
	bpftune_netns_fini();
	bpftune_loop_fini();
	bpftune_log_flush();
	return ret;
}
