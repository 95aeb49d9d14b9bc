/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The arithmetic of a multiplexed perf counter, kept pure for the unit
 * tests: a counter that ran for @running of the @enabled nanoseconds it
 * was enabled counted @value; the estimate over the whole time is
 * value * enabled / running, flagged as scaled.  A counter that never
 * ran has no estimate at all.
 */
#ifndef PERF_SCALE_H
#define PERF_SCALE_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

/* 0 with *out (at most INT64_MAX, SQLite's largest) and *scaled; -ENODATA */
static inline int perf_scale(uint64_t value, uint64_t enabled, uint64_t running,
			     int64_t *out, bool *scaled)
{
	unsigned __int128 v;

	if (!running)
		return -ENODATA;
	if (running >= enabled) {
		v = value;
		*scaled = false;
	} else {
		v = (unsigned __int128)value * enabled / running;
		*scaled = true;
	}
	*out = v > (unsigned __int128)INT64_MAX ? INT64_MAX : (int64_t)v;
	return 0;
}

#endif
