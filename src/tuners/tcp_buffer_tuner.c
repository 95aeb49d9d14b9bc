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
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

#include "core/internal.h"
#include "kit/correlation.h"
#include "kit/proc_file.h"
#include "tcp_buffer_tuner.h"
#include "tuner_tables.h"
#include "tcp_buffer_tuner.skel.h"
#include "tcp_buffer_tuner.legacy.skel.h"

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

#define BUF_CAP		(64L << 20)
#define SYN_BACKLOG_CAP	65536

/* not const: init() sets the tcp_mem cap from this machine's RAM */
static struct bpftune_tunable_desc tunables[] = {
	[TB_RMEM] = {
		.name = "net.ipv4.tcp_rmem", .flags = BPFTUNE_TUNABLE_NAMESPACED,
		.num_values = 3, .min = 4096, .max = BUF_CAP,
		.cap_reason = "64 MiB per socket fills a 10 Gbit/s path with a 50 ms "
			      "RTT; more only lets one socket pin memory that tcp_mem "
			      "shares among all of them",
	},
	[TB_WMEM] = {
		.name = "net.ipv4.tcp_wmem", .flags = BPFTUNE_TUNABLE_NAMESPACED,
		.num_values = 3, .min = 4096, .max = BUF_CAP,
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
		.min = 128, .max = SYN_BACKLOG_CAP,
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

/*
 * Latency guard: at least this many buffer settings, r and relative rise
 * of the RTT; it does not trip while throughput still grows by at least
 * GUARD_MIN_GAIN across the same settings (the buffer was the bottleneck,
 * and a receiver's RTT estimate grows with its window).
 */
#define GUARD_MIN_SAMPLES	4
#define GUARD_MIN_R		0.8
#define GUARD_MIN_RISE		0.5
#define GUARD_MIN_GAIN		0.1
#define GUARD_HOLD_MS		(60 * 1000ULL)
#define GUARD_HOLD_MAX_MS	(16 * GUARD_HOLD_MS)
/* low-memory mode: shrink at most this often, to no less than 1/4 */
#define SHRINK_EVERY_MS		1000
#define TIMER_PERIOD_MS		1000
/* checks in a row without pressure before low-memory mode is undone */
#define RECOVERED_CHECKS	2
/* SYN evaluation: at most once per interval; a flood needs this many */
#define SYN_EVAL_MS		1000
#define SYN_FLOOD_MIN		32
#define SYN_FLOOD_VOTES		2
#define SYN_FLOOD_RATIO		16
/* syncookies we enabled go back after this long without a cookie sent */
#define SYNCOOKIES_QUIET_MS	(10 * 1000ULL)
#define MAX_NETNS		1024

struct guard {
	double rtt_sum;		/* RTT seen at the current max */
	unsigned long rtt_n;
	double rate_sum;	/* and throughput */
	unsigned long rate_n;
	long raised_from;	/* max before our last raise, 0 if none */
	uint64_t hold_until_ms;
	unsigned int trips;
};

struct syn_counters {
	uint64_t cookies_sent, cookies_recv, cookies_failed;
	uint64_t listen_drops, listen_overflows, reqq_drops;
	uint64_t completed, synack_retrans;	/* from the BPF map */
};

struct tb_netns {
	struct bpftune_netns_priv ns;	/* cookie, pid, last use */
	struct guard guard[2];	/* TB_RMEM, TB_WMEM */
	/* low-memory mode; saved values are -1 when we did not change them */
	bool lowmem;
	long saved_max[2];
	long saved_no_metrics, saved_no_ssthresh;
	uint64_t last_shrink_ms;
	/* SYN queue */
	bool have_syn;
	struct syn_counters syn;
	uint64_t syn_eval_ms;
	unsigned int flood_votes;	/* evaluations in a row that saw a flood */
	long syncookies_saved;	/* -1: we did not switch them */
	uint64_t busy_ms;	/* last cookie sent, request stalled or queue report */
};

struct tb_state {
	struct bpftune_tuner *tuner;
	int syn_map_fd;
	struct bpftune_timer *timer;
	/* global part of low-memory mode */
	bool lowmem;
	long saved_high_order;
	unsigned int calm_checks;
	struct bpftune_observer observer;
};

static struct tb_state *state;

/* ---- per-netns state ---------------------------------------------------- */

/* something of ours to undo there: not to be recycled */
static bool netns_pending(const struct bpftune_netns_priv *p)
{
	const struct tb_netns *n = (const void *)p;

	return n->lowmem || n->syncookies_saved >= 0;
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
	.busy = netns_pending,
	.release = netns_release,
};

/* ---- /proc readers ------------------------------------------------------ */

/* TCP memory in pages and the kernel's pressure flag (/proc/net/protocols) */
static int read_tcp_memory(long *pages, bool *pressure)
{
	char line[256], name[32], press[8];
	long size, socks, mem;
	int err = -ENOENT;
	FILE *f;

	f = fopen("/proc/net/protocols", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%31s %ld %ld %ld %7s", name, &size, &socks,
			   &mem, press) != 5 || strcmp(name, "TCP"))
			continue;
		*pages = mem;
		*pressure = !strcmp(press, "yes");
		err = 0;
		break;
	}
	fclose(f);
	return err;
}

