// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sched collector's rows (sched_rows.h): a record of the ring buffer
 * as a row of sched_events, a gap as a row of sched_gaps, in the columns'
 * declared order (sched_tables.c).  Nothing allocated per row.
 */
#include <errno.h>
#include <string.h>

#include "sched_rows.h"
#include "sched_tables.h"

static const char *const kind_names[SCHED_EV_NUM] = {
	[SCHED_EV_SWITCH] = "switch",
	[SCHED_EV_WAKEUP] = "wakeup",
	[SCHED_EV_WAKEUP_NEW] = "wakeup_new",
	[SCHED_EV_MIGRATE] = "migrate",
};

static const char *const where_names[] = {
	[SCHED_GAP_RINGBUF] = "ringbuf",
	[SCHED_GAP_WRITER] = "writer",
};

static struct bpftune_value int_if(bool have, int64_t v)
{
	return have ? BPFTUNE_VALUE_INT(v) : BPFTUNE_VALUE_NULL;
}

/* a comm of the kernel's, not necessarily NUL-terminated */
static void comm_copy(char dst[SCHED_COMM_LEN + 1], const char *src)
{
	memcpy(dst, src, SCHED_COMM_LEN);
	dst[SCHED_COMM_LEN] = '\0';
}

int sched_event_row(struct bpftune_tuner *t, const struct sched_record *r)
{
	char comm[SCHED_COMM_LEN + 1], prev_comm[SCHED_COMM_LEN + 1];
	char state_s[2] = { r->prev_state, '\0' };
	struct bpftune_event ev = { .ts_uptime_ns = r->ts_ns };
	bool sw = r->kind == SCHED_EV_SWITCH;
	bool wake = r->kind == SCHED_EV_WAKEUP || r->kind == SCHED_EV_WAKEUP_NEW;
	bool mig = r->kind == SCHED_EV_MIGRATE;

	if (r->kind >= SCHED_EV_NUM)
		return -EINVAL;
	comm_copy(comm, r->comm);
	if (sw)
		comm_copy(prev_comm, r->prev_comm);
	return bpftune_table_row(t, SCHED_TABLE_EVENTS, &ev, (const struct bpftune_value[]){
		BPFTUNE_VALUE_INT(r->ts_ns), BPFTUNE_VALUE_INT(r->cpu),
		BPFTUNE_VALUE_TEXT(kind_names[r->kind]),
		BPFTUNE_VALUE_INT(r->pid), BPFTUNE_VALUE_TEXT(comm), BPFTUNE_VALUE_INT(r->prio),
		int_if(sw, r->prev_pid), sw ? BPFTUNE_VALUE_TEXT(prev_comm) : BPFTUNE_VALUE_NULL,
		int_if(sw, r->prev_prio), sw ? BPFTUNE_VALUE_TEXT(state_s) : BPFTUNE_VALUE_NULL,
		int_if(sw, r->preempt), int_if(wake, r->aux0),
		int_if(mig, r->aux0), int_if(mig, r->aux1),
		BPFTUNE_VALUE_INT(r->observer) }, 15);
}

int sched_gap_row(struct bpftune_tuner *t, const struct sched_gap *g,
		  enum sched_gap_where where)
{
	struct bpftune_event ev = { .ts_uptime_ns = g->start_ns };

	return bpftune_table_row(t, SCHED_TABLE_GAPS, &ev, (const struct bpftune_value[]){
		BPFTUNE_VALUE_INT(g->cpu), BPFTUNE_VALUE_INT(g->start_ns),
		BPFTUNE_VALUE_INT(g->end_ns), BPFTUNE_VALUE_INT(g->dropped),
		BPFTUNE_VALUE_TEXT(where_names[where]) }, 5);
}
