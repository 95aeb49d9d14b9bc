/* SPDX-License-Identifier: GPL-2.0-only */
/* bpftune-ship's process: options (args.c) and directory passes (pass.c). */
#ifndef BPFTUNE_SHIP_MAIN_H
#define BPFTUNE_SHIP_MAIN_H

#include "shipper.h"

struct ship_main {
	struct ship_opts opts;
	struct conn cn;
	char url_desc[512];
	unsigned int interval_ms;
	unsigned int give_up_s;		/* --once: how long Redis may fail */
	/* what is known of each run file, in name order */
	struct ship_file_cache *files;
	unsigned int num_files, cap_files;
	unsigned int num_refused;	/* in the last pass */
	int dir_errno;			/* the directory could not be read */
};

enum pass_result {
	PASS_DONE,		/* every file shipped as far as it goes */
	PASS_RETRY,		/* Redis failed: back off, then again */
	PASS_STOPPED,
	PASS_NO_DIR,		/* the directory cannot be read (yet) */
};

/* the exit status to return, or -1 to go on */
int ship_parse_args(int argc, char **argv, struct ship_main *m);
enum pass_result ship_pass(struct ship_main *m);
/* remove the watermarks of run files that are gone */
void ship_sweep_state(struct ship_main *m);

#endif /* BPFTUNE_SHIP_MAIN_H */
