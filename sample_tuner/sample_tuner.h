/* SPDX-License-Identifier: GPL-2.0-only */
/* sample tuner: types shared by sample_tuner.bpf.c and sample_tuner.c */
#ifndef SAMPLE_TUNER_H
#define SAMPLE_TUNER_H

enum sample_scenario {
	SAMPLE_SCENARIO_BACKLOG_TRUNCATED,
};

struct sample_listen {
	__s32 backlog;		/* what listen() asked for */
	__s32 somaxconn;	/* what the kernel will give it */
};

/* Telemetry tables (sample_tuner_tables.c): one row per truncated listen(). */
enum sample_table {
	SAMPLE_TABLE_LISTEN,
};

#ifndef __bpf__
#include <bpftune/telemetry.h>

extern const struct bpftune_telemetry_desc sample_telemetry;
#endif

#endif
