// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpftune: the daemon.  Parses the command line, probes what the kernel
 * supports, loads the tuner plugins, then blocks on the shared ring buffer
 * and dispatches events until SIGINT/SIGTERM.
 */
#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
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
#include "core/core.h"
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

/* the daemon's own options: 1 if @c was one of them, 0 if not, -EINVAL if bad */
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
	int c, err;

	o->learning_rate = BPFTUNE_LEARNING_RATE_DEFAULT;
	o->libdir = BPFTUNE_PLUGIN_DIR;
	o->sample_netns = o->telemetry_keep = o->telemetry_max_mb = -1;
	o->allow.names = o->allow_names;
	while ((c = getopt_long(argc, argv, "hVdsDSLa:l:r:Rc:"
				"q:", longopts, NULL)) != -1) {
		err = parse_main(c, o);
		if (!err)
			err = parse_operate(c, o);
		if (!err)
			err = parse_telemetry(c, o);
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

/* Would @ops run here?  One line: will run, or skipped and why. */
static bool report_ops(const struct bpftune_tuner_ops *ops, bool legacy,
		       const char *what)
{
	const struct bpftune_bpf_image *image = legacy ? &ops->legacy : &ops->full;
	struct bpf_object *obj = NULL;
	char why[512] = "";
	void *skel = NULL;
	int err;

	err = bpftune_bpf_open(image, ops->name, legacy, &skel, &obj, why,
			       sizeof(why));
	if (!err)
		err = bpftune_bpf_select_programs(obj, bpftune_support(), why,
						  sizeof(why));
	if (err)
		printf("  %-24s skipped: %s%s\n", ops->name, why, what);
	else
		printf("  %-24s will run%s\n", ops->name, what);
	if (skel)
		image->destroy(skel);
	return !err;
}

static void report_tuner(const char *file, const struct bpftune_tuner_ops *ops,
			 void *handle, int fd, void *ctx)
{
	struct report_ctx *r = ctx;

	if (!ops) {
		printf("  %-24s skipped: plugin refused (see the log)\n", file);
		return;
	}
	if (report_ops(ops, r->legacy, ops->kind == BPFTUNE_KIND_COLLECTOR ?
		       " (collector)" : ""))
		r->runnable++;
	dlclose(handle);
	close(fd);
}

static void report_core(bool legacy)
{
	printf("core mechanisms (always on; the daemon does not start without them):\n");
	report_ops(&bpftune_admin_override_ops, legacy,
		   ": admin-override detection (cgroup/sysctl)");
	report_ops(&bpftune_netns_watch_ops, legacy, ": netns tracking");
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
	report_core(o->legacy);
	printf("tuners and collectors in %s (%s objects):\n", o->libdir,
	       o->legacy ? "legacy" : "full");
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

/*
 * The core mechanisms, before any plugin: admin-override detection needs a
 * cgroup2 hierarchy; without either the daemon does not start.
 */
static int start_core(const struct options *o, struct start_ctx *sc)
{
	char why[512] = "";
	unsigned int i;

	for (i = 0; i < o->allow.num; i++)
		if (bpftune_core_named(o->allow.names[i]))
			bpftune_log(LOG_INFO, "-a %s: a core mechanism, always on",
				    o->allow.names[i]);
	sc->bpf.cgroup_fd = bpftune_cgroup_setup(o->cgroup, why, sizeof(why));
	if (sc->bpf.cgroup_fd < 0) {
		bpftune_log(LOG_ERR, "%s; admin-override detection needs a cgroup2 hierarchy: not starting",
			    why);
		return sc->bpf.cgroup_fd;
	}
	return bpftune_core_start(&sc->bpf);
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

/* Can this kernel run the daemon in the mode asked for?  Logged if not. */
static bool kernel_fits(const struct options *o,
			const struct bpftune_support *s)
{
	if (s->level == BPFTUNE_SUPPORT_NONE) {
		bpftune_log(LOG_ERR, "this kernel cannot run bpftune: %s%s%s",
			    !s->ok[BPFTUNE_FEAT_RINGBUF] ? s->why[BPFTUNE_FEAT_RINGBUF] :
			    "no tracepoint hook type works: tp_btf: ",
			    !s->ok[BPFTUNE_FEAT_RINGBUF] ? "" : s->why[BPFTUNE_FEAT_TP_BTF],
			    "");
		return false;
	}
	if (o->legacy && !(s->ok[BPFTUNE_FEAT_KPROBE] && s->ok[BPFTUNE_FEAT_RAW_TP])) {
		bpftune_log(LOG_ERR, "legacy mode (-L) needs kprobes and raw tracepoints, but this kernel cannot attach %s: %s",
			    !s->ok[BPFTUNE_FEAT_KPROBE] ? "kprobes" : "raw tracepoints",
			    !s->ok[BPFTUNE_FEAT_KPROBE] ? s->why[BPFTUNE_FEAT_KPROBE] :
			    s->why[BPFTUNE_FEAT_RAW_TP]);
		return false;
	}
	return true;
}

/* Start everything and run until a signal: the exit status. */
static int run(const struct options *o, struct start_ctx *sc,
	       struct ring_buffer **rb, int argc, char **argv)
{
	int err;

	if (o->rollback && start_journal(o))
		return 1;
	init_telemetry(o, argc, argv);
	sc->bpf.legacy = o->legacy;
	if (start_core(o, sc) ||
	    bpftune_plugin_dir_scan(o->libdir, &o->allow, start_tuner, sc))
		return 1;
	if (!sc->running) {
		bpftune_log(LOG_ERR, "no tuner can run on this system; exiting");
		return 1;
	}
	*rb = ring_buffer__new(bpftune_ringbuf_fd(), on_event, NULL, NULL);
	if (!*rb) {
		bpftune_log(LOG_ERR, "cannot set up the ring buffer: %s", strerror(errno));
		return 1;
	}
	the_rb = *rb;
	if (start_operations(o, sc))
		return 1;
	bpftune_telemetry_start();
	/*
	 * Loading parsed the kernel's BTF once per object (megabytes each);
	 * freed, but kept by malloc: give it back before running for months.
	 */
	malloc_trim(0);
	bpftune_log(LOG_INFO, "bpftune running with %u tuner%s", sc->running,
		    sc->running == 1 ? "" : "s");
	err = event_loop(*rb);
	if (err)
		bpftune_log(LOG_ERR, "event loop failed: %s", strerror(-err));
	bpftune_print_summary();
	if (o->rollback && bpftune_journal_restore())
		err = err ?: -EIO;
	return err ? 1 : 0;
}

static void shutdown_all(int ret, struct start_ctx *sc, struct ring_buffer *rb)
{
	bpftune_telemetry_stop(ret);
	bpftune_control_fini();
	bpftune_hotplug_fini();
	bpftune_metrics_fini();
	bpftune_journal_close();
	the_rb = NULL;
	bpftune_tuners_fini();
	ring_buffer__free(rb);
	bpftune_ringbuf_close();
	if (sc->bpf.cgroup_fd > 0)
		close(sc->bpf.cgroup_fd);
	bpftune_cgroup_cleanup();
	bpftune_netns_fini();
	bpftune_loop_fini();
	bpftune_log_flush();
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
	} else {
		bpftune_log(LOG_INFO, "bpftune %s starting: support level %s, learning rate %u",
			    BPFTUNE_VERSION, bpftune_support_level_name(s->level),
			    o.learning_rate);
		if (kernel_fits(&o, s))
			ret = run(&o, &sc, &rb, argc, argv);
	}
	shutdown_all(ret, &sc, rb);
	return ret;
}
