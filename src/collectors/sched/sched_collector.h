/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The sched collector: one record per sched_switch, sched_wakeup,
 * sched_wakeup_new and sched_migrate_task, written by BPF into the
 * collector's own ring buffer (tuner events never compete with it) and
 * made rows of sched_events by userspace (docs/collectors.md).
 */
#ifndef SCHED_COLLECTOR_H
#define SCHED_COLLECTOR_H

/*
 * Its own ring buffer, as the object declares it: 8 MiB.  The daemon
 * sizes it before load from --buffer-size (KiB per CPU, 16 MiB per CPU by
 * default, as seed 003's ftrace buffer): 2 CPUs, 32 MiB, ~380 k records.
 */
#define SCHED_RINGBUF_SIZE	(8 * 1024 * 1024)
#define SCHED_COMM_LEN		16

enum sched_event_kind {
	SCHED_EV_SWITCH,
	SCHED_EV_WAKEUP,
	SCHED_EV_WAKEUP_NEW,
	SCHED_EV_MIGRATE,
	SCHED_EV_NUM,
};


/* the kind of a gap record in the ring buffer: not an event */
#define SCHED_REC_GAP		0x80

enum sched_table {
	SCHED_TABLE_EVENTS,	/* per event */
	SCHED_TABLE_STATS,	/* sampled: one row per CPU */
	SCHED_TABLE_GAPS,	/* per gap: where a CPU's events were dropped */
};

/* One event.  aux0/aux1: target_cpu; orig_cpu and dest_cpu. */
struct sched_record {
	__u64 ts_ns;		/* CLOCK_BOOTTIME */
	__u32 cpu;
	__u8 kind;		/* enum sched_event_kind */
	char prev_state;	/* switch: ftrace's letter */
	__u8 preempt;		/* switch: prev was preempted */
	__u8 observer;		/* about one of the daemon's own threads */
	__u32 pid;
	__s32 prio;
	__u32 prev_pid;
	__s32 prev_prio;
	__s32 aux0;
	__s32 aux1;
	char comm[SCHED_COMM_LEN];
	char prev_comm[SCHED_COMM_LEN];
};

/*
 * A gap: events of one CPU dropped from start_ns to end_ns (the times of
 * the first and the last dropped).  In the ring buffer as a record of
 * kind SCHED_REC_GAP, before the first event kept after it; the same
 * layout as sched_record up to kind.
 */
struct sched_gap {
	__u64 start_ns;
	__u32 cpu;
	__u8 kind;		/* SCHED_REC_GAP */
	__u8 pad[3];
	__u64 end_ns;
	__u64 dropped;		/* 0: no gap */
};

/* Per-CPU counters (a PERCPU_ARRAY of one), cumulative since load. */
/*
 * No separate total: userspace copies a CPU's counters while that CPU's
 * programs may be updating them, and a total bumped apart from its kind
 * could disagree with the kinds in the copy.  The total is their sum.
 */
struct sched_counts {
	__u64 kind[SCHED_EV_NUM];	/* every event the programs saw, per kind */
	/* of those, about the daemon's own threads and left out */
	__u64 observer[SCHED_EV_NUM];
	__u64 lost_ringbuf;		/* found the ring buffer full */
	struct sched_gap gap;		/* the gap still open on this CPU */
};

#endif
