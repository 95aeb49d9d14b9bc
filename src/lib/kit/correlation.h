/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The correlation windows' table, keyed by (tuner id, slot, netns): the
 * library's side of <bpftune/correlation.h>.  Unit-tested in
 * test/unit/test_correlation.c.
 */
#ifndef BPFTUNE_KIT_CORRELATION_H
#define BPFTUNE_KIT_CORRELATION_H

#include <bpftune/correlation.h>
#include <bpftune/libbpftune.h>

struct bpftune_corr_key {
	uint32_t tuner_id;
	uint32_t tunable;
	uint64_t netns_cookie;
};

/*
 * The window for @key, created empty if absent (NULL if out of memory).
 * With BPFTUNE_CORR_MAX windows in use, the least recently used one is
 * recycled.
 */
struct bpftune_corr *bpftune_corr_get(const struct bpftune_corr_key *key);
/* the window for @key if it exists, else NULL; does not create */
struct bpftune_corr *bpftune_corr_find(const struct bpftune_corr_key *key);
/*
 * Forget the windows of @tuner_id in @netns_cookie, or in every netns
 * when @all_netns (the tuner stopped everywhere, or is unloading).
 * Returns how many were freed.
 */
unsigned int bpftune_corr_forget(uint32_t tuner_id, uint64_t netns_cookie,
				 bool all_netns);
/*
 * A tuner's state changed in netns @netns_cookie (@global: the initial
 * netns): stopped or gone there, its windows there are forgotten;
 * stopped by the admin in the global netns, all of them.  Active again:
 * nothing.  Returns how many were freed.
 */
unsigned int bpftune_corr_forget_state(uint32_t tuner_id, uint64_t netns_cookie,
				       bool global, enum bpftune_state state);
unsigned int bpftune_corr_count(void);

#endif /* BPFTUNE_KIT_CORRELATION_H */
