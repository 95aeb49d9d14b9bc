// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpftune-ship: the command line, and passes over the telemetry
 * directory: every run file in name (= start time) order, then the
 * host's status.  Between passes it sleeps --interval; after a Redis
 * failure it backs off.  SIGTERM/SIGINT stop it after the current batch.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "main.h"

int ship_verbose;
volatile int ship_stop;

void ship_log(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("bpftune-ship: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

void ship_debug(const char *fmt, ...)
{
	va_list ap;

	if (!ship_verbose)
		return;
	va_start(ap, fmt);
	fputs("bpftune-ship: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static void on_signal(int sig)
{
	(void)sig;
	ship_stop = 1;
}

static void signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	/* no SA_RESTART: a blocked read or sleep returns at once */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* mkdir -p: the parents 0755, @path itself 0700; 0 or -errno */
static int make_dirs(const char *path)
{
	char p[PATH_MAX];
	char *s;

	if (snprintf(p, sizeof(p), "%s", path) >= (int)sizeof(p))
		return -ENAMETOOLONG;
	for (s = p + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		if (p[0] && mkdir(p, 0755) && errno != EEXIST)
			return -errno;
		*s = '/';
	}
	if (mkdir(p, 0700) && errno != EEXIST)
		return -errno;
	return 0;
}

/* one shipper per state directory: two would race on the watermarks */
static int lock_state(const char *state)
{
	char path[PATH_MAX];
	int fd, err;

	/* systemd's StateDirectory= makes it; by hand, we do */
	err = make_dirs(state);
	if (err) {
		ship_log("cannot create the state directory %s: %s", state, strerror(-err));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/lock", state);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		ship_log("cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		ship_log("another bpftune-ship uses the state directory %s", state);
		close(fd);
		return -1;
	}
	return fd;		/* kept open: the lock lives as long as we do */
}

/* sleep @ms unless a signal comes */
static void nap(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (!ship_stop && nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* --once: retry Redis until shipped or --give-up; 0, 1 (no DIR), 2 or 3 (refused) */
static int run_once(struct ship_main *m)
{
	double deadline = now_s() + m->give_up_s;
	enum pass_result r;

	for (;;) {
		r = ship_pass(m);
		if (r == PASS_DONE)
			return m->num_refused ? 3 : 0;
		if (r == PASS_STOPPED)
			return 2;
		if (r == PASS_NO_DIR)
			return 1;
		if (m->cn.auth_failed) {
			ship_log("--once: Redis refused our credentials: giving up");
			return 2;
		}
		if (now_s() >= deadline) {
			ship_log("--once: Redis unavailable for %u s: giving up (the watermarks keep what was shipped)",
				 m->give_up_s);
			return 2;
		}
		conn_backoff(&m->cn);
	}
}

static int run_forever(struct ship_main *m)
{
	while (!ship_stop) {
		if (ship_pass(m) == PASS_RETRY)
			conn_backoff(&m->cn);
		else
			nap(m->interval_ms);
	}
	ship_log("stopping");
	return 0;
}

int main(int argc, char **argv)
{
	struct ship_main m;
	int rc, lock;

	rc = ship_parse_args(argc, argv, &m);
	if (rc >= 0)
		return rc;
	signals();
	srandom((unsigned int)(getpid() ^ time(NULL)));
	lock = lock_state(m.opts.state);
	if (lock < 0)
		return 1;
	ship_sweep_state(&m);
	ship_log("shipping %s to %s%s", m.opts.dir, m.url_desc, m.opts.once ? " (once)" : "");
	rc = m.opts.once ? run_once(&m) : run_forever(&m);
	conn_drop(&m.cn, NULL);
	free(m.files);
	close(lock);
	return rc;
}
