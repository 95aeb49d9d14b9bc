// SPDX-License-Identifier: GPL-2.0-only
/*
 * Ship one run file: every table, in batches, from its watermark.
 *
 * Rows are read by rowid, which grows with every insert: the daemon only
 * appends, and commits rows in seq order, so "rowid > watermark" is what
 * Redis has not acknowledged yet.  The one exception is an UPDATE, like
 * the runs row's end written at exit.  So once the file is no longer
 * open in any process (final), the tables shipped while it was being
 * written are read again and compared with the digest of what was
 * shipped; a table that changed is shipped again (the dump keeps the
 * newest entry of each row).  Then the file is done until it changes.
 *
 * On each new connection, the rowids Redis holds as acknowledged are
 * read back first: if Redis lost acknowledged writes (restarted from an
 * older AOF or snapshot, or emptied), shipping resumes from what it has.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "batch.h"

struct file_state {
	uint64_t size, wal_size;
	int64_t mtime_ns;
};

static void stat_file(const char *path, struct file_state *fs)
{
	char wal[PATH_MAX + 8];
	struct stat s;

	memset(fs, 0, sizeof(*fs));
	if (!stat(path, &s)) {
		fs->size = s.st_size;
		fs->mtime_ns = s.st_mtim.tv_sec * 1000000000LL + s.st_mtim.tv_nsec;
	}
	snprintf(wal, sizeof(wal), "%s-wal", path);
	if (!stat(wal, &s))
		fs->wal_size = s.st_size;
}

static bool unchanged(const struct ship_wm *wm, const struct file_state *fs)
{
	return wm->size == fs->size && wm->wal_size == fs->wal_size &&
	       wm->mtime_ns == fs->mtime_ns;
}

/* <state>/<name without .db>.wm */
static int wm_path(const struct ship_opts *o, const char *name, char *buf, size_t len)
{
	size_t n = strlen(name);

	if (n > 3 && !strcmp(name + n - 3, ".db"))
		n -= 3;
	return snprintf(buf, len, "%s/%.*s.wm", o->state, (int)n, name) >= (int)len ? -1 : 0;
}

struct job {
	struct conn *cn;
	const struct ship_opts *o;
	struct runfile rf;
	struct ship_wm *wm;
	struct ship_file_cache *fc;
	char wm_path[PATH_MAX];
	bool in_use;
	struct row_enc re;
	char *err;		/* why the file is refused */
	size_t errlen;
};

/* rewind to what Redis acknowledged, if it holds less than we think */
static int verify_acked(struct job *j)
{
	int64_t acked[SHIP_MAX_TABLES];
	unsigned int i;

	if (j->fc->verified_epoch == j->cn->epoch)
		return 0;
	if (record_acked(j->cn, &j->rf, j->wm, acked))
		return -1;
	for (i = 0; i < j->wm->num_tables; i++) {
		struct ship_wm_table *w = &j->wm->tables[i];
		struct rf_table *t = NULL;
		unsigned int k;

		if (acked[i] >= w->rowid)
			continue;
		ship_log("%s: Redis holds %s rows up to %" PRId64 ", not %" PRId64 " (restarted without them?): shipping them again",
			 j->fc->name, w->name, acked[i], w->rowid);
		for (k = 0; k < j->rf.num_tables; k++)
			if (!strcmp(j->rf.tables[k].name, w->name))
				t = &j->rf.tables[k];
		w->rowid = 0;
		w->digest = SHIP_DIGEST_INIT;
		if (t && !t->refused && acked[i] > 0 &&
		    !batch_digest(&j->rf, t, acked[i], &w->digest, &j->re))
			w->rowid = acked[i];
		j->wm->done = false;
	}
	j->fc->verified_epoch = j->cn->epoch;
	return 0;
}

static int save(struct job *j)
{
	int err = ship_wm_save(j->wm_path, j->wm);

	if (err)
		ship_log("%s: cannot save the watermark: %s", j->wm_path, strerror(-err));
	return err;
}

/*
 * every batch of one table up to the rows the file had when opened; a
 * table the file cannot give (a damaged page) is refused, after the rows
 * before the damage: that is the file's problem, not Redis's
 */
static enum ship_result ship_table(struct job *j, struct rf_table *t)
{
	struct ship_wm_table *w = ship_wm_table(j->wm, t->name, true);
	struct batch b;

