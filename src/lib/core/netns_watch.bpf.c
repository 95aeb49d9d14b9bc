// SPDX-License-Identifier: GPL-2.0-only
/*
 * Network namespaces coming and going (core: netns tracking).
 *
 * The kernel has no netns tracepoint.  Destruction, best first:
 *  - fentry (full) or kprobe (legacy) on proc_net_ns_exit(), the exit
 *    handler procfs registers for every netns: cleanup_net() calls it
 *    through a pointer, so no kernel build inlines it away.  (__put_net()
 *    is inlined into netns_put() on Debian's 6.12: "ip netns del" was
 *    missed there.)
 *  - tracepoint only: every netns we know of is kept in netns_live with
 *    its struct net address.  When a work item of the "netns" workqueue
 *    (cleanup_net(), which runs the pernet exit handlers) finishes, each
 *    tracked netns whose reference count is zero, or whose memory no
 *    longer carries its cookie, is reported gone.  The work item (the
 *    static net_cleanup_work) is the one whose function is cleanup_net()
 *    (its address from /proc/kallsyms); without it, it is learnt from
 *    workqueue_queue_work by the queue's name, which misses a cleanup
 *    queued before the daemon attached: a netns dying meanwhile joins the
 *    pending batch without queueing anything.
 *    A netns that died without ever being tracked is not reported: it
 *    had no state in the daemon either (see netns_watch.c).
 * A netns is tracked (netns_live) the first time one of these sees it:
 *  - task_newtask with CLONE_NEWNET: a task created in a new netns;
 *  - sched_process_exec: a task execs in it ("ip netns exec NS cmd",
 *    "unshare -n cmd", a container's init), which also finds a netns made
 *    by unshare() as soon as something runs there.  Reported only when
 *    the task's parent is in another netns (it moved there: setns or
 *    unshare, as the syscall hooks saw); a task born there is tracked
 *    without an event, or the first exec in each netns that was there
 *    before the daemon (a shell's "sleep") would wake it for nothing;
 *  - opt_entered, never attached: the daemon runs it (BPF_PROG_TEST_RUN)
 *    on the thread that just entered a netns (it enters every netns it
 *    acts in, which tracks namespaces that existed before it started).
 * None of them is on the system call path: a program on a syscall
 * tracepoint (unshare, setns) would set the syscall-tracepoint work flag
 * of every thread of the machine, sending every system call of every task
 * through the slow path (+19 % CPU per getppid(), bench/cost.sh syscall).
 */
#include <bpftune/bpftune.bpf.h>
#include "netns_watch.h"

#define CLONE_NEWNET	0x40000000
#define NETNS_WQ_NAME	"netns"
#define E2BIG		7

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, NETNS_MAX_TRACKED);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u64);		/* netns cookie */
	__type(value, __u64);		/* struct net address, never dereferenced directly */
} netns_live SEC(".maps");

/*
 * cleanup_net()'s address, from /proc/kallsyms (set by userspace after
 * load; 0 if not found): its work item is the one that runs it
 */
__u64 cleanup_fn;
/* else learnt from workqueue_queue_work: the "netns" queue and its work item */
__u64 netns_wq;
__u64 cleanup_work;
/* namespaces we could not track because netns_live was full */
__u64 tracked_full;

/* 6.18 renamed ns_common.count */
struct ns_common___new {
	refcount_t __ns_ref;
} __attribute__((preserve_access_index));

struct ns_common___old {
	refcount_t count;
} __attribute__((preserve_access_index));

static __always_inline int net_refs(struct net *net)
{
	void *ns = __builtin_preserve_access_index(&net->ns);
	struct ns_common___new *n = ns;
	struct ns_common___old *o = ns;

	if (bpf_core_field_exists(n->__ns_ref))
		return BPF_CORE_READ(n, __ns_ref.refs.counter);
	return BPF_CORE_READ(o, count.refs.counter);
}

static __always_inline void report(__u32 scenario, __u64 cookie, __u32 source)
{
	struct netns_change *c;
	struct bpftune_event *ev;

	ev = bpftune_event_reserve(scenario, cookie);
	if (!ev)
		return;
	c = (struct netns_change *)ev->payload;
	c->source = source;
	c->pad = 0;
	c->tracked_full = tracked_full;
	ev->payload_len = sizeof(*c);
	bpftune_event_submit(ev);
}

/*
 * @tell: an event tells the daemon; a netns tracked without one is
 * still reported when it goes
 */
