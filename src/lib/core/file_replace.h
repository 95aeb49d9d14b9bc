/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Replacing a file atomically: write a temporary beside it, rename it over
 * the file.  Readers see the old contents or the new, never a torn file.
 * The one helper of the metrics textfile, the rollback journal's
 * compaction and bpftune-ship's watermarks (the shipper compiles it in:
 * it includes and calls nothing of the library).
 */
#ifndef BPFTUNE_FILE_REPLACE_H
#define BPFTUNE_FILE_REPLACE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct bpftune_replace {
	const char *tmp;	/* the temporary: same directory, not a link */
	mode_t mode;		/* the new file's mode, whatever the umask */
	bool sync;		/* data and rename survive a power cut */
	bool lock;		/* flock(LOCK_EX | LOCK_NB) it before the rename */
	int *fd;		/* set: keep it open here (O_RDWR | O_APPEND) */
};

/*
 * Replace @path with @len bytes of @data as @how says.  0, or a negative
 * errno with @path untouched and the temporary removed.
 */
int bpftune_file_replace(const char *path, const void *data, size_t len,
			 const struct bpftune_replace *how);

#endif
