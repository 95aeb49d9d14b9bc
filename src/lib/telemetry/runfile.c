// SPDX-License-Identifier: GPL-2.0-only
/*
 * The run's file: created before the tuners start (the core's tables, in
 * WAL mode), the run recorded and the writer started once they have,
 * closed at exit with the run's end.  A failure leaves telemetry off and
 * the daemon tuning; a file without a runs row is never left behind.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include "telemetry/ids.h"
#include "telemetry/tm.h"

/* never follow a symlink planted where the run's file goes (SQLite >= 3.31) */
#ifdef SQLITE_OPEN_NOFOLLOW
#define OPEN_NOFOLLOW	SQLITE_OPEN_NOFOLLOW
#else
#define OPEN_NOFOLLOW	0
#endif

/*
 * SQLite's page cache of the run's file, KiB (see db_open): creating the
 * tables fills it in the first second, so it is the idle daemon's RSS;
 * 256 holds what one sample touches and writes as fast as 512 did
 */
#ifndef TM_PAGE_CACHE_KIB
#define TM_PAGE_CACHE_KIB	"256"
#endif

/* host_id for systemd's app-specific machine id: never the raw machine-id */
static const uint8_t host_app_id[16] = {
	0x6b, 0x2f, 0x0e, 0x9a, 0x31, 0xc4, 0x4d, 0x57,
	0xa0, 0x58, 0x1d, 0x2e, 0x7c, 0xb4, 0x90, 0x13,
};

struct telemetry tm = { .efd = -1, .tfd = -1 };

uint64_t tm_clock_us(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

uint64_t tm_now_us(void)
{
	return tm_clock_us(CLOCK_BOOTTIME);
}

/* bounded string copy for the event path: cheaper than snprintf */
void tm_scopy(char *dst, size_t len, const char *src)
{
	size_t n = src ? strnlen(src, len - 1) : 0;

	if (n)
		memcpy(dst, src, n);
	dst[n] = '\0';
}

int tm_exec(const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(tm.db, sql, NULL, NULL, &msg) == SQLITE_OK)
		return 0;
	bpftune_log(LOG_WARNING, "telemetry: %s: %s", sql, msg ? msg : "?");
	sqlite3_free(msg);
	return -EIO;
}

static int read_line_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	int err = 0;

	if (!f)
		return -errno;
	if (!fgets(buf, len, f))
		err = -EIO;
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return err;
}

static int mkdir_p(const char *dir)
{
	char tmp[PATH_MAX], *p;

	if (snprintf(tmp, sizeof(tmp), "%s", dir) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	for (p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(tmp, 0750) && errno != EEXIST)
		return -errno;
	return 0;
}

/*
 * --host-id, else systemd's app-specific machine id, else an id kept in
 * <dir>/host-id
 */
static void host_id(const char *dir, const char *chosen)
{
	char path[PATH_MAX], buf[64];
	uint8_t id[16];
	FILE *f;

	if (chosen && bpftune_host_id_valid(chosen)) {
		tm_scopy(tm.host_id, sizeof(tm.host_id), chosen);
		return;
	}
	if (!tm_id_app_machine(host_app_id, id)) {
		tm_id_hex(id, tm.host_id);
		return;
	}
	snprintf(path, sizeof(path), "%s/host-id", dir);
	if (!read_line_file(path, buf, sizeof(buf)) && strlen(buf) == 32) {
		tm_scopy(tm.host_id, sizeof(tm.host_id), buf);
		return;
	}
	if (tm_id_random(id)) {
		tm_scopy(tm.host_id, sizeof(tm.host_id), "unknown");
		return;
	}
	tm_id_hex(id, tm.host_id);
	f = fopen(path, "wxe");
	if (f) {
		fprintf(f, "%s\n", tm.host_id);
		fclose(f);
	}
}

static int write_meta(void)
{
	static const char *const keys[] = {
		"schema_version", "run_id", "host_id", "created_by", "created_wall",
	};
	char version[16], wall[32];
	const char *vals[BPFTUNE_ARRAY_SIZE(keys)];
	struct treg *e = &tm_tables[BPFTUNE_T_META];
	time_t now = tm.start_wall_us / 1000000;
	unsigned int i;
	struct binder b;
	struct tm g;
	int err = 0;

	snprintf(version, sizeof(version), "%d", BPFTUNE_TELEMETRY_SCHEMA_VERSION);
	strftime(wall, sizeof(wall), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &g));
	vals[0] = version;
	vals[1] = tm.run_id;
	vals[2] = tm.host_id;
	vals[3] = "bpftune " BPFTUNE_VERSION;
	vals[4] = wall;
	for (i = 0; !err && i < BPFTUNE_ARRAY_SIZE(keys); i++) {
		b_begin(&b, e, 0, 0);
		b_text(&b, "key", keys[i]);
		b_text(&b, "value", vals[i]);
		err = b_done(&b);
	}
	return err;
}