/* The TcpExt counters we need, from the netstat file of our netns. */
static int read_netstat(struct syn_counters *c)
{
	static const char *const keys[] = {
		"TcpExt.SyncookiesSent", "TcpExt.SyncookiesRecv",
		"TcpExt.SyncookiesFailed", "TcpExt.ListenDrops",
		"TcpExt.ListenOverflows", "TcpExt.TCPReqQFullDrop",
	};
	struct bpftune_proc_value v[BPFTUNE_ARRAY_SIZE(keys)];
	int found;

	found = bpftune_proc_file_lookup("/proc/thread-self/net/netstat",
					 BPFTUNE_PROC_SNMP, keys, v,
					 BPFTUNE_ARRAY_SIZE(keys));
	if (found <= 0)
		return found ? found : -ENOENT;
	c->cookies_sent = v[0].i;
	c->cookies_recv = v[1].i;
	c->cookies_failed = v[2].i;
	c->listen_drops = v[3].i;
	c->listen_overflows = v[4].i;
	c->reqq_drops = v[5].i;
	return 0;
}

static int read_syn_counters(int netns_fd, uint64_t cookie,
			     struct syn_counters *c)
{
	struct tcp_buffer_syn_stats s = { 0 };
	int saved, err;

	memset(c, 0, sizeof(*c));
	err = bpftune_netns_enter(netns_fd, &saved);
	if (err)
		return err;
	err = read_netstat(c);
	bpftune_netns_leave(saved);
	/* the BPF side keys the global netns by its real cookie */
	if (!cookie)
		cookie = bpftune_global_netns_cookie();
	if (state->syn_map_fd >= 0 &&
	    !bpf_map_lookup_elem(state->syn_map_fd, &cookie, &s)) {
		c->completed = s.completed;
		c->synack_retrans = s.synack_retrans;
	}
	return err;
}

/* ---- the timer: only armed while something waits to be undone ---------- */

static void timer_update(void)
{
	bool want = state->lowmem;
	struct tb_netns *n;

	bpftune_netns_table_for_each(state->tuner, n)
		want |= netns_pending(&n->ns);
	if (want != bpftune_timer_armed(state->timer))
		bpftune_timer_set(state->timer, want ? TIMER_PERIOD_MS : 0);
}

/* ---- decisions ---------------------------------------------------------- */

static int set1(const struct bpftune_event *ev, unsigned int tunable,
		unsigned int scenario, long value, const char *reason)
{
	return bpftune_tunable_set(state->tuner, tunable, ev, scenario, &value,
				   1, reason);
}

static const char *buf_name(unsigned int tunable)
{
	return tunable == TB_RMEM ? "tcp_rmem" : "tcp_wmem";
}

/*
 * Does the window of (max, RTT) say raising the max raised the RTT, while
 * throughput (window of (max, rate), keyed past the tunables) stood still?
 * Then step back to the value before the last raise and hold.
 */
