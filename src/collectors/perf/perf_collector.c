// SPDX-License-Identifier: GPL-2.0-only
/*
 * The perf collector: perf_event_open(2) counters on every CPU, read each
 * sample interval into perf_counts (docs/telemetry.md).  Off unless named
 * by --collectors perf.
 *
 * The event-counting software counters (context switches, migrations,
 * page faults) are one group per CPU, read in one call; cpu-clock and
 * task-clock count alone (hrtimer-driven: in a group with the others
 * they read 0 on 6.x kernels).  Hardware and cache counters exist only
 * where a PMU does; each is its own group so the kernel can multiplex
 * more of them than the PMU has counters, and a value that ran for part
 * of the time is scaled by time_enabled/time_running (perf_scale.h) and
 * flagged.  A counter this
 * machine cannot count is NULL in every row; perf_counters and one log
 * line say which and why.  Nothing here ever stops the daemon.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include <bpftune/libbpftune.h>

#include "perf_collector.h"
#include "perf_scale.h"
#include "perf_tables.h"
#include "perf_collector.skel.h"
#include "perf_collector.legacy.skel.h"

struct counter_def {
	const char *name;
	const char *type_name;
	__u32 type;
	__u64 config;
};

#define PERF_DEF(id, col, t, cfg, unit, desc)				\
	[PERF_C_##id] = { col, #t, PERF_TYPE_##t, cfg },
static const struct counter_def defs[PERF_C_NUM] = { PERF_COUNTERS(PERF_DEF) };
#undef PERF_DEF

struct perf_cpu {
	int fd[PERF_C_NUM];		/* -1: not counted on this CPU */
	int slot[PERF_C_NUM];		/* grouped: index in the group's read; else -1 */
	int leader;			/* fd of the group's leader, or -1 */
	unsigned int group_n;		/* counters in the group */
};

/* the software counters counted in one group (see above) */
static bool grouped(int c)
{
	return c >= PERF_C_CONTEXT_SWITCHES && c < PERF_C_NUM_SOFTWARE;
}

struct perf_state {
	struct bpftune_tuner *tuner;
	int ncpus;
	struct perf_cpu *cpu;
	int err[PERF_C_NUM];		/* first errno, if never counted */
	unsigned int cpus[PERF_C_NUM];	/* CPUs it is counted on */
};

static const char *type_word(__u32 type)
{
	return type == PERF_TYPE_SOFTWARE ? "software" :
	       type == PERF_TYPE_HARDWARE ? "hardware" : "hw_cache";
}

static const char *reason(int err)
{
	switch (err) {
	case ENOENT:
	case ENODEV:
		return "no such event on this machine (no PMU for it)";
	case EOPNOTSUPP:
		return "not supported here (no PMU, or the PMU cannot count it per CPU)";
	case EACCES:
	case EPERM:
		return "not permitted (capabilities or kernel.perf_event_paranoid)";
	case EMFILE:
	case ENFILE:
		return "out of file descriptors";
	default:
		return "perf_event_open failed";
	}
}

static int open_counter(enum perf_counter c, int cpu, int group_fd, __u64 read_format)
{
	struct perf_event_attr attr = {
		.type = defs[c].type,
		.size = sizeof(attr),
		.config = defs[c].config,
		.read_format = read_format,
	};

	return bpftune_perf_event_open(&attr, -1, cpu, group_fd, 0);
}

static void note(struct perf_state *st, enum perf_counter c, int ret)
{
	if (ret >= 0)
		st->cpus[c]++;
	else if (!st->err[c])
		st->err[c] = -ret;
}

/* one CPU's counters: the group (the first that opens leads), the rest alone */
static void open_cpu(struct perf_state *st, int cpu)
{
	const __u64 fmt = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	struct perf_cpu *pc = &st->cpu[cpu];
	int c;

	pc->leader = -1;
	for (c = 0; c < PERF_C_NUM; c++) {
		bool g = grouped(c);
		int fd = open_counter(c, cpu, g ? pc->leader : -1,
				      g ? fmt | PERF_FORMAT_GROUP : fmt);

		note(st, c, fd);
		pc->fd[c] = fd < 0 ? -1 : fd;
		pc->slot[c] = fd >= 0 && g ? (int)pc->group_n++ : -1;
		if (fd >= 0 && g && pc->leader < 0)
			pc->leader = fd;
	}
}

/* the values of one CPU; NULL where not counted; *mux if any was scaled */
static void read_cpu(const struct perf_cpu *pc, struct bpftune_value *v, bool *mux)
{
	__u64 buf[3 + PERF_C_NUM], one[3];
	bool have_group = false, scaled;
	int64_t out;
	int c;

	if (pc->leader >= 0 && read(pc->leader, buf, sizeof(buf)) >= (ssize_t)(3 * sizeof(__u64)))
		have_group = buf[0] == pc->group_n;
	for (c = 0; c < PERF_C_NUM; c++) {
		const __u64 *r = NULL;

		v[c] = BPFTUNE_VALUE_NULL;
		if (pc->fd[c] < 0)
			continue;
		if (pc->slot[c] >= 0) {
			if (!have_group)
				continue;
			one[0] = buf[3 + pc->slot[c]];
			one[1] = buf[1];
			one[2] = buf[2];
			r = one;
		} else if (read(pc->fd[c], one, sizeof(one)) == sizeof(one)) {
			r = one;
		}
		if (r && !perf_scale(r[0], r[1], r[2], &out, &scaled)) {
			v[c] = BPFTUNE_VALUE_INT(out);
			*mux |= scaled;
		}
	}
}

