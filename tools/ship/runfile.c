// SPDX-License-Identifier: GPL-2.0-only
/*
 * A run file, opened read-only.  WAL mode lets us read while the daemon
 * writes: every statement sees the transactions committed when it began.
 * Nothing here knows the daemon's tables: every table the file has is
 * shipped, with the schema objects that rebuild it, so tables that
 * plugins declare ship with no change here.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shipper.h"

#define BUSY_TIMEOUT_MS	2000

static int fail(struct runfile *rf, char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "%s: %s", what, rf->db ? sqlite3_errmsg(rf->db) : "out of memory");
	return -1;
}

/* the text of the first column of the first row of @sql, or -1 */
static int query_text(struct runfile *rf, const char *sql, const char *arg,
		      char *out, size_t len)
{
	sqlite3_stmt *st;
	int rc = -1;

	if (sqlite3_prepare_v2(rf->db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (arg)
		sqlite3_bind_text(st, 1, arg, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		snprintf(out, len, "%s", (const char *)sqlite3_column_text(st, 0));
		rc = 0;
	}
	sqlite3_finalize(st);
	return rc;
}

static int query_int(struct runfile *rf, const char *sql, int64_t *v)
{
	char buf[32];

	if (query_text(rf, sql, NULL, buf, sizeof(buf)))
		return -1;
	*v = strtoll(buf, NULL, 10);
	return 0;
}

static void free_objects(struct runfile *rf)
{
	unsigned int i;

	for (i = 0; i < rf->num_objects; i++) {
		free(rf->objects[i].type);
		free(rf->objects[i].name);
		free(rf->objects[i].tbl_name);
		free(rf->objects[i].sql);
	}
	free(rf->objects);
	rf->objects = NULL;
	rf->num_objects = 0;
}

static char *col_dup(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);

	return strdup(s ? s : "");
}

/* sqlite_master in rowid order: what a dump creates, in that order */
static int read_objects(struct runfile *rf)
{
	sqlite3_stmt *st;
	unsigned int cap = 0;
	uint64_t h = SHIP_DIGEST_INIT;
	int rc;

	free_objects(rf);
	if (sqlite3_prepare_v2(rf->db, "SELECT type, name, tbl_name, sql FROM sqlite_master "
			       "WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' "
			       "ORDER BY rowid", -1, &st, NULL) != SQLITE_OK)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct rf_object *o;
		int i;

		if (rf->num_objects == cap) {
			void *p = realloc(rf->objects, (cap ? cap * 2 : 32) * sizeof(*o));

			if (!p)
				break;
			rf->objects = p;
			cap = cap ? cap * 2 : 32;
		}
		o = &rf->objects[rf->num_objects++];
		o->type = col_dup(st, 0);
		o->name = col_dup(st, 1);
		o->tbl_name = col_dup(st, 2);
		o->sql = col_dup(st, 3);
		for (i = 0; i < 4; i++)
			h = ship_digest(h, sqlite3_column_text(st, i),
					sqlite3_column_bytes(st, i));
	}
	sqlite3_finalize(st);
	rf->schema_digest = h;
	return rc == SQLITE_DONE ? 0 : -1;
}

/* an alias of the rowid that no column shadows, or NULL */
static const char *rowid_alias(struct runfile *rf, const char *table)
{
	static const char *const aliases[] = { "rowid", "_rowid_", "oid" };
	char sql[160];
	unsigned int i;

	for (i = 0; i < 3; i++) {
		char found[8];

		snprintf(sql, sizeof(sql),
			 "SELECT name FROM pragma_table_info(?) WHERE name = '%s' COLLATE NOCASE",
			 aliases[i]);
		if (query_text(rf, sql, table, found, sizeof(found)))
			return aliases[i];
	}
	return NULL;
}

/*
 * max(rowid) of a table: 0 when empty, -1 when the file cannot say (a
 * damaged page on the way to the last row): never "empty" then.
 */
