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
#include <bpftune/libbpftune.h>
#include <bpftune/gate.h>
#include <bpftune/proc.h>

#include "tcp_buffer.h"
#include "tcp_buffer_tables.h"
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

/* ---- shared by the scenarios -------------------------------------------- */

/* The timer runs only while something waits to be undone. */
void tb_timer_update(struct tb_state *s)
{
	bool want = s->lowmem;
	struct tb_netns *n;

	bpftune_netns_table_for_each(s->tuner, n)
		want |= tb_netns_pending(n);
	bpftune_timer_keep(s->tuner, want, TB_TIMER_PERIOD_MS);
}

int tb_set1(struct tb_state *s, const struct bpftune_event *ev,
	    unsigned int tunable, unsigned int scenario, long value,
	    const char *reason)
{
	return bpftune_tunable_set(s->tuner, tunable, ev, scenario, &value, 1,
				   reason);
}

static void tcp_buffer_timer(struct bpftune_tuner *t, void *priv)
{
	struct tb_state *s = priv;

	(void)t;
	tb_mem_timer(s);
	tb_syn_timer(s);
	tb_timer_update(s);
}

/* Stopped by the admin, or a netns gone: the library dropped its entry. */
static void tcp_buffer_netns_state(struct bpftune_tuner *t, void *priv,
				   uint64_t cookie, enum bpftune_state state)
{
	struct tb_state *s = priv;

	/* stopped everywhere: nothing more will be undone */
	if (!cookie && state == BPFTUNE_STATE_MANUAL)
		s->lowmem = false;
	bpftune_log(LOG_DEBUG, "tuner tcp_buffer: state for netns cookie %llu dropped (%s): %u netns tracked",
		    (unsigned long long)cookie,
		    state == BPFTUNE_STATE_GONE ? "gone" : "admin took over",
		    bpftune_netns_table_count(t));
	tb_timer_update(s);
}

static int tcp_buffer_init(struct bpftune_tuner *t, void *priv)
{
	struct tb_state *s = priv;
	long pages = bpftune_ram_quarter_pages();

	s->tuner = t;
	s->saved_high_order = -1;
	if (pages > 0)
		tunables[TB_MEM].max = pages;
	s->mem_cap = tunables[TB_MEM].max;
	s->syn_map_fd = bpf_map__fd(BPFTUNE_SKEL_MAP(t, tcp_buffer_tuner_bpf, syn_stats));
	bpftune_log(LOG_INFO, "tuner tcp_buffer: caps: tcp_rmem/tcp_wmem max %ld bytes, tcp_mem %ld pages (a quarter of RAM), tcp_max_syn_backlog %d",
		    TB_BUF_CAP, tunables[TB_MEM].max, TB_SYN_BACKLOG_CAP);
	return 0;
}

static void tcp_buffer_fini(struct bpftune_tuner *t, void *priv)
{
	struct tb_state *s = priv;

	(void)t;
	if (s->lowmem)
		bpftune_log(LOG_NOTICE, "tuner tcp_buffer: exiting in low-memory mode; its settings stay unless -R restores them");
}

/*
 * The gate of the rcvbuf hook (tcp_rcv_space_adjust: every read of every
 * TCP receiver).  Since 6.17 tcp_rcvbuf_grow reports autotuning near the
 * max on its own, and what is left to rcvbuf -- a receiver with
 * autotuning off, TCP memory seen from a receive-only host, the receive
 * gauges -- has no one counter covering every netns: a 200 ms window
 * every 2 s, held open while its scenarios report, and opened at once
 * when the global netns counts receive-queue pruning, drops for a full
 * receive queue or TCP memory pressure.  Where attaching costs more than
 * the library's budget (emulated kernels), the program stays attached
 * and rcvbuf_gate_closed gates it.
 */
static int rcv_pressure(struct bpftune_tuner *t, void *priv, uint64_t *value)
{
	static const char *const keys[] = {
		"TcpExt.PruneCalled", "TcpExt.TCPRcvQDrop", "TcpExt.TCPMemoryPressures",
	};
	uint64_t v[3] = { 0 };

	(void)t;
	(void)priv;
	if (bpftune_proc_netstat(NULL, keys, v, 3) < 0)
		return -EIO;
	*value = v[0] + v[1] + v[2];
	return 0;
}

/*
 * The gate of the send sample (probe: sock_send_length, every sendmsg;
 * tcp_probe, every incoming segment, before 6.3).  A sender's buffer
 * grows with its congestion window and no counter says it nears
 * tcp_wmem[2]: a 200 ms window every second, held open while it reports,
 * so that a sender at its limit from calm is seen within a second (a
 * window every 2 s, rcvbuf's, would double that).  Every other window
 * starts and ends with rcvbuf's, on the same wake-ups.
 */
