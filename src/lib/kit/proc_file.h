/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reading /proc files whole and looking values up in them: the library's
 * side of <bpftune/proc.h>.  The parsers, pure, are one family in
 * telemetry_proc.c (telemetry_schema.h), below the kit.
 */
#ifndef BPFTUNE_PROC_FILE_H
#define BPFTUNE_PROC_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <bpftune/proc.h>

#include "telemetry/telemetry_schema.h"

/* /proc files we read are far smaller; a bigger one is refused (-EFBIG) */
#define BPFTUNE_PROC_FILE_MAX	(1U << 20)

/*
 * The whole of @path in a malloc'd NUL-terminated buffer (its length in
 * *@len when @len is not NULL), or NULL with errno set.  Opened relative to
 * the calling thread's view, so a /proc/thread-self/net/... path reads the
 * netns the thread is in.
 */
char *bpftune_proc_file_read(const char *path, size_t *len);
/*
 * The same, from an fd kept open for @path (up to 8 paths; others are
 * opened and closed as above).  For files read often whose open fd keeps
 * meaning the same thing: global files, and a /proc/thread-self/net/...
 * path opened in the global netns (the fd stays bound to the netns it
 * was opened in).  Any thread.
 */
char *bpftune_proc_file_read_pinned(const char *path, size_t *len);

/*
 * Look @n keys up in one read of @path laid out as @fmt.  Keys the file
 * lacks leave their value zeroed.  Returns how many were found, or a
 * negative errno when the file cannot be read or a key or value is
 * malformed.
 */
int bpftune_proc_file_lookup(const char *path, enum bpftune_proc_format fmt,
			     const char *const keys[],
			     struct bpftune_proc_value vals[], unsigned int n);
/* bpftune_proc_file_lookup() in bpftune_proc_file_read_pinned()'s text */
int bpftune_proc_file_lookup_pinned(const char *path,
				    enum bpftune_proc_format fmt,
				    const char *const keys[],
				    struct bpftune_proc_value vals[],
				    unsigned int n);

#endif /* BPFTUNE_PROC_FILE_H */
