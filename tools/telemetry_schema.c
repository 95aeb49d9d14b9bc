// SPDX-License-Identifier: GPL-2.0-only
/*
 * Print the telemetry schema from the one descriptor table
 * (src/lib/telemetry/telemetry_schema.c): --markdown writes docs/telemetry.md,
 * --sql the DDL the daemon runs (tests build fixture files with it).
 */
#include <stdio.h>
#include <string.h>

#include "telemetry/telemetry_schema.h"

int main(int argc, char **argv)
{
	int err;

	if (argc == 2 && !strcmp(argv[1], "--markdown"))
		err = bpftune_telemetry_write_markdown(stdout);
	else if (argc == 2 && !strcmp(argv[1], "--sql"))
		err = bpftune_telemetry_write_sql(stdout);
	else if (argc == 2 && !strcmp(argv[1], "--version"))
		err = printf("%d\n", BPFTUNE_TELEMETRY_SCHEMA_VERSION) < 0;
	else {
		fprintf(stderr, "usage: %s --markdown | --sql | --version\n", argv[0]);
		return 2;
	}
	if (fflush(stdout) || err) {
		fprintf(stderr, "%s: write failed\n", argv[0]);
		return 1;
	}
	return 0;
}