/* the core's tables; the declaration tables first, so that they list all */
static int create_core(void)
{
	unsigned int i;
	int err;

	err = tm_table_create(&tm_tables[BPFTUNE_T_TABLES]) ?:
	      tm_table_create(&tm_tables[BPFTUNE_T_COLUMNS]);
	for (i = 0; !err && i < BPFTUNE_T_MAX; i++)
		err = tm_table_create(&tm_tables[i]);
	return err;
}

static void remove_files(void)
{
	static const char *const sfx[] = { "", "-wal", "-shm" };
	char path[PATH_MAX + 8];
	unsigned int i;

	for (i = 0; i < BPFTUNE_ARRAY_SIZE(sfx); i++) {
		snprintf(path, sizeof(path), "%s%s", tm.path, sfx[i]);
		unlink(path);
	}
}

static void close_db(void)
{
	unsigned int i;

	for (i = 0; i < tm_num_tables; i++)
		tm_table_finalize(&tm_tables[i]);
	sqlite3_close(tm.db);
	tm.db = NULL;
	tm_sampler_fini();
	tm_netns_fini();
	tm_reg_fini();
	tq_fini();
	tm.on = false;
}

static int ids(const char *dir)
{
	int err;

	err = read_line_file("/proc/sys/kernel/random/uuid", tm.run_id, sizeof(tm.run_id));
	if (err) {
		uint8_t id[16];

		if (tm_id_random(id))
			return err;
		tm_id_uuid(id, tm.run_id);
	}
	if (read_line_file("/proc/sys/kernel/random/boot_id", tm.boot_id, sizeof(tm.boot_id)))
		tm.boot_id[0] = '\0';
	host_id(dir, tm.o.host_id);
	return 0;
}

static void set_opts(const struct bpftune_telemetry_opts *o)
{
	tm.o = *o;
	if (!tm.o.sample_interval_ms)
		tm.o.sample_interval_ms = BPFTUNE_SAMPLE_INTERVAL_MS;
	if (tm.o.sample_netns < 0)
		tm.o.sample_netns = BPFTUNE_SAMPLE_NETNS_DEFAULT;
	if (tm.o.sample_netns > BPFTUNE_SAMPLE_NETNS_MAX)
		tm.o.sample_netns = BPFTUNE_SAMPLE_NETNS_MAX;
	if (tm.o.keep_files < 0)
		tm.o.keep_files = BPFTUNE_TELEMETRY_KEEP_DEFAULT;
	if (tm.o.max_mb < 0)
		tm.o.max_mb = BPFTUNE_TELEMETRY_MAX_MB_DEFAULT;
}

