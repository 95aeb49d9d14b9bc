/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Pure arithmetic of the tcp_buffer tuner for tcp_mem set above its cap
 * (an operator's or an image's odd setting, e.g. "50 100 2000000000").
 * No I/O: unit-tested in test/unit/test_tcp_mem_plan.c and linked into
 * the tcp_buffer tuner.
 */
#ifndef BPFTUNE_TCP_BUFFER_MEM_PLAN_H
#define BPFTUNE_TCP_BUFFER_MEM_PLAN_H

#include <stdbool.h>

/*
 * tcp_mem @cur (pages) with a value above @cap: @want gets the max brought
 * down to the cap and the pressure thresholds raised to the kernel's own
 * proportions of that max (tcp_mem[0] at 1/2, tcp_mem[1] at 2/3), never
 * lowered unless they too lie above the max.  Such a setting cannot be
 * grown, and "cannot grow" must not read as "TCP is short of memory".
 * Returns false, @want untouched, when every value is within the cap.
 */
bool tcp_mem_over_cap(const long cur[3], long cap, long want[3]);

#endif
