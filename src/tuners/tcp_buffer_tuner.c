// SPDX-License-Identifier: GPL-2.0-only
/*
 * tcp_buffer tuner: TCP buffer limits, TCP memory and the SYN queue.
 *
 *  - tcp_rmem[2] / tcp_wmem[2] (per netns): raised by delta when a socket's
 *    buffer comes within delta of them, in the netns where it happened,
 *    unless TCP memory is under pressure or the latency guard holds them.
 *  - Latency guard: every raise adds (max, mean RTT seen at that max) to a
 *    correlation window kept per tuner, tunable and netns, and (max, mean
 *    throughput) to another.  When RTT rises with the max (Pearson r and a
 *    real rise) while throughput does not, step back one raise and hold:
 *    more buffer was buying only queueing delay.
 *  - tcp_mem (global): grown by delta near the pressure threshold, up to
 *    what TCP holds plus a quarter of available memory, capped at a
 *    quarter of RAM.  When the kernel refuses TCP socket memory, or
 *    tcp_mem cannot grow, TCP is really short: low-memory mode (metrics
 *    saving off, order-0 skb pages, buffer maxima shrunk), undone once the
 *    pressure is gone (checked every second while the mode lasts).
 *  - tcp_moderate_rcvbuf: switched back on for a receiver that is limited
 *    by its fixed buffer while autotuning is off.
 *  - tcp_max_syn_backlog / tcp_syncookies: the backlog grows when SYNs are
 *    dropped past 3/4 of it and the handshakes complete; a flood (requests
 *    that stall, confirmed twice) never grows it, and turns syncookies on
 *    if they were off, until the flood has been over for a while.
 *
 * This file holds the descriptor, the dispatch, the per-netns table and
 * the timer; the scenarios are in tcp_buffer_{buffers,mem,syn}.c and
 * their decisions in tcp_buffer_policy.c (see tcp_buffer.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "core/internal.h"
#include "kit/correlation.h"
#include "tcp_buffer.h"
#include "tcp_buffer_tuner.skel.h"
#include "tcp_buffer_tuner.legacy.skel.h"

#define MAX_NETNS		1024

/* not const: init() sets the tcp_mem cap from this machine's RAM */
static struct bpftune_tunable_desc tunables[] = {
	[TB_RMEM] = {
		.name = "net.ipv4.tcp_rmem", .flags = BPFTUNE_TUNABLE_NAMESPACED,
		.num_values = 3, .min = 4096, .max = TB_BUF_CAP,
		.cap_reason = "64 MiB per socket fills a 10 Gbit/s path with a 50 ms "
			      "RTT; more only lets one socket pin memory that tcp_mem "
			      "shares among all of them",
	},
	[TB_WMEM] = {
		.name = "net.ipv4.tcp_wmem", .flags = BPFTUNE_TUNABLE_NAMESPACED,
		.num_values = 3, .min = 4096, .max = TB_BUF_CAP,
		.cap_reason = "64 MiB per socket fills a 10 Gbit/s path with a 50 ms "
			      "RTT; more is unsent data queued in the kernel",
	},
	[TB_MEM] = {
		.name = "net.ipv4.tcp_mem", .num_values = 3, .min = 1,
		.max = 1L << 20,	/* replaced by a quarter of RAM in init() */
		.cap_reason = "a quarter of RAM (in pages): TCP must not be able to "
			      "starve the rest of the system",
	},
	[TB_NO_METRICS_SAVE] = {
		.name = "net.ipv4.tcp_no_metrics_save",
		.flags = BPFTUNE_TUNABLE_NAMESPACED, .num_values = 1,
		.min = 0, .max = 1, .cap_reason = "boolean",
	},
	[TB_NO_SSTHRESH_SAVE] = {
		.name = "net.ipv4.tcp_no_ssthresh_metrics_save",
		.flags = BPFTUNE_TUNABLE_NAMESPACED, .num_values = 1,
		.min = 0, .max = 1, .cap_reason = "boolean",
	},
	[TB_HIGH_ORDER_OFF] = {
		.name = "net.core.high_order_alloc_disable", .num_values = 1,
		.min = 0, .max = 1, .cap_reason = "boolean",
	},
	[TB_MODERATE_RCVBUF] = {
		.name = "net.ipv4.tcp_moderate_rcvbuf",
		.flags = BPFTUNE_TUNABLE_NAMESPACED, .num_values = 1,
		.min = 0, .max = 1, .cap_reason = "boolean",
	},
	[TB_MAX_SYN_BACKLOG] = {
		.name = "net.ipv4.tcp_max_syn_backlog",
		.flags = BPFTUNE_TUNABLE_NAMESPACED, .num_values = 1,
		.min = 128, .max = TB_SYN_BACKLOG_CAP,
		.cap_reason = "64K half-open requests per listener is ~20 MB of "
			      "request socks; a longer queue only holds flood "
			      "traffic, which syncookies handle without state",
	},
	[TB_SYNCOOKIES] = {
		.name = "net.ipv4.tcp_syncookies",
		.flags = BPFTUNE_TUNABLE_NAMESPACED, .num_values = 1,
		.min = 0, .max = 2, .cap_reason = "0 off, 1 when the queue is full, 2 always",
	},
};

