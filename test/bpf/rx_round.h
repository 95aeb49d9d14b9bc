/* SPDX-License-Identifier: GPL-2.0-only */
/* rx_round: what the watcher reports of the NET_RX rounds of one CPU */
#ifndef RX_ROUND_H
#define RX_ROUND_H

struct rx_round_stats {
	__u64 rounds;		/* NET_RX softirq rounds seen on the CPU */
	__u64 long_rounds;	/* of them, >= long_ns with >= 2 polls */
	__u64 max_ns;		/* the longest round with >= 2 polls */
	__u32 max_polls;	/* its NAPI polls */
	__u32 max_work;		/* its packets */
};

#endif
