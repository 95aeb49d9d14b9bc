// SPDX-License-Identifier: GPL-2.0-only
/*
 * Retention, at start: the oldest earlier runs' files beyond
 * --telemetry-keep files or --telemetry-max-mb are removed.  Only files
 * named like ours, regular, owned by us and open nowhere are touched; the
 * plan itself is telemetry_retention.c's (pure, unit-tested).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "telemetry/tm.h"

/*
 * Is a run file open in another process?  A SQLite connection to a WAL
 * database holds a read lock on byte 128 of its -shm file (the "DMS"
 * lock) for as long as it is open; a file without -shm is open nowhere.
 * When in doubt, in use.
 */
static bool run_in_use(int dfd, const char *db)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
			    .l_start = 128, .l_len = 1 };
	char shm[80];
	int fd;
	bool busy;

	snprintf(shm, sizeof(shm), "%s-shm", db);
	fd = openat(dfd, shm, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return errno != ENOENT;
	busy = fcntl(fd, F_GETLK, &fl) || fl.l_type != F_UNLCK;
	close(fd);
	return busy;
}

/* ours: a regular file (not a link) owned by the daemon's user */
static bool our_file(int dfd, const char *name, struct stat *st)
{
	return !fstatat(dfd, name, st, AT_SYMLINK_NOFOLLOW) &&
	       S_ISREG(st->st_mode) && st->st_uid == geteuid();
}

static void unlink_run(int dfd, const char *db)
{
	static const char *const sfx[] = { "", "-wal", "-shm" };
	char name[80];
	unsigned int i;

	for (i = 0; i < BPFTUNE_ARRAY_SIZE(sfx); i++) {
		snprintf(name, sizeof(name), "%s%s", db, sfx[i]);
		if (unlinkat(dfd, name, 0) && errno != ENOENT)
			bpftune_log(LOG_WARNING, "telemetry: cannot remove %s: %s",
				    name, strerror(errno));
	}
}

/* a -wal or -shm left behind by a run removed earlier */
static void remove_orphan(int dfd, const char *name, size_t len)
{
	char db[64];

	if (len - 4 >= sizeof(db))
		return;
	memcpy(db, name, len - 4);
	db[len - 4] = '\0';
	if (faccessat(dfd, db, F_OK, AT_SYMLINK_NOFOLLOW) && errno == ENOENT &&
	    !run_in_use(dfd, db))
		unlinkat(dfd, name, 0);
}

/* one earlier run's .db file, with its size and whether it is in use */
static bool add_run(int dfd, const char *name, size_t len, const struct stat *st,
		    struct bpftune_tfile **files, unsigned int *n, unsigned int *cap)
{
	struct bpftune_tfile *f;
	struct stat wst;
	char wal[80];

	if (*n == *cap) {
		unsigned int c = *cap ? 2 * *cap : 64;

		f = realloc(*files, c * sizeof(**files));
		if (!f)
			return false;
		*files = f;
		*cap = c;
	}
	f = &(*files)[(*n)++];
	memset(f, 0, sizeof(*f));
	memcpy(f->name, name, len + 1);
	f->bytes = st->st_size;
	snprintf(wal, sizeof(wal), "%s-wal", f->name);
	if (our_file(dfd, wal, &wst))
		f->bytes += wst.st_size;
	f->in_use = run_in_use(dfd, name);
	return true;
}

void tm_prune_runs(const char *dir)
{
	uint64_t max_bytes = (uint64_t)tm.o.max_mb << 20, freed = 0;
	struct bpftune_tfile *files = NULL;
	unsigned int n = 0, cap = 0, i, removed;
	struct dirent *d;
	struct stat st;
	DIR *dp;
	int dfd;

	if (!tm.o.keep_files && !max_bytes)
		return;
	dp = opendir(dir);
	if (!dp)
		return;
	dfd = dirfd(dp);
	while ((d = readdir(dp))) {
		int kind = bpftune_telemetry_file_kind(d->d_name);
		size_t len = strlen(d->d_name);

		/* our names are 56 bytes, 60 with -wal or -shm */
		if (kind < 0 || len >= sizeof(files->name) || !our_file(dfd, d->d_name, &st))
			continue;
		if (kind != BPFTUNE_TFILE_DB)
			remove_orphan(dfd, d->d_name, len);
		else if (!add_run(dfd, d->d_name, len, &st, &files, &n, &cap))
			break;
	}
	removed = bpftune_telemetry_prune_plan(files, n, tm.o.keep_files, max_bytes);
	for (i = 0; removed && i < n; i++) {
		if (!files[i].remove)
			continue;
		unlink_run(dfd, files[i].name);
		freed += files[i].bytes;
	}
	if (removed)
		bpftune_log(LOG_INFO, "telemetry: removed %u earlier run(s), %llu kB, from %s (keep %d runs, %ld MB)",
			    removed, (unsigned long long)(freed >> 10), dir,
			    tm.o.keep_files, tm.o.max_mb);
	free(files);
	closedir(dp);
}