static const struct bpftune_scenario_desc scenarios[] = {
	[TCP_BUFFER_RMEM_NEAR_MAX] = {
		"receive buffer near tcp_rmem max",
		"receive autotuning grew a socket's buffer within delta of tcp_rmem[2]",
	},
	[TCP_BUFFER_WMEM_NEAR_MAX] = {
		"send buffer near tcp_wmem max",
		"a sender's buffer grew within delta of tcp_wmem[2]",
	},
	[TCP_BUFFER_MEM_PRESSURE] = {
		"TCP memory near pressure",
		"memory held by TCP came within delta of tcp_mem[1]",
	},
	[TCP_BUFFER_MEM_EXHAUSTED] = {
		"TCP memory exhausted",
		"the kernel refused TCP socket memory at the tcp_mem hard limit",
	},
	[TCP_BUFFER_RCVBUF_NO_AUTOTUNE] = {
		"receive autotuning off",
		"a receiver is limited by its fixed buffer while tcp_moderate_rcvbuf is 0",
	},
	[TCP_BUFFER_SYN_QUEUE] = {
		"SYN queue near its limit",
		"a listener's half-open queue is near where the kernel drops SYNs",
	},
	[TCP_BUFFER_MEM_RECOVERED] = {
		"TCP memory pressure gone",
		"TCP memory fell below the pressure threshold: low-memory mode undone",
	},
	[TCP_BUFFER_LATENCY_GUARD] = {
		"buffer growth raised latency",
		"RTT rose together with the buffer maximum: step back and hold",
	},
	[TCP_BUFFER_SYN_FLOOD] = {
		"SYN flood",
		"SYNs are not turning into connections",
	},
	[TCP_BUFFER_SYN_FLOOD_OVER] = {
		"SYN flood over",
		"syncookies we turned on have not been used for a while",
	},
};

static struct tb_state *state;

/* ---- per-netns state ---------------------------------------------------- */

bool tb_netns_pending(const struct tb_netns *n)
{
	return n->lowmem || n->syncookies_saved >= 0;
}

/* something of ours to undo there: not to be recycled */
static bool netns_busy(const struct bpftune_netns_priv *p)
{
	return tb_netns_pending((const struct tb_netns *)p);
}

static void netns_init(struct bpftune_netns_priv *p)
{
	struct tb_netns *n = (void *)p;

	n->saved_max[0] = n->saved_max[1] = -1;
	n->saved_no_metrics = n->saved_no_ssthresh = -1;
	n->syncookies_saved = -1;
}

/* a recycled netns: its correlation windows go with it */
static void netns_release(struct bpftune_tuner *t, struct bpftune_netns_priv *p)
{
	bpftune_corr_forget(t->id, p->cookie, false);
}

static const struct bpftune_netns_table_ops netns_ops = {
	.size = sizeof(struct tb_netns),
	.max = MAX_NETNS,
	.init = netns_init,
	.busy = netns_busy,
	.release = netns_release,
};

/* ---- shared by the scenarios -------------------------------------------- */

/* The timer runs only while something waits to be undone. */
void tb_timer_update(struct tb_state *s)
{
	bool want = s->lowmem;
	struct tb_netns *n;

	bpftune_netns_table_for_each(s->tuner, n)
		want |= tb_netns_pending(n);
	if (want != bpftune_timer_armed(s->timer))
		bpftune_timer_set(s->timer, want ? TB_TIMER_PERIOD_MS : 0);
}

int tb_set1(struct tb_state *s, const struct bpftune_event *ev,
	    unsigned int tunable, unsigned int scenario, long value,
	    const char *reason)
{
	return bpftune_tunable_set(s->tuner, tunable, ev, scenario, &value, 1,
				   reason);
}

