/* SPDX-License-Identifier: GPL-2.0-only */
/* netns tracking (core): types shared by netns_watch.bpf.c and netns_watch.c */
#ifndef BPFTUNE_NETNS_WATCH_H
#define BPFTUNE_NETNS_WATCH_H

enum netns_scenario {
	NETNS_SCENARIO_CREATED,		/* clone() made a new netns */
	NETNS_SCENARIO_SEEN,		/* first seen: an exec, the daemon entered */
	NETNS_SCENARIO_DESTROYED,
};

/* Which hook reported it. */
enum netns_source {
	NETNS_SRC_CLONE,		/* task_newtask with CLONE_NEWNET */
	NETNS_SRC_EXEC,			/* sched_process_exec */
	NETNS_SRC_DAEMON,		/* the daemon entered it (opt_entered) */
	NETNS_SRC_EXIT,			/* fentry/kprobe on proc_net_ns_exit() */
	NETNS_SRC_CLEANUP,		/* tracked netns found dead after cleanup_net() */
};

/* Namespaces the tracepoint-only path can follow at once. */
#define NETNS_MAX_TRACKED	65536

/* Payload of every netns tuner event; the header's cookie is the netns. */
struct netns_change {
	__u32 source;			/* enum netns_source */
	__u32 pad;
	__u64 tracked_full;		/* netns not tracked: the map was full */
};

#endif
