// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sampler, on the writer thread, every interval: one row per active
 * sampled table for the daemon's own netns, then one per per-netns table
 * for each netns picked this interval (entered in turn).  Columns come
 * from /proc files (read once per netns and shared by every column that
 * names them), from the owning plugin's BPF gauges (taken, i.e. read and
 * cleared, once per netns and plugin) or from the plugin's sample
 * callback.
 *
 * Files of the daemon's netns and machine-wide files stay open from one
 * interval to the next and are read again with pread() from offset 0,
 * which makes a seq_file regenerate its text.  Another netns' files are
 * opened in it each time: an open /proc/net file holds its netns alive.
 * /proc/net is read through /proc/thread-self/net, so that the main
 * thread's setns() for its writes never changes what we read.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "telemetry/tm.h"

#define MAX_FILES	32
#define MAX_PROC_FILE	(4 << 20)
#define NO_FILE		0xff

struct proc_file {
	char path[64];			/* as declared */
	char open_path[96];		/* /proc/net/X: /proc/thread-self/net/X */
	bool net;			/* one per netns */
	int fd;				/* the daemon's netns: kept open */
	char *buf;
	size_t size;
	bool ok;
};

struct bpftune_sample {
	struct treg *e;
	uint64_t ts, cookie;
	bool global;
	unsigned int rows;
};

struct tm_sample_stats tm_sample_stats;

static struct proc_file files[MAX_FILES];
static unsigned int num_files;
static unsigned int files_gen = ~0u;
static bool no_lookup_and_delete;
/*
 * What was taken, for outcomes' gauge rewards (gauge_window.c): written
 * here, read by the daemon's thread (tm_gauge_mean), under hist_lock.
 * Only takes with observations are kept; HISTORY_MAX of them reach back
 * 2048 / (takes per second): at 200 ms with three busy namespaces, 136 s.
 */
#define HISTORY_MAX	2048
static pthread_mutex_t hist_lock = PTHREAD_MUTEX_INITIALIZER;
static struct bpftune_gauge_take hist_takes[HISTORY_MAX];
static struct bpftune_gauge_history hist = { .e = hist_takes, .cap = HISTORY_MAX };
/* gauges taken in the netns being sampled, by tuner id */
static struct {
	bool have;
	struct bpftune_gauges g;
} taken[BPFTUNE_MAX_TUNERS];

static struct proc_file *file_get(const char *path)
{
	struct proc_file *f;
	unsigned int i;

	for (i = 0; i < num_files; i++)
		if (!strcmp(files[i].path, path))
			return &files[i];
	if (num_files == MAX_FILES)
		return NULL;
	f = &files[num_files];
	memset(f, 0, sizeof(*f));
	tm_scopy(f->path, sizeof(f->path), path);
	f->net = !strncmp(path, "/proc/net/", 10);
	if (f->net)
		snprintf(f->open_path, sizeof(f->open_path), "/proc/thread-self/net/%s",
			 path + 10);
	else
		tm_scopy(f->open_path, sizeof(f->open_path), path);
	f->fd = -1;
	num_files++;
	return f;
}

/* which file each /proc column of each sampled table reads */
static void map_files(void)
{
	unsigned int t, i;

	for (t = 0; t < tm_num_tables; t++) {
		struct treg *e = &tm_tables[t];

		if (!(e->d->flags & BPFTUNE_TABLE_SAMPLED))
			continue;
		free(e->col_file);
		e->col_file = malloc(e->d->num_cols ? e->d->num_cols : 1);
		for (i = 0; e->col_file && i < e->d->num_cols; i++) {
			const struct bpftune_col_desc *c = &e->d->cols[i];
			struct proc_file *f = c->source == BPFTUNE_SRC_PROC ?
					      file_get(c->proc.file) : NULL;

			e->col_file[i] = f ? f - files : NO_FILE;
		}
	}
	files_gen = tm_reg_gen;
}

/* the whole file from offset 0: pread on a kept fd, read on a fresh one */
static void read_all(struct proc_file *f, int fd, bool kept)
{
	size_t len = 0;
	ssize_t n;

	f->ok = false;
	for (;;) {
		if (len + 1 >= f->size) {
			size_t size = f->size ? f->size * 2 : 16384;
			char *buf;

			if (size > MAX_PROC_FILE || !(buf = realloc(f->buf, size)))
				break;
			f->buf = buf;
			f->size = size;
		}
		n = kept ? pread(fd, f->buf + len, f->size - len - 1, len) :
			   read(fd, f->buf + len, f->size - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			f->ok = n == 0;
			break;
		}
		len += n;
	}
	if (f->buf)
		f->buf[len] = '\0';
}

