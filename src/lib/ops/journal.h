/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The rollback journal: what -R and --restore put back.
 *
 * One record per line, each checked by its own CRC-32, so a torn write
 * or a damaged line loses that line only:
 *
 *   O <boot_id> <scope> <netns name|-> <ino> <dev> <cookie> <sysctl> <n> <v>... #<crc>
 *
 * O: the original value of (netns, sysctl), appended and fsync'd before
 *    the first change we make to it;
 * W: a value we are about to write, fsync'd before the write (with the O
 *    in the same write() for the first change), and the value we left
 *    when the kernel refused one.  A restore puts the original back only
 *    if the sysctl holds the last W, or the one before it (a crash or a
 *    refusal between the record and the write): anything else means
 *    someone set it since, and the admin wins;
 * M: an admin took the sysctl over (scope 2: in every netns); leave it.
 *
 * scope is 0 for a netns found by its /run/netns name or by inode and
 * device, checked against the cookie; 1 for the daemon's own (global)
 * netns.  boot_id tells records of an earlier boot, whose values the
 * reboot has already reset.
 */
#ifndef BPFTUNE_JOURNAL_H
#define BPFTUNE_JOURNAL_H

#include "base/daemon_api.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/internal.h"

#define BPFTUNE_JOURNAL_DEFAULT	"/var/lib/bpftune/journal"
#define BPFTUNE_JREC_MAX_LINE	640	/* bytes, newline included */
#define BPFTUNE_BOOT_ID_LEN	36
#define BPFTUNE_JREC_SYSCTL_LEN	128

enum bpftune_jrec_type {
	BPFTUNE_JREC_ORIG = 'O',
	BPFTUNE_JREC_WRITTEN = 'W',
	BPFTUNE_JREC_MANUAL = 'M',
};

enum bpftune_jrec_scope {
	BPFTUNE_JSCOPE_NETNS = 0,
	BPFTUNE_JSCOPE_GLOBAL = 1,
	BPFTUNE_JSCOPE_ALL = 2,		/* M only: every netns */
};

struct bpftune_jrec {
	char type;
	char boot_id[BPFTUNE_BOOT_ID_LEN + 1];
	unsigned int scope;
	char netns_name[NAME_MAX + 1];	/* "" when it has none */
	uint64_t ino;
	uint64_t dev;
	uint64_t cookie;
	char sysctl[BPFTUNE_JREC_SYSCTL_LEN];
	unsigned int num_values;
	long values[BPFTUNE_MAX_VALUES];
};

/* Encode @r as one line, newline included; returns its length or -errno. */
int bpftune_jrec_encode(const struct bpftune_jrec *r, char *buf, size_t len);
/*
 * Decode one line of @len bytes (without its newline).  Returns 0, or
 * -EINVAL/-EBADMSG (checksum) with a short reason in *why.
 */
int bpftune_jrec_decode(const char *line, size_t len, struct bpftune_jrec *r,
			const char **why);
/* Same netns and sysctl? (M records of scope ALL match every netns.) */
bool bpftune_jrec_same_key(const struct bpftune_jrec *a,
			   const struct bpftune_jrec *b);

/*
 * Copy the lines of @in (@len bytes) to @out (at least @len bytes; may be
 * @in) but those that decode to a record @drop() says to drop; lines that
 * do not decode are kept.  Returns the bytes in @out.
 */
size_t bpftune_jrec_filter(const char *in, size_t len,
			   bool (*drop)(const struct bpftune_jrec *r, void *ctx),
			   void *ctx, char *out);

/* ---- the journal file (journal.c) ---- */
BPFTUNE_DAEMON int bpftune_journal_open(const char *path);
/* observer that journals every first change: needs bpftune_journal_open() */
BPFTUNE_DAEMON void bpftune_journal_start(void);
/*
 * Restore what the journal holds (every netns that still exists, leaving
 * what someone else set since), then clear it.  Returns 0, or -EIO if a
 * value could not be restored or the journal had damaged records.
 */
BPFTUNE_DAEMON int bpftune_journal_restore(void);
BPFTUNE_DAEMON void bpftune_journal_close(void);

#endif /* BPFTUNE_JOURNAL_H */