static __always_inline void track(struct net *net, __u32 scenario, __u32 source,
				  bool tell)
{
	__u64 cookie = bpftune_net_cookie(net);
	__u64 addr = (__u64)net;
	long err;

	/* most calls (every exec) find it tracked: no bucket lock then */
	if (!cookie || bpf_map_lookup_elem(&netns_live, &cookie))
		return;
	err = bpf_map_update_elem(&netns_live, &cookie, &addr, BPF_NOEXIST);
	if (err == -E2BIG)
		__sync_fetch_and_add(&tracked_full, 1);
	if (!err && tell)
		report(scenario, cookie, source);
}

static __always_inline struct net *current_net(void)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();

	return BPF_CORE_READ(task, nsproxy, net_ns);
}

BPFTUNE_TP(opt_newtask, task_newtask, struct task_struct *task,
	   unsigned long clone_flags)
{
	if (clone_flags & CLONE_NEWNET)
		track(BPF_CORE_READ(task, nsproxy, net_ns),
		      NETNS_SCENARIO_CREATED, NETNS_SRC_CLONE, true);
	return 0;
}

/*
 * Every exec, in whatever netns: far rarer than system calls.  A task
 * whose parent shares its netns was born there: nothing new to tell (its
 * parent's exiting leaves no nsproxy: NULL, another netns, reported).
 */
BPFTUNE_TP(opt_exec, sched_process_exec, struct task_struct *task)
{
	struct net *net = current_net();
	struct net *parent = BPF_CORE_READ(task, real_parent, nsproxy, net_ns);

	track(net, NETNS_SCENARIO_SEEN, NETNS_SRC_EXEC, net != parent);
	return 0;
}

/*
 * Never attached (no tracepoint in its section): the daemon runs it with
 * BPF_PROG_TEST_RUN, which runs it in the calling thread's context, on
 * the thread that has just entered a netns (netns_watch.c).
 */
SEC("raw_tp")
int opt_entered(void *ctx)
{
	track(current_net(), NETNS_SCENARIO_SEEN, NETNS_SRC_DAEMON, true);
	return 0;
}

/* cleanup_net() is dismantling this netns (or setup_net() gave up on it) */
BPFTUNE_FN(netns_gone__exit, proc_net_ns_exit, struct net *net)
{
	__u64 cookie = bpftune_net_cookie(net);

	bpf_map_delete_elem(&netns_live, &cookie);
	report(NETNS_SCENARIO_DESTROYED, cookie, NETNS_SRC_EXIT);
	return 0;
}

static long check_net(struct bpf_map *map, __u64 *cookie, __u64 *addr,
		      void *ctx)
{
	struct net *net = (struct net *)*addr;

	/* freed memory reads as another cookie (or faults, giving 0) */
	if (bpftune_net_cookie(net) == *cookie && net_refs(net) > 0)
		return 0;
	bpf_map_delete_elem(map, cookie);
	report(NETNS_SCENARIO_DESTROYED, *cookie, NETNS_SRC_CLEANUP);
	return 0;
}

/*
 * After cleanup_net() every netns it dismantled has no reference left;
 * one dropped meanwhile queues cleanup_net() again, so none is missed.
 */
/* the second argument, the function, is a pointer tp_btf may not read */
BPFTUNE_TP(netns_gone__cleanup, workqueue_execute_end, struct work_struct *work)
{
	/*
	 * Learnt from what it ran: a cleanup queued before we attached (or
	 * a netns freed while one was pending, which queues nothing) is
	 * still seen.  A freed work item reads as another function.
	 */
	if (!cleanup_work && cleanup_fn &&
	    (__u64)BPF_CORE_READ(work, func) == cleanup_fn)
		cleanup_work = (__u64)work;
	if (!cleanup_work || (__u64)work != cleanup_work)
		return 0;
	bpf_for_each_map_elem(&netns_live, check_net, NULL, 0);
	return 0;
}

BPFTUNE_TP(opt_wq_learn, workqueue_queue_work, int req_cpu,
	   struct pool_workqueue *pwq, struct work_struct *work)
{
	/* one byte more than "netns\0" tells a longer name from it */
	char name[sizeof(NETNS_WQ_NAME) + 1];
	struct workqueue_struct *wq;

	if (cleanup_work || cleanup_fn)
		return 0;
	wq = BPF_CORE_READ(pwq, wq);
	if (!netns_wq) {
		if (bpf_probe_read_kernel_str(name, sizeof(name), &wq->name) !=
		    sizeof(NETNS_WQ_NAME) ||
		    name[0] != 'n' || name[1] != 'e' || name[2] != 't' ||
		    name[3] != 'n' || name[4] != 's')
			return 0;
		netns_wq = (__u64)wq;
	}
	if ((__u64)wq == netns_wq)
		cleanup_work = (__u64)work;
	return 0;
}