static bool guard_trips(const struct bpftune_event *ev, unsigned int tunable,
			struct tb_netns *n, const long *cur, char *inputs,
			size_t len)
{
	struct bpftune_corr_key key = {
		.tuner_id = state->tuner->id, .tunable = tunable,
		.netns_cookie = n->ns.cookie,
	}, rkey = key;
	struct guard *g = &n->guard[tunable];
	struct bpftune_corr *c, *rc;
	double r = 0, rise = 0, rr = 0, gain = 0;
	char reason[320], gains[64] = "";
	uint64_t hold;
	long back[3];
	int err;

	rkey.tunable = TB_NUM_TUNABLES + tunable;
	c = bpftune_corr_get(&key);
	rc = bpftune_corr_get(&rkey);
	if (!c || !rc)
		return false;
	if (g->rtt_n)
		bpftune_corr_add(c, cur[2], g->rtt_sum / g->rtt_n);
	if (g->rate_n)
		bpftune_corr_add(rc, cur[2], g->rate_sum / g->rate_n);
	g->rtt_sum = g->rate_sum = 0;
	g->rtt_n = g->rate_n = 0;
	if (c->n < GUARD_MIN_SAMPLES || bpftune_corr_fit(c, &r, &rise))
		return false;
	snprintf(inputs + strlen(inputs), len - strlen(inputs),
		 " guard_r=%.3f guard_rtt_rise=%.2f guard_samples=%u", r, rise, c->n);
	if (r < GUARD_MIN_R || rise < GUARD_MIN_RISE)
		return false;
	/* no throughput figures: RTT alone decides */
	err = bpftune_corr_fit(rc, &rr, &gain);
	if (err == -EDOM)
		gain = 0;	/* throughput did not move at all */
	if (!err || err == -EDOM) {
		snprintf(inputs + strlen(inputs), len - strlen(inputs),
			 " guard_rate_gain=%.2f", gain);
		if (gain >= GUARD_MIN_GAIN)
			return false;
		snprintf(gains, sizeof(gains), ", throughput %+.0f%%", gain * 100);
	}
	memcpy(back, cur, sizeof(back));
	back[2] = g->raised_from > 0 && g->raised_from < cur[2] ?
		  g->raised_from : cur[2] - bpftune_delta(cur[2]);
	if (back[2] < cur[1])
		back[2] = cur[1];
	/* hold longer each time it trips again */
	hold = GUARD_HOLD_MS << (g->trips < 4 ? g->trips : 4);
	if (hold > GUARD_HOLD_MAX_MS)
		hold = GUARD_HOLD_MAX_MS;
	g->hold_until_ms = bpftune_now_ms() + hold;
	g->trips++;
	g->raised_from = 0;
	bpftune_decide(state->tuner, ev, TCP_BUFFER_LATENCY_GUARD, tunable, "latency-guard", inputs,
		       "step back");
	snprintf(reason, sizeof(reason),
		 "RTT rose with the %s max (r=%.2f over %u settings; line fitted across them: RTT +%.0f%%%s of the mean): more buffer only added queueing; stepping back and holding for %llu s",
		 buf_name(tunable), r, c->n, rise * 100, gains,
		 (unsigned long long)hold / 1000);
	bpftune_corr_reset(c);
	bpftune_corr_reset(rc);
	bpftune_tunable_set(state->tuner, tunable, ev, TCP_BUFFER_LATENCY_GUARD,
			    back, 3, reason);
	return true;
}

/* A socket's buffer came near tcp_rmem[2] / tcp_wmem[2]. */
static void buffer_near_max(const struct bpftune_event *ev,
			    const struct tcp_buffer_event *e, unsigned int tunable)
{
	const struct bpftune_tunable_desc *d = &tunables[tunable];
	unsigned int scenario = ev->scenario_id;
	char inputs[384], reason[256];
	struct tb_netns *n;
	struct guard *g;
	long cur[3], want[3];
	int ret;

	ret = bpftune_tunable_get(state->tuner, tunable, ev, cur);
	snprintf(inputs, sizeof(inputs),
		 "buffer=%u event_max=%lld live_max=%ld rtt_us=%u rate_kbps=%u tcp_pages=%lld tcp_mem1=%lld pressure=%u",
		 e->value, (long long)e->limit[2], ret == 3 ? cur[2] : -1L,
		 e->rtt_us, e->rate_kbps, (long long)e->allocated,
		 (long long)e->mem[1], e->pressure);
	if (ret != 3) {
		bpftune_decide(state->tuner, ev, scenario, tunable, "grow-near-limit", inputs,
			       "none: cannot read the live value");
		return;
	}
	if (cur[2] != e->limit[2]) {
		bpftune_decide(state->tuner, ev, scenario, tunable, "grow-near-limit", inputs,
			       "none: max changed since the event");
		return;
	}
	n = bpftune_netns_table_get(state->tuner, ev);
	if (!n)
		return;
	g = &n->guard[tunable];
	if (e->rtt_us) {
		g->rtt_sum += e->rtt_us;
		g->rtt_n++;
	}
	if (e->rate_kbps) {
		g->rate_sum += e->rate_kbps;
		g->rate_n++;
	}
	if (state->lowmem || n->lowmem) {
		bpftune_decide(state->tuner, ev, scenario, tunable, "grow-near-limit", inputs,
			       "none: low-memory mode");
		return;
	}
	if (e->pressure || (e->mem[1] > 0 &&
			    e->allocated + bpftune_delta(e->mem[1]) >= e->mem[1])) {
		bpftune_decide(state->tuner, ev, scenario, tunable, "grow-near-limit", inputs,
			       "none: TCP memory near pressure");
		return;
	}
	if (g->hold_until_ms > bpftune_now_ms()) {
		bpftune_decide(state->tuner, ev, scenario, tunable, "grow-near-limit", inputs,
			       "none: held by the latency guard");
		return;
	}
	if (cur[2] >= d->max) {
		bpftune_decide(state->tuner, ev, scenario, tunable, "grow-near-limit", inputs,
			       "none: at the cap");
		return;
	}
	if (guard_trips(ev, tunable, n, cur, inputs, sizeof(inputs)))
		return;
	memcpy(want, cur, sizeof(want));
	want[2] = cur[2] + bpftune_delta(cur[2]);
	bpftune_decide(state->tuner, ev, scenario, tunable, "grow-near-limit", inputs, "raise");
	snprintf(reason, sizeof(reason),
		 "a socket's %s buffer (%u bytes) came within %.4g%% of the %s max",
		 tunable == TB_RMEM ? "receive" : "send", e->value,
		 100.0 / (1 << (6 - bpftune_learning_rate())), buf_name(tunable));
	if (bpftune_tunable_set(state->tuner, tunable, ev, scenario, want, 3,
				reason) == 1)
		g->raised_from = cur[2];
}

