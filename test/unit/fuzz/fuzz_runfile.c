// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for bpftune-ship's run-file reader (tools/ship/
 * runfile.c): what it makes of a SQLite file someone else wrote, maybe
 * damaged on disk (a page overwritten, truncated, a broken header).  The
 * input is written to a file, opened as the shipper opens a file nobody
 * writes (immutable: nothing is created beside it), and every table is
 * read as shipping reads it.  Seeds: test/unit/fuzz/corpus/runfile/.
 *
 * Checks, besides the sanitizers: an accepted file has valid ids; every
 * table is refused with a reason or has a row range (a damaged table is
 * refused, never empty); rows come in rowid order, inside the range
 * asked for; every value encodes as a stream value.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../../tools/ship/shipper.h"

#define MAX_ROWS	2000	/* per table: keeps every input fast */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void read_table(struct runfile *rf, const struct rf_table *t)
{
	struct ship_ctx_ids ids = { rf->run_id, rf->host_id };
	char scratch[SHIP_ENC_SCRATCH];
	struct rf_cursor c;
	int64_t rowid, last = 0;
	int col, rc, n = 0;

	if (rf_cursor_open(rf, t, 0, t->max_rowid, MAX_ROWS, &c))
		return;
	while ((rc = rf_cursor_step(&c, &rowid)) == 1) {
		if (rowid <= last || rowid > t->max_rowid || ++n > MAX_ROWS)
			abort();
		last = rowid;
		for (col = 1; col < c.ncols; col++) {
			struct ship_value v;
			const char *out;
			size_t outlen;
			char *big;

			rf_cursor_value(&c, col, &v);
			big = malloc(v.n + 1);
			if (!big)
				break;
			if (ship_encode(&v, &ids, scratch, big, &out, &outlen))
				abort();
			free(big);
			if (!rf_cursor_name(&c, col))
				abort();
		}
	}
	rf_cursor_close(&c);
}

static char path[64];

static void remove_file(void)
{
	unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct runfile rf;
	char err[256];
	unsigned int i;
	int fd;

	if (!path[0]) {
		/* memory-backed when there is one: an input is a file write */
		snprintf(path, sizeof(path), "%s/fuzz_runfile.%d.db",
			 access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm", (int)getpid());
		atexit(remove_file);
		sqlite3_hard_heap_limit64(64 << 20);
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	close(fd);
	err[0] = '\0';
	if (rf_open(&rf, path, false, err, sizeof(err))) {
		if (!err[0])
			abort();	/* a refusal always says why */
		return 0;
	}
	if (!ship_id_valid(rf.run_id) || !ship_id_valid(rf.host_id) ||
	    rf.num_tables > SHIP_MAX_TABLES)
		abort();
	for (i = 0; i < rf.num_tables; i++) {
		const struct rf_table *t = &rf.tables[i];

		if (t->refused) {
			if (!t->refused[0])
				abort();
			continue;
		}
		if (t->max_rowid > 0)	/* shipping reads rowids above 0 */
			read_table(&rf, t);
	}
	rf_close(&rf);
	return 0;
}