static int open_db(const char *dir)
{
	char stamp[32], sql[64];
	time_t now = tm.start_wall_us / 1000000;
	struct tm g;
	int err;

	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", gmtime_r(&now, &g));
	if (snprintf(tm.path, sizeof(tm.path), "%s/%s-%s.db", dir, stamp,
		     tm.run_id) >= (int)sizeof(tm.path))
		return -ENAMETOOLONG;
	if (sqlite3_open_v2(tm.path, &tm.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
			    SQLITE_OPEN_NOMUTEX | OPEN_NOFOLLOW, NULL) != SQLITE_OK) {
		bpftune_log(LOG_WARNING, "telemetry off: cannot create %s: %s", tm.path,
			    tm.db ? sqlite3_errmsg(tm.db) : "out of memory");
		return -EIO;
	}
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d",
		 BPFTUNE_TELEMETRY_SCHEMA_VERSION);
	/* the writer thread may wait a little for another process's lock */
	sqlite3_busy_timeout(tm.db, 200);
	/*
	 * WAL: readers see committed flushes while we write.  The writer only
	 * appends: a small page cache holds the tables' right edges, where the
	 * default (2 MiB) filled with pages it never reads again and stayed
	 * in the daemon's resident memory for good.
	 */
	err = tm_exec("PRAGMA journal_mode = WAL") ?:
	      tm_exec("PRAGMA synchronous = NORMAL") ?:
	      tm_exec("PRAGMA cache_size = -" TM_PAGE_CACHE_KIB) ?:
	      tm_exec("BEGIN") ?: tm_exec(sql) ?: create_core() ?:
	      write_meta() ?: tm_exec("COMMIT");
	if (err)
		bpftune_log(LOG_WARNING, "telemetry off: cannot set up %s", tm.path);
	return err;
}

int bpftune_telemetry_init(const struct bpftune_telemetry_opts *o)
{
	const char *dir = o->dir ? o->dir : BPFTUNE_TELEMETRY_DIR;
	int err;

	set_opts(o);
	tm.main_thread = pthread_self();
	tm.start_us = tm_now_us();
	tm.start_wall_us = tm_clock_us(CLOCK_REALTIME);
	err = mkdir_p(dir);
	if (err) {
		bpftune_log(LOG_WARNING, "telemetry off: cannot create %s: %s",
			    dir, strerror(-err));
		return err;
	}
	err = ids(dir);
	if (err)
		return err;
	tm_prune_runs(dir);
	err = tq_init();
	if (err)
		return err;
	tm_reg_init();
	err = open_db(dir);
	if (err) {
		/* open_db() said why, in one line */
		close_db();
		remove_files();
		return err;
	}
	tm.on = true;
	bpftune_log(LOG_INFO, "telemetry: writing to %s", tm.path);
	return 0;
}

const char *bpftune_telemetry_path(void)
{
	return tm.on ? tm.path : NULL;
}

static void cpu_model(char *buf, size_t len)
{
	char line[512];
	FILE *f = fopen("/proc/cpuinfo", "re");

	buf[0] = '\0';
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!colon || (strncmp(line, "model name", 10) &&
			       strncmp(line, "Model", 5) && strncmp(line, "cpu\t", 4)))
			continue;
		colon++;
		colon += strspn(colon, " \t");
		colon[strcspn(colon, "\n")] = '\0';
		tm_scopy(buf, len, colon);
		break;
	}
	fclose(f);
}

static int64_t mem_total_kb(void)
{
	struct bpftune_proc_value v;
	char buf[8192];
	size_t n = 0;
	FILE *f = fopen("/proc/meminfo", "re");

	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return n && !bpftune_proc_lookup(BPFTUNE_PROC_KEYVAL, buf, "MemTotal", &v) ? v.i : -1;
}

/* names of the running tuners and the command line, space-separated */
static void run_lists(char *tuners, size_t tlen, char *args, size_t alen)
{
	size_t off = 0;
	unsigned int id;
	int i;

	tuners[0] = args[0] = '\0';
	for (id = 0; id < BPFTUNE_MAX_TUNERS; id++) {
		const struct bpftune_tuner *t = bpftune_tuner_get(id);

		if (t && t->obj && off < tlen) {
			int n = snprintf(tuners + off, tlen - off, "%s%s",
					 off ? "," : "", t->ops->name);

			off += n > 0 ? (size_t)n : 0;
		}
	}
	for (i = 0, off = 0; i < tm.o.argc && off < alen; i++) {
		int n = snprintf(args + off, alen - off, "%s%s", i ? " " : "",
				 tm.o.argv[i]);

		off += n > 0 ? (size_t)n : 0;
	}
}

