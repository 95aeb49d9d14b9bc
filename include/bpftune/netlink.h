/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tuner kit: rtnetlink at the level of objects -- links and their
 * statistics, addresses, neighbours and neighbour tables -- in the network
 * namespace of an event, on libnl-route-3.  A plugin needs neither libnl
 * nor its headers: the library links it.
 *
 * Contract:
 *  - bpftune_nl_open(@event) opens a NETLINK_ROUTE socket in the event's
 *    netns (a socket belongs to the netns it was opened in); NULL opens it
 *    in the calling thread's current netns: the daemon's own, or the
 *    tunable's inside a bpftune_tunable_set_writer() writer.  Close it
 *    before the event or timer callback returns.
 *  - Replies are awaited at most BPFTUNE_NL_TIMEOUT_MS: the callbacks run
 *    in the daemon's only thread.
 *  - Walkers call @fn once per object, in the kernel's order, and stop
 *    early when it returns non-zero (that value is returned).  They return
 *    0 or -errno.
 */
#ifndef BPFTUNE_NETLINK_H
#define BPFTUNE_NETLINK_H

#include <stdbool.h>
#include <stdint.h>
#include <bpftune/bpftune.h>

#pragma GCC visibility push(default)

#define BPFTUNE_NL_TIMEOUT_MS	1000
#define BPFTUNE_IFNAMSIZ	16

struct bpftune_nl;

struct bpftune_nl *bpftune_nl_open(const struct bpftune_event *event);
void bpftune_nl_close(struct bpftune_nl *nl);

/* A link and its counters, with the sums /proc/net/dev shows. */
struct bpftune_link {
	int ifindex;
	char name[BPFTUNE_IFNAMSIZ];
	unsigned int flags;		/* IFF_UP, IFF_LOOPBACK, IFF_NOARP... */
	uint64_t rx_bytes, rx_packets, rx_errors;
	uint64_t rx_dropped;		/* dropped + missed */
	uint64_t rx_fifo_errors;
	uint64_t rx_frame_errors;	/* length + over + crc + frame */
	uint64_t rx_compressed, multicast;
	uint64_t tx_bytes, tx_packets, tx_errors, tx_dropped;
	uint64_t tx_fifo_errors, collisions;
	uint64_t tx_carrier_errors;	/* carrier + aborted + window + heartbeat */
	uint64_t tx_compressed;
};

struct bpftune_addr {
	int family;			/* AF_INET, AF_INET6 */
	int ifindex;
	unsigned int prefixlen;
	int scope;			/* RT_SCOPE_UNIVERSE, RT_SCOPE_HOST... */
};

struct bpftune_neigh {
	int family;
	int ifindex;
	unsigned int state;		/* NUD_REACHABLE, NUD_NOARP... */
};

/* A neighbour table: one per family for every netns (arp_cache, ndisc_cache). */
struct bpftune_neigh_table {
	int family;
	char name[32];
	long thresh[3];			/* gc_thresh1..3 */
	long entries;			/* entries now, all netns */
};

typedef int (*bpftune_link_fn)(const struct bpftune_link *link, void *ctx);
typedef int (*bpftune_addr_fn)(const struct bpftune_addr *addr, void *ctx);
typedef int (*bpftune_neigh_fn)(const struct bpftune_neigh *neigh, void *ctx);

int bpftune_nl_links(struct bpftune_nl *nl, bpftune_link_fn fn, void *ctx);
/* addresses of @family (AF_UNSPEC: all) */
int bpftune_nl_addrs(struct bpftune_nl *nl, int family, bpftune_addr_fn fn,
		     void *ctx);
/* neighbours of @family (AF_UNSPEC: all) */
int bpftune_nl_neighs(struct bpftune_nl *nl, int family, bpftune_neigh_fn fn,
		      void *ctx);
/* the table of @family (AF_INET: arp_cache, AF_INET6: ndisc_cache) */
int bpftune_nl_neigh_table(struct bpftune_nl *nl, int family,
			   struct bpftune_neigh_table *table);
/*
 * Set gc_thresh@which (1..3) of the table of @family to @value
 * (RTM_SETNEIGHTBL; needs CAP_NET_ADMIN: call it from a tunable writer).
 */
int bpftune_nl_neigh_table_set(struct bpftune_nl *nl, int family,
			       unsigned int which, long value);

#pragma GCC visibility pop

#endif /* BPFTUNE_NETLINK_H */
