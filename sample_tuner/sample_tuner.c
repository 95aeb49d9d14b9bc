// SPDX-License-Identifier: GPL-2.0-only
/*
 * Sample tuner: an out-of-tree plugin built against the installed
 * libbpftune.  When listen() asks for a longer accept queue than
 * net.core.somaxconn allows, raise somaxconn (in that netns) to what was
 * asked, up to the tunable's cap.
 *
 * The library does the rest: it checks that an event carries the
 * scenario's payload before calling the handler, stops the tuner where an
 * admin sets somaxconn, and keeps the rollback journal.  No init or fini:
 * nothing here is the tuner's own.
 */
#include <stdio.h>
#include <bpftune/libbpftune.h>

#include "sample_tuner.h"
#include "sample_tuner.skel.h"
#include "sample_tuner.legacy.skel.h"

enum { SAMPLE_SOMAXCONN };

static const struct bpftune_tunable_desc tunables[] = {
	[SAMPLE_SOMAXCONN] = {
		.name = "net.core.somaxconn",
		.flags = BPFTUNE_TUNABLE_NAMESPACED,
		.num_values = 1,
		.min = 128,
		.max = 65535,
		.cap_reason = "an accept queue longer than 64K entries only hides an "
			      "application that does not accept fast enough",
	},
};

static void backlog_truncated(struct bpftune_tuner *t, void *priv,
			      const struct bpftune_event *ev)
{
	const struct sample_listen *l = (const void *)ev->payload;
	char reason[160], comm[BPFTUNE_COMM_LEN + 1];
	long want = l->backlog;

	(void)priv;
	bpftune_log(LOG_INFO, "sample: pid %u (%.*s) called listen() with backlog %d, somaxconn is %d",
		    ev->pid, BPFTUNE_COMM_LEN, ev->comm, l->backlog, l->somaxconn);
	snprintf(comm, sizeof(comm), "%.*s", BPFTUNE_COMM_LEN, ev->comm);
	bpftune_table_row(t, SAMPLE_TABLE_LISTEN, ev, (const struct bpftune_value[]){
		BPFTUNE_VALUE_INT(ev->pid), BPFTUNE_VALUE_TEXT(comm),
		BPFTUNE_VALUE_INT(l->backlog), BPFTUNE_VALUE_INT(l->somaxconn) }, 4);
	bpftune_decide_values(t, ev, SAMPLE_SCENARIO_BACKLOG_TRUNCATED, SAMPLE_SOMAXCONN,
			      "raise-to-request", (const struct bpftune_value[]){
				BPFTUNE_VALUE_INT(l->backlog),
				BPFTUNE_VALUE_INT(l->somaxconn) }, 2, "raise");
	snprintf(reason, sizeof(reason),
		 "listen() by pid %u asked for backlog %d, which somaxconn %d silently truncated",
		 ev->pid, l->backlog, l->somaxconn);
	bpftune_tunable_set(t, SAMPLE_SOMAXCONN, ev,
			    SAMPLE_SCENARIO_BACKLOG_TRUNCATED, &want, 1, reason);
}

static const struct bpftune_scenario_desc scenarios[] = {
	[SAMPLE_SCENARIO_BACKLOG_TRUNCATED] = {
		.name = "listen backlog truncated",
		.description = "listen() asked for a longer accept queue than somaxconn allows",
		.payload_size = sizeof(struct sample_listen),
		.handle = backlog_truncated,
	},
};

BPFTUNE_TUNER(sample_tuner_bpf,
	.name = "sample",
	.description = "raises somaxconn when listen() backlogs are truncated",
	BPFTUNE_TUNABLES(tunables),
	BPFTUNE_SCENARIOS(scenarios),
	.telemetry = &sample_telemetry);
