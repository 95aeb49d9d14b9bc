/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The control socket: request parsing and reply buffers (control_proto.c,
 * pure and unit-tested), the server in the main loop (control.c) and the
 * queries it answers (control_query.c).
 *
 * Protocol: one request per connection, a single line of printable ASCII
 * of at most BPFTUNE_CTL_MAX_REQUEST bytes ("status", "status --json",
 * "jstatus").  The daemon writes one reply and closes the connection.
 * A refused request gets one line starting with "error: ".
 */
#ifndef BPFTUNE_CONTROL_H
#define BPFTUNE_CONTROL_H

#include "base/daemon_api.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BPFTUNE_CTL_DEFAULT_PATH	"/run/bpftune/bpftune.sock"
#define BPFTUNE_CTL_MAX_REQUEST		256		/* bytes, newline included */
#define BPFTUNE_CTL_MAX_REPLY		(4 << 20)	/* bytes */
#define BPFTUNE_CTL_MAX_CLIENTS		32
#define BPFTUNE_CTL_REQUEST_MS		2000	/* to send a whole request */
#define BPFTUNE_CTL_TIMEOUT_MS		5000	/* to take more of a reply */
/*
 * With every slot taken, a new client takes the place of the one that has
 * waited longest without sending a whole request, if that one has had at
 * least this long: idle clients cannot lock the operator out.
 */
#define BPFTUNE_CTL_GRACE_MS		100
#define BPFTUNE_CTL_ERROR_PREFIX	"error: "

enum bpftune_query {
	BPFTUNE_Q_HELP,
	BPFTUNE_Q_TUNERS,
	BPFTUNE_Q_TUNABLES,
	BPFTUNE_Q_STATUS,
	BPFTUNE_Q_SUMMARY,
	BPFTUNE_Q_ROLLBACK,
	BPFTUNE_Q_METRICS,
	BPFTUNE_Q_CONFIG,
	BPFTUNE_Q_MAX,
};

struct bpftune_request {
	enum bpftune_query query;
	bool json;
};

const char *bpftune_query_name(enum bpftune_query q);
const char *bpftune_query_help(enum bpftune_query q);
bool bpftune_query_has_json(enum bpftune_query q);

/*
 * Parse one request of @len bytes (a trailing "\n" or "\r\n" is allowed).
 * Returns 0, or -errno with a one-line reason in @err: -ENODATA empty,
 * -E2BIG too long, -EINVAL not text or bad form, -ENOENT unknown query.
 */
int bpftune_request_parse(const char *buf, size_t len,
			  struct bpftune_request *req, char *err,
			  size_t err_len);

/* A growable reply buffer with a hard size limit. */
struct bpftune_buf {
	char *data;
	size_t len;
	size_t cap;
	size_t max;
	bool overflow;		/* something did not fit: reply is unusable */
};

void bpftune_buf_init(struct bpftune_buf *b, size_t max);
void bpftune_buf_free(struct bpftune_buf *b);
void bpftune_buf_reset(struct bpftune_buf *b);
int bpftune_buf_add(struct bpftune_buf *b, const char *s, size_t n);
int bpftune_buf_printf(struct bpftune_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* @s as a JSON string, quoted and escaped (NULL is null) */
int bpftune_buf_json_str(struct bpftune_buf *b, const char *s);
/* @n values as a JSON array: [1,2,3] */
void bpftune_buf_json_values(struct bpftune_buf *b, const long *v, unsigned int n);
/* @n values as text into @buf, separated by @sep: "1 2 3" */
void bpftune_values_text(const long *v, unsigned int n, const char *sep,
			 char *buf, size_t len);

/* ---- server (control.c) ---- */
struct bpftune_daemon_info {
	bool legacy;
	bool rollback;
	const char *journal;	/* NULL if none */
	const char *metrics_dir;	/* NULL if none */
	/*
	 * Delivers the events the kernel has queued; called before every
	 * answer, so that an answer covers every event reported before the
	 * query (tests use a query as a barrier).  May be NULL.
	 */
	void (*drain)(void);
};

BPFTUNE_DAEMON int bpftune_control_init(const char *path, const struct bpftune_daemon_info *info);
BPFTUNE_DAEMON void bpftune_control_fini(void);

/* ---- queries (control_query.c) ---- */
/* Answer @req into @out; returns 0 or -errno with an error line in @out. */
int bpftune_query_answer(const struct bpftune_request *req,
			 const struct bpftune_daemon_info *info,
			 struct bpftune_buf *out);

/* ---- client (control.c): bpftune -q ---- */
BPFTUNE_DAEMON int bpftune_control_client(const char *path, const char *query, bool json);

#endif /* BPFTUNE_CONTROL_H */
