// SPDX-License-Identifier: GPL-2.0-only
/*
 * Admin-override detection, a core mechanism (always on, whatever -a
 * selects): when anyone but the daemon writes a sysctl that a loaded
 * tuner manages, log who, what and where, and stop that tuner in that
 * netns (in every netns when the write was in the global one).  The admin
 * always wins.  Its cgroup/sysctl program sees the writes of the tasks in
 * the daemon's cgroup2 hierarchy (-c); without one the daemon does not
 * start (core.c).
 */
#include <stdio.h>
#include <string.h>

#include "core/internal.h"
#include "core/core.h"
#include "admin_override.h"
#include "core/sysctl.h"
#include "admin_override.skel.h"
#include "admin_override.legacy.skel.h"

/* Does @t manage the sysctl called @dotted? */
static bool manages(const struct bpftune_tuner *t, const char *dotted)
{
	unsigned int i;

	for (i = 0; i < t->ops->num_tunables; i++)
		if (!strcmp(t->ops->tunables[i].name, dotted))
			return true;
	return false;
}

static void admin_write(struct bpftune_tuner *self, void *priv,
			const struct bpftune_event *ev)
{
	const struct bpftune_sysctl_write *w = (const void *)ev->payload;
	char name[BPFTUNE_SYSCTL_NAME_LEN], value[BPFTUNE_SYSCTL_VALUE_LEN + 1];
	char where[128], why[512];
	unsigned int id;
	bool managed = false;

	(void)priv;
	bpftune_sysctl_dotted(w->name, name, sizeof(name));
	memcpy(value, w->value, sizeof(w->value));
	value[sizeof(w->value)] = '\0';
	value[strcspn(value, "\n")] = '\0';
	bpftune_netns_describe(ev->netns_cookie, where, sizeof(where));

	for (id = 0; id < bpftune_num_tuners(); id++) {
		struct bpftune_tuner *t = bpftune_tuner_get(id);

		if (!t || t == self || !manages(t, name))
			continue;
		managed = true;
		snprintf(why, sizeof(why), "%s was set to '%s' by pid %u (%.*s) in %s; the admin owns it now",
			 name, value, ev->pid, BPFTUNE_COMM_LEN, ev->comm, where);
		bpftune_tuner_set_manual(t, ev->netns_cookie, why);
	}
	if (!managed)
		bpftune_log(LOG_DEBUG, "sysctl %s written by pid %u (%.*s) in %s: not managed",
			    name, ev->pid, BPFTUNE_COMM_LEN, ev->comm, where);
}

static const struct bpftune_scenario_desc scenarios[] = {
	[ADMIN_SCENARIO_WRITE] = {
		.name = "admin override",
		.description = "a sysctl managed by a tuner was written by someone else",
		.payload_size = sizeof(struct bpftune_sysctl_write),
		.handle = admin_write,
	},
};

BPFTUNE_SKEL_GLUE(admin_override_bpf)
BPFTUNE_SKEL_GLUE(admin_override_bpf_legacy)

const struct bpftune_tuner_ops bpftune_admin_override_ops =
	BPFTUNE_OPS_INITIALIZER(BPFTUNE_KIND_CORE, admin_override_bpf,
		.name = "admin_override",
		.description = "admin-override detection: stops tuners whose sysctls an admin sets",
		BPFTUNE_SCENARIOS(scenarios));
