// SPDX-License-Identifier: GPL-2.0-only
/*
 * The Redis connection: connect with a timeout, AUTH (user and password
 * for an ACL user, or the password alone), SELECT, and exponential
 * backoff between attempts.  A Redis Cluster answers MOVED for a key
 * another shard owns: every key of a host shares the host's hash tag,
 * so one redirect finds the shard and the shipper stays there.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "shipper.h"

#define BACKOFF_MIN_MS	100
#define BACKOFF_MAX_MS	30000
#define QUIET_MS	60000	/* repeat the same failure at most this often */

static char last_failure[1024];
static struct timespec last_failure_at;

static long long ms_since(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t->tv_sec) * 1000LL + (now.tv_nsec - t->tv_nsec) / 1000000;
}

/* log a failure, but the same one again only once a minute */
static void failure(const char *msg)
{
	if (!strcmp(msg, last_failure) && ms_since(&last_failure_at) < QUIET_MS)
		return;
	snprintf(last_failure, sizeof(last_failure), "%s", msg);
	clock_gettime(CLOCK_MONOTONIC, &last_failure_at);
	ship_log("%s", msg);
}

void conn_drop(struct conn *cn, const char *why)
{
	if (!cn->c)
		return;
	if (why)
		ship_debug("redis: dropping the connection: %s", why);
	redisFree(cn->c);
	cn->c = NULL;
}

static redisContext *dial(struct conn *cn)
{
	struct timeval tv = { cn->timeout_ms / 1000, (cn->timeout_ms % 1000) * 1000 };

	if (cn->moved_host[0])
		return redisConnectWithTimeout(cn->moved_host, cn->moved_port, tv);
	if (cn->url.path[0])
		return redisConnectUnixWithTimeout(cn->url.path, tv);
	return redisConnectWithTimeout(cn->url.host, cn->url.port, tv);
}

/* run one command; 0 if it did not fail */
static int command(struct conn *cn, int argc, const char **argv, char *err, size_t errlen)
{
	redisReply *r = redisCommandArgv(cn->c, argc, argv, NULL);
	int rc = 0;

	if (!r) {
		snprintf(err, errlen, "%s", cn->c->errstr);
		return -1;
	}
	if (r->type == REDIS_REPLY_ERROR) {
		snprintf(err, errlen, "%s", r->str);
		rc = -1;
	}
	freeReplyObject(r);
	return rc;
}

static int handshake(struct conn *cn, const char *where)
{
	char err[256], msg[1024], db[16];
	const char *argv[3];

	if (cn->url.password[0]) {
		int argc = 0;

		argv[argc++] = "AUTH";
		if (cn->url.user[0])
			argv[argc++] = cn->url.user;
		argv[argc++] = cn->url.password;
		if (command(cn, argc, argv, err, sizeof(err))) {
			snprintf(msg, sizeof(msg), "redis %s: authentication as %s failed: %s",
				 where, cn->url.user[0] ? cn->url.user : "default", err);
			cn->auth_failed = true;
			failure(msg);
			return -1;
		}
	}
	if (cn->url.db > 0 && !cn->moved_host[0]) {
		snprintf(db, sizeof(db), "%d", cn->url.db);
		argv[0] = "SELECT";
		argv[1] = db;
		if (command(cn, 2, argv, err, sizeof(err))) {
			snprintf(msg, sizeof(msg), "redis %s: SELECT %s failed: %s", where, db, err);
			failure(msg);
			return -1;
		}
	}
	argv[0] = "PING";
	if (command(cn, 1, argv, err, sizeof(err))) {
		/* e.g. NOAUTH: a password is needed and the URL has none */
		snprintf(msg, sizeof(msg), "redis %s: %s", where, err);
		cn->auth_failed = strstr(err, "NOAUTH") || strstr(err, "NOPERM");
		failure(msg);
		return -1;
	}
	return 0;
}

