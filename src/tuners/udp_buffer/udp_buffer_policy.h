/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * udp_buffer's decisions as pure functions: how far rmem_default (with
 * rmem_max) and udp_mem grow, and when udp_mem may step back.  No I/O
 * and no library state: udp_buffer_tuner.c reads the sysctls and
 * /proc, passes them in with the learning rate, and writes what comes
 * back.  Unit-tested in test/unit/test_udp_buffer_policy.c.
 */
#ifndef BPFTUNE_UDP_BUFFER_POLICY_H
#define BPFTUNE_UDP_BUFFER_POLICY_H

#include <stdbool.h>

#define RMEM_DEFAULT_CAP	(4L << 20)
#define RMEM_MAX_CAP		(32L << 20)

enum udp_buffer_verdict {
	UDP_BUFFER_RAISE,
	UDP_BUFFER_PREDATES,	/* the socket was sized by an older default */
	UDP_BUFFER_AT_CAP,
	UDP_BUFFER_AT_CEILING,
};

/* what bpftune_decide_values() records for @v */
const char *udp_buffer_verdict_name(enum udp_buffer_verdict v);

/*
 * A socket sized by rmem_default (@rcvbuf) dropped with its buffer full,
 * rmem_default and rmem_max being @def and @max.  Returns the verdict; on
 * UDP_BUFFER_RAISE, *want_def is the new default and *want_max the new
 * rmem_max (0: rmem_max already holds the default).
 */
enum udp_buffer_verdict udp_buffer_rcvbuf_decide(long rcvbuf, long def, long max,
						 unsigned int rate, long *want_def,
						 long *want_max);

/*
 * How far udp_mem may grow: what UDP holds (@pages) plus a quarter of
 * the available memory (@avail pages; unknown if not above 0: then no
 * further than udp_mem[2] now, @cur_high), at most @cap.
 */
long udp_buffer_mem_ceiling(long pages, long avail, long cur_high, long cap);

/*
 * The kernel refused UDP memory, udp_mem being @cur: returns the verdict;
 * on UDP_BUFFER_RAISE, @want is each value one step toward @ceiling.
 */
enum udp_buffer_verdict udp_buffer_mem_decide(const long cur[3], long ceiling,
					      unsigned int rate, long want[3]);

/*
 * May udp_mem[1] step back to @want_pressure while UDP holds @pages
 * (negative: unknown)?  Only with a delta of room left above them.
 */
bool udp_buffer_mem_may_shrink(long pages, long want_pressure, unsigned int rate);

#endif