/* Autotuning off and a receiver full up to its fixed buffer. */
static void rcvbuf_no_autotune(const struct bpftune_event *ev,
			       const struct tcp_buffer_event *e)
{
	char inputs[128];
	long moderate;

	snprintf(inputs, sizeof(inputs), "rcvbuf=%u rmem_max=%lld moderate_rcvbuf=%u",
		 e->value, (long long)e->limit[2], e->moderate_rcvbuf);
	if (bpftune_tunable_get(state->tuner, TB_MODERATE_RCVBUF, ev, &moderate) != 1 ||
	    moderate) {
		bpftune_decide(state->tuner, ev, ev->scenario_id, TB_MODERATE_RCVBUF, "enable-autotuning",
			       inputs, "none: autotuning is on");
		return;
	}
	bpftune_decide(state->tuner, ev, ev->scenario_id, TB_MODERATE_RCVBUF, "enable-autotuning",
		       inputs, "enable");
	set1(ev, TB_MODERATE_RCVBUF, ev->scenario_id, 1,
	     "a receiver's queue filled its fixed buffer while receive autotuning was off; autotuning sizes it within tcp_rmem");
}

/* ---- memory: grow tcp_mem, low-memory mode and its undo ------------------ */

static void save_and_set(const struct bpftune_event *ev, unsigned int tunable,
			 unsigned int scenario, long value, long *saved,
			 const char *reason)
{
	long old;

	if (bpftune_tunable_get(state->tuner, tunable, ev, &old) != 1)
		return;
	if (set1(ev, tunable, scenario, value, reason) == 1 && *saved < 0)
		*saved = old;
}

/* TCP has no memory left: use less of it per socket, in @n's netns. */
static void lowmem_apply(const struct bpftune_event *ev, struct tb_netns *n,
			 const char *why)
{
	char reason[512];
	unsigned int i;
	uint64_t now = bpftune_now_ms();

	snprintf(reason, sizeof(reason), "low-memory mode: %s", why);
	if (!state->lowmem) {
		state->lowmem = true;
		state->calm_checks = 0;
		save_and_set(ev, TB_HIGH_ORDER_OFF, TCP_BUFFER_MEM_EXHAUSTED, 1,
			     &state->saved_high_order, reason);
	}
	if (!n->lowmem) {
		n->lowmem = true;
		save_and_set(ev, TB_NO_METRICS_SAVE, TCP_BUFFER_MEM_EXHAUSTED, 1,
			     &n->saved_no_metrics, reason);
		save_and_set(ev, TB_NO_SSTHRESH_SAVE, TCP_BUFFER_MEM_EXHAUSTED, 1,
			     &n->saved_no_ssthresh, reason);
	}
	if (now - n->last_shrink_ms < SHRINK_EVERY_MS)
		return;
	n->last_shrink_ms = now;
	for (i = 0; i < 2; i++) {
		unsigned int tunable = i ? TB_WMEM : TB_RMEM;
		long cur[3], want[3], floor;

		if (bpftune_tunable_get(state->tuner, tunable, ev, cur) != 3)
			continue;
		/* no less than the default size or a quarter of the original */
		floor = (n->saved_max[i] > 0 ? n->saved_max[i] : cur[2]) / 4;
		if (floor < cur[1])
			floor = cur[1];
		memcpy(want, cur, sizeof(want));
		want[2] = cur[2] - bpftune_delta(cur[2]);
		if (want[2] < floor)
			want[2] = floor;
		snprintf(reason, sizeof(reason),
			 "low-memory mode: %s; shrinking the %s max limits what each socket can hold",
			 why, buf_name(tunable));
		if (bpftune_tunable_set(state->tuner, tunable, ev,
					TCP_BUFFER_MEM_EXHAUSTED, want, 3,
					reason) == 1 && n->saved_max[i] < 0)
			n->saved_max[i] = cur[2];
	}
	timer_update();
}

