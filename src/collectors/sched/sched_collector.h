/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The sched collector: one record per sched_switch, sched_wakeup,
 * sched_wakeup_new and sched_migrate_task, written by BPF into the
 * collector's own ring buffer (tuner events never compete with it) and
 * made rows of sched_events by userspace (docs/collectors.md).
 */
#ifndef SCHED_COLLECTOR_H
#define SCHED_COLLECTOR_H

/* its own ring buffer: 64 Ki records of 80 bytes, ~0.3 s at 200 k/s */
#define SCHED_RINGBUF_SIZE	(8 * 1024 * 1024)
#define SCHED_COMM_LEN		16

enum sched_event_kind {
	SCHED_EV_SWITCH,
	SCHED_EV_WAKEUP,
	SCHED_EV_WAKEUP_NEW,
	SCHED_EV_MIGRATE,
	SCHED_EV_NUM,
};


enum sched_table {
	SCHED_TABLE_EVENTS,	/* per event */
	SCHED_TABLE_STATS,	/* sampled: one row per CPU */
};

/* One event.  aux0/aux1: target_cpu; orig_cpu and dest_cpu. */
struct sched_record {
	__u64 ts_ns;		/* CLOCK_BOOTTIME */
	__u32 cpu;
	__u8 kind;		/* enum sched_event_kind */
	char prev_state;	/* switch: ftrace's letter */
	__u8 preempt;		/* switch: prev was preempted */
	__u8 pad;
	__u32 pid;
	__s32 prio;
	__u32 prev_pid;
	__s32 prev_prio;
	__s32 aux0;
	__s32 aux1;
	char comm[SCHED_COMM_LEN];
	char prev_comm[SCHED_COMM_LEN];
};

/* Per-CPU counters (a PERCPU_ARRAY of one), cumulative since load. */
/*
 * No separate total: userspace copies a CPU's counters while that CPU's
 * programs may be updating them, and a total bumped apart from its kind
 * could disagree with the kinds in the copy.  The total is their sum.
 */
struct sched_counts {
	__u64 kind[SCHED_EV_NUM];	/* every event the programs saw, per kind */
	__u64 lost_ringbuf;		/* found the ring buffer full */
};

#endif
