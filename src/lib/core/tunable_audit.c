// SPDX-License-Identifier: GPL-2.0-only
/*
 * Hostile starting values: when a tuner starts, each of its tunables that
 * holds a value outside the tuner's caps (an admin's odd setting, a
 * distribution default far above what we would ever write) is named in
 * one line.  The value is left alone -- it is the admin's -- until the
 * tuner acts on it, and then only within the caps.
 */
#include <stdio.h>

#include "core/internal.h"
#include "core/sysctl.h"

void bpftune_tunables_audit(const struct bpftune_tuner *t)
{
	const struct bpftune_tuner_ops *ops = t->ops;
	long v[BPFTUNE_MAX_VALUES];
	char now[96], why[256];
	unsigned int i;
	int n;

	for (i = 0; i < ops->num_tunables; i++) {
		const struct bpftune_tunable_desc *d = &ops->tunables[i];

		if ((d->flags & BPFTUNE_TUNABLE_STRING) || d->num_values > BPFTUNE_MAX_VALUES)
			continue;
		n = bpftune_sysctl_read(-1, d->name, v, d->num_values);
		if (n != (int)d->num_values ||
		    !bpftune_cap_audit(d, v, d->num_values, why, sizeof(why)))
			continue;
		bpftune_sysctl_format_line(v, d->num_values, now, sizeof(now));
		bpftune_log(LOG_NOTICE, "tuner %s: %s is %s at start, outside its caps (%s); left as it is until the tuner acts, then kept within [%ld, %ld]: %s",
			    ops->name, d->name, now, why, d->min, d->max,
			    d->cap_reason ? d->cap_reason : "");
	}
}
