/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * BPF side: a per-tick gate for hot hooks (it includes
 * <bpftune/bpftune.bpf.h>).
 *
 * At most one call per clock tick (jiffy) of a hot hook goes on to the
 * heavy work: the first call of each tick, HZ a second at most (250 -
 * 1000), about what the adaptive sampler lets through (200/s) but without
 * its random draw: on a 64-bit JIT the verifier inlines bpf_jiffies64()
 * into a load, so a call that is not processed costs two loads and a
 * compare, where bpftune_sample() makes a helper call.  For hooks that
 * fire on every packet and only need a steady trickle of samples.
 * Racing CPUs may both go on in the same tick; that only blurs the bound.
 */
#ifndef BPFTUNE_TICK_GATE_BPF_H
#define BPFTUNE_TICK_GATE_BPF_H

#include <bpftune/bpftune.bpf.h>

/*
 * 1 if this is the first call of the current tick (and *last_tick, the
 * hook's own global, now says so), else 0.
 */
static __always_inline int bpftune_tick_gate_open(__u64 *last_tick)
{
	__u64 tick = bpf_jiffies64();

	if (*last_tick == tick)
		return 0;
	*last_tick = tick;
	return 1;
}

/*
 * The same in two halves, for a hook that must filter its calls with a
 * read before one counts (sendmsg of every socket, for TCP's): the gate
 * is looked at first, and only a call that passes the filter takes the
 * tick.  Once one has, the rest of the tick costs no read at all.
 */
static __always_inline int bpftune_tick_gate_closed(const __u64 *last_tick, __u64 *tick)
{
	*tick = bpf_jiffies64();
	return *last_tick == *tick;
}

#endif