static void restore1(const struct bpftune_event *ev, unsigned int tunable,
		     long *saved, const char *reason)
{
	if (*saved >= 0)
		set1(ev, tunable, TCP_BUFFER_MEM_RECOVERED, *saved, reason);
	*saved = -1;
}

static void lowmem_undo(const char *why)
{
	struct bpftune_event ev;
	char reason[256];
	struct tb_netns *n;
	unsigned int i;

	snprintf(reason, sizeof(reason), "TCP memory pressure gone (%s): undoing low-memory mode", why);
	bpftune_netns_table_for_each(state->tuner, n) {
		if (!n->lowmem)
			continue;
		bpftune_event_init(&ev, state->tuner, TCP_BUFFER_MEM_RECOVERED, n->ns.cookie, n->ns.pid);
		bpftune_decide(state->tuner, &ev, TCP_BUFFER_MEM_RECOVERED, -1, "undo-low-memory", why,
			       "restore");
		restore1(&ev, TB_NO_METRICS_SAVE, &n->saved_no_metrics, reason);
		restore1(&ev, TB_NO_SSTHRESH_SAVE, &n->saved_no_ssthresh, reason);
		for (i = 0; i < 2; i++) {
			unsigned int tunable = i ? TB_WMEM : TB_RMEM;
			long cur[3];

			if (n->saved_max[i] > 0 &&
			    bpftune_tunable_get(state->tuner, tunable, &ev, cur) == 3) {
				cur[2] = n->saved_max[i];
				bpftune_tunable_set(state->tuner, tunable, &ev,
						    TCP_BUFFER_MEM_RECOVERED,
						    cur, 3, reason);
			}
			n->saved_max[i] = -1;
		}
		n->lowmem = false;
	}
	bpftune_event_init(&ev, state->tuner, TCP_BUFFER_MEM_RECOVERED, 0, 0);
	restore1(&ev, TB_HIGH_ORDER_OFF, &state->saved_high_order, reason);
	state->lowmem = false;
}

/*
 * TCP memory near tcp_mem[1], or allocations refused.  Grow tcp_mem while
 * there is room; when the kernel had to refuse socket memory, or tcp_mem
 * cannot grow, TCP is really short: low-memory mode.
 */
static void memory_event(const struct bpftune_event *ev,
			 const struct tcp_buffer_event *e)
{
	const struct bpftune_tunable_desc *d = &tunables[TB_MEM];
	long cur[3], want[3], pages = e->allocated, avail, ceiling;
	bool pressure = e->pressure, refused, at_max, near;
	char inputs[320], reason[320];
	unsigned int i, scenario;
	struct tb_netns *n;

	if (bpftune_tunable_get(state->tuner, TB_MEM, NULL, cur) != 3)
		return;
	if (read_tcp_memory(&pages, &pressure) < 0)
		pages = e->allocated;
	avail = bpftune_mem_available_pages();
	/* what TCP holds plus a quarter of what is still available */
	ceiling = avail > 0 ? pages + avail / 4 : cur[2];
	if (ceiling > d->max)
		ceiling = d->max;
	refused = ev->scenario_id == TCP_BUFFER_MEM_EXHAUSTED;
	at_max = pages + bpftune_delta(cur[2]) >= cur[2];
	near = pages + bpftune_delta(cur[1]) >= cur[1];
	scenario = refused || at_max ? TCP_BUFFER_MEM_EXHAUSTED :
				       TCP_BUFFER_MEM_PRESSURE;
	snprintf(inputs, sizeof(inputs),
		 "tcp_pages=%ld event_pages=%lld tcp_mem=%ld,%ld,%ld pressure=%d refused=%d avail_pages=%ld ceiling=%ld",
		 pages, (long long)e->allocated, cur[0], cur[1], cur[2], pressure,
		 refused, avail, ceiling);
	if (!near && !refused && !pressure && !at_max) {
		bpftune_decide(state->tuner, ev, scenario, TB_MEM, "grow-tcp-mem", inputs,
			       "none: below the pressure threshold");
		return;
	}
	if (cur[2] < ceiling) {
		for (i = 0; i < 3; i++)
			want[i] = cur[i] + bpftune_delta(cur[i]);
		if (want[2] > ceiling)
			want[2] = ceiling;
		if (want[1] > want[2])
			want[1] = want[2];
		if (want[0] > want[1])
			want[0] = want[1];
		bpftune_decide(state->tuner, ev, scenario, TB_MEM, "grow-tcp-mem", inputs, "raise");
		snprintf(reason, sizeof(reason),
			 "TCP holds %ld pages, %s the tcp_mem pressure threshold %ld%s; growing up to %ld pages at most (what TCP holds plus a quarter of available memory)",
			 pages, pages >= cur[1] ? "over" : "near", cur[1],
			 refused ? ", and the kernel refused socket memory" : "",
			 ceiling);
		bpftune_tunable_set(state->tuner, TB_MEM, ev, scenario, want, 3,
				    reason);
	} else {
		bpftune_decide(state->tuner, ev, scenario, TB_MEM, "grow-tcp-mem", inputs,
			       "none: at the ceiling");
	}
	/* really short: refused, within delta of the hard limit, or no room */
	if (!refused && !at_max && cur[2] < ceiling)
		return;
	n = bpftune_netns_table_get(state->tuner, ev);
	if (!n)
		return;
	snprintf(reason, sizeof(reason), "%s (TCP holds %ld pages, tcp_mem %ld %ld %ld)",
		 refused ? "the kernel refused TCP socket memory" :
		 at_max ? "TCP memory is near the tcp_mem hard limit" :
			  "tcp_mem cannot grow further", pages, cur[0], cur[1],
		 cur[2]);
	bpftune_decide(state->tuner, ev, TCP_BUFFER_MEM_EXHAUSTED, -1, "low-memory-mode", inputs,
		       "enter");
	lowmem_apply(ev, n, reason);
}

