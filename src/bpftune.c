// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpftune: the daemon.  Parses the command line, probes what the kernel
 * supports, loads the tuner plugins, then blocks on the shared ring buffer
 * and dispatches events until SIGINT/SIGTERM.  Part of libbpftune, whose
 * only entry it is (bpftune_main()); the program is src/main.c.
 */
#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include <bpftune/daemon.h>

#include "core/internal.h"
#include "loader/cgroup.h"
#include "core/core.h"
#include "core/loop.h"
#include "plugin/plugin.h"
#include "telemetry/telemetry.h"
#include "ops/control.h"
#include "ops/journal.h"
#include "ops/metrics.h"
#include "core/operate.h"
#include "core/gate_step.h"
#include "ops/config_daemon.h"
#include "daemon/notify.h"
#include "daemon/options.h"

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

/* the gates of @ops that hold programs @obj will load: what opens each */
static void report_gates(const struct bpftune_tuner_ops *ops, struct bpf_object *obj)
{
	char what[192];
	unsigned int i;

	for (i = 0; BPFTUNE_OPS_HAS(ops, num_gates) && i < ops->num_gates; i++) {
		const struct bpftune_gate *g = &ops->gates[i];

		if (!bpftune_gate_programs(g, obj))
			continue;
		bpftune_gate_describe(g, what, sizeof(what));
		printf("    hook %s: gated by %s (%s gate)%s%s%s\n", g->hook, what,
		       bpftune_gate_kind_name(g->kind),
		       g->wake ? "; on an idle machine asleep until " : "",
		       g->wake ? g->wake : "", g->wake ? " fires" : "");
	}
}

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
	if (!err)
		report_gates(ops, obj);
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

	if (ops && bpftune_plugin_start(file, ops, handle, fd, &sc->bpf))
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
	if (si.ssi_signo == SIGHUP) {
		bpftune_notify("RELOADING=1");
		bpftune_config_reload();
		bpftune_notify("READY=1");
		return;
	}
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
	sigaddset(&mask, SIGHUP);	/* re-read the config file */
	sigprocmask(SIG_BLOCK, &mask, NULL);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (sfd < 0)
		return -errno;
	err = bpftune_loop_add(sfd, on_signal, NULL);
	err = err ?: bpftune_loop_add(ring_buffer__epoll_fd(rb), on_ringbuf, rb);
	if (!err) {
		bpftune_notify("READY=1");
		err = bpftune_loop_run();
		bpftune_notify("STOPPING=1");
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
		.drain = drain_events,
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
	bpftune_strategies_set_drain(drain_events);
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
		.dir = o->telemetry_dir, .label = o->label, .host_id = o->host_id,
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
	bpftune_telemetry_watch_plugins();
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
	if (o->auto_legacy)
		bpftune_log(LOG_INFO, "fentry does not load on this kernel: using the legacy objects (their tracepoints are raw_tp, which needs no kernel BTF to attach%s)",
			    s->ok[BPFTUNE_FEAT_KPROBE] ? "; function hooks are kprobes" : "");
	else if (o->legacy && !(s->ok[BPFTUNE_FEAT_KPROBE] && s->ok[BPFTUNE_FEAT_RAW_TP])) {
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
	daemon_check_collectors(o);
	if (start_core(o, sc) ||
	    bpftune_plugin_dir_scan(o->libdir, &o->allow, start_tuner, sc))
		return 1;
	if (!sc->running) {
		bpftune_log(LOG_ERR, "no tuner can run on this system; exiting");
		return 1;
	}
	if (bpftune_config_resolve())
		return BPFTUNE_EXIT_CONFIG;
	bpftune_config_running();
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
	bpftune_tuners_drain();
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
	bpftune_support_fini();
	bpftune_loop_fini();
	bpftune_config_fini();
	bpftune_log_flush();
}

/*
 * Everything after start-up's first steps, on the daemon's thread: every
 * setns() the daemon makes is made here or on a thread started from here.
 */
static int daemon_body(struct options *o, int argc, char **argv)
{
	struct start_ctx sc = { 0 };
	struct ring_buffer *rb = NULL;
	const struct bpftune_support *s;
	int err, ret = 1;

	err = bpftune_netns_init();
	if (err) {
		bpftune_log(LOG_ERR, "cannot open the daemon's netns: %s", strerror(-err));
		return 1;
	}
	if (o->restore)
		return restore_only(o);
	bpftune_set_learning_rate(o->learning_rate);
	bpftune_set_collector_opts(&(struct bpftune_collector_opts){
		.buffer_kb = o->buffer_kb, .keep_observer = o->keep_observer });
	err = bpftune_loop_init();
	if (err) {
		bpftune_log(LOG_ERR, "cannot create the event loop: %s", strerror(-err));
		return 1;
	}
	bpftune_support_probe(NULL);
	s = bpftune_support();
	/* no fentry: raw_tp in the legacy objects needs no kernel BTF to attach */
	o->auto_legacy = !o->legacy && bpftune_bpf_prefer_legacy(s);
	if (o->auto_legacy)
		o->legacy = true;
	if (o->support_only) {
		ret = report_support(o);
	} else {
		bpftune_log(LOG_INFO, "bpftune %s starting: support level %s, learning rate %u",
			    BPFTUNE_VERSION, bpftune_support_level_name(s->level),
			    o->learning_rate);
		if (kernel_fits(o, s))
			ret = run(o, &sc, &rb, argc, argv);
	}
	shutdown_all(ret, &sc, rb);
	return ret;
}

/* ---- the thread-group leader only waits ---------------------------------- */

struct daemon_thread {
	struct options *o;
	int argc;
	char **argv;
	sigset_t mask;		/* the leader's, before it blocked every signal */
	int ret;
};

static void *daemon_thread_main(void *arg)
{
	struct daemon_thread *d = arg;

	pthread_sigmask(SIG_SETMASK, &d->mask, NULL);
	d->ret = daemon_body(d->o, d->argc, d->argv);
	return NULL;
}

/*
 * setns() moves the calling thread only, and /proc/PID/ns/net is the
 * thread-group leader's: were the leader ever in another netns, `ip netns
 * pids NS | xargs kill` would kill the daemon and `ip netns identify PID`
 * would name NS.  So the leader, whose TID is the daemon's PID, runs no
 * daemon code once it has dropped its capabilities: another thread does,
 * with the leader's signal mask, while the leader blocks every signal
 * and waits.  A signal sent to the daemon is then delivered to that
 * thread, or pending for the process, where the event loop's signalfd
 * reads it.
 */
static int run_off_leader(struct options *o, int argc, char **argv)
{
	struct daemon_thread d = { .o = o, .argc = argc, .argv = argv, .ret = 1 };
	pthread_t thread;
	sigset_t all;
	int err;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &d.mask);
	err = pthread_create(&thread, NULL, daemon_thread_main, &d);
	if (err) {
		pthread_sigmask(SIG_SETMASK, &d.mask, NULL);
		bpftune_log(LOG_ERR, "cannot start the daemon's thread: %s", strerror(err));
		return 1;
	}
	pthread_join(thread, NULL);
	return d.ret;
}

