// SPDX-License-Identifier: GPL-2.0-only
/*
 * sysctl tuner: when anyone but the daemon writes a sysctl that a loaded
 * tuner manages, log who, what and where, and stop that tuner in that
 * netns (in every netns when the write was in the global one).  The admin
 * always wins.
 */
#include <stdio.h>
#include <string.h>

#include "core/internal.h"
#include "sysctl_tuner.h"
#include "sysctl_tuner.skel.h"
#include "sysctl_tuner.legacy.skel.h"

static const struct bpftune_tunable_desc tunables[0];

static const struct bpftune_scenario_desc scenarios[] = {
	[SYSCTL_SCENARIO_ADMIN_WRITE] = {
		"admin override",
		"a sysctl managed by a tuner was written by someone else",
	},
};

/* Does @t manage the sysctl called @dotted? */
static bool manages(const struct bpftune_tuner *t, const char *dotted)
{
	unsigned int i;

	for (i = 0; i < t->ops->num_tunables; i++)
		if (!strcmp(t->ops->tunables[i].name, dotted))
			return true;
	return false;
}

static void sysctl_event(struct bpftune_tuner *self,
			 const struct bpftune_event *ev)
{
	const struct bpftune_sysctl_write *w = (const void *)ev->payload;
	char name[BPFTUNE_SYSCTL_NAME_LEN], value[BPFTUNE_SYSCTL_VALUE_LEN + 1];
	char where[128], why[512];
	unsigned int id;
	bool managed = false;

	if (ev->payload_len < sizeof(*w))
		return;
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

BPFTUNE_TUNER("sysctl", "stops tuners whose sysctls an admin sets",
	      sysctl_tuner_bpf, tunables, scenarios, NULL, NULL, sysctl_event);