/* ---- SYN queue ---------------------------------------------------------- */

static uint64_t delta_u64(uint64_t now, uint64_t before)
{
	return now >= before ? now - before : 0;
}

static void syn_queue(const struct bpftune_event *ev,
		      const struct tcp_buffer_event *e)
{
	uint64_t stalled, completed, sent, recv, drops, bad, now = bpftune_now_ms();
	struct syn_counters c;
	char inputs[448], reason[320];
	long cookies, max_syn, want, threshold;
	struct tb_netns *n;
	int fd;

	n = bpftune_netns_table_get(state->tuner, ev);
	if (!n)
		return;
	n->busy_ms = now;
	if (n->have_syn && now - n->syn_eval_ms < SYN_EVAL_MS)
		return;		/* not an evaluation: counters need time */
	fd = bpftune_netns_fd_for_event(ev);
	if (fd < -1 || read_syn_counters(fd, ev->netns_cookie, &c) < 0)
		return;
	if (!n->have_syn) {
		/* first look: a baseline from the counters' start */
		memset(&n->syn, 0, sizeof(n->syn));
		n->have_syn = true;
	}
	stalled = delta_u64(c.synack_retrans, n->syn.synack_retrans);
	completed = delta_u64(c.completed, n->syn.completed);
	sent = delta_u64(c.cookies_sent, n->syn.cookies_sent);
	recv = delta_u64(c.cookies_recv, n->syn.cookies_recv);
	/* SYNs dropped for a full SYN queue, not for a full accept queue */
	drops = delta_u64(c.listen_drops, n->syn.listen_drops);
	drops = delta_u64(drops, delta_u64(c.listen_overflows,
					   n->syn.listen_overflows));
	n->syn = c;
	n->syn_eval_ms = now;
	if (bpftune_tunable_get(state->tuner, TB_SYNCOOKIES, ev, &cookies) != 1 ||
	    bpftune_tunable_get(state->tuner, TB_MAX_SYN_BACKLOG, ev, &max_syn) != 1)
		return;
	snprintf(inputs, sizeof(inputs),
		 "port=%u qlen=%u backlog=%u max_syn_backlog=%ld syncookies=%ld completed=%" PRIu64 " stalled=%" PRIu64 " cookies_sent=%" PRIu64 " cookies_recv=%" PRIu64 " syn_queue_drops=%" PRIu64 " flood_votes=%u",
		 e->port, e->value, e->backlog, max_syn, cookies, completed,
		 stalled, sent, recv, drops, n->flood_votes);
	/*
	 * Evidence of a flood: SYNs dropped, SYN-ACKs or cookies never
	 * answered, against fewer than 1 in SYN_FLOOD_RATIO handshakes
	 * completing.  Completions clear the votes; a quiet window leaves
	 * them: slow but real clients complete, a flood needs two votes.
	 */
	bad = stalled + drops + (sent > recv ? sent - recv : 0);
	if (bad >= SYN_FLOOD_MIN && bad > SYN_FLOOD_RATIO * (completed + recv)) {
		if (++n->flood_votes < SYN_FLOOD_VOTES) {
			bpftune_decide(state->tuner, ev, TCP_BUFFER_SYN_FLOOD, TB_SYNCOOKIES, "syn-flood",
				       inputs, "none: flood suspected, not yet confirmed");
			return;
		}
		if (cookies) {
			bpftune_decide(state->tuner, ev, TCP_BUFFER_SYN_FLOOD, TB_SYNCOOKIES,
				       "syn-flood", inputs, "none: flood, syncookies already on");
			return;
		}
		bpftune_decide(state->tuner, ev, TCP_BUFFER_SYN_FLOOD, TB_SYNCOOKIES, "syn-flood",
			       inputs, "syncookies on, no backlog growth");
		snprintf(reason, sizeof(reason),
			 "SYN flood on port %u: %" PRIu64 " SYNs dropped or left half-open against %" PRIu64 " completed handshakes; syncookies serve real clients without queueing the flood (the backlog is not grown for it)",
			 e->port, bad, completed + recv);
		if (set1(ev, TB_SYNCOOKIES, TCP_BUFFER_SYN_FLOOD, 1, reason) == 1) {
			n->syncookies_saved = cookies;
			timer_update();
		}
		return;
	}
	if (completed + recv)
		n->flood_votes = 0;
	/* legitimate load: max_syn_backlog only matters without syncookies */
	if (cookies) {
		bpftune_decide(state->tuner, ev, TCP_BUFFER_SYN_QUEUE, TB_MAX_SYN_BACKLOG,
			       "grow-syn-backlog", inputs,
			       "none: syncookies on, the listen backlog bounds the queue");
		return;
	}
	/* new peers are dropped past 3/4 of max_syn_backlog */
	threshold = max_syn - max_syn / 4;
	if (!completed) {
		bpftune_decide(state->tuner, ev, TCP_BUFFER_SYN_QUEUE, TB_MAX_SYN_BACKLOG,
			       "grow-syn-backlog", inputs, "none: no handshake completed");
		return;
	}
	if (!drops && e->value + bpftune_delta(threshold) < threshold) {
		bpftune_decide(state->tuner, ev, TCP_BUFFER_SYN_QUEUE, TB_MAX_SYN_BACKLOG,
			       "grow-syn-backlog", inputs,
			       "none: no SYN dropped and the queue is not near the drop threshold");
		return;
	}
	if (threshold >= (long)e->backlog) {
		bpftune_decide(state->tuner, ev, TCP_BUFFER_SYN_QUEUE, TB_MAX_SYN_BACKLOG,
			       "grow-syn-backlog", inputs,
			       "none: the listen backlog is the limit, not max_syn_backlog");
		return;
	}
	want = max_syn + bpftune_delta(max_syn);
	bpftune_decide(state->tuner, ev, TCP_BUFFER_SYN_QUEUE, TB_MAX_SYN_BACKLOG, "grow-syn-backlog",
		       inputs, "raise");
	snprintf(reason, sizeof(reason),
		 "listener on port %u: %u half-open requests, %" PRIu64 " SYNs dropped past 3/4 of tcp_max_syn_backlog, and the handshakes complete (%" PRIu64 " completed, %" PRIu64 " stalled): legitimate load",
		 e->port, e->value, drops, completed, stalled);
	set1(ev, TB_MAX_SYN_BACKLOG, TCP_BUFFER_SYN_QUEUE, want, reason);
}

