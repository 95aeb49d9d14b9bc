// SPDX-License-Identifier: GPL-2.0-only
/*
 * One batch of one table: up to --batch rows (or --batch-bytes) after the
 * watermark, each an XADD, pipelined; then one EVAL that records the
 * batch in the run's hash (first/last stream ids, the acknowledged
 * rowid, counted once however often a batch is repeated).  Only when
 * both are acknowledged does the caller move the watermark.  Memory is
 * one batch, whatever the backlog.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "batch.h"

#define PUSH_BYTES	(64 * 1024)

/*
 * KEYS: run hash, host hash.  ARGV: table, first id, last id, rowid, max,
 * the rowid the batch follows.  If Redis holds less than that (it lost
 * acknowledged rows behind our back), nothing is recorded: the shipper
 * reads back what Redis has and ships the gap again.
 */
static const char RECORD_BATCH_LUA[] =
	"local t = ARGV[1]\n"
	"local old = tonumber(redis.call('HGET', KEYS[1], 'wm.' .. t) or '0')\n"
	"local new = tonumber(ARGV[4])\n"
	"if old < tonumber(ARGV[6]) then\n"
	"  return redis.error_reply('BPFTUNEGAP Redis holds rows up to ' .. old)\n"
	"end\n"
	"redis.call('HSETNX', KEYS[1], 'first.' .. t, ARGV[2])\n"
	"redis.call('HSET', KEYS[1], 'last.' .. t, ARGV[3], 'max.' .. t, ARGV[5])\n"
	"if new > old then\n"
	"  redis.call('HSET', KEYS[1], 'wm.' .. t, new)\n"
	"  redis.call('HINCRBY', KEYS[2], 'rows.' .. t, new - old)\n"
	"end\n"
	"return old\n";

void row_enc_free(struct row_enc *re)
{
	free(re->argv);
	free(re->argvlen);
	free(re->scratch);
	free(re->arena);
	free(re->resp);
	memset(re, 0, sizeof(*re));
}

static int row_enc_room(struct row_enc *re, int args, int cols, size_t arena)
{
	if (args > re->cap_args) {
		const char **a = realloc(re->argv, args * sizeof(*a));
		size_t *l;

		if (a)
			re->argv = a;
		l = realloc(re->argvlen, args * sizeof(*l));
		if (l)
			re->argvlen = l;
		if (!a || !l)
			return -ENOMEM;
		re->cap_args = args;
	}
	if (cols + 1 > re->cap_cols) {
		char *s = realloc(re->scratch, (size_t)(cols + 1) * SHIP_ENC_SCRATCH);

		if (!s)
			return -ENOMEM;
		re->scratch = s;
		re->cap_cols = cols + 1;
	}
	if (arena > re->cap_arena) {
		char *p = realloc(re->arena, arena);

		if (!p)
			return -ENOMEM;
		re->arena = p;
		re->cap_arena = arena;
	}
	return 0;
}

int row_encode(struct row_enc *re, struct rf_cursor *c, const struct ship_ctx_ids *ids,
	       int64_t rowid, int at, uint64_t *h, size_t *bytes)
{
	int i, cols = c->ncols - 1, k = at;
	size_t need = 1, off = 0;
	struct ship_value v;

	for (i = 1; i <= cols; i++) {
		rf_cursor_value(c, i, &v);
		if (v.type == SHIP_TEXT || v.type == SHIP_BLOB)
			need += v.n + 1;
	}
	if (row_enc_room(re, at + 4 + 2 * cols, cols, need))
		return -ENOMEM;
	re->argv[k] = "_r";
	re->argvlen[k++] = 2;
	re->argv[k] = ids->run_id;
	re->argvlen[k++] = strlen(ids->run_id);
	re->argv[k] = "_i";
	re->argvlen[k++] = 2;
	re->argv[k] = re->scratch;
	re->argvlen[k] = ship_i64toa(rowid, re->scratch);
	*h = ship_digest(*h, re->argv[k], re->argvlen[k]);
	*bytes += re->argvlen[k++] + 40;
	for (i = 1; i <= cols; i++) {
		char *scratch = re->scratch + (size_t)i * SHIP_ENC_SCRATCH;

		rf_cursor_value(c, i, &v);
		re->argv[k] = rf_cursor_name(c, i);
		re->argvlen[k] = strlen(re->argv[k]);
		*bytes += re->argvlen[k++];
		if (ship_encode(&v, ids, scratch, re->arena + off, &re->argv[k], &re->argvlen[k]))
			return -EINVAL;
		if (re->argv[k] == re->arena + off)
			off += re->argvlen[k];
		*h = ship_digest(*h, re->argv[k], re->argvlen[k]);
		*bytes += re->argvlen[k++];
	}
	return k;
}

