// SPDX-License-Identifier: GPL-2.0-only
/*
 * The records beside the streams, all under the host's hash tag: the
 * run's hash (what rebuilds its file: name, pragmas, schema id, and per
 * table the acknowledged rowid and the stream ids of its entries), the
 * schema objects by digest (shared by the runs of one daemon version),
 * the host's runs by start time and the host's status.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "batch.h"

void ship_key(char *buf, size_t len, const char *host, const char *kind, const char *name)
{
	snprintf(buf, len, "bpftune:{%s}:%s%s", host, kind, name);
}

/* a command's arguments; formatted ones are owned and freed */
struct args {
	const char **v;
	char **own;
	int n, cap;
	bool oom;
};

static void add(struct args *a, const char *s, bool owned)
{
	if (a->n == a->cap) {
		int cap = a->cap ? a->cap * 2 : 64;
		const char **v = realloc(a->v, cap * sizeof(*v));
		char **own;

		if (v)
			a->v = v;
		own = realloc(a->own, cap * sizeof(*own));
		if (own)
			a->own = own;
		if (!v || !own) {
			a->oom = true;
			if (owned)
				free((char *)s);
			return;
		}
		a->cap = cap;
	}
	a->v[a->n] = s;
	a->own[a->n++] = owned ? (char *)s : NULL;
}

static void addf(struct args *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void addf(struct args *a, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0) {
		a->oom = true;
		s = NULL;
	}
	va_end(ap);
	if (s)
		add(a, s, true);
}

static void args_free(struct args *a)
{
	int i;

	for (i = 0; i < a->n; i++)
		free(a->own[i]);
	free(a->v);
	free(a->own);
	memset(a, 0, sizeof(*a));
}

/* append @a as one command; false if it could not be built */
static bool append(struct conn *cn, struct args *a)
{
	bool ok = !a->oom && redisAppendCommandArgv(cn->c, a->n, a->v, NULL) == REDIS_OK;

	args_free(a);
	return ok;
}

static void run_fields(struct args *a, struct runfile *rf, const char *file)
{
	unsigned int i;

	add(a, "run", false);
	add(a, rf->run_id, false);
	add(a, "host", false);
	add(a, rf->host_id, false);
	add(a, "file", false);
	add(a, file, false);
	add(a, "label", false);
	add(a, rf->label, false);
	add(a, "kernel", false);
	add(a, rf->kernel, false);
	add(a, "start_wall_us", false);
	addf(a, "%" PRId64, rf->start_wall_us);
	add(a, "user_version", false);
	addf(a, "%d", rf->user_version);
	add(a, "application_id", false);
	addf(a, "%d", rf->application_id);
	add(a, "journal_mode", false);
	add(a, rf->journal_mode, false);
	add(a, "schema", false);
	addf(a, "%016" PRIx64, rf->schema_digest);
	for (i = 0; i < rf->num_tables; i++) {
		const struct rf_table *t = &rf->tables[i];

		if (t->refused && t->name[0]) {
			addf(a, "refused.%s", t->name);
			add(a, t->refused, false);
		}
	}
}

int record_run(struct conn *cn, struct runfile *rf, const char *file)
{
	char key[SHIP_KEY_MAX];
	struct args a = { 0 };
	unsigned int i;
	bool ok;

	if (conn_ensure(cn))
		return -1;
	ship_key(key, sizeof(key), rf->host_id, "run:", rf->run_id);
	add(&a, "HSET", false);
	add(&a, key, false);
	run_fields(&a, rf, file);
	ok = append(cn, &a);

	ship_key(key, sizeof(key), rf->host_id, "schema:", "");
	add(&a, "HSET", false);
	addf(&a, "%s%016" PRIx64, key, rf->schema_digest);
	add(&a, "objects", false);
	addf(&a, "%u", rf->num_objects);
	for (i = 0; i < rf->num_objects; i++) {
		addf(&a, "obj.%u.type", i);
		add(&a, rf->objects[i].type, false);
		addf(&a, "obj.%u.name", i);
		add(&a, rf->objects[i].name, false);
		addf(&a, "obj.%u.tbl_name", i);
		add(&a, rf->objects[i].tbl_name, false);
		addf(&a, "obj.%u.sql", i);
		add(&a, rf->objects[i].sql, false);
	}
	ok = append(cn, &a) && ok;

	ship_key(key, sizeof(key), rf->host_id, "runs", "");
	add(&a, "ZADD", false);
	add(&a, key, false);
	addf(&a, "%" PRId64, rf->start_wall_us / 1000);
	add(&a, rf->run_id, false);
	ok = append(cn, &a) && ok;
	if (!ok) {
		conn_drop(cn, "out of memory building the run's record");
		return -1;
	}
	return conn_replies(cn, 3, "recording the run", NULL, NULL);
}

