/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * At most one call per clock tick (jiffy) of a hot hook goes on to the
 * heavy work, whatever the adaptive sampler let through.  The sampler
 * processes every call of its first window after a lull (100 ms: tens of
 * thousands of calls on a busy path) before it knows the call rate; this
 * bounds that burst to HZ calls per second, above the sampler's steady
 * target (200/s), so it only cuts the burst.  Call it after
 * bpftune_sample() on the processed path only: it costs one helper call.
 * Racing CPUs may both go on in the same tick; that only blurs the bound.
 */
#ifndef BPFTUNE_TICK_GATE_BPF_H
#define BPFTUNE_TICK_GATE_BPF_H

static __always_inline int tick_gate_open(__u64 *last_tick)
{
	__u64 tick = bpf_jiffies64();

	if (*last_tick == tick)
		return 0;
	*last_tick = tick;
	return 1;
}

#endif
