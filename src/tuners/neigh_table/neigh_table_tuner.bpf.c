// SPDX-License-Identifier: GPL-2.0-only
/*
 * neigh_table tuner, BPF side.  Two tracepoints only:
 *  - neigh:neigh_create: a neighbour entry was allocated, or refused
 *    because the table is full.  Reports a table whose gc-counted entries
 *    come within delta of gc_thresh3, and refusals (rate-limited).
 *  - neigh:neigh_cleanup_and_release: an entry left the table.  Reports a
 *    table a quarter full or less once userspace has grown its thresholds
 *    (map grown), so they can shrink again.
 * The neighbour tables are global: one arp_cache and one ndisc_cache for
 * every netns, with gc_thresh1-3 shared by all.  Userspace decides.
 */
#include <bpftune/bpftune.bpf.h>
#include "neigh_table_tuner.h"

#ifndef AF_INET
#define AF_INET		2
#define AF_INET6	10
#endif

/* refusals: at most one report per family this often */
#define FULL_GAP_NS	(50 * 1000 * 1000ULL)
/* the same gc_thresh3 reported again after this long */
#define REPEAT_GAP_NS	(100 * 1000 * 1000ULL)
/* shrink candidates: at most one report per family this often */
#define EMPTY_GAP_NS	(500 * 1000 * 1000ULL)

struct bpftune_sampler create_sampler;
struct bpftune_sampler release_sampler;

__u64 full_ns[NEIGH_TABLE_NUM];
__u64 empty_ns[NEIGH_TABLE_NUM];
/* the tables are global: cookie 0 */
struct bpftune_last_report near_last[NEIGH_TABLE_NUM];

/* per family: nonzero while thresholds are above what they were */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, NEIGH_TABLE_NUM);
	__type(key, __u32);
	__type(value, __u32);
} grown SEC(".maps");

static __always_inline int family_index(int family)
{
	if (family == AF_INET)
		return NEIGH_TABLE_ARP;
	if (family == AF_INET6)
		return NEIGH_TABLE_ND;
	return -1;
}

static __always_inline __u64 dev_cookie(struct net_device *dev)
{
	return bpftune_net_cookie(BPF_CORE_READ(dev, nd_net.net));
}

static __always_inline int gap_passed(__u64 *last, __u64 gap)
{
	__u64 now = bpf_ktime_get_ns();

	if (now - *last < gap)
		return 0;
	*last = now;
	return 1;
}

static __always_inline int report(__u32 scenario, struct neigh_table *tbl,
				  struct net_device *dev, int created)
{
	struct neigh_table_event *e;
	struct bpftune_event *ev;

	ev = bpftune_event_reserve(scenario, dev_cookie(dev));
	if (!ev)
		return 0;
	ev->payload_len = sizeof(*e);
	e = (struct neigh_table_event *)ev->payload;
	__builtin_memset(e, 0, sizeof(*e));
	e->family = BPF_CORE_READ(tbl, family);
	e->ifindex = BPF_CORE_READ(dev, ifindex);
	e->entries = BPF_CORE_READ(tbl, entries.counter);
	e->gc_entries = BPF_CORE_READ(tbl, gc_entries.counter);
	e->thresh[0] = BPF_CORE_READ(tbl, gc_thresh1);
	e->thresh[1] = BPF_CORE_READ(tbl, gc_thresh2);
	e->thresh[2] = BPF_CORE_READ(tbl, gc_thresh3);
	e->created = created;
	bpf_core_read_str(e->dev, sizeof(e->dev), &dev->name);
	bpftune_event_submit(ev);
	return 0;
}

BPFTUNE_TP(create, neigh_create, struct neigh_table *tbl,
	   struct net_device *dev, const void *pkey,
	   const struct neighbour *n, bool exempt_from_gc)
{
	int family = BPF_CORE_READ(tbl, family);
	int i = family_index(family);
	__s32 gc_entries, thresh3;

	if (i < 0 || !dev)
		return 0;
	if (!n) {
		/* refused: the table is full; always worth a look */
		if (gap_passed(&full_ns[i & 1], FULL_GAP_NS))
			report(NEIGH_TABLE_FULL, tbl, dev, 0);
		return 0;
	}
	if (!bpftune_sample(&create_sampler))
		return 0;
	gc_entries = BPF_CORE_READ(tbl, gc_entries.counter);
	thresh3 = BPF_CORE_READ(tbl, gc_thresh3);
	if (gc_entries < 0 || thresh3 <= 0 ||
	    !bpftune_near_limit(gc_entries, thresh3))
		return 0;
	/* userspace acts on the first report of a gc_thresh3 */
	if (bpftune_repeated(&near_last[i & 1], 0, thresh3, REPEAT_GAP_NS))
		return 0;
	return report(NEIGH_TABLE_NEAR_FULL, tbl, dev, 1);
}

BPFTUNE_TP(release, neigh_cleanup_and_release, struct neighbour *neigh,
	   int rc)
{
	struct neigh_table *tbl = BPF_CORE_READ(neigh, tbl);
	struct net_device *dev = BPF_CORE_READ(neigh, dev);
	int family = BPF_CORE_READ(tbl, family);
	int i = family_index(family);
	__u32 key, *g;
	__s32 gc_entries, thresh3;

	if (i < 0 || !dev)
		return 0;
	key = i;
	g = bpf_map_lookup_elem(&grown, &key);
	if (!g || !*g || !bpftune_sample(&release_sampler))
		return 0;
	gc_entries = BPF_CORE_READ(tbl, gc_entries.counter);
	thresh3 = BPF_CORE_READ(tbl, gc_thresh3);
	if (gc_entries < 0 || thresh3 <= 0 ||
	    (__u32)gc_entries > (__u32)thresh3 / 4 ||
	    !gap_passed(&empty_ns[i & 1], EMPTY_GAP_NS))
		return 0;
	return report(NEIGH_TABLE_EMPTYING, tbl, dev, 1);
}
