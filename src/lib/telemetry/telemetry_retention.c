// SPDX-License-Identifier: GPL-2.0-only
/*
 * Retention of old telemetry files: which run files are ours, and which
 * of them to remove so that at most a number of runs and a size budget
 * remain.  Pure code (the directory scan and the unlinks are in
 * prune.c), unit-tested.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "telemetry/telemetry_schema.h"

static bool all_in(const char *s, size_t n, const char *set)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!s[i] || !strchr(set, s[i]))
			return false;
	return true;
}

/* "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", lower-case hex */
static bool uuid_ok(const char *s)
{
	static const unsigned int groups[] = { 8, 4, 4, 4, 12 };
	unsigned int i;

	for (i = 0; i < 5; i++) {
		if (!all_in(s, groups[i], "0123456789abcdef"))
			return false;
		s += groups[i];
		if (i < 4 && *s++ != '-')
			return false;
	}
	return true;
}

int bpftune_telemetry_file_kind(const char *name)
{
	/* 20240102T030405Z-<uuid>.db */
	const size_t stamp = 16, uuid = 36, base = stamp + 1 + uuid + 3;
	size_t len;

	if (!name)
		return -1;
	len = strlen(name);
	if (len < base || !all_in(name, 8, "0123456789") || name[8] != 'T' ||
	    !all_in(name + 9, 6, "0123456789") || name[15] != 'Z' ||
	    name[16] != '-' || !uuid_ok(name + 17) ||
	    memcmp(name + stamp + 1 + uuid, ".db", 3))
		return -1;
	if (len == base)
		return BPFTUNE_TFILE_DB;
	if (!strcmp(name + base, "-wal"))
		return BPFTUNE_TFILE_WAL;
	if (!strcmp(name + base, "-shm"))
		return BPFTUNE_TFILE_SHM;
	return -1;
}

static int by_name(const void *a, const void *b)
{
	const struct bpftune_tfile *x = a, *y = b;

	return strcmp(x->name, y->name);
}

unsigned int bpftune_telemetry_prune_plan(struct bpftune_tfile *files,
					  unsigned int n, unsigned int keep,
					  uint64_t max_bytes)
{
	uint64_t total = 0;
	unsigned int i, count = 0, removed = 0;

	/* no files: files may be NULL, which qsort() must not be given */
	if (!n)
		return 0;
	qsort(files, n, sizeof(*files), by_name);
	for (i = 0; i < n; i++) {
		files[i].remove = false;
		total += files[i].bytes;
		count++;
	}
	/* oldest first; the new run needs one of the @keep places */
	for (i = 0; i < n; i++) {
		bool over_count = keep && count >= keep;
		bool over_bytes = max_bytes && total > max_bytes;

		if (!over_count && !over_bytes)
			break;
		if (files[i].in_use)
			continue;
		files[i].remove = true;
		removed++;
		count--;
		total -= files[i].bytes;
	}
	return removed;
}
