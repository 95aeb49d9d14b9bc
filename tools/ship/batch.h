/* SPDX-License-Identifier: GPL-2.0-only */
/* One batch of rows of one table, and the run's records in Redis. */
#ifndef BPFTUNE_SHIP_BATCH_H
#define BPFTUNE_SHIP_BATCH_H

#include "shipper.h"

#define BATCH_ID_MAX	48	/* a stream entry id, "<ms>-<n>" */

/* buffers for encoding rows, kept from one batch to the next */
struct row_enc {
	const char **argv;
	size_t *argvlen;
	int cap_args, cap_cols;
	char *scratch;		/* SHIP_ENC_SCRATCH bytes per column */
	char *arena;		/* tagged TEXT/BLOB values of one row */
	size_t cap_arena;
	char *resp;		/* one command, formatted */
	size_t cap_resp, unsent;
};

struct batch {
	int64_t from;		/* rows after this rowid */
	int64_t last_rowid;	/* the batch's last row */
	uint64_t digest;	/* in: up to from; out: up to last_rowid */
	int rows;
	char first_id[BATCH_ID_MAX], last_id[BATCH_ID_MAX];
};

enum {
	BATCH_SHIPPED,		/* acknowledged: move the watermark */
	BATCH_EMPTY,		/* nothing after the watermark */
	BATCH_REDIS_ERROR,	/* not (all) acknowledged: retry later */
	BATCH_FILE_ERROR,	/* the run file could not be read */
	BATCH_GAP,		/* Redis lost acknowledged rows: read it back */
};

int batch_ship(struct conn *cn, const struct ship_opts *o, struct runfile *rf,
	       const struct rf_table *t, struct batch *b, struct row_enc *re);
/* digest of the rows up to @upto, as shipping computes it; 0 or -errno */
int batch_digest(struct runfile *rf, const struct rf_table *t, int64_t upto,
		 uint64_t *digest, struct row_enc *re);
/*
 * Encode the cursor's row as stream fields from argv[@at]: _r, _i and a
 * (name, value) pair per column; chain the values into *@h and add the
 * bytes to *@bytes.  The index after the last argument, or -errno.
 */
int row_encode(struct row_enc *re, struct rf_cursor *c, const struct ship_ctx_ids *ids,
	       int64_t rowid, int at, uint64_t *h, size_t *bytes);
void row_enc_free(struct row_enc *re);

/* record.c: the run's and the host's hashes */
void ship_key(char *buf, size_t len, const char *host, const char *kind, const char *name);
int record_run(struct conn *cn, struct runfile *rf, const char *file);
int record_done(struct conn *cn, struct runfile *rf);
/* the rowids Redis holds as acknowledged, per table of @wm (0: none) */
int record_acked(struct conn *cn, struct runfile *rf, const struct ship_wm *wm,
		 int64_t *acked);

#endif /* BPFTUNE_SHIP_BATCH_H */
