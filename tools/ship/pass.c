// SPDX-License-Identifier: GPL-2.0-only
/*
 * One pass over the telemetry directory: list the run files (*.db,
 * regular, no symlinks), ship each in name order, remember the ones that
 * cannot be shipped (corrupt, not a run file) until they change, and
 * report each host's status.  A Redis failure ends the pass; a bad file
 * never does.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "main.h"

#define REFUSED_TEXT_MAX	1024
#define MAX_HOSTS		16	/* hosts reported per pass (files of several) */

static int cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct ship_file_cache *)a)->name,
		      ((const struct ship_file_cache *)b)->name);
}

static bool run_file_name(const char *name)
{
	size_t n = strlen(name);

	return n > 3 && n < sizeof(((struct ship_file_cache *)0)->name) &&
	       !strcmp(name + n - 3, ".db") && name[0] != '.';
}

static struct ship_file_cache *cache_entry(struct ship_main *m, const char *name)
{
	struct ship_file_cache key = { 0 }, *fc;

	snprintf(key.name, sizeof(key.name), "%s", name);
	fc = m->num_files ? bsearch(&key, m->files, m->num_files, sizeof(*fc), cmp_name) : NULL;
	if (fc)
		return fc;
	if (m->num_files == m->cap_files) {
		unsigned int cap = m->cap_files ? m->cap_files * 2 : 64;
		void *p = realloc(m->files, cap * sizeof(*fc));

		if (!p)
			return NULL;
		m->files = p;
		m->cap_files = cap;
	}
	fc = &m->files[m->num_files++];
	memset(fc, 0, sizeof(*fc));
	strcpy(fc->name, name);
	qsort(m->files, m->num_files, sizeof(*fc), cmp_name);
	return bsearch(&key, m->files, m->num_files, sizeof(*fc), cmp_name);
}

/* mark the run files of the directory seen; drop entries of gone files */
static int list_dir(struct ship_main *m)
{
	struct dirent *de;
	unsigned int i, n = 0;
	DIR *d = opendir(m->opts.dir);

	if (!d) {
		/* said once: the daemon may create it later */
		if (m->dir_errno != errno)
			ship_log("cannot read %s: %s", m->opts.dir, strerror(errno));
		m->dir_errno = errno;
		return -1;
	}
	if (m->dir_errno)
		ship_log("%s: readable now", m->opts.dir);
	m->dir_errno = 0;
	for (i = 0; i < m->num_files; i++)
		m->files[i].seen = false;
	while ((de = readdir(d))) {
		struct ship_file_cache *fc;
		struct stat st;

		if (!run_file_name(de->d_name) ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(st.st_mode))
			continue;
		fc = cache_entry(m, de->d_name);
		if (fc)
			fc->seen = true;
	}
	closedir(d);
	for (i = 0; i < m->num_files; i++)
		if (m->files[i].seen)
			m->files[n++] = m->files[i];
	m->num_files = n;
	return 0;
}

static void stat_ns(const char *path, uint64_t *size, int64_t *mtime_ns)
{
	struct stat st;

	*size = 0;
	*mtime_ns = 0;
	if (!stat(path, &st)) {
		*size = st.st_size;
		*mtime_ns = st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
	}
}

/* ship one file; false ends the pass (Redis failed, or stop) */
static bool one_file(struct ship_main *m, struct ship_file_cache *fc, enum pass_result *res)
{
	char path[PATH_MAX], err[256];
	uint64_t size;
	int64_t mtime;

	snprintf(path, sizeof(path), "%s/%s", m->opts.dir, fc->name);
	stat_ns(path, &size, &mtime);
	if (fc->refused[0] && fc->refused_size == size && fc->refused_mtime_ns == mtime) {
		m->num_refused++;
		return true;
	}
	err[0] = '\0';
	switch (ship_file(&m->cn, &m->opts, path, fc, err, sizeof(err))) {
	case SHIP_OK:
		fc->refused[0] = '\0';
		return true;
	case SHIP_REFUSED:
		ship_log("%s: not shipped: %s (the other files are)", path, err);
		snprintf(fc->refused, sizeof(fc->refused), "%s", err);
		fc->refused_size = size;
		fc->refused_mtime_ns = mtime;
		m->num_refused++;
		return true;
	case SHIP_STOPPED:
		*res = PASS_STOPPED;
		return false;
	case SHIP_RETRY:
		break;
	}
	*res = PASS_RETRY;
	return false;
}

struct host_sum {
	const char *host_id, *kernel;
	unsigned int files;
	int64_t pending;
};

static void refused_text(struct ship_main *m, char *buf, size_t len)
{
	size_t pos = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < m->num_files && pos < len; i++) {
		const struct ship_file_cache *fc = &m->files[i];

		if (fc->refused[0])
			pos += snprintf(buf + pos, len - pos, "%s%s: %s", pos ? "; " : "",
					fc->name, fc->refused);
	}
}

/* the status of every host whose files are here */
static int report_hosts(struct ship_main *m)
{
	struct host_sum hosts[MAX_HOSTS];
	char refused[REFUSED_TEXT_MAX];
	unsigned int i, k, n = 0;

	for (i = 0; i < m->num_files; i++) {
		const struct ship_file_cache *fc = &m->files[i];

		/* a refused file counts if it was opened: its lag is real */
		if (!fc->host_id[0])
			continue;
		for (k = 0; k < n && strcmp(hosts[k].host_id, fc->host_id); k++)
			;
		if (k == n) {
			if (n == MAX_HOSTS)
				continue;
			hosts[n++] = (struct host_sum){ .host_id = fc->host_id };
		}
		hosts[k].files++;
		hosts[k].pending += fc->pending;
		if (fc->kernel[0])
			hosts[k].kernel = fc->kernel;	/* the newest run's */
	}
	refused_text(m, refused, sizeof(refused));
	for (k = 0; k < n; k++)
		if (ship_host_status(&m->cn, hosts[k].host_id, hosts[k].kernel,
				     hosts[k].files, hosts[k].pending, refused))
			return -1;
	return 0;
}

enum pass_result ship_pass(struct ship_main *m)
{
	enum pass_result res = PASS_DONE;
	unsigned int i;

	m->num_refused = 0;
	if (list_dir(m))
		return PASS_NO_DIR;
	for (i = 0; i < m->num_files; i++)
		if (!one_file(m, &m->files[i], &res))
			return res;
	if (report_hosts(m))
		return PASS_RETRY;
	if (m->num_files)
		ship_sweep_state(m);
	return ship_stop ? PASS_STOPPED : PASS_DONE;
}

/* <name>.wm with no <name>.db in the directory: the run file was pruned */
void ship_sweep_state(struct ship_main *m)
{
	struct dirent *de;
	DIR *d = opendir(m->opts.state);
	char db[PATH_MAX];

	if (!d)
		return;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		struct stat st;

		if (n < 4 || strcmp(de->d_name + n - 3, ".wm"))
			continue;
		snprintf(db, sizeof(db), "%s/%.*s.db", m->opts.dir, (int)(n - 3), de->d_name);
		if (lstat(db, &st) && errno == ENOENT &&
		    !unlinkat(dirfd(d), de->d_name, 0))
			ship_debug("%s: gone, its watermark removed", db);
	}
	closedir(d);
}
