/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bpftune-ship: stream the rows of bpftune's SQLite run files into Redis
 * Streams, at least once, from a watermark kept per run file and table.
 *
 *   url.c        redis://[user:password@]host:port[/db] (pure)
 *   encode.c     one SQLite value <-> one stream field value (pure)
 *   watermark.c  the watermark file format (pure) and its load/save
 *   runfile.c    a run file, read-only: meta, schema, rows after a rowid
 *   conn.c       the Redis connection: AUTH, SELECT, backoff, MOVED
 *   ship.c       one run file: batches of XADD, then the bookkeeping
 *   main.c       command line, the directory pass, signals
 *
 * Redis layout (docs/fleet.md): every key of host H carries the hash tag
 * {H}, so a Redis Cluster keeps a host on one shard.
 *   bpftune:{H}:rows:TABLE   stream, one entry per row
 *   bpftune:{H}:run:RUN      hash: file, label, kernel, schema id, and
 *                            per table wm.T (acked rowid), first.T/last.T
 *                            (stream ids of the run's entries), max.T
 *   bpftune:{H}:schema:ID    hash: the file's schema objects, by digest
 *   bpftune:{H}:runs         sorted set of runs, by start time
 *   bpftune:{H}:host         hash: kernel, heartbeat, lag, refused files
 */
#ifndef BPFTUNE_SHIP_H
#define BPFTUNE_SHIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SHIP_VERSION		"0.1.0"
#define SHIP_DEFAULT_DIR	"/var/lib/bpftune/telemetry"
#define SHIP_DEFAULT_STATE	"/var/lib/bpftune-ship"
#define SHIP_ENV_URL		"BPFTUNE_REDIS"

/* ids used in keys: host_id, run_id, table names */
#define SHIP_ID_MAX		64
#define SHIP_ID_CHARS \
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-"
#define SHIP_MAX_TABLES		256
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

bool ship_id_valid(const char *s);

/* ---- url.c ------------------------------------------------------------- */
struct ship_url {
	char host[256];		/* name or address; IPv6 without brackets */
	int port;
	char path[108];		/* unix:// socket path, else empty */
	char user[128];		/* empty: no user (AUTH password only) */
	char password[256];	/* empty: no AUTH */
	int db;			/* SELECT db when > 0 */
};

/* 0, or -1 with a reason in @err */
int ship_url_parse(const char *s, struct ship_url *u, char *err, size_t errlen);
/* the URL without its password, for logs */
void ship_url_describe(const struct ship_url *u, char *buf, size_t len);

/* ---- encode.c ---------------------------------------------------------- */
enum ship_vtype { SHIP_NULL, SHIP_INT, SHIP_REAL, SHIP_TEXT, SHIP_BLOB };

struct ship_value {
	enum ship_vtype type;
	int64_t i;
	double r;
	const char *p;		/* TEXT/BLOB bytes (not NUL-terminated) */
	size_t n;
};

/* text equal to these is sent as "=r" / "=h" (saves ~70 bytes a row) */
struct ship_ctx_ids {
	const char *run_id;
	const char *host_id;
};

/* Room an encoding needs at most in @buf besides the TEXT/BLOB bytes. */
#define SHIP_ENC_SCRATCH	32

/*
 * Encode @v: sets *@out and *@outlen to the field value, which either points
 * into @scratch (SHIP_ENC_SCRATCH bytes) or, for TEXT and BLOB, is
 * written to @big (v->n + 1 bytes).  0, or -1 if @v is invalid.
 */
int ship_encode(const struct ship_value *v, const struct ship_ctx_ids *ids,
		char *scratch, char *big, const char **out, size_t *outlen);
/* The inverse, for tests and the fuzzer: 0, or -1 if not an encoding. */
int ship_decode(const char *p, size_t n, const struct ship_ctx_ids *ids,
		struct ship_value *v);

/* decimal of @v into @buf (at least 21 bytes, no NUL): its length */
size_t ship_i64toa(int64_t v, char *buf);

/* FNV-1a 64 over a row's encoded fields, chained from @h */
uint64_t ship_digest(uint64_t h, const void *p, size_t n);
#define SHIP_DIGEST_INIT	0xcbf29ce484222325ULL

/* ---- watermark.c ------------------------------------------------------- */
struct ship_wm_table {
	char name[SHIP_ID_MAX + 1];
	int64_t rowid;		/* last rowid Redis acknowledged */
	uint64_t digest;	/* of the encoded rows up to rowid */
};

struct ship_wm {
	char run_id[SHIP_ID_MAX + 1];
	char host_id[SHIP_ID_MAX + 1];
	/* rows were shipped while the file was being written */
	bool unverified;
	/* final: nothing left, unless the file changes (size, mtime) */
	bool done;
	uint64_t size, wal_size;
	int64_t mtime_ns;
	unsigned int num_tables;
	struct ship_wm_table tables[SHIP_MAX_TABLES];
};

void ship_wm_init(struct ship_wm *wm);
/* parse the file's text; 0, or -1 (then @wm is reset to nothing shipped) */
int ship_wm_parse(const char *buf, size_t len, struct ship_wm *wm);
/* bytes written (excluding NUL), or -1 if @len is too small */
int ship_wm_format(const struct ship_wm *wm, char *buf, size_t len);
/* the table's entry, added (rowid 0) if @create; NULL if full/absent */
struct ship_wm_table *ship_wm_table(struct ship_wm *wm, const char *name, bool create);
/* load @path (missing: nothing shipped); save atomically (rename) */
int ship_wm_load(const char *path, struct ship_wm *wm);
int ship_wm_save(const char *path, const struct ship_wm *wm);

#endif /* BPFTUNE_SHIP_H */