	if (!w) {
		ship_log("%s: more than %d tables: %s not shipped", j->fc->name,
			 SHIP_MAX_TABLES, t->name);
		return SHIP_OK;
	}
	if (!w->rowid)
		w->digest = SHIP_DIGEST_INIT;
	while (w->rowid < t->max_rowid) {
		if (ship_stop)
			return SHIP_STOPPED;
		/* a new connection may be to a Redis that lost rows: check first */
		if (conn_ensure(j->cn) || j->fc->verified_epoch != j->cn->epoch)
			return SHIP_RETRY;
		b.from = w->rowid;
		b.digest = w->digest;
		switch (batch_ship(j->cn, j->o, &j->rf, t, &b, &j->re)) {
		case BATCH_EMPTY:
			return SHIP_OK;
		case BATCH_REDIS_ERROR:
			return SHIP_RETRY;
		case BATCH_GAP:
			j->fc->verified_epoch = 0;
			return SHIP_RETRY;
		case BATCH_FILE_ERROR:
			if (!rf_damage(&j->rf)) {
				ship_log("%s: %s: %s: trying again", j->fc->name, t->name,
					 rf_errmsg(&j->rf));
				return SHIP_RETRY;
			}
			rf_table_damaged(&j->rf, t, "cannot read its rows");
			ship_log("%s: %s not shipped after rowid %" PRId64 ": %s", j->fc->name,
				 t->name, w->rowid, t->why);
			return SHIP_OK;
		}
		conn_backoff_reset(j->cn);
		ship_debug("%s: %s: %d rows, up to rowid %" PRId64, j->fc->name, t->name,
			   b.rows, b.last_rowid);
		w->rowid = b.last_rowid;
		w->digest = b.digest;
		if (j->in_use)
			j->wm->unverified = true;
		save(j);
	}
	return SHIP_OK;
}

static enum ship_result ship_tables(struct job *j)
{
	unsigned int i;

	for (i = 0; i < j->rf.num_tables; i++) {
		struct rf_table *t = &j->rf.tables[i];
		enum ship_result r;

		if (t->refused)
			continue;
		r = ship_table(j, t);
		if (r != SHIP_OK)
			return r;
	}
	return SHIP_OK;
}

static const struct rf_table *first_damaged(const struct job *j)
{
	unsigned int i;

	for (i = 0; i < j->rf.num_tables; i++)
		if (j->rf.tables[i].damaged)
			return &j->rf.tables[i];
	return NULL;
}

/*
 * Some tables could not be read: the file is refused with the first
 * one's reason (the run's record names each: refused.TABLE), after
 * every other table was shipped.
 */
static enum ship_result refuse_damaged(struct job *j)
{
	const struct rf_table *t = first_damaged(j);

	snprintf(j->err, j->errlen, "table %s: %s", t->name, t->why);
	if (conn_ensure(j->cn) || record_run(j->cn, &j->rf, j->fc->name))
		return SHIP_RETRY;
	return SHIP_REFUSED;
}

/* the file is final: ship again any table that changed after shipping */
static enum ship_result finish(struct job *j, const struct file_state *fs)
{
	unsigned int i;
	enum ship_result r;

	for (i = 0; j->wm->unverified && i < j->rf.num_tables; i++) {
		struct rf_table *t = &j->rf.tables[i];
		struct ship_wm_table *w = ship_wm_table(j->wm, t->name, false);
		uint64_t d;

		if (t->refused || !w)
			continue;
		if (batch_digest(&j->rf, t, w->rowid, &d, &j->re)) {
			if (!rf_damage(&j->rf))
				return SHIP_RETRY;
			rf_table_damaged(&j->rf, t, "cannot read its rows again");
			continue;
		}
		if (d == w->digest)
			continue;
		ship_log("%s: %s rows changed after they were shipped: shipping the table again",
			 j->fc->name, t->name);
		w->rowid = 0;
		r = ship_table(j, t);
		if (r != SHIP_OK)
			return r;
	}
	if (first_damaged(j))
		return SHIP_OK;		/* never done: refused */
	if (conn_ensure(j->cn) || record_done(j->cn, &j->rf))
		return SHIP_RETRY;
	j->wm->unverified = false;
	j->wm->done = true;
	j->wm->size = fs->size;
	j->wm->wal_size = fs->wal_size;
	j->wm->mtime_ns = fs->mtime_ns;
	save(j);
	ship_log("%s: run %s of host %s shipped completely", j->fc->name, j->rf.run_id,
		 j->rf.host_id);
	return SHIP_OK;
}

