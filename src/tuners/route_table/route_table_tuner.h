/* SPDX-License-Identifier: GPL-2.0-only */
/* route_table tuner: types shared by route_table_tuner.bpf.c and .c */
#ifndef BPFTUNE_ROUTE_TABLE_TUNER_H
#define BPFTUNE_ROUTE_TABLE_TUNER_H

/* Scenarios; both are also ids of the BPF side's events. */
enum route_table_scenario {
	ROUTE_TABLE_NEAR_FULL,	/* routes or cached dsts within delta of max_size */
	ROUTE_TABLE_EMPTYING,	/* max_size we grew, a quarter of it used */
	ROUTE_TABLE_NUM_SCENARIOS,
};

/* Event payload (at most BPFTUNE_PAYLOAD_LEN bytes). */
struct route_table_event {
	__s64 max_size;		/* net.ipv6.route.max_size of the netns */
	__s64 dst_entries;	/* IPv6 dst cache entries (approximate) */
	__s64 routes;		/* routes in the netns' IPv6 FIB */
	__u32 gc_thresh;	/* net.ipv6.route.gc_thresh */
	__u32 pad;
};

/* Map grown, per netns cookie: a max_size userspace raised. */
struct route_table_grown {
	__s64 max_size;		/* the value it set */
	__u64 last_ns;		/* last shrink report */
};

#endif
