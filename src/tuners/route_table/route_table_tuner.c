// SPDX-License-Identifier: GPL-2.0-only
/*
 * route_table tuner: net.ipv6.route.max_size, per netns.
 *
 *  - Grow: when the routes in a netns' IPv6 FIB or its dst cache entries
 *    come within delta of max_size, max_size grows by delta (to what is in
 *    use plus delta if that is more), up to a hard cap.
 *  - Shrink: a max_size we raised that sees a quarter of it in use or less
 *    steps back by delta per report (lookups in that netns, at most two a
 *    second), until it is back at its value before we raised it.
 *
 * Before Linux 6.3 max_size bounds the IPv6 dst cache: past it, dst_alloc
 * fails ("Route cache is full") and packets are dropped.  From 6.3 on the
 * kernel no longer enforces it (its default is INT_MAX there); a smaller
 * value set by hand is still kept above what is in use, so it stays true
 * for whatever reads it and for the day the netns' settings are copied to
 * an older kernel.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <bpf/bpf.h>
#include <bpftune/libbpftune.h>
#include <bpftune/proc.h>

#include "route_table_policy.h"
#include "route_table_tuner.h"
#include "route_table_tables.h"
#include "route_table_tuner.skel.h"
#include "route_table_tuner.legacy.skel.h"

#define MAX_NETNS		1024

static const struct bpftune_tunable_desc tunables[] = {
	{
		.name = "net.ipv6.route.max_size",
		.flags = BPFTUNE_TUNABLE_NAMESPACED, .num_values = 1,
		.min = 0, .max = ROUTE_HARD_CAP,
		.cap_reason = "1M routes is four full IPv6 Internet tables; "
			      "past it the limit no longer protects kernel memory",
	},
};


struct rt_netns {
	struct bpftune_netns_priv ns;
	uint64_t map_key;	/* the event's cookie: the BPF side's key */
	long orig;		/* max_size before our first raise */
};

struct rt_state {
	struct bpftune_tuner *tuner;
	int grown_fd;
	/* the last growth refusal logged, to log each one once */
	uint64_t stop_cookie;
	long stop_at;
};

/* nothing left to shrink there: the BPF side stops reporting it */
static void netns_release(struct bpftune_tuner *t, void *priv,
			  struct bpftune_netns_priv *p)
{
	struct rt_netns *n = (void *)p;
	struct rt_state *s = priv;

	(void)t;
	if (s->grown_fd >= 0)
		bpf_map_delete_elem(s->grown_fd, &n->map_key);
}

/* Tell the BPF side the max_size we set, or that there is none (0). */
static void grown_set(struct rt_state *s, uint64_t cookie, long max_size)
{
	struct route_table_grown g = { .max_size = max_size };

	if (s->grown_fd < 0)
		return;
	if (max_size)
		bpf_map_update_elem(s->grown_fd, &cookie, &g, BPF_ANY);
	else
		bpf_map_delete_elem(s->grown_fd, &cookie);
}

/* @last: gc_thresh growing, the original max_size shrinking */
static void decide(struct bpftune_tuner *t, const struct bpftune_event *ev,
		   unsigned int scenario, long cur, long last, const char *action)
{
	const struct route_table_event *e = (const void *)ev->payload;
	const struct bpftune_value inputs[] = {
		BPFTUNE_VALUE_INT(cur), BPFTUNE_VALUE_INT(e->routes),
		BPFTUNE_VALUE_INT(e->dst_entries), BPFTUNE_VALUE_INT(last),
	};

	bpftune_decide_values(t, ev, scenario, 0,
			      scenario == ROUTE_TABLE_NEAR_FULL ? "grow-near-limit" :
			      "shrink-when-empty", inputs, BPFTUNE_ARRAY_SIZE(inputs), action);
}

static void near_full(struct bpftune_tuner *t, void *priv,
		      const struct bpftune_event *ev)
{
	const struct route_table_event *e = (const void *)ev->payload;
	struct rt_state *s = priv;
	char reason[256], where[128];
	enum rt_verdict v;
	struct rt_netns *n;
	long cur, want;
	int err;

	if (bpftune_tunable_get(t, 0, ev, &cur) != 1)
		return;
	v = rt_grow_decide(cur, rt_in_use(e->routes, e->dst_entries),
			   bpftune_learning_rate(), &want);
	n = bpftune_netns_table_find(t, ev->netns_cookie);
	decide(t, ev, ROUTE_TABLE_NEAR_FULL, cur, e->gc_thresh, rt_verdict_action(v));
	if (v != RT_RAISE) {
		if (v == RT_AT_CAP &&
		    (s->stop_cookie != ev->netns_cookie || s->stop_at != cur)) {
			s->stop_cookie = ev->netns_cookie;
			s->stop_at = cur;
			bpftune_log(LOG_NOTICE, "tuner route_table: net.ipv6.route.max_size stays at %ld in %s: the hard cap is %ld (%s)",
				    cur, bpftune_netns_describe(ev->netns_cookie, where, sizeof(where)),
				    ROUTE_HARD_CAP, tunables[0].cap_reason);
		}
		return;
	}
	snprintf(reason, sizeof(reason), "%lld IPv6 routes and %lld dst cache entries, within %ld of max_size %ld",
		 (long long)e->routes, (long long)e->dst_entries, bpftune_delta(cur), cur);
	err = bpftune_tunable_set(t, 0, ev, ROUTE_TABLE_NEAR_FULL,
				  &want, 1, reason);
	if (err <= 0)
		return;
	if (!n) {
		n = bpftune_netns_table_get(t, ev);
		if (n) {
			n->map_key = ev->netns_cookie;
			n->orig = cur;
		}
	}
	/* without a record of the original we would not know where to stop */
	grown_set(s, ev->netns_cookie, n ? want : 0);
}