static int write_run(void)
{
	char wall[32], model[256], tuners[1024], args[1024];
	const struct bpftune_support *s = bpftune_support();
	time_t now = tm.start_wall_us / 1000000;
	int64_t memtotal = mem_total_kb();
	struct utsname u;
	struct binder b;
	struct tm g;

	uname(&u);
	cpu_model(model, sizeof(model));
	strftime(wall, sizeof(wall), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &g));
	run_lists(tuners, sizeof(tuners), args, sizeof(args));
	b_begin(&b, &tm_tables[BPFTUNE_T_RUNS], 1, tm.start_us);
	b_text(&b, "boot_id", tm.boot_id);
	b_int(&b, "start_wall_us", tm.start_wall_us);
	b_text(&b, "start_wall", wall);
	b_null(&b, "end_ts_uptime_us");
	b_null(&b, "exit_status");
	b_text(&b, "daemon_version", BPFTUNE_VERSION);
	b_int(&b, "schema_version", BPFTUNE_TELEMETRY_SCHEMA_VERSION);
	b_text(&b, "kernel_release", u.release);
	b_text(&b, "kernel_version", u.version);
	b_text(&b, "arch", u.machine);
	b_text(&b, "cpu_model", model);
	b_int(&b, "cpu_cores", sysconf(_SC_NPROCESSORS_ONLN));
	b_int_or_null(&b, "mem_total_kb", memtotal >= 0, memtotal);
	b_text(&b, "support_mode", bpftune_support_level_name(s->level));
	b_text(&b, "bpf_objects", tm.o.legacy ? "legacy" : "full");
	b_int(&b, "learning_rate", tm.o.learning_rate);
	b_text(&b, "tuners", tuners);
	b_text(&b, "label", tm.o.label);
	b_int(&b, "observe_only", tm.o.observe_only);
	b_int(&b, "sample_interval_ms", tm.o.sample_interval_ms);
	b_int(&b, "pid", getpid());
	b_text(&b, "args", args);
	if (b_done(&b))
		return -EIO;
	tm_rows_written++;
	return 0;
}

int bpftune_telemetry_start(void)
{
	unsigned int id;
	int err;

	if (!tm.on || tm.started)
		return 0;
	/* the writer thread is not running yet: this thread may use the db */
	err = write_run();
	if (err)
		goto fail;
	tm.started = true;
	for (id = 0; id < BPFTUNE_MAX_TUNERS; id++) {
		const struct bpftune_tuner *t = bpftune_tuner_get(id);

		if (t && t->obj)
			bpftune_telemetry_tuner_added(t);
	}
	err = tm_writer_start();
	if (err) {
		tm.started = false;
		goto fail;
	}
	tm_observe_start();
	bpftune_log(LOG_INFO, "telemetry: run %s%s%s, samples every %u ms",
		    tm.run_id, tm.o.label ? ", label " : "", tm.o.label ? tm.o.label : "",
		    tm.o.sample_interval_ms);
	return 0;
fail:
	bpftune_log(LOG_WARNING, "telemetry off: cannot start the writer: %s",
		    strerror(-err));
	close_db();
	remove_files();
	return err;
}

static void record_end(void)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(tm.db, "UPDATE runs SET end_ts_uptime_us = ?, exit_status = ? WHERE run_id = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int64(st, 1, tm_now_us());
	sqlite3_bind_int(st, 2, atomic_load(&tm.exit_status));
	sqlite3_bind_text(st, 3, tm.run_id, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		bpftune_log(LOG_WARNING, "telemetry: cannot record the end of the run: %s",
			    sqlite3_errmsg(tm.db));
	sqlite3_finalize(st);
}

void bpftune_telemetry_stop(int status)
{
	bool started = tm.started;

	if (!tm.on)
		return;
	if (started) {
		tm_observe_stop();
		atomic_store(&tm.exit_status, status);
		tm_writer_stop();
		tm.started = false;
		/* the writer is gone: this thread owns the db again */
		record_end();
		bpftune_log(LOG_INFO, "telemetry: %llu rows written, %llu dropped, %llu events lost in the ring buffer: %s",
			    (unsigned long long)tm_rows_written,
			    (unsigned long long)(atomic_load(&tq_stats.rows_dropped) + tm_write_errors),
			    (unsigned long long)tm_reg_ringbuf_lost(), tm.path);
	}
	close_db();
	/* no run happened: leave no file without a runs row behind */
	if (!started)
		remove_files();
}
