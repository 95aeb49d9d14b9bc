// SPDX-License-Identifier: GPL-2.0-only
/*
 * Sample tuner, BPF side: listen() silently truncates the backlog to
 * net.core.somaxconn.  Report a listen() whose backlog was cut.
 * The syscall tracepoint is the same in the full and legacy builds.
 */
#include <bpftune/bpftune.bpf.h>
#include "sample_tuner.h"

/* one in N listen() calls is looked at when they come fast */
struct bpftune_sampler listen_sampler;

SEC("tracepoint/syscalls/sys_enter_listen")
int listen_enter(struct trace_event_raw_sys_enter *ctx)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct sample_listen *l;
	struct bpftune_event *ev;
	int backlog = (int)ctx->args[1];
	int somaxconn;

	if (!bpftune_sample(&listen_sampler))
		return 0;
	somaxconn = BPF_CORE_READ(task, nsproxy, net_ns, core.sysctl_somaxconn);
	if (backlog <= somaxconn)
		return 0;
	ev = bpftune_event_reserve(SAMPLE_SCENARIO_BACKLOG_TRUNCATED,
				   bpftune_current_netns_cookie());
	if (!ev)
		return 0;
	l = (struct sample_listen *)ev->payload;
	l->backlog = backlog;
	l->somaxconn = somaxconn;
	ev->payload_len = sizeof(*l);
	bpftune_event_submit(ev);
	return 0;
}