static void emptying(struct bpftune_tuner *t, void *priv,
		     const struct bpftune_event *ev)
{
	const struct route_table_event *e = (const void *)ev->payload;
	struct rt_netns *n = bpftune_netns_table_find(t, ev->netns_cookie);
	struct rt_state *s = priv;
	char reason[256];
	enum rt_verdict v;
	long cur, used, want;
	int err;

	if (!n) {
		grown_set(s, ev->netns_cookie, 0);
		return;
	}
	if (bpftune_tunable_get(t, 0, ev, &cur) != 1)
		return;
	used = rt_in_use(e->routes, e->dst_entries);
	v = rt_shrink_decide(cur, used, n->orig, bpftune_learning_rate(), &want);
	decide(t, ev, ROUTE_TABLE_EMPTYING, cur, n->orig, rt_verdict_action(v));
	if (v != RT_LOWER) {
		if (v == RT_BACK)
			bpftune_netns_table_remove(t, n->ns.cookie);
		return;
	}
	snprintf(reason, sizeof(reason), "%ld of max_size %ld in use: back towards %ld",
		 used, cur, n->orig);
	err = bpftune_tunable_set(t, 0, ev, ROUTE_TABLE_EMPTYING,
				  &want, 1, reason);
	if (err < 0)
		return;
	if (s->stop_cookie == n->map_key)
		s->stop_at = -1;
	if (want <= n->orig)
		bpftune_netns_table_remove(t, n->ns.cookie);
	else
		grown_set(s, n->map_key, want);
}

/* Does this kernel still enforce max_size (before 6.3)? */
static bool kernel_enforces(void)
{
	struct utsname u;

	return uname(&u) || rt_kernel_enforces(u.release);
}

static int route_table_init(struct bpftune_tuner *t, void *priv)
{
	struct rt_state *s = priv;
	long cur;
	int err;

	/* IPv6 disabled: no max_size to tune */
	err = bpftune_proc_sysctl(NULL, tunables[0].name, &cur, 1);
	if (err != 1)
		return err < 0 ? err : -EINVAL;
	s->tuner = t;
	s->grown_fd = bpf_map__fd(BPFTUNE_SKEL_MAP(t, route_table_tuner_bpf, grown));
	bpftune_log(LOG_INFO, "tuner route_table: caps: net.ipv6.route.max_size at most %ld; %s",
		    ROUTE_HARD_CAP, kernel_enforces() ?
		    "this kernel drops IPv6 packets past it" :
		    "this kernel (6.3+) no longer enforces it: only values set below what is in use are raised");
	return 0;
}

static const struct bpftune_scenario_desc scenarios[] = {
	[ROUTE_TABLE_NEAR_FULL] = {
		.name = "IPv6 route table near max_size",
		.description = "IPv6 routes or dst cache entries came within delta of net.ipv6.route.max_size",
		.payload_size = sizeof(struct route_table_event),
		.handle = near_full,
	},
	[ROUTE_TABLE_EMPTYING] = {
		.name = "IPv6 route table emptied",
		.description = "a max_size we raised sees a quarter of it in use: step back towards its original value",
		.payload_size = sizeof(struct route_table_event),
		.handle = emptying,
	},
};

/*
 * A netns gone or taken over by the admin: the library frees its entry,
 * release() tells the BPF side.  At MAX_NETNS nothing is recycled: a
 * netns without an entry is not grown.
 */
BPFTUNE_TUNER(route_table_tuner_bpf,
	.name = "route_table",
	.description = "IPv6 route table size limit (net.ipv6.route.max_size), per netns: grown near full, shrunk when empty",
	BPFTUNE_TUNABLES(tunables),
	BPFTUNE_SCENARIOS(scenarios),
	.priv_size = sizeof(struct rt_state),
	.netns = {
		.size = sizeof(struct rt_netns), .max = MAX_NETNS,
		.release = netns_release,
	},
	.init = route_table_init,
	.telemetry = &route_table_telemetry);