static int64_t pending_rows(struct job *j)
{
	int64_t n = 0;
	unsigned int i;

	for (i = 0; i < j->rf.num_tables; i++) {
		const struct rf_table *t = &j->rf.tables[i];
		struct ship_wm_table *w = ship_wm_table(j->wm, t->name, false);

		if ((!t->refused || t->damaged) && t->max_rowid > (w ? w->rowid : 0))
			n += t->max_rowid - (w ? w->rowid : 0);
	}
	return n;
}

static enum ship_result ship_open_file(struct job *j, const struct file_state *fs)
{
	enum ship_result r;
	uint64_t rec;

	if (strcmp(j->wm->run_id, j->rf.run_id)) {
		/* new, or the watermark of another file: start from nothing */
		ship_wm_init(j->wm);
		strcpy(j->wm->run_id, j->rf.run_id);
		strcpy(j->wm->host_id, j->rf.host_id);
	}
	snprintf(j->fc->kernel, sizeof(j->fc->kernel), "%s", j->rf.kernel);
	snprintf(j->fc->host_id, sizeof(j->fc->host_id), "%s", j->rf.host_id);
	if (conn_ensure(j->cn))
		return SHIP_RETRY;
	/* what the run's record says, registered again when it changes */
	rec = ship_digest(j->rf.schema_digest, j->rf.label, strlen(j->rf.label));
	rec = ship_digest(rec, j->rf.kernel, strlen(j->rf.kernel));
	rec = ship_digest(rec, &j->rf.start_wall_us, sizeof(j->rf.start_wall_us));
	if (j->fc->registered != rec || j->fc->verified_epoch != j->cn->epoch) {
		if (record_run(j->cn, &j->rf, j->fc->name))
			return SHIP_RETRY;
		j->fc->registered = rec;
	}
	if (verify_acked(j))
		return SHIP_RETRY;
	if (j->wm->done && unchanged(j->wm, fs))
		return SHIP_OK;
	/* changed after it was done: an UPDATE shows in the digests */
	if (j->wm->done)
		j->wm->unverified = true;
	j->wm->done = false;
	r = ship_tables(j);
	if (r == SHIP_OK && !j->in_use)
		r = finish(j, fs);
	j->fc->pending = pending_rows(j);
	if (r == SHIP_OK && first_damaged(j))
		r = refuse_damaged(j);
	return r;
}

enum ship_result ship_file(struct conn *cn, const struct ship_opts *o, const char *path,
			   struct ship_file_cache *fc, char *err, size_t errlen)
{
	struct job j = { .cn = cn, .o = o, .fc = fc, .err = err, .errlen = errlen };
	struct file_state fs;
	enum ship_result r;

	if (wm_path(o, fc->name, j.wm_path, sizeof(j.wm_path))) {
		snprintf(err, errlen, "file name too long");
		return SHIP_REFUSED;
	}
	j.wm = malloc(sizeof(*j.wm));
	if (!j.wm)
		return SHIP_RETRY;
	if (ship_wm_load(j.wm_path, j.wm) == -EINVAL)
		ship_log("%s: unreadable watermark, shipping the run from the start", j.wm_path);
	stat_file(path, &fs);
	/* done, unchanged and already checked on this connection: no need to open */
	if (j.wm->done && unchanged(j.wm, &fs) && fc->verified_epoch == cn->epoch &&
	    cn->c) {
		fc->pending = 0;
		free(j.wm);
		return SHIP_OK;
	}
	/* before opening: our own connection would hide nothing, but closing
	 * the probe's descriptor would drop its locks */
	j.in_use = rf_in_use(path);
	fc->in_use = j.in_use;
	if (rf_open(&j.rf, path, j.in_use, err, errlen)) {
		free(j.wm);
		return SHIP_REFUSED;
	}
	r = ship_open_file(&j, &fs);
	rf_close(&j.rf);
	row_enc_free(&j.re);
	free(j.wm);
	return r;
}
