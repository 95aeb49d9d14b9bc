// SPDX-License-Identifier: GPL-2.0-only
/*
 * rx_round: follows every NET_RX softirq round of one CPU (irq:softirq_entry
 * and _exit, napi:napi_poll in between) and keeps the longest one made of
 * at least two NAPI polls -- a round the kernel could have stopped at its
 * netdev_budget_usecs limit, which it checks between polls.  The tests use
 * it to assert that their slow receive path really produced the rounds a
 * tuner is meant to react to, before asserting the reaction.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "rx_round.h"

#define NET_RX_VEC	3

const volatile __u32 cpu = 0;
const volatile __u64 long_ns = 0;

struct rx_round_stats stats;

static __u64 start_ns;
static __u32 polls, work;

SEC("tracepoint/irq/softirq_entry")
int round_start(struct trace_event_raw_softirq *ctx)
{
	if (ctx->vec != NET_RX_VEC || bpf_get_smp_processor_id() != cpu)
		return 0;
	start_ns = bpf_ktime_get_ns();
	polls = 0;
	work = 0;
	return 0;
}

SEC("tracepoint/napi/napi_poll")
int round_poll(struct trace_event_raw_napi_poll *ctx)
{
	if (!start_ns || bpf_get_smp_processor_id() != cpu)
		return 0;
	polls++;
	if (ctx->work > 0)
		work += ctx->work;
	return 0;
}

SEC("tracepoint/irq/softirq_exit")
int round_end(struct trace_event_raw_softirq *ctx)
{
	__u64 dur;

	if (ctx->vec != NET_RX_VEC || bpf_get_smp_processor_id() != cpu ||
	    !start_ns)
		return 0;
	dur = bpf_ktime_get_ns() - start_ns;
	start_ns = 0;
	stats.rounds++;
	if (polls < 2)
		return 0;
	if (dur >= long_ns)
		stats.long_rounds++;
	if (dur > stats.max_ns) {
		stats.max_ns = dur;
		stats.max_polls = polls;
		stats.max_work = work;
	}
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