int record_done(struct conn *cn, struct runfile *rf)
{
	char key[SHIP_KEY_MAX];
	const char *argv[] = { "HSET", key, "done", "1" };
	redisReply *r;
	int rc;

	ship_key(key, sizeof(key), rf->host_id, "run:", rf->run_id);
	r = redisCommandArgv(cn->c, ARRAY_SIZE(argv), argv, NULL);
	rc = conn_reply_error(cn, r, "marking the run done");
	if (r)
		freeReplyObject(r);
	return rc;
}

int record_acked(struct conn *cn, struct runfile *rf, const struct ship_wm *wm,
		 int64_t *acked)
{
	char key[SHIP_KEY_MAX];
	struct args a = { 0 };
	redisReply *r = NULL;
	unsigned int i;
	int rc = -1;

	ship_key(key, sizeof(key), rf->host_id, "run:", rf->run_id);
	add(&a, "HMGET", false);
	add(&a, key, false);
	add(&a, "run", false);
	for (i = 0; i < wm->num_tables; i++)
		addf(&a, "wm.%s", wm->tables[i].name);
	if (!append(cn, &a) || redisGetReply(cn->c, (void **)&r) != REDIS_OK)
		r = NULL;
	if (conn_reply_error(cn, r, "reading the run's record"))
		goto out;
	if (r->type != REDIS_REPLY_ARRAY || r->elements != wm->num_tables + 1)
		goto out;
	for (i = 0; i < wm->num_tables; i++) {
		const redisReply *e = r->element[i + 1];

		/* no run hash at all: Redis holds nothing of this run */
		acked[i] = r->element[0]->type == REDIS_REPLY_STRING &&
			   e->type == REDIS_REPLY_STRING ? strtoll(e->str, NULL, 10) : 0;
	}
	rc = 0;
out:
	if (r)
		freeReplyObject(r);
	return rc;
}

int ship_host_status(struct conn *cn, const char *host_id, const char *kernel,
		     unsigned int files, int64_t pending, const char *refused)
{
	char key[SHIP_KEY_MAX];
	struct args a = { 0 };
	struct timespec now;

	if (conn_ensure(cn))
		return -1;
	clock_gettime(CLOCK_REALTIME, &now);
	ship_key(key, sizeof(key), host_id, "host", "");
	add(&a, "HSET", false);
	add(&a, key, false);
	add(&a, "host", false);
	add(&a, host_id, false);
	add(&a, "shipper", false);
	add(&a, "bpftune-ship " SHIP_VERSION, false);
	add(&a, "seen_ms", false);
	addf(&a, "%lld", now.tv_sec * 1000LL + now.tv_nsec / 1000000);
	add(&a, "files", false);
	addf(&a, "%u", files);
	add(&a, "pending", false);
	addf(&a, "%" PRId64, pending);
	add(&a, "refused", false);
	add(&a, refused, false);
	if (kernel && kernel[0]) {
		add(&a, "kernel", false);
		add(&a, kernel, false);
	}
	if (!append(cn, &a)) {
		conn_drop(cn, "out of memory building the host's record");
		return -1;
	}
	return conn_replies(cn, 1, "recording the host's status", NULL, NULL);
}
