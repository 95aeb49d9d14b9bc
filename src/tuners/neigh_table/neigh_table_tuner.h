/* SPDX-License-Identifier: GPL-2.0-only */
/* neigh_table tuner: types shared by neigh_table_tuner.bpf.c and .c */
#ifndef BPFTUNE_NEIGH_TABLE_TUNER_H
#define BPFTUNE_NEIGH_TABLE_TUNER_H

/* Scenarios; all three are also ids of the BPF side's events. */
enum neigh_table_scenario {
	NEIGH_TABLE_NEAR_FULL,	/* gc-counted entries within delta of gc_thresh3 */
	NEIGH_TABLE_FULL,	/* the kernel refused a new neighbour */
	NEIGH_TABLE_EMPTYING,	/* thresholds we grew, table a quarter full */
	NEIGH_TABLE_NUM_SCENARIOS,
};

/* index into the grown map: one neighbour table per family */
enum neigh_table_family {
	NEIGH_TABLE_ARP,	/* AF_INET, arp_cache */
	NEIGH_TABLE_ND,		/* AF_INET6, ndisc_cache */
	NEIGH_TABLE_NUM,
};

#define NEIGH_TABLE_IFNAMSIZ	16

/* Event payload (at most BPFTUNE_PAYLOAD_LEN bytes). */
struct neigh_table_event {
	__s32 family;		/* AF_INET or AF_INET6 */
	__s32 ifindex;		/* device of the neighbour */
	__s32 entries;		/* every entry of the table, all netns */
	__s32 gc_entries;	/* entries counted against gc_thresh3 */
	__s32 thresh[3];	/* gc_thresh1..3 */
	__u8 created;		/* 0: the kernel refused the entry */
	__u8 pad[3];
	char dev[NEIGH_TABLE_IFNAMSIZ];
};

#endif
