// SPDX-License-Identifier: GPL-2.0-only
/*
 * The decision API (libbpftune.h: bpftune_decision(),
 * bpftune_decide_values()), all of it here.  With typed inputs the text
 * decisions.inputs keeps (and the debug log shows) is made from the values
 * and the policy's declaration, so the two never disagree; the values
 * themselves become a row of the policy's table (observe.c, registry.c).
 * The decision goes out on the observer bus: telemetry records it.
 */
#include <stdio.h>
#include <string.h>

#include "core/observer.h"
#include "telemetry/telemetry.h"
#include "telemetry/telemetry_schema.h"

/* decisions.inputs made from @d's typed values */
static void decision_text(const struct bpftune_tuner *t,
			  const struct bpftune_decision *d, char *buf, size_t len)
{
	int k = bpftune_policy_index(t->ops->telemetry, d->policy);
	const struct bpftune_policy_desc *p = bpftune_policy_at(t->ops->telemetry, k);

	/* the core's policy speaks for plugins that declare none too */
	if (k < 0 && d->policy && !strcmp(d->policy, bpftune_admin_policy.name))
		p = &bpftune_admin_policy;
	if (k < 0 && !p) {
		snprintf(buf, len, "(undeclared policy: %u typed inputs)", d->num_values);
		return;
	}
	bpftune_policy_inputs_text(p, d->values, d->num_values, buf, len);
}

void bpftune_decision(struct bpftune_tuner *t, const struct bpftune_event *ev,
		      const struct bpftune_decision *d)
{
	struct bpftune_decision typed;
	char text[256];

	if (!t || !d)
		return;
	if (!d->inputs && d->values) {
		typed = *d;
		decision_text(t, d, text, sizeof(text));
		typed.inputs = text;
		d = &typed;
	}
	bpftune_log(LOG_DEBUG, "tuner %s: decision: scenario %u policy %s inputs [%s] action %s",
		    t->ops->name, d->scenario, d->policy ? d->policy : "-",
		    d->inputs ? d->inputs : "", d->action ? d->action : "none");
	bpftune_notify_decision(t, ev, d);
}

void bpftune_decide_values(struct bpftune_tuner *t, const struct bpftune_event *ev,
			   unsigned int scenario, int tunable, const char *policy,
			   const struct bpftune_value *values, unsigned int num_values,
			   const char *action)
{
	struct bpftune_decision d = {
		.scenario = scenario, .policy = policy, .action = action,
		.tunable = tunable, .epsilon = -1, .explored = -1,
		.values = values, .num_values = num_values,
	};

	bpftune_decision(t, ev, &d);
}
