// SPDX-License-Identifier: GPL-2.0-only
/*
 * BPF side of the sched collector: the four scheduler tracepoints, tp_btf
 * in the full object and raw_tp in the legacy one.  Each event is counted
 * per CPU, then reserved in the collector's own ring buffer; when that is
 * full the event is dropped and counted (the trace keeps its beginning,
 * as ftrace's nooverwrite mode).  No wake-up per event: userspace drains
 * the buffer on its own clock, so a switch costs a reserve and a copy.
 *
 * Every drop is located: a CPU's run of dropped events is a gap, from the
 * first dropped to the last, with their number; it goes into the buffer
 * as a record of its own before the next event kept on that CPU (or is
 * read from the counters at the end).  Events about the daemon's own
 * threads (the observer) are counted and left out unless
 * sched_keep_observer is set; then they are marked.
 */
#include <bpftune/bpftune.bpf.h>
#include "sched_collector.h"

/* what ftrace's __trace_sched_switch_state() reports, as its letters */
#define TASK_REPORT		0x7f
#define TASK_IDLE_BITS		0x402	/* TASK_UNINTERRUPTIBLE | TASK_NOLOAD */
#define TASK_RTLOCK_WAIT	0x1000

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, SCHED_RINGBUF_SIZE);
} sched_ringbuf SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sched_counts);
} sched_counts SEC(".maps");

/* set by userspace after load (--keep-observer) */
__u32 sched_keep_observer;
/*
 * Set by userspace once it has set the above (the programs are attached
 * before the collector's init runs), cleared when the daemon stops:
 * nothing is recorded or counted outside, so that rows, losses and the
 * daemon's threads left out always add up to the events counted.
 */
__u32 sched_recording;

static __always_inline bool is_observer(struct task_struct *p)
{
	return bpftune_daemon_tgid && BPF_CORE_READ(p, tgid) == bpftune_daemon_tgid;
}

static __always_inline int task_cpu(struct task_struct *p)
{
	return BPF_CORE_READ(p, thread_info.cpu);
}

/* the CPU's open gap into the buffer; it stays open while there is no room */
static __always_inline void gap_close(struct sched_counts *c)
{
	struct sched_gap *g;

	if (!c->gap.dropped)
		return;
	g = bpf_ringbuf_reserve(&sched_ringbuf, sizeof(*g), 0);
	if (!g)
		return;
	*g = c->gap;
	bpf_ringbuf_submit(g, BPF_RB_NO_WAKEUP);
	c->gap.dropped = 0;
}

static __always_inline void gap_extend(struct sched_counts *c, __u64 now)
{
	if (!c->gap.dropped) {
		c->gap.start_ns = now;
		c->gap.cpu = bpf_get_smp_processor_id();
		c->gap.kind = SCHED_REC_GAP;
	}
	c->gap.end_ns = now;
	c->gap.dropped++;
	c->lost_ringbuf++;
}

static __always_inline struct sched_record *record_new(__u8 kind, bool observer)
{
	struct sched_counts *c;
	struct sched_record *r;
	__u32 zero = 0;
	__u64 now;

	if (!sched_recording)
		return NULL;
	c = bpf_map_lookup_elem(&sched_counts, &zero);
	if (!c || kind >= SCHED_EV_NUM)
		return NULL;
	c->kind[kind]++;
	if (observer) {
		c->observer[kind]++;
		if (!sched_keep_observer)
			return NULL;
	}
	now = bpf_ktime_get_boot_ns();
	gap_close(c);
	r = c->gap.dropped ? NULL : bpf_ringbuf_reserve(&sched_ringbuf, sizeof(*r), 0);
	if (!r) {
		gap_extend(c, now);
		return NULL;
	}
	r->ts_ns = now;
	r->cpu = bpf_get_smp_processor_id();
	r->kind = kind;
	r->prev_state = 0;
	r->preempt = 0;
	r->observer = observer;
	r->prev_pid = 0;
	r->prev_prio = 0;
	r->aux0 = -1;
	r->aux1 = -1;
	r->prev_comm[0] = '\0';
	return r;
}

static __always_inline void record_task(struct sched_record *r,
					struct task_struct *p)
{
	r->pid = BPF_CORE_READ(p, pid);
	r->prio = BPF_CORE_READ(p, prio);
	BPF_CORE_READ_STR_INTO(&r->comm, p, comm);
}

/* ftrace's prev_state letter: R S D T t X Z P I by the highest bit set */
static __always_inline char state_letter(unsigned int state, int exit_state)
{
	static const char letters[] = "RSDTtXZPI";
	unsigned int bits = (state | (unsigned int)exit_state) & TASK_REPORT;
	unsigned int idx = 0;

	if ((state & TASK_IDLE_BITS) == TASK_IDLE_BITS)
		bits = TASK_REPORT + 1;
	if (state & TASK_RTLOCK_WAIT)
		bits = 2;
	while (bits && idx < 8) {
		bits >>= 1;
		idx++;
	}
	return letters[idx < sizeof(letters) - 1 ? idx : 0];
}

BPFTUNE_TP(sched_switch, sched_switch, bool preempt, struct task_struct *prev,
	   struct task_struct *next, unsigned int prev_state)
{
	struct sched_record *r = record_new(SCHED_EV_SWITCH,
					    is_observer(prev) || is_observer(next));

	if (!r)
		return 0;
	record_task(r, next);
	r->prev_pid = BPF_CORE_READ(prev, pid);
	r->prev_prio = BPF_CORE_READ(prev, prio);
	BPF_CORE_READ_STR_INTO(&r->prev_comm, prev, comm);
	r->preempt = preempt;
	r->prev_state = preempt ? 'R' :
			state_letter(prev_state, BPF_CORE_READ(prev, exit_state));
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
	return 0;
}

static __always_inline int wakeup(struct task_struct *p, __u8 kind)
{
	struct sched_record *r = record_new(kind, is_observer(p));

	if (!r)
		return 0;
	record_task(r, p);
	r->aux0 = task_cpu(p);
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
	return 0;
}

BPFTUNE_TP(sched_wakeup, sched_wakeup, struct task_struct *p)
{
	return wakeup(p, SCHED_EV_WAKEUP);
}

BPFTUNE_TP(sched_wakeup_new, sched_wakeup_new, struct task_struct *p)
{
	return wakeup(p, SCHED_EV_WAKEUP_NEW);
}

BPFTUNE_TP(sched_migrate_task, sched_migrate_task, struct task_struct *p,
	   int dest_cpu)
{
	struct sched_record *r = record_new(SCHED_EV_MIGRATE, is_observer(p));

	if (!r)
		return 0;
	record_task(r, p);
	r->aux0 = task_cpu(p);
	r->aux1 = dest_cpu;
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
	return 0;
}
