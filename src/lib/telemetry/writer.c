// SPDX-License-Identifier: GPL-2.0-only
/*
 * The writer thread: it owns the SQLite connection, the sample timer and
 * the sampler.  It sleeps in poll() on its timerfd and on the eventfd the
 * producer kicks when the queue reaches half full (and at exit), so an
 * idle daemon with telemetry on wakes once per sample interval, in this
 * thread only.  Each flush is one transaction: every queued row, then at
 * a tick the samples and a health row.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <fcntl.h>
#include <unistd.h>

#include "telemetry/tm.h"

uint64_t tm_rows_written;
static uint64_t flushes, flush_rows, flush_us, flush_max_us, writer_lag_us;
/* the file cannot be written (full, read-only, locked): one line each way */
static bool db_failing;
static uint64_t dropped_at_failure;

static uint64_t rows_lost(void)
{
	return atomic_load(&tq_stats.rows_dropped) + tm_write_errors;
}

void tm_note_db(int rc)
{
	if (rc == SQLITE_OK || rc == SQLITE_DONE) {
		if (db_failing)
			bpftune_log(LOG_NOTICE, "telemetry: writing to %s again; %llu rows dropped meanwhile (health.rows_dropped)",
				    tm.path, (unsigned long long)(rows_lost() - dropped_at_failure));
		db_failing = false;
		return;
	}
	if (db_failing)
		return;
	db_failing = true;
	dropped_at_failure = rows_lost();
	bpftune_log(LOG_WARNING, "telemetry: cannot write to %s: %s; tuning goes on, rows are dropped and counted until it can",
		    tm.path, sqlite3_errstr(rc));
}

/* the writer's transactions: failures go to tm_note_db(), not one line each */
static int writer_sql(const char *sql)
{
	int rc = sqlite3_exec(tm.db, sql, NULL, NULL, NULL);

	if (rc != SQLITE_OK)
		tm_note_db(rc);
	return rc == SQLITE_OK ? 0 : -EIO;
}

#define LOST_LOG_INTERVAL_MS	60000

/* never silent: a line when events start being lost, then once a minute */
static void log_ringbuf_lost(uint64_t total)
{
	static uint64_t logged, logged_ms;
	uint64_t now = tm_now_us() / 1000;

	if (total <= logged || (logged_ms && now - logged_ms < LOST_LOG_INTERVAL_MS))
		return;
	bpftune_log(LOG_WARNING, "ring buffer full: %llu events lost so far, %llu since the last report (hooks fire faster than the daemon reads; health.ringbuf_lost)",
		    (unsigned long long)total, (unsigned long long)(total - logged));
	logged = total;
	logged_ms = now;
}

/* no stdio: nothing allocated per interval */
static long self_rss_kb(void)
{
	long size, resident = -1;
	char buf[128];
	ssize_t n;
	int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if (sscanf(buf, "%ld %ld", &size, &resident) != 2)
		resident = -1;
	return resident < 0 ? -1 : resident * (sysconf(_SC_PAGESIZE) / 1024);
}

static int64_t db_bytes(void)
{
	char wal[PATH_MAX + 8];
	struct stat st;
	int64_t total = 0;

	if (!stat(tm.path, &st))
		total += st.st_size;
	snprintf(wal, sizeof(wal), "%s-wal", tm.path);
	if (!stat(wal, &st))
		total += st.st_size;
	return total;
}

static int write_health(uint64_t depth)
{
	struct treg *e = &tm_tables[BPFTUNE_T_HEALTH];
	struct tm_sample_stats *s = &tm_sample_stats;
	uint64_t lost = tm_reg_ringbuf_lost();
	struct rusage ru;
	struct binder b;

	log_ringbuf_lost(lost);
	getrusage(RUSAGE_SELF, &ru);
	b_begin(&b, e, ++e->writer_seq, tm_now_us());
	b_int(&b, "ringbuf_lost", lost);
	b_int(&b, "events_seen", atomic_load(&tq_stats.events_seen));
	b_int(&b, "events_dropped", atomic_load(&tq_stats.events_dropped));
	b_int(&b, "rows_queued", atomic_load(&tq_stats.rows_queued));
	b_int(&b, "rows_dropped", rows_lost());
	b_int(&b, "rows_written", tm_rows_written);
	b_int(&b, "queue_depth", depth);
	b_int(&b, "queue_capacity", BPFTUNE_TELEMETRY_QUEUE_SLOTS);
	b_int(&b, "queue_max_depth", atomic_load(&tq_stats.max_depth));
	b_int(&b, "flushes", flushes);
	b_int(&b, "flush_rows", flush_rows);
	b_int(&b, "flush_latency_us", flush_us);
	b_int(&b, "flush_latency_max_us", flush_max_us);
	b_int(&b, "writer_lag_us", writer_lag_us);
	b_int(&b, "sample_latency_us", s->sample_us);
	b_int(&b, "netns_known", s->netns_known);
	b_int(&b, "netns_sampled", s->netns_sampled);
	b_int(&b, "netns_errors", s->netns_errors);
	b_int(&b, "cpu_user_us", (int64_t)ru.ru_utime.tv_sec * 1000000 + ru.ru_utime.tv_usec);
	b_int(&b, "cpu_system_us", (int64_t)ru.ru_stime.tv_sec * 1000000 + ru.ru_stime.tv_usec);
	b_int(&b, "rss_kb", self_rss_kb());
	b_int(&b, "db_bytes", db_bytes());
	return b_done(&b);
}

