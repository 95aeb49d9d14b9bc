/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Growth and shrink steps shared by the tuners that raise a limit when
 * it is hit and give it back when it is no longer needed (net_buffer,
 * udp_buffer, ip_frag).  Pure logic: unit-tested in test/unit/test_grow.c.
 */
#ifndef BPFTUNE_GROW_H
#define BPFTUNE_GROW_H

#include <stdbool.h>
#include <stdint.h>

/*
 * @cur raised by one step (the learning-rate delta, at least 1), never
 * past @cap.  @cur itself when it is already at or past the cap: a raise
 * must never become a cut.
 */
long bpftune_grow_step(long cur, long cap, unsigned int rate);
/*
 * @cur lowered by one step, never below @floor; @cur when it is already
 * at or below it.
 */
long bpftune_shrink_step(long cur, long floor, unsigned int rate);
/*
 * One shrink step of @n values toward @orig (values already at or below
 * their original stay), into @out.  Returns how many values moved.
 */
unsigned int bpftune_shrink_toward(const long *cur, const long *orig,
				   unsigned int n, unsigned int rate,
				   long *out);
/* Is @now at least @quiet_ms after @last (both in ms)? */
static inline bool bpftune_quiet_for(uint64_t now, uint64_t last,
				     uint64_t quiet_ms)
{
	return now >= last && now - last >= quiet_ms;
}

#endif
