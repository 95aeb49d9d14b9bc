// SPDX-License-Identifier: GPL-2.0-only
/* Starting the core mechanisms (see core.h). */
#include <errno.h>
#include <string.h>

#include "core/core.h"

static const struct bpftune_tuner_ops *const core_ops[] = {
	&bpftune_admin_override_ops,
	&bpftune_netns_watch_ops,
};

static const char *const core_roles[] = {
	"admin-override detection", "netns tracking",
};

/* the names core mechanisms had before, still accepted where a name is read */
static const char *const core_aliases[] = {
	"sysctl",	/* admin_override's old name */
};

bool bpftune_core_named(const char *name)
{
	unsigned int i;

	for (i = 0; i < BPFTUNE_ARRAY_SIZE(core_aliases); i++)
		if (!strcmp(name, core_aliases[i]))
			return true;
	for (i = 0; i < BPFTUNE_ARRAY_SIZE(core_ops); i++)
		if (!strcmp(name, core_ops[i]->name))
			return true;
	return false;
}

int bpftune_core_start(const struct bpftune_bpf_opts *opts)
{
	struct bpftune_tuner *t;
	unsigned int i;
	int err;

	for (i = 0; i < BPFTUNE_ARRAY_SIZE(core_ops); i++) {
		t = bpftune_tuner_add(core_ops[i], NULL, -1, "");
		err = t ? bpftune_tuner_start(t, opts) : -ENOMEM;
		if (!err)
			continue;
		bpftune_log(LOG_ERR, "%s (core %s) cannot run; bpftune does not tune without it",
			    core_roles[i], core_ops[i]->name);
		bpftune_tuner_remove(t);
		return err;
	}
	return 0;
}
