// SPDX-License-Identifier: GPL-2.0-only
/*
 * Sample tuner, BPF side: listen() silently truncates the backlog to
 * net.core.somaxconn.  Report a listen() whose backlog was cut.
 *
 * Two alternatives for one hook ("listen"): the daemon takes the best the
 * kernel allows.  __sys_listen() (fentry, or kprobe in the legacy build)
 * costs only the listen() calls.  The syscall tracepoint is the last
 * resort, for kernels with neither: a program on any syscalls:* tracepoint
 * puts every task of the machine on the system call slow path, about 80 ns
 * more per call measured on 6.18 (docs/benchmarks.md).
 */
#include <bpftune/bpftune.bpf.h>
#include "sample_tuner.h"

/* one in N listen() calls is looked at when they come fast */
struct bpftune_sampler listen_sampler;

static __always_inline int backlog_check(int backlog)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct sample_listen *l;
	struct bpftune_event *ev;
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

BPFTUNE_FN(listen__fn, __sys_listen, int fd, int backlog)
{
	return backlog_check(backlog);
}

SEC("tracepoint/syscalls/sys_enter_listen")
int listen__tp(struct trace_event_raw_sys_enter *ctx)
{
	return backlog_check((int)ctx->args[1]);
}
