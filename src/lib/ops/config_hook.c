// SPDX-License-Identifier: GPL-2.0-only
/*
 * The config in the tunable write path: an observer whose limit() the
 * core's bpftune_tunable_set() calls through the bus once per write.  A write to a tunable the admin
 * said not to touch, or in a netns out of scope, is refused; a value past
 * an admin bound is held at it.  Each is said once per tunable, netns and
 * kind (log line and decision row) until the config is reloaded, and
 * counted for bpftune -q status.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/control.h"
#include "ops/config.h"
#include "ops/config_daemon.h"
#include "core/internal.h"
#include "core/observer.h"
#include "core/operate.h"

#define MAX_SAID	4096

enum said_kind { SAID_SCOPE, SAID_NO_TOUCH, SAID_HELD, SAID_BAD_COUNT };

struct said {
	char name[BPFTUNE_CONFIG_TUNABLE_LEN];
	uint64_t cookie;
	enum said_kind kind;
};

static struct said *said;
static unsigned int num_said;
static unsigned long held[BPFTUNE_CONFIG_MAX_TUNABLES];
static unsigned long refused[BPFTUNE_CONFIG_MAX_TUNABLES];
static unsigned long out_of_scope;

void bpftune_config_hook_reset(void)
{
	free(said);
	said = NULL;
	num_said = 0;
	memset(held, 0, sizeof(held));
	memset(refused, 0, sizeof(refused));
	out_of_scope = 0;
}

/* true the first time (@name, @cookie, @kind) is seen since the last reload */
static bool first_time(const char *name, uint64_t cookie, enum said_kind kind)
{
	unsigned int i;

	for (i = 0; i < num_said; i++)
		if (said[i].cookie == cookie && said[i].kind == kind &&
		    !strcmp(said[i].name, name))
			return false;
	if (num_said == MAX_SAID)
		return false;	/* said enough: counters still count */
	if (!said) {
		said = calloc(MAX_SAID, sizeof(*said));
		if (!said)
			return false;
	}
	snprintf(said[num_said].name, sizeof(said[num_said].name), "%s", name);
	said[num_said].cookie = cookie;
	said[num_said++].kind = kind;
	return true;
}

/* wanted, bound, bound_value, refused, source (schema_policy.c) */
#define ADMIN_INPUTS	5

struct say {
	struct bpftune_tuner *t;
	const struct bpftune_event *ev;
	unsigned int scenario, index;
	uint64_t cookie;
};

/*
 * One log line (@what, for people) and one decision row: policy
 * "admin-policy" with its typed inputs (schema_policy.c: wanted, bound,
 * bound_value, refused, source), @action a word.
 */
static void say(const struct say *s, const char *what,
		const struct bpftune_value *inputs, const char *action)
{
	const char *name = s->t->ops->tunables[s->index].name;
	char where[160];

	bpftune_netns_describe(s->cookie, where, sizeof(where));
	bpftune_log(LOG_NOTICE, "tuner %s: %s in %s: %s; said once until the config changes",
		    s->t->ops->name, name, where, what);
	bpftune_decide_values(s->t, s->ev, s->scenario, s->index, "admin-policy", inputs,
			      ADMIN_INPUTS, action);
}

/* admin-policy's inputs for a change refused outright */
#define refusal(why, src) (const struct bpftune_value[ADMIN_INPUTS]){		\
	BPFTUNE_VALUE_NULL, BPFTUNE_VALUE_NULL, BPFTUNE_VALUE_NULL,		\
	BPFTUNE_VALUE_TEXT(why), BPFTUNE_VALUE_TEXT(src) }

static bool in_scope(const struct bpftune_config *p, uint64_t cookie)
{
	struct bpftune_netns_id id;
	bool global = bpftune_netns_is_global(cookie);

	if (p->scope == BPFTUNE_SCOPE_ALL)
		return true;
	if (global || bpftune_netns_identify(cookie, &id))
		id.name[0] = '\0';
	return bpftune_config_netns_in_scope(p, id.name, global);
}

