/* SPDX-License-Identifier: GPL-2.0-only */
/* ip_frag tuner: types shared by ip_frag_tuner.bpf.c and .c */
#ifndef BPFTUNE_IP_FRAG_TUNER_H
#define BPFTUNE_IP_FRAG_TUNER_H

enum ip_frag_scenario {
	IP_FRAG_NEAR_THRESH,	/* reassembly memory near high_thresh (BPF) */
	/* decided in userspace only */
	IP_FRAG_FLOOD,		/* growth brought more failures: step back */
	IP_FRAG_SHRINK,		/* reassembly memory low for a while */
	IP_FRAG_NUM_SCENARIOS,
};

enum ip_frag_family {
	IP_FRAG_V4,
	IP_FRAG_V6,
};

/* Event payload */
struct ip_frag_event {
	__s64 mem;		/* bytes held by reassembly in the netns */
	__s64 high_thresh;
	__s64 low_thresh;
	__u32 family;		/* enum ip_frag_family */
	__u32 pad;
};

#endif
