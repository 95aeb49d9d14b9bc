// SPDX-License-Identifier: GPL-2.0-only
/*
 * A plugin's correlation windows (bpftune_corr_for()): kept in the table
 * of correlation.c per plugin, slot and netns, and forgotten through the
 * observer bus, which the core publishes to: all of a plugin's when it
 * goes (or fails to start), those of a netns when the plugin stops there,
 * the netns goes or the plugin's entry for it is recycled, everywhere when
 * the admin stops it in the global netns.
 */
#include <stdbool.h>

#include "core/internal.h"
#include "core/observer.h"
#include "kit/correlation.h"

static void corr_tuner_removed(const struct bpftune_tuner *t)
{
	bpftune_corr_forget(t->id, 0, true);
}

static void corr_netns_entry_freed(const struct bpftune_tuner *t,
				   uint64_t netns_cookie)
{
	bpftune_corr_forget(t->id, netns_cookie, false);
}

static void corr_state(const struct bpftune_tuner *t, uint64_t netns_cookie,
		       enum bpftune_state state, const char *cause)
{
	(void)cause;
	bpftune_corr_forget_state(t->id, netns_cookie,
				  bpftune_netns_is_global(netns_cookie), state);
}

static struct bpftune_observer corr_observer = {
	.tuner_removed = corr_tuner_removed,
	.netns_entry_freed = corr_netns_entry_freed,
	.state = corr_state,
};

struct bpftune_corr *bpftune_corr_for(struct bpftune_tuner *t,
				      unsigned int slot, uint64_t cookie)
{
	struct bpftune_corr_key key = {
		.tuner_id = t->id, .tunable = slot,
		.netns_cookie = bpftune_netns_is_global(cookie) ? 0 : cookie,
	};
	static bool subscribed;

	/* no window exists before the first one asked for */
	if (!subscribed) {
		bpftune_observer_add(&corr_observer);
		subscribed = true;
	}
	return bpftune_corr_get(&key);
}