/*
 * Syncookies we turned on go back to what they were once the flood is
 * over: no cookie sent, no new request stalled and no listener queue half
 * full for SYNCOOKIES_QUIET_MS.
 */
static void syncookies_check(struct tb_netns *n, uint64_t now)
{
	struct bpftune_event ev;
	struct syn_counters c;
	char inputs[160], reason[256];
	int fd;

	bpftune_event_init(&ev, state->tuner, TCP_BUFFER_SYN_FLOOD_OVER, n->ns.cookie, n->ns.pid);
	fd = bpftune_netns_fd_for_event(&ev);
	if (fd < -1 || read_syn_counters(fd, ev.netns_cookie, &c) < 0)
		return;
	if (c.cookies_sent != n->syn.cookies_sent ||
	    c.synack_retrans != n->syn.synack_retrans)
		n->busy_ms = now;
	n->syn = c;
	if (now - n->busy_ms < SYNCOOKIES_QUIET_MS)
		return;
	snprintf(inputs, sizeof(inputs), "quiet_ms=%" PRIu64 " saved=%ld",
		 now - n->busy_ms, n->syncookies_saved);
	bpftune_decide(state->tuner, &ev, TCP_BUFFER_SYN_FLOOD_OVER, TB_SYNCOOKIES, "syncookies-idle",
		       inputs, "restore");
	snprintf(reason, sizeof(reason),
		 "no syncookie sent, no half-open request stalled and no listener queue half full for %" PRIu64 " s: the flood is over, back to the previous setting",
		 (now - n->busy_ms) / 1000);
	set1(&ev, TB_SYNCOOKIES, TCP_BUFFER_SYN_FLOOD_OVER, n->syncookies_saved,
	     reason);
	n->syncookies_saved = -1;
}