/* the running plugins' tables, created as soon as they are active */
static void create_active(void)
{
	unsigned int i;

	for (i = 0; i < tm_num_tables; i++)
		if (tm_tables[i].state == TREG_ACTIVE && !tm_tables[i].created)
			tm_table_create(&tm_tables[i]);
}

/* rows of the queue, written; how many; the oldest's timestamp */
static uint64_t drain(uint64_t *written, uint64_t *oldest)
{
	uint64_t tail = tq_tail(), head = tq_head(), n = 0;

	for (; tail != head; tail++, n++) {
		const struct row *r = tq_slot(tail);

		if (!n)
			*oldest = r->ts_us;
		if (!tm_write_row(r))
			(*written)++;
		tq_release(tail + 1);
	}
	return n;
}

/*
 * One transaction: every queued row, then samples and health if asked.
 * The write lock is taken first: while another process holds the file
 * (locked), the rows stay queued, and what the full queue refuses is
 * counted as dropped.  False if the transaction could not begin.
 */
static bool flush(bool samples)
{
	uint64_t t0 = tm_now_us(), n, ok = 0, oldest = 0;

	if (!tq_depth() && !samples)
		return true;
	if (writer_sql("BEGIN IMMEDIATE"))
		return false;
	pthread_mutex_lock(&tm_reg_lock);
	create_active();
	n = drain(&ok, &oldest);
	if (samples) {
		ok += tm_sample_all();
		if (!write_health(tq_depth()))
			ok++;
	}
	pthread_mutex_unlock(&tm_reg_lock);
	if (writer_sql("COMMIT")) {
		sqlite3_exec(tm.db, "ROLLBACK", NULL, NULL, NULL);
		tm_write_errors += ok;
		return true;
	}
	if (ok)
		tm_note_db(SQLITE_OK);
	tm_rows_written += ok;
	flushes++;
	flush_rows = ok;
	flush_us = tm_now_us() - t0;
	if (flush_us > flush_max_us)
		flush_max_us = flush_us;
	writer_lag_us = n && t0 > oldest ? t0 - oldest : 0;
	return true;
}

/* block until the timer ticks or the producer kicks; true at a tick */
static bool wait_wakeup(void)
{
	struct pollfd p[2] = {
		{ .fd = tm.efd, .events = POLLIN }, { .fd = tm.tfd, .events = POLLIN },
	};
	uint64_t v;
	bool tick = false;

	if (poll(p, tm.tfd >= 0 ? 2 : 1, -1) < 0)
		return false;
	if ((p[0].revents & POLLIN) && read(tm.efd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		bpftune_log(LOG_DEBUG, "telemetry: writer eventfd: %s", strerror(errno));
	if (tm.tfd >= 0 && (p[1].revents & POLLIN) && read(tm.tfd, &v, sizeof(v)) > 0)
		tick = true;
	return tick;
}

static void *writer_main(void *arg)
{
	(void)arg;
	for (;;) {
		bool tick = wait_wakeup(), stop = atomic_load(&tm.stop_requested);

		/*
		 * The producer wakes us when the ring reaches half full; keep
		 * up while it stays there rather than wait for the next kick
		 * -- unless the file cannot be written: then the next tick.
		 */
		if (flush(tick || stop))
			while (tq_depth() >= BPFTUNE_TELEMETRY_QUEUE_SLOTS / 2 && flush(false))
				;
		tq_trim();
		if (stop) {
			/* what the file would not take at exit is lost: counted */
			tm_write_errors += tq_depth();
			break;
		}
	}
	return NULL;
}

static int timer_open(void)
{
	struct itimerspec its = { 0 };

	tm.tfd = timerfd_create(CLOCK_BOOTTIME, TFD_CLOEXEC | TFD_NONBLOCK);
	if (tm.tfd < 0)
		return -errno;
	its.it_interval.tv_sec = tm.o.sample_interval_ms / 1000;
	its.it_interval.tv_nsec = (tm.o.sample_interval_ms % 1000) * 1000000L;
	its.it_value = its.it_interval;
	if (timerfd_settime(tm.tfd, 0, &its, NULL)) {
		int err = -errno;

		close(tm.tfd);
		tm.tfd = -1;
		return err;
	}
	return 0;
}

int tm_writer_start(void)
{
	sigset_t all, old;
	int err;

	tm.efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (tm.efd < 0)
		return -errno;
	err = timer_open();
	if (err)
		bpftune_log(LOG_WARNING, "telemetry: no sample timer: %s; samples only at exit",
			    strerror(-err));
	atomic_store(&tm.stop_requested, false);
	/* signals belong to the main loop's signalfd, never to the writer */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = -pthread_create(&tm.thread, NULL, writer_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		close(tm.efd);
		tm.efd = -1;
		if (tm.tfd >= 0)
			close(tm.tfd);
		tm.tfd = -1;
		return err;
	}
	pthread_setname_np(tm.thread, "bpftune-writer");
	return 0;
}

void tm_writer_stop(void)
{
	atomic_store(&tm.stop_requested, true);
	tq_kick();
	pthread_join(tm.thread, NULL);
	close(tm.efd);
	tm.efd = -1;
	if (tm.tfd >= 0)
		close(tm.tfd);
	tm.tfd = -1;
}
