/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tcp_buffer, userspace side: the state its scenario files share.
 *   tcp_buffer_tuner.c    descriptor, dispatch, per-netns table, timer
 *   tcp_buffer_buffers.c  tcp_rmem/tcp_wmem max, latency guard, autotuning
 *   tcp_buffer_mem.c      tcp_mem and low-memory mode
 *   tcp_buffer_syn.c      SYN backlog and syncookies
 *   tcp_buffer_policy.c   the decisions, as pure functions
 */
#ifndef BPFTUNE_TCP_BUFFER_H
#define BPFTUNE_TCP_BUFFER_H

#include <stdbool.h>
#include <stdint.h>
#include <bpftune/libbpftune.h>

#include "tcp_buffer_tuner.h"
#include "tcp_buffer_policy.h"

enum tcp_buffer_tunable {
	TB_RMEM,
	TB_WMEM,
	TB_MEM,
	TB_NO_METRICS_SAVE,
	TB_NO_SSTHRESH_SAVE,
	TB_HIGH_ORDER_OFF,
	TB_MODERATE_RCVBUF,
	TB_MAX_SYN_BACKLOG,
	TB_SYNCOOKIES,
	TB_NUM_TUNABLES,
};

/* inputs of grow-near-limit and latency-guard (tcp_buffer_tables.c) */
enum tb_buf_input {
	TB_IN_BUFFER, TB_IN_EVENT_MAX, TB_IN_LIVE_MAX, TB_IN_RTT_US,
	TB_IN_MIN_RTT_US, TB_IN_RATE_KBPS, TB_IN_BDP, TB_IN_RCV_WND,
	TB_IN_RCV_WSCALE, TB_IN_TCP_PAGES, TB_IN_TCP_MEM1, TB_IN_PRESSURE,
	TB_IN_GUARD_R, TB_IN_GUARD_RISE, TB_IN_GUARD_SAMPLES, TB_IN_GUARD_GAIN,
	TB_BUF_NUM_INPUTS,
};

#define TB_BUF_CAP		(64L << 20)
#define TB_SYN_BACKLOG_CAP	65536
/* the timer runs while something waits to be undone */
#define TB_TIMER_PERIOD_MS	1000

/* One network namespace. */
struct tb_netns {
	struct bpftune_netns_priv ns;	/* cookie, pid, last use */
	struct tb_guard guard[2];	/* TB_RMEM, TB_WMEM */
	/* low-memory mode; saved values are -1 when we did not change them */
	bool lowmem;
	long saved_max[2];
	long rmem_bdp;		/* the last BDP a receiver here measured (bytes) */
	uint16_t wscale_told;	/* receivers' window scales logged as binding */
	long saved_no_metrics, saved_no_ssthresh;
	uint64_t last_shrink_ms;
	/* SYN queue */
	bool have_syn;
	struct tb_syn_counters syn;
	uint64_t syn_eval_ms;
	unsigned int flood_votes;	/* evaluations in a row that saw a flood */
	long syncookies_saved;	/* -1: we did not switch them */
	uint64_t busy_ms;	/* last cookie sent, request stalled or queue report */
};

/* The tuner's private state (ops->priv_size, allocated by the library). */
struct tb_state {
	struct bpftune_tuner *tuner;
	int syn_map_fd;
	long mem_cap;		/* tcp_mem's cap in pages */
	/* global part of low-memory mode */
	bool lowmem;
	long saved_high_order;
	unsigned int calm_checks;
	long undone_at;		/* TCP pages at the last undo (tb_mem_in) */
};

/* tcp_buffer_tuner.c */
/* something of ours to undo in @n: it is not recycled, the timer runs */
bool tb_netns_pending(const struct tb_netns *n);
void tb_timer_update(struct tb_state *s);
int tb_set1(struct tb_state *s, const struct bpftune_event *ev,
	    unsigned int tunable, unsigned int scenario, long value,
	    const char *reason);

/* The scenarios' event handlers (struct bpftune_scenario_desc.handle). */
/* tcp_buffer_buffers.c: TCP_BUFFER_RMEM_NEAR_MAX, TCP_BUFFER_WMEM_NEAR_MAX */
void tb_buffer_near_max(struct bpftune_tuner *t, void *priv,
			const struct bpftune_event *ev);
/* tcp_buffer_buffers.c: TCP_BUFFER_RCVBUF_NO_AUTOTUNE */
void tb_rcvbuf_no_autotune(struct bpftune_tuner *t, void *priv,
			   const struct bpftune_event *ev);
/* tcp_buffer_mem.c: TCP_BUFFER_MEM_PRESSURE, TCP_BUFFER_MEM_EXHAUSTED */
void tb_memory_event(struct bpftune_tuner *t, void *priv,
		     const struct bpftune_event *ev);
/* tcp_buffer_syn.c: TCP_BUFFER_SYN_QUEUE */
void tb_syn_queue(struct bpftune_tuner *t, void *priv,
		  const struct bpftune_event *ev);

/* the timer: undo low-memory mode once the pressure is gone */
void tb_mem_timer(struct tb_state *s);
/* the timer: syncookies we turned on go back once the flood is over */
void tb_syn_timer(struct tb_state *s);

#endif /* BPFTUNE_TCP_BUFFER_H */