static void on_timer(void *ctx)
{
	uint64_t now = bpftune_now_ms();
	struct bpftune_event ev;
	long pages, cur[3];
	bool pressure;
	char why[160];
	struct tb_netns *n;

	(void)ctx;
	if (state->lowmem && !read_tcp_memory(&pages, &pressure) &&
	    bpftune_tunable_get(state->tuner, TB_MEM, NULL, cur) == 3) {
		snprintf(why, sizeof(why), "tcp_pages=%ld tcp_mem=%ld,%ld,%ld pressure=%d",
			 pages, cur[0], cur[1], cur[2], pressure);
		bpftune_event_init(&ev, state->tuner, TCP_BUFFER_MEM_RECOVERED, 0, 0);
		if (!pressure && pages + bpftune_delta(cur[1]) < cur[1])
			state->calm_checks++;
		else
			state->calm_checks = 0;
		bpftune_decide(state->tuner, &ev, TCP_BUFFER_MEM_RECOVERED, -1, "undo-low-memory", why,
			       state->calm_checks >= RECOVERED_CHECKS ? "restore" :
			       "none: still near pressure");
		if (state->calm_checks >= RECOVERED_CHECKS)
			lowmem_undo(why);
	}
	bpftune_netns_table_for_each(state->tuner, n)
		if (n->syncookies_saved >= 0)
			syncookies_check(n, now);
	timer_update();
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
		buffer_near_max(ev, e, TB_RMEM);
		break;
	case TCP_BUFFER_WMEM_NEAR_MAX:
		buffer_near_max(ev, e, TB_WMEM);
		break;
	case TCP_BUFFER_MEM_PRESSURE:
	case TCP_BUFFER_MEM_EXHAUSTED:
		memory_event(ev, e);
		break;
	case TCP_BUFFER_RCVBUF_NO_AUTOTUNE:
		rcvbuf_no_autotune(ev, e);
		break;
	case TCP_BUFFER_SYN_QUEUE:
		syn_queue(ev, e);
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
	timer_update();
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
	state->syn_map_fd = bpftune_tuner_map_fd(t, "syn_stats");
	err = bpftune_netns_table_init(t, &netns_ops);
	if (err) {
		free(state);
		state = NULL;
		return err;
	}
	state->timer = bpftune_timer_new(on_timer, NULL);
	if (!state->timer) {
		err = -errno;
		bpftune_netns_table_fini(t);
		free(state);
		state = NULL;
		return err;
	}
	state->observer.state = on_state;
	bpftune_observer_add(&state->observer);
	bpftune_log(LOG_INFO, "tuner tcp_buffer: caps: tcp_rmem/tcp_wmem max %ld bytes, tcp_mem %ld pages (a quarter of RAM), tcp_max_syn_backlog %d",
		    BUF_CAP, tunables[TB_MEM].max, SYN_BACKLOG_CAP);
	return 0;
}

static void tcp_buffer_fini(struct bpftune_tuner *t)
{
	if (!state)
		return;
	if (state->lowmem)
		bpftune_log(LOG_NOTICE, "tuner tcp_buffer: exiting in low-memory mode; its settings stay unless -R restores them");
	bpftune_observer_remove(&state->observer);
	bpftune_timer_free(state->timer);
	bpftune_netns_table_fini(t);
	bpftune_corr_forget(t->id, 0, true);
	free(state);
	state = NULL;
}

BPFTUNE_TUNER("tcp_buffer",
	      "TCP buffer limits, tcp_mem with memory pressure, latency guard, SYN backlog and syncookies",
	      tcp_buffer_tuner_bpf, tunables, scenarios, tcp_buffer_init,
	      tcp_buffer_fini, tcp_buffer_event,
	      .telemetry = &tcp_buffer_telemetry);
