// SPDX-License-Identifier: GPL-2.0-only
/*
 * Print the telemetry schema from the declarations: the core's
 * (src/lib/telemetry/schema_core.c) and every in-tree plugin's
 * <name>_tables.c.  --markdown writes docs/telemetry.md, --sql the DDL of
 * every table (tests build fixture files with it), --json the
 * declarations as a run file's telemetry_tables/telemetry_columns hold
 * them, --check checks the plugins' declarations as the daemon does.
 */
#include <stdio.h>
#include <string.h>

#include "telemetry/telemetry_schema.h"

/* the list comes from the file names (Makefile: telemetry_declarers.inc) */
#define DECLARER(n) extern const struct bpftune_telemetry_desc n##_telemetry;
#include "telemetry_declarers.inc"
#undef DECLARER
#define DECLARER(n) { #n, &n##_telemetry },
static const struct bpftune_declarer plugins[] = {
#include "telemetry_declarers.inc"
};
#undef DECLARER

#define NUM_PLUGINS	(sizeof(plugins) / sizeof(plugins[0]))

/* each plugin with its policies' tables, as the daemon registers them */
static struct bpftune_telemetry_x expanded[NUM_PLUGINS];
static struct bpftune_declarer documented[NUM_PLUGINS];

static int check(void)
{
	char why[512];
	unsigned int i;
	int err = 0;

	for (i = 0; i < NUM_PLUGINS; i++) {
		documented[i] = plugins[i];
		if (bpftune_telemetry_check(plugins[i].desc, why, sizeof(why)) ||
		    bpftune_telemetry_expand(plugins[i].name, plugins[i].desc,
					     &expanded[i], why, sizeof(why))) {
			fprintf(stderr, "plugin %s: %s\n", plugins[i].name, why);
			err = 1;
		} else if (plugins[i].desc) {
			documented[i].desc = &expanded[i].d;
		}
	}
	return err;
}

int main(int argc, char **argv)
{
	const char *what = argc == 2 ? argv[1] : "";
	int err;

	/* a bad declaration documents nothing: the daemon would refuse it */
	if (check())
		return 1;
	if (!strcmp(what, "--markdown"))
		err = bpftune_telemetry_write_markdown(stdout, documented, NUM_PLUGINS);
	else if (!strcmp(what, "--sql"))
		err = bpftune_telemetry_write_sql(stdout, documented, NUM_PLUGINS);
	else if (!strcmp(what, "--json"))
		err = bpftune_telemetry_write_json(stdout, documented, NUM_PLUGINS);
	else if (!strcmp(what, "--check"))
		err = 0;
	else if (!strcmp(what, "--version"))
		err = printf("%d\n", BPFTUNE_TELEMETRY_SCHEMA_VERSION) < 0;
	else {
		fprintf(stderr, "usage: %s --markdown | --sql | --json | --check | --version\n",
			argv[0]);
		return 2;
	}
	if (fflush(stdout) || err) {
		fprintf(stderr, "%s: write failed\n", argv[0]);
		return 1;
	}
	return 0;
}