static int query_max(struct runfile *rf, const char *sql, int64_t *v)
{
	sqlite3_stmt *st;
	int rc;

	*v = 0;
	if (sqlite3_prepare_v2(rf->db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : -1;
}

bool rf_damage(struct runfile *rf)
{
	int e = rf->db ? sqlite3_errcode(rf->db) & 0xff : SQLITE_OK;

	/* a lock held a little too long (the daemon's checkpoint) passes */
	return rf->out_of_order || (e != SQLITE_BUSY && e != SQLITE_LOCKED);
}

void rf_table_damaged(struct runfile *rf, struct rf_table *t, const char *what)
{
	snprintf(t->why, sizeof(t->why), "%s: %s", what, rf_errmsg(rf));
	t->refused = t->why;
	t->damaged = true;
}

static void check_table(struct runfile *rf, struct rf_table *t, const char *sql)
{
	char q[128];

	t->refused = NULL;
	t->damaged = false;
	if (!ship_id_valid(t->name)) {
		t->refused = "its name is not [A-Za-z0-9._-]{1,64}";
		return;
	}
	if (strcasestr(sql, "WITHOUT ROWID") || !strncasecmp(sql, "CREATE VIRTUAL", 14)) {
		t->refused = "a WITHOUT ROWID or virtual table has no rowid to ship from";
		return;
	}
	t->rowid = rowid_alias(rf, t->name);
	if (!t->rowid) {
		t->refused = "its columns shadow rowid, _rowid_ and oid";
		return;
	}
	snprintf(q, sizeof(q), "SELECT max(%s) FROM \"%s\"", t->rowid, t->name);
	if (query_max(rf, q, &t->max_rowid))
		rf_table_damaged(rf, t, "its row range cannot be read");
}

static int read_tables(struct runfile *rf)
{
	unsigned int i, n = 0;

	for (i = 0; i < rf->num_objects && n < SHIP_MAX_TABLES; i++) {
		struct rf_table *t = &rf->tables[n];

		if (strcmp(rf->objects[i].type, "table"))
			continue;
		snprintf(t->name, sizeof(t->name), "%s", rf->objects[i].name);
		if (strlen(rf->objects[i].name) > SHIP_ID_MAX)
			t->name[0] = '\0';	/* invalid: refused */
		check_table(rf, t, rf->objects[i].sql);
		n++;
	}
	rf->num_tables = n;
	return 0;
}

static void read_run_info(struct runfile *rf)
{
	int64_t v;

	rf->label[0] = rf->kernel[0] = '\0';
	rf->start_wall_us = 0;
	/* the core's runs table (rf_open refuses a file without it) */
	query_text(rf, "SELECT label FROM runs ORDER BY rowid LIMIT 1", NULL,
		   rf->label, sizeof(rf->label));
	query_text(rf, "SELECT kernel_release FROM runs ORDER BY rowid LIMIT 1", NULL,
		   rf->kernel, sizeof(rf->kernel));
	if (!query_int(rf, "SELECT start_wall_us FROM runs ORDER BY rowid LIMIT 1", &v))
		rf->start_wall_us = v;
}

int rf_refresh(struct runfile *rf, char *err, size_t errlen)
{
	if (read_objects(rf))
		return fail(rf, err, errlen, "cannot read the schema");
	read_tables(rf);
	read_run_info(rf);
	return 0;
}

static int read_identity(struct runfile *rf, char *err, size_t errlen)
{
	char found[8];
	int64_t v;

	if (query_text(rf, "SELECT value FROM meta WHERE key = ?", "run_id",
		       rf->run_id, sizeof(rf->run_id)) ||
	    query_text(rf, "SELECT value FROM meta WHERE key = ?", "host_id",
		       rf->host_id, sizeof(rf->host_id))) {
		snprintf(err, errlen, "not a bpftune run file: no meta table with run_id and host_id");
		return -1;
	}
	if (!ship_id_valid(rf->run_id) || !ship_id_valid(rf->host_id)) {
		snprintf(err, errlen, "run_id or host_id is not [A-Za-z0-9._-]{1,64}");
		return -1;
	}
	if (query_text(rf, "SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?",
		       "runs", found, sizeof(found))) {
		snprintf(err, errlen, "not a bpftune run file: no runs table");
		return -1;
	}
	rf->user_version = query_int(rf, "PRAGMA user_version", &v) ? 0 : (int)v;
	rf->application_id = query_int(rf, "PRAGMA application_id", &v) ? 0 : (int)v;
	if (query_text(rf, "PRAGMA journal_mode", NULL, rf->journal_mode,
		       sizeof(rf->journal_mode)))
		strcpy(rf->journal_mode, "delete");
	return 0;
}

static bool exists(const char *path, const char *suffix)
{
	char p[PATH_MAX + 8];

	snprintf(p, sizeof(p), "%s%s", path, suffix);
	return !access(p, F_OK);
}

/* "file:" URI of @path with immutable=1; -1 if too long */
static int immutable_uri(const char *path, char *buf, size_t len)
{
	size_t o = 0;
	const char *p;

	o += snprintf(buf, len, "file:");
	for (p = path; *p && o + 4 < len; p++) {
		if (*p == '%' || *p == '?' || *p == '#')
			o += snprintf(buf + o, len - o, "%%%02X", (unsigned char)*p);
		else
			buf[o++] = *p;
	}
	if (*p || snprintf(buf + o, len - o, "?immutable=1") >= (int)(len - o))
		return -1;
	return 0;
}

static int open_db(struct runfile *rf, const char *path, bool immutable)
{
	char uri[PATH_MAX * 3 + 32];
	int64_t n;

	if (immutable && immutable_uri(path, uri, sizeof(uri)))
		return -1;
	if (sqlite3_open_v2(immutable ? uri : path, &rf->db, SQLITE_OPEN_READONLY |
			    SQLITE_OPEN_NOMUTEX | (immutable ? SQLITE_OPEN_URI : 0),
			    NULL) != SQLITE_OK)
		return -1;
	sqlite3_busy_timeout(rf->db, BUSY_TIMEOUT_MS);
	/* the first read tells a corrupt or non-SQLite file */
	return query_int(rf, "SELECT count(*) FROM sqlite_master", &n);
}

/*
 * Opened as immutable=1, SQLite says "delete" for a WAL file: the file
 * format's read version (header byte 18) says what it is.
 */
static void immutable_journal_mode(struct runfile *rf)
{
	unsigned char hdr[20];
	int fd = open(rf->path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	if (pread(fd, hdr, sizeof(hdr), 0) == (ssize_t)sizeof(hdr) && hdr[18] == 2)
		strcpy(rf->journal_mode, "wal");
	close(fd);
}

int rf_open(struct runfile *rf, const char *path, bool in_use, char *err, size_t errlen)
{
	/*
	 * A file no process has open, with no -wal, is not being written:
	 * read it as immutable, which takes no lock and creates nothing
	 * beside it (a read-only open of a WAL file creates -shm and -wal,
	 * and leaves them).  A file the daemon writes, or one with a -wal
	 * left by a crash, needs the normal read-only open: WAL reads need
	 * the -shm, and immutable would ignore the -wal's transactions.
	 */
	bool immutable = !in_use && !exists(path, "-wal");

	memset(rf, 0, sizeof(*rf));
	rf->path = path;
	if (open_db(rf, path, immutable)) {
		fail(rf, err, errlen, "not a readable SQLite file");
		rf_close(rf);
		return -1;
	}
	if (read_identity(rf, err, errlen) || rf_refresh(rf, err, errlen)) {
		rf_close(rf);
		return -1;
	}
	if (immutable)
		immutable_journal_mode(rf);
	return 0;
}

void rf_close(struct runfile *rf)
{
	free_objects(rf);
	if (rf->db)
		sqlite3_close(rf->db);
	rf->db = NULL;
}

const char *rf_errmsg(struct runfile *rf)
{
	if (rf->out_of_order)
		return "rowids out of order (a damaged b-tree)";
	return rf->db ? sqlite3_errmsg(rf->db) : "closed";
}

/* ---- rows ---------------------------------------------------------------- */

int rf_cursor_open(struct runfile *rf, const struct rf_table *t, int64_t after,
		   int64_t upto, int64_t limit, struct rf_cursor *c)
{
	char sql[256];

	snprintf(sql, sizeof(sql),
		 "SELECT %s, * FROM \"%s\" WHERE %s > ?1 AND %s <= ?2 ORDER BY %s LIMIT ?3",
		 t->rowid, t->name, t->rowid, t->rowid, t->rowid);
	c->st = NULL;
	c->rf = rf;
	c->last = after;
	c->upto = upto;
	rf->out_of_order = false;
	if (sqlite3_prepare_v2(rf->db, sql, -1, &c->st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(c->st, 1, after);
	sqlite3_bind_int64(c->st, 2, upto);
	sqlite3_bind_int64(c->st, 3, limit);
	c->ncols = sqlite3_column_count(c->st);
	return 0;
}

int rf_cursor_step(struct rf_cursor *c, int64_t *rowid)
{
	int rc = sqlite3_step(c->st);

	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW)
		return -1;
	*rowid = sqlite3_column_int64(c->st, 0);
	/* SQLite trusts the b-tree's order: a damaged one could make the
	 * watermark go back, and shipping never end */
	if (*rowid <= c->last || *rowid > c->upto) {
		c->rf->out_of_order = true;
		return -1;
	}
	c->last = *rowid;
	return 1;
}

void rf_cursor_value(struct rf_cursor *c, int col, struct ship_value *v)
{
	memset(v, 0, sizeof(*v));
	switch (sqlite3_column_type(c->st, col)) {
	case SQLITE_INTEGER:
		v->type = SHIP_INT;
		v->i = sqlite3_column_int64(c->st, col);
		break;
	case SQLITE_FLOAT:
		v->type = SHIP_REAL;
		v->r = sqlite3_column_double(c->st, col);
		break;
	case SQLITE_TEXT:
		v->type = SHIP_TEXT;
		v->p = (const char *)sqlite3_column_text(c->st, col);
		v->n = sqlite3_column_bytes(c->st, col);
		break;
	case SQLITE_BLOB:
		v->type = SHIP_BLOB;
		v->p = sqlite3_column_blob(c->st, col);
		v->n = sqlite3_column_bytes(c->st, col);
		break;
	default:
		v->type = SHIP_NULL;
	}
}

const char *rf_cursor_name(struct rf_cursor *c, int col)
{
	return sqlite3_column_name(c->st, col);
}

void rf_cursor_close(struct rf_cursor *c)
{
	sqlite3_finalize(c->st);
	c->st = NULL;
}

/*
 * Every SQLite connection to a WAL database holds a read lock on byte
 * 128 of its -shm file while it is open (the daemon's retention uses the
 * same test).  Call it with no connection of our own to the file open:
 * closing any descriptor of a file drops this process's POSIX locks on it.
 */
bool rf_in_use(const char *path)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
			    .l_start = 128, .l_len = 1 };
	char shm[PATH_MAX + 8];
	bool busy;
	int fd;

	snprintf(shm, sizeof(shm), "%s-shm", path);
	fd = open(shm, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return errno != ENOENT;
	busy = fcntl(fd, F_GETLK, &fl) || fl.l_type != F_UNLCK;
	close(fd);
	return busy;
}
