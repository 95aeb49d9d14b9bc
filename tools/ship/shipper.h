/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The I/O side of bpftune-ship: run files (SQLite, read-only), the Redis
 * connection and shipping one file.  ship.h holds the pure parts.
 */
#ifndef BPFTUNE_SHIPPER_H
#define BPFTUNE_SHIPPER_H

#include <limits.h>
#include <sqlite3.h>
#include <hiredis/hiredis.h>

#include "ship.h"

/* ---- log (main.c) ------------------------------------------------------ */
extern int ship_verbose;
void ship_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ship_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- runfile.c --------------------------------------------------------- */
struct rf_object {		/* one sqlite_master row, in rowid order */
	char *type, *name, *tbl_name, *sql;
};

struct rf_table {
	char name[SHIP_ID_MAX + 1];
	const char *rowid;	/* "rowid", "oid" or "_rowid_": not a column */
	int64_t max_rowid;
	const char *refused;	/* why it is not shipped, or NULL */
	bool damaged;		/* refused: the file could not be read */
	char why[200];		/* the text of a damaged table's refusal */
};

struct runfile {
	sqlite3 *db;
	const char *path;
	char run_id[SHIP_ID_MAX + 1];
	char host_id[SHIP_ID_MAX + 1];
	/* from the runs table when it has them; empty otherwise */
	char label[256], kernel[128];
	int64_t start_wall_us;
	int user_version, application_id;
	char journal_mode[16];
	unsigned int num_objects;
	struct rf_object *objects;
	uint64_t schema_digest;
	unsigned int num_tables;
	struct rf_table tables[SHIP_MAX_TABLES];
	bool out_of_order;	/* the last cursor's error: rowids not ascending */
};

/* Open read-only and read what identifies it: 0, or -1 with @err. */
int rf_open(struct runfile *rf, const char *path, bool in_use, char *err, size_t errlen);
/* Tables and schema again (a plugin may add a table mid-run); 0 or -1. */
int rf_refresh(struct runfile *rf, char *err, size_t errlen);
void rf_close(struct runfile *rf);
/* did the last read fail for a reason another try will not change? */
bool rf_damage(struct runfile *rf);
/* refuse @t: reading it failed (@what, and SQLite's message) */
void rf_table_damaged(struct runfile *rf, struct rf_table *t, const char *what);

struct rf_cursor {
	sqlite3_stmt *st;
	int ncols;		/* result columns: rowid then the table's */
	struct runfile *rf;
	int64_t last, upto;	/* rows must come in (last, upto], ascending */
};

/* rows of @t with rowid in (@after, @upto], in rowid order, at most @limit */
int rf_cursor_open(struct runfile *rf, const struct rf_table *t, int64_t after,
		   int64_t upto, int64_t limit, struct rf_cursor *c);
/* 1: a row (its rowid in *@rowid), 0: no more, -1: error (also a rowid
 * out of order or range: only a damaged b-tree gives one) */
int rf_cursor_step(struct rf_cursor *c, int64_t *rowid);
void rf_cursor_value(struct rf_cursor *c, int col, struct ship_value *v);
const char *rf_cursor_name(struct rf_cursor *c, int col);
void rf_cursor_close(struct rf_cursor *c);
const char *rf_errmsg(struct runfile *rf);

/* Is the file open in another process (SQLite's lock on its -shm)? */
bool rf_in_use(const char *path);

/* ---- conn.c ------------------------------------------------------------ */
struct conn {
	struct ship_url url;
	redisContext *c;
	unsigned long epoch;	/* bumped at each (re)connection */
	/* a Redis Cluster redirect: where the host's slot lives */
	char moved_host[256];
	int moved_port;
	unsigned int backoff_ms;
	int timeout_ms;
	bool auth_failed;	/* the last attempt was refused: AUTH/ACL */
};

/* Connect (or reuse); 0, or -1 after logging why. */
int conn_ensure(struct conn *cn);
void conn_drop(struct conn *cn, const char *why);
/* sleep the next backoff step (doubling, to 30 s); false if interrupted */
bool conn_backoff(struct conn *cn);
void conn_backoff_reset(struct conn *cn);
/*
 * Check a reply: 0 if not an error.  -1 for an error reply, after
 * noting a MOVED redirect (the connection is then dropped).
 */
int conn_reply_error(struct conn *cn, const redisReply *r, const char *what);
/* read @n pipelined replies, @each called for the good ones; 0 if all were */
int conn_replies(struct conn *cn, int n, const char *what,
		 void (*each)(const redisReply *r, int i, void *arg), void *arg);

/* ---- ship.c ------------------------------------------------------------ */
struct ship_opts {
	const char *dir, *state;
	unsigned int batch_rows;
	size_t batch_bytes;
	long long maxlen;	/* XADD MAXLEN ~ N; 0: none */
	long long max_age_s;	/* XADD MINID ~ now - age; 0: none */
	bool once;
};

enum ship_result {
	SHIP_OK,		/* shipped what there was */
	SHIP_REFUSED,		/* not a run file, corrupt: skip it */
	SHIP_RETRY,		/* Redis failed: try again later */
	SHIP_STOPPED,		/* asked to stop */
};

/* What main.c keeps per run file between passes (in memory only). */
struct ship_file_cache {
	char name[256];
	unsigned long verified_epoch;	/* Redis checked on this connection */
	uint64_t registered;		/* digest of the run's record sent */
	bool seen;			/* present in this pass */
	/* refused: not shipped again until the file changes */
	char refused[256];
	uint64_t refused_size;
	int64_t refused_mtime_ns;
	/* last pass's result */
	bool in_use;
	int64_t pending;	/* rows in the file not yet acknowledged */
	char kernel[128];
	char host_id[SHIP_ID_MAX + 1];
};

extern volatile int ship_stop;

/* Ship one run file; @err gets the reason for SHIP_REFUSED. */
enum ship_result ship_file(struct conn *cn, const struct ship_opts *o, const char *path,
			   struct ship_file_cache *fc, char *err, size_t errlen);
/* After a pass: the host's record (heartbeat, lag, refused files). */
int ship_host_status(struct conn *cn, const char *host_id, const char *kernel,
		     unsigned int files, int64_t pending, const char *refused);

/* bytes of text needed for the key of host @h and @suffix */
#define SHIP_KEY_MAX	(32 + 2 * (SHIP_ID_MAX + 1))

#endif /* BPFTUNE_SHIPPER_H */
