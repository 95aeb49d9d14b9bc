// SPDX-License-Identifier: GPL-2.0-only
/*
 * The watermark of one run file: per table, the last rowid Redis
 * acknowledged and a digest of the rows shipped up to it.  A text file
 * in the state directory, replaced atomically (rename) after each
 * acknowledged batch:
 *
 *   bpftune-ship watermark 1
 *   run <run_id>
 *   host <host_id>
 *   file <size> <wal_size> <mtime_ns> <done> <unverified>
 *   table <name> <rowid> <digest, 16 hex digits>
 *
 * A missing, torn or foreign file reads as "nothing shipped": the run is
 * shipped again, and the duplicates are harmless (the dump keeps one row
 * per rowid).  No fsync: losing the newest watermark only repeats rows.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/file_replace.h"
#include "ship.h"

#define WM_MAGIC	"bpftune-ship watermark 1"
#define WM_LINE_MAX	256

void ship_wm_init(struct ship_wm *wm)
{
	memset(wm, 0, sizeof(*wm));
}

struct ship_wm_table *ship_wm_table(struct ship_wm *wm, const char *name, bool create)
{
	unsigned int i;

	for (i = 0; i < wm->num_tables; i++)
		if (!strcmp(wm->tables[i].name, name))
			return &wm->tables[i];
	if (!create || wm->num_tables == SHIP_MAX_TABLES || !ship_id_valid(name))
		return NULL;
	memset(&wm->tables[i], 0, sizeof(wm->tables[i]));
	strcpy(wm->tables[i].name, name);
	wm->num_tables++;
	return &wm->tables[i];
}

/* an id token: copies it to @out (SHIP_ID_MAX + 1) if valid */
static int id_token(const char *s, char *out)
{
	if (!ship_id_valid(s))
		return -1;
	strcpy(out, s);
	return 0;
}

static int parse_u64(const char *s, int base, uint64_t *v)
{
	char *end;

	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, base);
	return errno || *end ? -1 : 0;
}

static int parse_file_line(char *args, struct ship_wm *wm)
{
	char *f[5], *save = NULL;
	uint64_t v[5];
	int i;

	for (i = 0; i < 5; i++) {
		f[i] = strtok_r(i ? NULL : args, " ", &save);
		if (!f[i] || parse_u64(f[i], 10, &v[i]))
			return -1;
	}
	if (strtok_r(NULL, " ", &save) || v[2] > INT64_MAX || v[3] > 1 || v[4] > 1)
		return -1;
	wm->size = v[0];
	wm->wal_size = v[1];
	wm->mtime_ns = (int64_t)v[2];
	wm->done = v[3];
	wm->unverified = v[4];
	return 0;
}

static int parse_table_line(char *args, struct ship_wm *wm)
{
	char *name, *rowid, *digest, *save = NULL;
	struct ship_wm_table *t;
	uint64_t r, d;

	name = strtok_r(args, " ", &save);
	rowid = strtok_r(NULL, " ", &save);
	digest = strtok_r(NULL, " ", &save);
	if (!name || !rowid || !digest || strtok_r(NULL, " ", &save))
		return -1;
	if (parse_u64(rowid, 10, &r) || r > INT64_MAX ||
	    strlen(digest) != 16 || parse_u64(digest, 16, &d))
		return -1;
	if (!ship_id_valid(name) || ship_wm_table(wm, name, false))
		return -1;	/* bad or repeated */
	t = ship_wm_table(wm, name, true);
	if (!t)
		return -1;
	t->rowid = (int64_t)r;
	t->digest = d;
	return 0;
}

static int parse_line(char *line, unsigned int no, struct ship_wm *wm)
{
	char *args = strchr(line, ' ');

	if (no == 0)
		return strcmp(line, WM_MAGIC) ? -1 : 0;
	if (!args)
		return -1;
	*args++ = '\0';
	if (!strcmp(line, "run") && no == 1)
		return id_token(args, wm->run_id);
	if (!strcmp(line, "host") && no == 2)
		return id_token(args, wm->host_id);
	if (!strcmp(line, "file") && no == 3)
		return parse_file_line(args, wm);
	if (!strcmp(line, "table") && no > 3)
		return parse_table_line(args, wm);
	return -1;
}

int ship_wm_parse(const char *buf, size_t len, struct ship_wm *wm)
{
	char line[WM_LINE_MAX];
	unsigned int no = 0;
	size_t pos = 0;

	ship_wm_init(wm);
	while (pos < len) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t n;

		if (!nl)
			goto bad;	/* torn: the last line has no newline */
		n = nl - (buf + pos);
		if (n >= sizeof(line) || memchr(buf + pos, '\0', n))
			goto bad;
		memcpy(line, buf + pos, n);
		line[n] = '\0';
		if (parse_line(line, no++, wm))
			goto bad;
		pos += n + 1;
	}
	if (no < 4)
		goto bad;
	return 0;
bad:
	ship_wm_init(wm);
	return -1;
}

int ship_wm_format(const struct ship_wm *wm, char *buf, size_t len)
{
	size_t pos;
	unsigned int i;
	int n;

	n = snprintf(buf, len, "%s\nrun %s\nhost %s\nfile %" PRIu64 " %" PRIu64 " %" PRId64 " %d %d\n",
		     WM_MAGIC, wm->run_id, wm->host_id, wm->size, wm->wal_size,
		     wm->mtime_ns, wm->done, wm->unverified);
	if (n < 0 || (size_t)n >= len)
		return -1;
	pos = n;
	for (i = 0; i < wm->num_tables; i++) {
		const struct ship_wm_table *t = &wm->tables[i];

		n = snprintf(buf + pos, len - pos, "table %s %" PRId64 " %016" PRIx64 "\n",
			     t->name, t->rowid, t->digest);
		if (n < 0 || (size_t)n >= len - pos)
			return -1;
		pos += n;
	}
	return (int)pos;
}

/* ---- I/O --------------------------------------------------------------- */

#define WM_FILE_MAX	(SHIP_MAX_TABLES * WM_LINE_MAX + 1024)

int ship_wm_load(const char *path, struct ship_wm *wm)
{
	char *buf = malloc(WM_FILE_MAX);
	ssize_t n, total = 0;
	int fd, err = 0;

	ship_wm_init(wm);
	if (!buf)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		err = errno == ENOENT ? 0 : -errno;
		goto out;
	}
	while ((n = read(fd, buf + total, WM_FILE_MAX - total)) > 0)
		total += n;
	if (n < 0)
		err = -errno;
	else if (total == WM_FILE_MAX || ship_wm_parse(buf, total, wm))
		err = -EINVAL;
	close(fd);
out:
	free(buf);
	return err;
}

int ship_wm_save(const char *path, const struct ship_wm *wm)
{
	char tmp[4096 + 8], *buf = malloc(WM_FILE_MAX);
	int n, err;

	if (!buf)
		return -ENOMEM;
	n = ship_wm_format(wm, buf, WM_FILE_MAX);
	if (n < 0 || snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp)) {
		free(buf);
		return -E2BIG;
	}
	err = bpftune_file_replace(path, buf, n,
				   &(struct bpftune_replace){ .tmp = tmp, .mode = 0600 });
	free(buf);
	return err;
}