/* perf_counts: one row per CPU (telemetry thread) */
static void counts_rows(struct bpftune_tuner *t, struct bpftune_sample *s)
{
	struct perf_state *st = bpftune_tuner_priv(t);
	struct bpftune_value v[1 + PERF_C_NUM + 1];
	int cpu;

	for (cpu = 0; cpu < st->ncpus; cpu++) {
		bool mux = false;

		v[0] = BPFTUNE_VALUE_INT(cpu);
		read_cpu(&st->cpu[cpu], v + 1, &mux);
		v[1 + PERF_C_NUM] = BPFTUNE_VALUE_INT(mux);
		bpftune_sample_row(s, v, BPFTUNE_ARRAY_SIZE(v));
	}
}

/* perf_counters, from the timer: once telemetry runs */
static void write_counters(struct bpftune_tuner *t, void *priv)
{
	struct perf_state *st = priv;
	int c;

	(void)t;
	for (c = 0; c < PERF_C_NUM; c++) {
		bool ok = st->cpus[c] > 0;

		bpftune_table_row(st->tuner, PERF_TABLE_COUNTERS, NULL, (const struct bpftune_value[]){
			BPFTUNE_VALUE_TEXT(defs[c].name), BPFTUNE_VALUE_TEXT(type_word(defs[c].type)),
			BPFTUNE_VALUE_INT(defs[c].config), BPFTUNE_VALUE_INT(ok),
			BPFTUNE_VALUE_INT(st->cpus[c]), BPFTUNE_VALUE_INT(ok ? 0 : st->err[c]),
			ok ? BPFTUNE_VALUE_NULL : BPFTUNE_VALUE_TEXT(reason(st->err[c])) }, 7);
	}
}

/* one line for what is counted, one per reason for what is not */
static void log_availability(const struct perf_state *st)
{
	char names[512];
	int c, d, n = 0;

	for (c = 0; c < PERF_C_NUM; c++)
		n += st->cpus[c] > 0;
	bpftune_log(LOG_INFO, "perf collector: %d of %d counters on %d CPUs",
		    n, PERF_C_NUM, st->ncpus);
	for (c = 0; c < PERF_C_NUM; c++) {
		size_t off = 0;
		bool first = true;

		if (st->cpus[c] || !st->err[c])
			continue;
		for (d = 0; d < c; d++)
			if (!st->cpus[d] && !strcmp(reason(st->err[d]), reason(st->err[c])))
				break;
		if (d < c)
			continue;	/* said with an earlier counter */
		names[0] = '\0';
		for (d = c; d < PERF_C_NUM && off < sizeof(names); d++) {
			if (st->cpus[d] || strcmp(reason(st->err[d]), reason(st->err[c])))
				continue;
			off += snprintf(names + off, sizeof(names) - off, "%s%s",
					first ? "" : ", ", defs[d].name);
			first = false;
		}
		bpftune_log(LOG_NOTICE, "perf collector: not counted here (NULL in perf_counts): %s: %s (%s)",
			    names, reason(st->err[c]), strerror(st->err[c]));
	}
}

static void perf_fini(struct bpftune_tuner *t, void *priv)
{
	struct perf_state *st = priv;
	int cpu, c;

	(void)t;
	perf_counts_source = NULL;
	for (cpu = 0; st->cpu && cpu < st->ncpus; cpu++)
		for (c = PERF_C_NUM - 1; c >= 0; c--)
			if (st->cpu[cpu].fd[c] >= 0)
				close(st->cpu[cpu].fd[c]);
	free(st->cpu);
	memset(st, 0, sizeof(*st));
}

static int perf_init(struct bpftune_tuner *t, void *priv)
{
	struct perf_state *st = priv;
	int cpu;

	st->tuner = t;
	st->ncpus = libbpf_num_possible_cpus();
	if (st->ncpus <= 0)
		return -EINVAL;
	st->cpu = calloc(st->ncpus, sizeof(*st->cpu));
	if (!st->cpu)
		return -ENOMEM;
	for (cpu = 0; cpu < st->ncpus; cpu++)
		open_cpu(st, cpu);
	log_availability(st);
	perf_counts_source = counts_rows;
	bpftune_timer_set(t, 1);
	return 0;
}

/* no BPF programs, no events: counters come from perf_event_open(2) */
BPFTUNE_COLLECTOR(perf_collector_bpf,
	.name = "perf",
	.description = "perf counters per CPU (software everywhere, hardware where a PMU is) into perf_counts",
	.priv_size = sizeof(struct perf_state),
	.init = perf_init,
	.fini = perf_fini,
	.timer = write_counters,
	.telemetry = &perf_telemetry);