static void read_kept(struct proc_file *f)
{
	if (f->fd < 0)
		f->fd = open(f->open_path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0) {
		f->ok = false;
		return;
	}
	read_all(f, f->fd, true);
}

static void read_fresh(struct proc_file *f)
{
	int fd = open(f->open_path, O_RDONLY | O_CLOEXEC);

	f->ok = false;
	if (fd < 0)
		return;
	read_all(f, fd, false);
	close(fd);
}

void tm_sampler_fini(void)
{
	unsigned int i;

	for (i = 0; i < num_files; i++) {
		if (files[i].fd >= 0)
			close(files[i].fd);
		free(files[i].buf);
	}
	memset(files, 0, sizeof(files));
	num_files = 0;
	files_gen = ~0u;
	pthread_mutex_lock(&hist_lock);
	bpftune_gauge_history_init(&hist, hist_takes, HISTORY_MAX);
	pthread_mutex_unlock(&hist_lock);
}

int tm_gauge_mean(uint64_t cookie, uint32_t tuner_id, unsigned int gauge,
		  uint64_t from_us, uint64_t to_us, double *mean)
{
	int err;

	pthread_mutex_lock(&hist_lock);
	err = bpftune_gauge_window_mean(&hist, cookie, tuner_id, gauge, from_us, to_us,
					mean, NULL);
	pthread_mutex_unlock(&hist_lock);
	return err;
}

/*
 * A plugin's gauges in a netns since they were last taken, taken: the
 * BPF side starts afresh.  false if none (no observation, or no map).
 */
static bool take_gauges(uint64_t cookie, uint32_t tuner_id, struct bpftune_gauges *g)
{
	struct bpftune_gauges_key key = { .netns_cookie = cookie, .tuner_id = tuner_id };
	int fd = bpftune_gauges_fd();

	if (fd < 0)
		return false;
	if (!no_lookup_and_delete) {
		if (!bpf_map_lookup_and_delete_elem(fd, &key, g))
			return true;
		/* before 5.14 hash maps have no lookup-and-delete */
		if (errno != EINVAL && errno != ENOTSUP && errno != EOPNOTSUPP &&
		    errno != 524 /* ENOTSUPP */)
			return false;
		no_lookup_and_delete = true;
	}
	if (bpf_map_lookup_elem(fd, &key, g))
		return false;
	bpf_map_delete_elem(fd, &key);
	return true;
}

static void take_all_gauges(uint64_t cookie)
{
	struct tplugin *p = NULL;
	uint32_t id = 0;

	memset(taken, 0, sizeof(taken));
	while ((p = tm_reg_next_gauged(p, &id))) {
		if (id >= BPFTUNE_MAX_TUNERS)
			continue;
		taken[id].have = take_gauges(cookie, id, &taken[id].g);
		if (!taken[id].have)
			continue;
		pthread_mutex_lock(&hist_lock);
		bpftune_gauge_history_add(&hist, cookie, id, tm_now_us(), &taken[id].g);
		pthread_mutex_unlock(&hist_lock);
	}
}

static void bind_proc(struct binder *b, const struct bpftune_sample *s,
		      const struct bpftune_col_desc *c, unsigned int col)
{
	uint8_t fi = s->e->col_file ? s->e->col_file[col] : NO_FILE;
	const struct proc_file *f = fi == NO_FILE ? NULL : &files[fi];
	struct bpftune_proc_value v;

	if (!f || !f->ok || (!s->global && (c->flags & BPFTUNE_COL_MACHINE_WIDE)) ||
	    bpftune_proc_lookup(c->proc.format, f->buf, c->proc.key, &v))
		b_null(b, c->name);
	else if (c->type == BPFTUNE_COL_REAL)
		b_real(b, c->name, v.real ? v.d : (double)v.i);
	else
		b_int(b, c->name, v.i);
}

static void bind_gauge(struct binder *b, const struct bpftune_sample *s,
		       const struct bpftune_col_desc *c)
{
	uint32_t id = 0;
	const struct bpftune_gauge *g = NULL;
	struct bpftune_proc_value v;
	bool running = tm_reg_running_id(s->e, &id) && id < BPFTUNE_MAX_TUNERS;

	if (running && taken[id].have && c->gauge.id < BPFTUNE_GAUGE_SLOTS)
		g = &taken[id].g.g[c->gauge.id];
	if (!running || bpftune_gauge_value(g, c->gauge.agg, &v))
		b_null(b, c->name);
	else if (c->type == BPFTUNE_COL_REAL)
		b_real(b, c->name, v.real ? v.d : (double)v.i);
	else
		b_int(b, c->name, v.i);
}

