/* SPDX-License-Identifier: GPL-2.0-only */
/* udp_buffer tuner: types shared by udp_buffer_tuner.bpf.c and .c */
#ifndef BPFTUNE_UDP_BUFFER_TUNER_H
#define BPFTUNE_UDP_BUFFER_TUNER_H

/* Scenarios: the first ones are also the ids of the BPF side's events. */
enum udp_buffer_scenario {
	UDP_BUFFER_RCVBUF_FULL,		/* a socket dropped: receive buffer full */
	UDP_BUFFER_MEM_EXHAUSTED,	/* the kernel refused UDP memory (udp_mem) */
	/* decided in userspace only */
	UDP_BUFFER_SHRINK,		/* no drops for a while: give memory back */
	UDP_BUFFER_NUM_SCENARIOS,
};

/* Event payload (at most BPFTUNE_PAYLOAD_LEN bytes). */
struct udp_buffer_event {
	__s64 udp_mem[3];	/* udp_mem seen by the hook (pages) */
	__s64 allocated;	/* pages UDP holds */
	__s32 rcvbuf;		/* the socket's sk_rcvbuf */
	__s32 rmem_alloc;	/* bytes queued on it */
	__s32 rc;		/* enqueue error: -ENOMEM buffer, -ENOBUFS memory */
	__u16 port;		/* local port */
	__u16 family;
};

#endif