static const struct bpftune_gate gates[] = {
	{
		.hook = "rcvbuf",
		.kind = BPFTUNE_GATE_WINDOW,
		.what = "TcpExt PruneCalled+TCPRcvQDrop+TCPMemoryPressures of the global netns",
		.read = rcv_pressure,
		.window_ms = 200,
		.every_ms = 2000,
		.flag = "rcvbuf_gate_closed",
		/* nothing to look at while no packet arrives */
		.wake = "netif_receive_skb",
	},
	{
		.hook = "probe",
		.kind = BPFTUNE_GATE_WINDOW,
		.window_ms = 200,
		.every_ms = 1000,
		.flag = "probe_gate_closed",
		/* a sender's ACKs, or its own data on this host, arrive */
		.wake = "netif_receive_skb",
	},
};

/* what a gated hook reports keeps it attached */
static void rcv_near_max(struct bpftune_tuner *t, void *priv,
			 const struct bpftune_event *ev)
{
	bpftune_gate_seen(t, "rcvbuf");
	tb_buffer_near_max(t, priv, ev);
}

static void snd_near_max(struct bpftune_tuner *t, void *priv,
			 const struct bpftune_event *ev)
{
	bpftune_gate_seen(t, "probe");
	tb_buffer_near_max(t, priv, ev);
}

/* both gated hooks report it: TCP memory concerns every socket */
static void tcp_memory(struct bpftune_tuner *t, void *priv,
		       const struct bpftune_event *ev)
{
	bpftune_gate_seen(t, "rcvbuf");
	bpftune_gate_seen(t, "probe");
	tb_memory_event(t, priv, ev);
}

static void rcv_no_autotune(struct bpftune_tuner *t, void *priv,
			    const struct bpftune_event *ev)
{
	bpftune_gate_seen(t, "rcvbuf");
	tb_rcvbuf_no_autotune(t, priv, ev);
}

#define EVENT	.payload_size = sizeof(struct tcp_buffer_event)

static const struct bpftune_scenario_desc scenarios[] = {
	[TCP_BUFFER_RMEM_NEAR_MAX] = {
		.name = "receive buffer near tcp_rmem max",
		.description = "receive autotuning grew a socket's buffer within delta of tcp_rmem[2]",
		EVENT, .handle = rcv_near_max,
	},
	[TCP_BUFFER_WMEM_NEAR_MAX] = {
		.name = "send buffer near tcp_wmem max",
		.description = "a sender's buffer grew within delta of tcp_wmem[2]",
		EVENT, .handle = snd_near_max,
	},
	[TCP_BUFFER_MEM_PRESSURE] = {
		.name = "TCP memory near pressure",
		.description = "memory held by TCP came within delta of tcp_mem[1]",
		EVENT, .handle = tcp_memory,
	},
	[TCP_BUFFER_MEM_EXHAUSTED] = {
		.name = "TCP memory exhausted",
		.description = "the kernel refused TCP socket memory at the tcp_mem hard limit",
		EVENT, .handle = tb_memory_event,
	},
	[TCP_BUFFER_RCVBUF_NO_AUTOTUNE] = {
		.name = "receive autotuning off",
		.description = "a receiver is limited by its fixed buffer while tcp_moderate_rcvbuf is 0",
		EVENT, .handle = rcv_no_autotune,
	},
	[TCP_BUFFER_SYN_QUEUE] = {
		.name = "SYN queue near its limit",
		.description = "a listener's half-open queue is near where the kernel drops SYNs",
		EVENT, .handle = tb_syn_queue,
	},
	/* decided in userspace only */
	[TCP_BUFFER_MEM_RECOVERED] = {
		.name = "TCP memory pressure gone",
		.description = "TCP memory fell below the pressure threshold: low-memory mode undone",
	},
	[TCP_BUFFER_LATENCY_GUARD] = {
		.name = "buffer growth raised latency",
		.description = "RTT rose together with the buffer maximum: step back and hold",
	},
	[TCP_BUFFER_SYN_FLOOD] = {
		.name = "SYN flood",
		.description = "SYNs are not turning into connections",
	},
	[TCP_BUFFER_SYN_FLOOD_OVER] = {
		.name = "SYN flood over",
		.description = "syncookies we turned on have not been used for a while",
	},
};

BPFTUNE_TUNER(tcp_buffer_tuner_bpf,
	.name = "tcp_buffer",
	.description = "TCP buffer limits, tcp_mem with memory pressure, latency guard, SYN backlog and syncookies",
	BPFTUNE_TUNABLES(tunables),
	BPFTUNE_SCENARIOS(scenarios),
	BPFTUNE_GATES(gates),
	.priv_size = sizeof(struct tb_state),
	.netns = {
		.size = sizeof(struct tb_netns), .max = MAX_NETNS,
		.init = netns_init, .busy = netns_busy,
	},
	.init = tcp_buffer_init,
	.fini = tcp_buffer_fini,
	.netns_state = tcp_buffer_netns_state,
	.timer = tcp_buffer_timer,
	.telemetry = &tcp_buffer_telemetry);
