/* SPDX-License-Identifier: GPL-2.0-only */
/* Formatted appends into a fixed buffer, for text built piece by piece
 * (journal records, SQL statements).
 */
#ifndef BPFTUNE_APPENDF_H
#define BPFTUNE_APPENDF_H

#include <stddef.h>

/* snprintf at buf + *off and advance *off; -ENOSPC (buf untouched past
 * *off's old value only up to len) once the text no longer fits
 */
int bpftune_appendf(char *buf, size_t len, size_t *off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