static void held_at(const struct say *s, const struct bpftune_config *p,
		    const struct bpftune_config_tunable *pt,
		    const struct bpftune_config_held *h, const long *want,
		    unsigned int n)
{
	char what[PATH_MAX + 256], w[96], b[96], bc[96], src[PATH_MAX + 16];
	bool max = h->held_max;

	held[pt - p->tunables]++;
	if (!first_time(pt->name, s->cookie, SAID_HELD))
		return;
	bpftune_values_text(want, n, " ", w, sizeof(w));
	bpftune_values_text(max ? pt->max : pt->min, max ? pt->num_max : pt->num_min, " ", b, sizeof(b));
	bpftune_config_src_text(p, max ? &pt->src_max : &pt->src_min, src, sizeof(src));
	snprintf(what, sizeof(what), "held at the admin's %s %s (%s): wanted %s",
		 max ? "max" : "min", b, src, w);
	bpftune_values_text(want, n, ",", w, sizeof(w));
	bpftune_values_text(max ? pt->max : pt->min, max ? pt->num_max : pt->num_min, ",", bc, sizeof(bc));
	say(s, what, (const struct bpftune_value[ADMIN_INPUTS]){
		BPFTUNE_VALUE_TEXT(w), BPFTUNE_VALUE_TEXT(max ? "max" : "min"),
		BPFTUNE_VALUE_TEXT(bc), BPFTUNE_VALUE_NULL, BPFTUNE_VALUE_TEXT(src) },
	    max ? "hold-at-max" : "hold-at-min");
}

/*
 * After the built-in cap: -EPERM if the config forbids the write
 * (do-not-touch, netns out of scope), else 0 with @new held within the
 * admin's bounds.  Says so once per tunable and netns.
 */
static int config_limit(struct bpftune_tuner *t, unsigned int index,
			const struct bpftune_event *ev, unsigned int scenario,
			uint64_t cookie, const long *old, long *new,
			unsigned int n)
{
	const struct bpftune_config *p = bpftune_config_current();
	const struct bpftune_config_tunable *pt;
	struct say s = { t, ev, scenario, index, cookie };
	struct bpftune_config_held h;
	long want[BPFTUNE_MAX_VALUES];
	char src[PATH_MAX + 16], what[PATH_MAX + 64];

	if (!p || index >= t->ops->num_tunables || n > BPFTUNE_MAX_VALUES)
		return 0;
	if (!in_scope(p, cookie)) {
		out_of_scope++;
		if (first_time(t->ops->tunables[index].name, cookie, SAID_SCOPE)) {
			bpftune_config_src_text(p, &p->scope_src, src, sizeof(src));
			snprintf(what, sizeof(what), "not tuned: netns out of the config's scope (%s)", src);
			say(&s, what, refusal("scope", src), "refuse");
		}
		return -EPERM;
	}
	pt = bpftune_config_tunable(p, t->ops->tunables[index].name);
	if (!pt)
		return 0;
	if (pt->no_touch) {
		refused[pt - p->tunables]++;
		if (first_time(pt->name, cookie, SAID_NO_TOUCH)) {
			bpftune_config_src_text(p, &pt->src_touch, src, sizeof(src));
			snprintf(what, sizeof(what), "not touched: touch = no (%s)", src);
			say(&s, what, refusal("touch", src), "refuse");
		}
		return -EPERM;
	}
	memcpy(want, new, n * sizeof(*new));
	if (bpftune_config_bound(pt, old, new, n, &h))
		held_at(&s, p, pt, &h, want, n);
	else if (h.bad_count && first_time(pt->name, cookie, SAID_BAD_COUNT))
		bpftune_log(LOG_WARNING, "config: [tunable %s]: bounds ignored: the tunable has %u values",
			    pt->name, n);
	return 0;
}

static struct bpftune_observer observer = { .limit = config_limit };
static bool observing;

void bpftune_config_hook_start(void)
{
	if (!observing)
		bpftune_observer_add(&observer);
	observing = true;
}

void bpftune_config_hook_stop(void)
{
	if (observing)
		bpftune_observer_remove(&observer);
	observing = false;
}

unsigned long bpftune_config_counts(const char *name, unsigned long *nrefused)
{
	const struct bpftune_config *p = bpftune_config_current();
	const struct bpftune_config_tunable *pt = bpftune_config_tunable(p, name);

	*nrefused = pt ? refused[pt - p->tunables] : 0;
	return pt ? held[pt - p->tunables] : 0;
}

unsigned long bpftune_config_out_of_scope(void)
{
	return out_of_scope;
}
