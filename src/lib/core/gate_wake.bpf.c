// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sleeping gates' alarm (gate.h, @wake): one program, attached by
 * name to every tracepoint a sleeping gate named, that wakes the daemon
 * at its first hit.  It reads no argument, so one raw_tp program serves
 * any tracepoint on every kernel.  Until the daemon has detached it (a
 * few ms later) the hits that follow return at the flag: the alarm costs
 * one wake-up, never one per packet.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} gate_wake_ringbuf SEC(".maps");

/* set by the daemon when it arms the alarm, cleared by the first hit */
__u32 gate_wake_armed;

SEC("raw_tp")
int gate_wake(void *ctx)
{
	__u64 *r;

	(void)ctx;
	if (!gate_wake_armed)
		return 0;
	/* several CPUs may pass at once: each rings, the daemon wakes once */
	gate_wake_armed = 0;
	r = bpf_ringbuf_reserve(&gate_wake_ringbuf, sizeof(*r), 0);
	if (!r)
		return 0;
	*r = bpf_ktime_get_boot_ns();
	bpf_ringbuf_submit(r, 0);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
