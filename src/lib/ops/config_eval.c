// SPDX-License-Identifier: GPL-2.0-only
/*
 * Evaluating the config (pure): which tunables it bounds, which network
 * namespaces are in scope, and what the bounds do to a write.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ops/config.h"

const struct bpftune_config_tunable *
bpftune_config_tunable(const struct bpftune_config *p, const char *name)
{
	unsigned int i;

	if (!p || !name)
		return NULL;
	for (i = 0; i < p->num_tunables; i++)
		if (!strcmp(p->tunables[i].name, name))
			return &p->tunables[i];
	return NULL;
}

static bool listed(const struct bpftune_config *p, const char *name)
{
	unsigned int i;

	for (i = 0; i < p->num_scope_names; i++)
		if (!strcmp(p->scope_names[i], name))
			return true;
	return false;
}

bool bpftune_config_netns_in_scope(const struct bpftune_config *p,
				   const char *name, bool global)
{
	if (!p)
		return true;
	if (global)
		name = BPFTUNE_CONFIG_GLOBAL_NETNS;
	switch (p->scope) {
	case BPFTUNE_SCOPE_GLOBAL_ONLY:
		return global;
	case BPFTUNE_SCOPE_SKIP:
		return !listed(p, name);
	case BPFTUNE_SCOPE_ONLY:
		return listed(p, name);
	default:
		return true;
	}
}

/* bound i of @v (@num of them: one for all, or one per value) */
static long bound_at(const long *v, unsigned int num, unsigned int i)
{
	return num == 1 ? v[0] : v[i];
}

static bool count_ok(unsigned int num, unsigned int n)
{
	return num == 1 || num == n;
}

bool bpftune_config_bound(const struct bpftune_config_tunable *pt,
			  const long *old, long *new, unsigned int n,
			  struct bpftune_config_held *h)
{
	unsigned int i;
	long b, v;

	memset(h, 0, sizeof(*h));
	if (!pt || n > BPFTUNE_MAX_VALUES)
		return false;
	if ((pt->has_max && !count_ok(pt->num_max, n)) ||
	    (pt->has_min && !count_ok(pt->num_min, n))) {
		h->bad_count = true;
		return false;
	}
	for (i = 0; i < n; i++) {
		v = new[i];
		if (pt->has_max && v > (b = bound_at(pt->max, pt->num_max, i))) {
			/* already past it: may come back, never go further */
			v = old[i] > b ? (old[i] < v ? old[i] : v) : b;
			h->held_max |= 1u << i;
		}
		if (pt->has_min && v < (b = bound_at(pt->min, pt->num_min, i))) {
			v = old[i] < b ? (old[i] > v ? old[i] : v) : b;
			h->held_min |= 1u << i;
		}
		new[i] = v;
	}
	return h->held_max || h->held_min;
}

static unsigned int clamp_to_cap(long *v, unsigned int num, long cap_min,
				 long cap_max)
{
	unsigned int i, clamped = 0;

	for (i = 0; i < num; i++) {
		if (v[i] > cap_max) {
			v[i] = cap_max;
			clamped++;
		} else if (v[i] < cap_min) {
			v[i] = cap_min;
			clamped++;
		}
	}
	return clamped;
}

int bpftune_config_check_cap(struct bpftune_config_tunable *pt,
			     unsigned int n, long cap_min, long cap_max,
			     char *msg, size_t msg_len)
{
	unsigned int i, clamped = 0;

	msg[0] = '\0';
	if ((pt->has_max && !count_ok(pt->num_max, n)) ||
	    (pt->has_min && !count_ok(pt->num_min, n))) {
		snprintf(msg, msg_len, "%s has %u value%s: give one bound for all or one per value",
			 pt->name, n, n == 1 ? "" : "s");
		return -EINVAL;
	}
	for (i = 0; pt->has_min && pt->has_max && i < n; i++)
		if (bound_at(pt->min, pt->num_min, i) > bound_at(pt->max, pt->num_max, i)) {
			snprintf(msg, msg_len, "%s: min %ld is above max %ld (value %u)",
				 pt->name, bound_at(pt->min, pt->num_min, i),
				 bound_at(pt->max, pt->num_max, i), i + 1);
			return -EINVAL;
		}
	if (pt->has_max)
		clamped += clamp_to_cap(pt->max, pt->num_max, cap_min, cap_max);
	if (pt->has_min)
		clamped += clamp_to_cap(pt->min, pt->num_min, cap_min, cap_max);
	if (clamped)
		snprintf(msg, msg_len, "%s: %u bound%s outside the built-in cap [%ld, %ld] clamped to it (admin bounds can only narrow the cap)",
			 pt->name, clamped, clamped == 1 ? "" : "s", cap_min, cap_max);
	return clamped;
}