int bpftune_main(int argc, char **argv)
{
	struct options o = { 0 };
	char **fargv = NULL;
	int ret = 1, fargc = 0;

	if (daemon_parse_args(argc, argv, &o, ARGS_CLI_FIRST))
		return 1;
	if (o.query)
		return bpftune_control_client(o.socket_path, o.query, o.json);
	if (daemon_apply_config(&o, argc, argv, &fargc, &fargv)) {
		ret = BPFTUNE_EXIT_CONFIG;
		goto free_args;
	}
	bpftune_log_init(o.to_stderr || o.support_only || o.restore || o.check_config ?
			 BPFTUNE_LOG_STDERR : BPFTUNE_LOG_SYSLOG, o.debug ? LOG_DEBUG : LOG_INFO);
	if (o.check_config) {
		ret = bpftune_config_check(o.libdir, &o.allow) ? BPFTUNE_EXIT_CONFIG : 0;
		goto free_args;
	}
	libbpf_set_print(libbpf_print);
	/* daemon() forks: before any thread, whose fork would lose them */
	if (o.daemonize && !o.support_only && daemon(0, 0)) {
		bpftune_log(LOG_ERR, "cannot daemonize: %s", strerror(errno));
		goto free_args;
	}
	/*
	 * One malloc arena for all threads: glibc gives each new thread
	 * an arena of its own, with free pages of its own kept resident;
	 * the daemon's threads seldom allocate at the same time.
	 */
	mallopt(M_ARENA_MAX, 1);
	/* the daemon's thread inherits the capabilities dropped here */
	if (!bpftune_cap_init())
		/* the options point into the config's arguments: free them after */
		ret = run_off_leader(&o, argc, argv);
free_args:
	bpftune_config_argv_free(fargc, fargv);
	return ret;
}