/* XADD KEY [MAXLEN ~ N | MINID ~ ID] *: the arguments before the fields */
static int xadd_head(struct row_enc *re, const struct ship_opts *o, const char *key,
		     char *trim, size_t trimlen)
{
	int i, k = 0;

	if (row_enc_room(re, 8, 0, 0))
		return -ENOMEM;
	re->argv[k++] = "XADD";
	re->argv[k++] = key;
	if (o->maxlen > 0) {
		snprintf(trim, trimlen, "%lld", o->maxlen);
		re->argv[k++] = "MAXLEN";
		re->argv[k++] = "~";
		re->argv[k++] = trim;
	} else if (o->max_age_s > 0) {
		struct timespec now;
		long long ms;

		/* Redis's clock decides the entry ids; ours is close enough to trim */
		clock_gettime(CLOCK_REALTIME, &now);
		ms = now.tv_sec * 1000LL + now.tv_nsec / 1000000 - o->max_age_s * 1000;
		snprintf(trim, trimlen, "%lld-0", ms > 0 ? ms : 0);
		re->argv[k++] = "MINID";
		re->argv[k++] = "~";
		re->argv[k++] = trim;
	}
	re->argv[k++] = "*";
	for (i = 0; i < k; i++)
		re->argvlen[i] = strlen(re->argv[i]);
	return k;
}

/* RESP of one command, formatted here: hiredis's sprintf per argument
 * cost as much as the rest of the shipper */
static int append_command(struct conn *cn, struct row_enc *re, int n)
{
	size_t need = 32, pos = 0;
	int i;

	for (i = 0; i < n; i++)
		need += re->argvlen[i] + 32;
	if (need > re->cap_resp) {
		char *p = realloc(re->resp, need);

		if (!p)
			return -ENOMEM;
		re->resp = p;
		re->cap_resp = need;
	}
	re->resp[pos++] = '*';
	pos += ship_i64toa(n, re->resp + pos);
	re->resp[pos++] = '\r';
	re->resp[pos++] = '\n';
	for (i = 0; i < n; i++) {
		re->resp[pos++] = '$';
		pos += ship_i64toa((int64_t)re->argvlen[i], re->resp + pos);
		re->resp[pos++] = '\r';
		re->resp[pos++] = '\n';
		memcpy(re->resp + pos, re->argv[i], re->argvlen[i]);
		pos += re->argvlen[i];
		re->resp[pos++] = '\r';
		re->resp[pos++] = '\n';
	}
	if (redisAppendFormattedCommand(cn->c, re->resp, pos) != REDIS_OK)
		return -ENOMEM;
	re->unsent += pos;
	return 0;
}

/*
 * Hand what is appended to the socket now and then, so that Redis works
 * on the first rows while the next are encoded (its replies wait in
 * our socket buffer: about 20 bytes a row).
 */
static void push(struct conn *cn, struct row_enc *re)
{
	int done = 0;

	if (re->unsent < PUSH_BYTES)
		return;
	while (!done)
		if (redisBufferWrite(cn->c, &done) != REDIS_OK)
			return;		/* the reply reads will report it */
	re->unsent = 0;
}

/*
 * Append the XADDs: the number of rows.  If the file fails before the
 * batch is full, *@ferr is set: the rows read before it are shipped, and
 * the next batch starts at the failure.
 */
static int append_rows(struct conn *cn, const struct ship_opts *o, struct runfile *rf,
		       const struct rf_table *t, const char *key, struct batch *b,
		       struct row_enc *re, bool *ferr)
{
	struct ship_ctx_ids ids = { rf->run_id, rf->host_id };
	char trim[32];
	struct rf_cursor c;
	size_t bytes = 0;
	int64_t rowid;
	int head, n, rc, rows = 0;

