// SPDX-License-Identifier: GPL-2.0-only
/*
 * route_table tuner, BPF side.  One tracepoint: fib6:fib6_table_lookup,
 * sampled (it fires for every IPv6 FIB lookup, and when a route with a
 * gateway is added).  In the netns of the lookup it compares the routes
 * in the IPv6 FIB and the dst cache entries with net.ipv6.route.max_size,
 * and reports:
 *  - either of them within delta of max_size (the same max_size in the
 *    same netns at most every REPEAT_GAP_NS);
 *  - a max_size userspace raised (map grown) that sees a quarter of it in
 *    use or less, at most every EMPTY_GAP_NS per netns, so it can shrink.
 */
#include <bpftune/bpftune.bpf.h>
#include "route_table_tuner.h"

#define REPEAT_GAP_NS	(100 * 1000 * 1000ULL)
#define EMPTY_GAP_NS	(500 * 1000 * 1000ULL)

struct bpftune_sampler lookup_sampler;

struct bpftune_last_report near_last;

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);	/* netns cookie */
	__type(value, struct route_table_grown);
} grown SEC(".maps");

static __always_inline int report(__u32 scenario, __u64 cookie, struct net *net,
				  __s64 max_size, __s64 dst, __s64 routes)
{
	struct route_table_event *e;
	struct bpftune_event *ev;

	ev = bpftune_event_reserve(scenario, cookie);
	if (!ev)
		return 0;
	ev->payload_len = sizeof(*e);
	e = (struct route_table_event *)ev->payload;
	__builtin_memset(e, 0, sizeof(*e));
	e->max_size = max_size;
	e->dst_entries = dst;
	e->routes = routes;
	e->gc_thresh = BPF_CORE_READ(net, ipv6.ip6_dst_ops.gc_thresh);
	bpftune_event_submit(ev);
	return 0;
}

BPFTUNE_TP(lookup, fib6_table_lookup, const struct net *cnet,
	   const struct fib6_result *res, struct fib6_table *table,
	   const struct flowi6 *flp)
{
	struct net *net = (struct net *)cnet;
	struct route_table_grown *g;
	__s64 max_size, dst, routes, used;
	__u64 cookie, now;

	if (!net || !bpftune_sample(&lookup_sampler))
		return 0;
	max_size = BPF_CORE_READ(net, ipv6.sysctl.ip6_rt_max_size);
	if (max_size <= 0)
		return 0;
	dst = BPF_CORE_READ(net, ipv6.ip6_dst_ops.pcpuc_entries.count);
	routes = BPF_CORE_READ(net, ipv6.rt6_stats, fib_rt_entries);
	if (dst < 0)
		dst = 0;
	used = dst > routes ? dst : routes;
	cookie = bpftune_net_cookie(net);
	now = bpf_ktime_get_ns();
	if (bpftune_near_limit(used, max_size)) {
		/* userspace acts on the first report of this max_size */
		if (bpftune_repeated(&near_last, cookie, max_size, REPEAT_GAP_NS))
			return 0;
		return report(ROUTE_TABLE_NEAR_FULL, cookie, net, max_size, dst,
			      routes);
	}
	g = bpf_map_lookup_elem(&grown, &cookie);
	if (!g || g->max_size != max_size ||
	    (__u64)used > (__u64)max_size / 4 || now - g->last_ns < EMPTY_GAP_NS)
		return 0;
	g->last_ns = now;
	return report(ROUTE_TABLE_EMPTYING, cookie, net, max_size, dst, routes);
}