static void on_timer(void *ctx)
{
	struct tb_state *s = ctx;

	tb_mem_timer(s);
	tb_syn_timer(s);
	tb_timer_update(s);
}

/* ---- plumbing ----------------------------------------------------------- */

static void tcp_buffer_event(struct bpftune_tuner *t,
			     const struct bpftune_event *ev)
{
	const struct tcp_buffer_event *e = (const void *)ev->payload;

	(void)t;
	if (ev->payload_len < sizeof(*e))
		return;
	switch (ev->scenario_id) {
	case TCP_BUFFER_RMEM_NEAR_MAX:
		tb_buffer_near_max(state, ev, e, TB_RMEM);
		break;
	case TCP_BUFFER_WMEM_NEAR_MAX:
		tb_buffer_near_max(state, ev, e, TB_WMEM);
		break;
	case TCP_BUFFER_MEM_PRESSURE:
	case TCP_BUFFER_MEM_EXHAUSTED:
		tb_memory_event(state, ev, e);
		break;
	case TCP_BUFFER_RCVBUF_NO_AUTOTUNE:
		tb_rcvbuf_no_autotune(state, ev, e);
		break;
	case TCP_BUFFER_SYN_QUEUE:
		tb_syn_queue(state, ev, e);
		break;
	default:
		break;
	}
}

/* The tuner stopped in a netns (admin) or the netns is gone: forget it. */
static void on_state(const struct bpftune_tuner *t, uint64_t cookie,
		     enum bpftune_state s, const char *cause)
{
	(void)cause;
	if (!state || t != state->tuner || s == BPFTUNE_STATE_ACTIVE)
		return;
	/* the library has dropped the netns state (all of it if global) */
	if (bpftune_netns_is_global(cookie) && s == BPFTUNE_STATE_MANUAL) {
		/* stopped everywhere: nothing more will be undone */
		state->lowmem = false;
		bpftune_corr_forget(t->id, 0, true);
	} else {
		bpftune_corr_forget(t->id, cookie, false);
	}
	bpftune_log(LOG_DEBUG, "tuner tcp_buffer: state for netns cookie %llu dropped (%s): %u netns tracked, %u correlation windows",
		    (unsigned long long)cookie,
		    s == BPFTUNE_STATE_GONE ? "gone" : "admin took over",
		    bpftune_netns_table_count(t), bpftune_corr_count());
	tb_timer_update(state);
}

static struct bpftune_observer observer = { .state = on_state };

static void tb_free(struct bpftune_tuner *t)
{
	bpftune_timer_free(state->timer);
	bpftune_netns_table_fini(t);
	free(state);
	state = NULL;
}

static int tcp_buffer_init(struct bpftune_tuner *t)
{
	long pages;
	int err;

	state = calloc(1, sizeof(*state));
	if (!state)
		return -ENOMEM;
	state->tuner = t;
	state->saved_high_order = -1;
	pages = bpftune_ram_quarter_pages();
	if (pages > 0)
		tunables[TB_MEM].max = pages;
	state->mem_cap = tunables[TB_MEM].max;
	state->syn_map_fd = bpftune_tuner_map_fd(t, "syn_stats");
	err = bpftune_netns_table_init(t, &netns_ops);
	if (!err) {
		state->timer = bpftune_timer_new(on_timer, state);
		err = state->timer ? 0 : -errno;
	}
	if (err) {
		tb_free(t);
		return err;
	}
	bpftune_observer_add(&observer);
	bpftune_log(LOG_INFO, "tuner tcp_buffer: caps: tcp_rmem/tcp_wmem max %ld bytes, tcp_mem %ld pages (a quarter of RAM), tcp_max_syn_backlog %d",
		    TB_BUF_CAP, tunables[TB_MEM].max, TB_SYN_BACKLOG_CAP);
	return 0;
}

static void tcp_buffer_fini(struct bpftune_tuner *t)
{
	if (!state)
		return;
	if (state->lowmem)
		bpftune_log(LOG_NOTICE, "tuner tcp_buffer: exiting in low-memory mode; its settings stay unless -R restores them");
	bpftune_observer_remove(&observer);
	bpftune_corr_forget(t->id, 0, true);
	tb_free(t);
}

BPFTUNE_TUNER("tcp_buffer",
	      "TCP buffer limits, tcp_mem with memory pressure, latency guard, SYN backlog and syncookies",
	      tcp_buffer_tuner_bpf, tunables, scenarios, tcp_buffer_init,
	      tcp_buffer_fini, tcp_buffer_event);