	*ferr = false;
	if (rf_cursor_open(rf, t, b->from, t->max_rowid, o->batch_rows, &c)) {
		*ferr = true;
		return 0;
	}
	while ((rc = rf_cursor_step(&c, &rowid)) == 1) {
		/* the head's arguments live in re->argv: rebuilt per row */
		head = xadd_head(re, o, key, trim, sizeof(trim));
		if (head < 0) {
			rc = head;
			break;
		}
		n = row_encode(re, &c, &ids, rowid, head, &b->digest, &bytes);
		if (n < 0) {
			rc = n;
			break;
		}
		rc = append_command(cn, re, n);
		if (rc)
			break;
		push(cn, re);
		rc = 1;
		b->last_rowid = rowid;
		rows++;
		if (bytes >= o->batch_bytes)
			break;
	}
	rf_cursor_close(&c);
	*ferr = rc < 0;
	return rows;
}

/* the stream ids of the batch's first and last entries */
static void note_id(const redisReply *r, int i, void *arg)
{
	struct batch *b = arg;

	if (r->type != REDIS_REPLY_STRING)
		return;
	if (i == 0)
		snprintf(b->first_id, BATCH_ID_MAX, "%s", r->str);
	snprintf(b->last_id, BATCH_ID_MAX, "%s", r->str);
}

static int record_batch(struct conn *cn, const char *run_key, const char *host_key,
			const struct rf_table *t, const struct batch *b)
{
	char rowid[24], max[24], from[24];
	const char *argv[] = { "EVAL", RECORD_BATCH_LUA, "2", run_key, host_key,
			       t->name, b->first_id, b->last_id, rowid, max, from };
	redisReply *r;
	int rc;

	snprintf(rowid, sizeof(rowid), "%" PRId64, b->last_rowid);
	snprintf(max, sizeof(max), "%" PRId64, t->max_rowid);
	snprintf(from, sizeof(from), "%" PRId64, b->from);
	r = redisCommandArgv(cn->c, ARRAY_SIZE(argv), argv, NULL);
	rc = conn_reply_error(cn, r, "recording a batch (EVAL)");
	if (rc && r && r->type == REDIS_REPLY_ERROR && strstr(r->str, "BPFTUNEGAP"))
		rc = BATCH_GAP;
	if (r)
		freeReplyObject(r);
	return rc;
}

int batch_ship(struct conn *cn, const struct ship_opts *o, struct runfile *rf,
	       const struct rf_table *t, struct batch *b, struct row_enc *re)
{
	char key[SHIP_KEY_MAX], run_key[SHIP_KEY_MAX], host_key[SHIP_KEY_MAX];
	bool ferr;
	int rows;

	ship_key(key, sizeof(key), rf->host_id, "rows:", t->name);
	ship_key(run_key, sizeof(run_key), rf->host_id, "run:", rf->run_id);
	ship_key(host_key, sizeof(host_key), rf->host_id, "host", "");
	b->rows = 0;
	b->last_rowid = b->from;
	b->first_id[0] = b->last_id[0] = '\0';
	rows = append_rows(cn, o, rf, t, key, b, re, &ferr);
	if (!rows)
		return ferr ? BATCH_FILE_ERROR : BATCH_EMPTY;
	if (conn_replies(cn, rows, "XADD", note_id, b) || !b->first_id[0] || !b->last_id[0])
		return BATCH_REDIS_ERROR;
	switch (record_batch(cn, run_key, host_key, t, b)) {
	case 0:
		break;
	case BATCH_GAP:
		return BATCH_GAP;
	default:
		return BATCH_REDIS_ERROR;
	}
	b->rows = rows;
	return BATCH_SHIPPED;
}

int batch_digest(struct runfile *rf, const struct rf_table *t, int64_t upto,
		 uint64_t *digest, struct row_enc *re)
{
	struct ship_ctx_ids ids = { rf->run_id, rf->host_id };
	struct rf_cursor c;
	uint64_t h = SHIP_DIGEST_INIT;
	size_t bytes = 0;
	int64_t rowid;
	int rc;

	if (rf_cursor_open(rf, t, 0, upto, INT64_MAX, &c))
		return -EIO;
	while ((rc = rf_cursor_step(&c, &rowid)) == 1) {
		rc = row_encode(re, &c, &ids, rowid, 0, &h, &bytes);
		if (rc < 0)
			break;
	}
	rf_cursor_close(&c);
	if (rc < 0)
		return rc == -1 ? -EIO : rc;
	*digest = h;
	return 0;
}