/* one row of a sampled table; @values for its ROW columns, or NULL */
static int write_sampled(struct bpftune_sample *s, const struct bpftune_value *values)
{
	struct treg *e = s->e;
	unsigned int i, k = 0;
	struct binder b;

	if (tm_table_create(e))
		return -EIO;
	b_begin(&b, e, ++e->writer_seq, s->ts);
	if (e->d->flags & BPFTUNE_TABLE_PER_NETNS)
		b_int(&b, "netns_cookie", s->global ? 0 : (int64_t)s->cookie);
	for (i = 0; i < e->d->num_cols; i++) {
		const struct bpftune_col_desc *c = &e->d->cols[i];

		if (c->source == BPFTUNE_SRC_PROC)
			bind_proc(&b, s, c, i);
		else if (c->source == BPFTUNE_SRC_GAUGE)
			bind_gauge(&b, s, c);
		else if (values)
			b_value(&b, &values[k++]);
		else
			b_null(&b, c->name);
	}
	return b_done(&b);
}

int bpftune_sample_row(struct bpftune_sample *s, const struct bpftune_value *values,
		       unsigned int num_values)
{
	char why[160];

	if (!s || !s->e)
		return -EINVAL;
	if (bpftune_telemetry_row_check(s->e->d, values, num_values, why, sizeof(why))) {
		if (!s->e->bind_error_logged) {
			s->e->bind_error_logged = true;
			bpftune_log(LOG_WARNING, "plugin %s: telemetry table %s: sampled row refused: %s",
				    tm_reg_owner(s->e), s->e->d->name, why);
		}
		return -EINVAL;
	}
	if (!write_sampled(s, values))
		s->rows++;
	return 0;
}

uint64_t bpftune_sample_netns_cookie(const struct bpftune_sample *s)
{
	return s && !s->global ? s->cookie : 0;
}

/* every sampled table's rows in one netns; returns how many were written */
static unsigned int sample_tables(uint64_t cookie, bool global)
{
	uint64_t ts = tm_now_us();
	unsigned int t, rows = 0;

	for (t = 0; t < tm_num_tables; t++) {
		struct treg *e = &tm_tables[t];
		struct bpftune_sample s = {
			.e = e, .ts = ts, .cookie = cookie, .global = global,
		};
		struct bpftune_tuner *tuner = tm_reg_tuner(e);

		if (e->state != TREG_ACTIVE || !(e->d->flags & BPFTUNE_TABLE_SAMPLED) ||
		    (!global && !(e->d->flags & BPFTUNE_TABLE_PER_NETNS)))
			continue;
		if (e->d->sample && tuner) {
			e->d->sample(tuner, &s);
			rows += s.rows;
		} else if (!e->d->sample && !write_sampled(&s, NULL)) {
			rows++;
		}
	}
	return rows;
}

static unsigned int sample_other(struct tm_netns *ns)
{
	unsigned int i, rows;
	uint64_t cookie;
	int saved, err;

	err = tm_netns_enter(ns, &saved, &cookie);
	if (err) {
		/* -EEXIST: a name for the daemon's own netns, sampled already */
		tm_sample_stats.netns_errors += err != -EEXIST;
		return 0;
	}
	for (i = 0; i < num_files; i++)
		if (files[i].net)
			read_fresh(&files[i]);
	take_all_gauges(cookie);
	rows = sample_tables(cookie, false);
	bpftune_netns_leave(saved);
	tm_sample_stats.netns_sampled++;
	return rows;
}

unsigned int tm_sample_all(void)
{
	struct tm_netns *picked[BPFTUNE_SAMPLE_NETNS_MAX];
	uint64_t t0 = tm_now_us();
	unsigned int i, n, rows;

	if (files_gen != tm_reg_gen)
		map_files();
	for (i = 0; i < num_files; i++)
		read_kept(&files[i]);
	take_all_gauges(bpftune_global_netns_cookie());
	rows = sample_tables(0, true);
	tm_sample_stats.netns_sampled = 0;
	n = tm_netns_pick(picked, tm.o.sample_netns, &tm_sample_stats.netns_known);
	for (i = 0; i < n; i++)
		rows += sample_other(picked[i]);
	tm_sample_stats.sample_us = tm_now_us() - t0;
	return rows;
}