int conn_ensure(struct conn *cn)
{
	char where[400], msg[1024];

	if (cn->c && !cn->c->err)
		return 0;
	conn_drop(cn, NULL);
	if (cn->moved_host[0])
		snprintf(where, sizeof(where), "%s:%d (cluster redirect)", cn->moved_host,
			 cn->moved_port);
	else
		ship_url_describe(&cn->url, where, sizeof(where));
	cn->auth_failed = false;
	cn->c = dial(cn);
	if (!cn->c || cn->c->err) {
		snprintf(msg, sizeof(msg), "redis %s: cannot connect: %s", where,
			 cn->c ? cn->c->errstr : "out of memory");
		failure(msg);
		conn_drop(cn, NULL);
		return -1;
	}
	if (handshake(cn, where)) {
		conn_drop(cn, NULL);
		return -1;
	}
	cn->epoch++;
	last_failure[0] = '\0';
	ship_log("redis %s: connected", where);
	return 0;
}

bool conn_backoff(struct conn *cn)
{
	unsigned int ms = cn->backoff_ms ? cn->backoff_ms : BACKOFF_MIN_MS;
	struct timespec ts;

	/* +-25 % so that a fleet restarted together does not reconnect in step */
	ms = ms * 3 / 4 + (unsigned int)(random() % (ms / 2 + 1));
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000L;
	ship_debug("redis: next attempt in %u ms", ms);
	cn->backoff_ms = cn->backoff_ms ? cn->backoff_ms * 2 : BACKOFF_MIN_MS * 2;
	if (cn->backoff_ms > BACKOFF_MAX_MS)
		cn->backoff_ms = BACKOFF_MAX_MS;
	while (nanosleep(&ts, &ts) && errno == EINTR)
		if (ship_stop)
			return false;
	return !ship_stop;
}

void conn_backoff_reset(struct conn *cn)
{
	cn->backoff_ms = 0;
}

/* "MOVED 3999 127.0.0.1:6381" */
static void note_moved(struct conn *cn, const char *s)
{
	const char *addr = strchr(s + 6, ' ');
	const char *colon;
	size_t n;

	if (!addr)
		return;
	addr++;
	colon = strrchr(addr, ':');
	if (!colon)
		return;
	n = colon - addr;
	if (n && n < sizeof(cn->moved_host)) {
		memcpy(cn->moved_host, addr, n);
		cn->moved_host[n] = '\0';
		cn->moved_port = atoi(colon + 1);
		ship_log("redis: cluster: the host's slot is on %s:%d now", cn->moved_host,
			 cn->moved_port);
	}
}

int conn_reply_error(struct conn *cn, const redisReply *r, const char *what)
{
	char msg[600];

	if (!r) {
		snprintf(msg, sizeof(msg), "redis: %s: %s", what,
			 cn->c && cn->c->errstr[0] ? cn->c->errstr : "connection lost");
		failure(msg);
		conn_drop(cn, NULL);
		return -1;
	}
	if (r->type != REDIS_REPLY_ERROR)
		return 0;
	if (!strncmp(r->str, "MOVED ", 6)) {
		note_moved(cn, r->str);
		conn_drop(cn, "MOVED");
		return -1;
	}
	snprintf(msg, sizeof(msg), "redis: %s: %s", what, r->str);
	failure(msg);
	return -1;
}

int conn_replies(struct conn *cn, int n, const char *what,
		 void (*each)(const redisReply *r, int i, void *arg), void *arg)
{
	int i, rc = 0;

	for (i = 0; i < n; i++) {
		redisReply *r = NULL;

		if (redisGetReply(cn->c, (void **)&r) != REDIS_OK)
			r = NULL;
		if (conn_reply_error(cn, r, what))
			rc = -1;
		else if (each)
			each(r, i, arg);
		if (r)
			freeReplyObject(r);
		/* the connection is gone (lost, or dropped for MOVED): no more replies */
		if (!cn->c)
			return -1;
	}
	return rc;
}
