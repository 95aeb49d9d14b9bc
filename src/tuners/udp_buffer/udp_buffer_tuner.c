// SPDX-License-Identifier: GPL-2.0-only
/*
 * udp_buffer tuner: UDP receive buffers and UDP memory.
 *
 *  - net.core.rmem_default (with rmem_max kept at or above it): raised by
 *    delta when a UDP socket sized by the default drops datagrams because
 *    its receive buffer is full.  Sockets whose application set SO_RCVBUF
 *    are left alone (the BPF side does not even report them), and so are
 *    sockets created before the last raise (they keep their old size).
 *    These sysctls are global: a netns may read them but not write them.
 *  - net.ipv4.udp_mem (global): grown by delta when the kernel refuses
 *    UDP memory, up to what UDP holds plus a quarter of available memory,
 *    capped at a quarter of RAM.  For UDP, udp_mem[1] is where receive
 *    allocations start to fail, so it is the value that matters.
 *  - Shrink: once no drop has asked for them for SHRINK_QUIET_MS, every
 *    SHRINK_EVERY_MS one step goes back toward the value found before the
 *    first raise, never below it (udp_mem only while UDP holds less than
 *    the lower value would allow).
 */
#include <stdio.h>
#include <string.h>
#include <bpftune/libbpftune.h>
#include <bpftune/grow.h>
#include <bpftune/proc.h>

#include "udp_buffer_tuner.h"
#include "udp_buffer_policy.h"
#include "udp_buffer_tables.h"
#include "udp_buffer_tuner.skel.h"
#include "udp_buffer_tuner.legacy.skel.h"

enum udp_buffer_tunable {
	UB_RMEM_DEFAULT,
	UB_RMEM_MAX,
	UB_UDP_MEM,
	UB_NUM_TUNABLES,
};

/* not const: init() sets the udp_mem cap from this machine's RAM */
static struct bpftune_tunable_desc tunables[] = {
	[UB_RMEM_DEFAULT] = {
		.name = "net.core.rmem_default", .num_values = 1,
		.min = 4096, .max = RMEM_DEFAULT_CAP,
		.cap_reason = "every new socket that does not size its own buffer "
			      "(UDP, raw, netlink, unix...) may queue this much; "
			      "4 MiB absorbs a 30 ms burst at 1 Gbit/s, and "
			      "applications that need more set SO_RCVBUF",
	},
	[UB_RMEM_MAX] = {
		.name = "net.core.rmem_max", .num_values = 1,
		.min = 4096, .max = RMEM_MAX_CAP,
		.cap_reason = "the most an application may ask for with SO_RCVBUF; "
			      "32 MiB absorbs 100 ms at 2.5 Gbit/s, more only lets "
			      "one socket pin memory that udp_mem shares",
	},
	[UB_UDP_MEM] = {
		.name = "net.ipv4.udp_mem", .num_values = 3, .min = 1,
		.max = 1L << 20,	/* replaced by a quarter of RAM in init() */
		.cap_reason = "a quarter of RAM (in pages): UDP must not be able to "
			      "starve the rest of the system",
	},
};


#define SHRINK_QUIET_MS		(30 * 1000ULL)
#define SHRINK_EVERY_MS		(5 * 1000ULL)

struct grown {
	long orig[3];		/* before our first raise; orig[0] < 0: none */
	uint64_t need_ms;	/* last drop that asked for it */
};

struct ub_state {
	struct bpftune_tuner *tuner;
	struct grown grown[UB_NUM_TUNABLES];
};

static void timer_update(struct ub_state *s)
{
	bool want = false;
	unsigned int i;

	for (i = 0; i < UB_NUM_TUNABLES; i++)
		want |= s->grown[i].orig[0] >= 0;
	bpftune_timer_keep(s->tuner, want, SHRINK_EVERY_MS);
}

/* Set @tunable; remember where it started on the first change. */
static int set_grown(struct ub_state *s, const struct bpftune_event *ev,
		     unsigned int tunable, unsigned int scenario,
		     const long *old, const long *want, const char *reason)
{
	struct grown *g = &s->grown[tunable];
	int ret;

	ret = bpftune_tunable_set(s->tuner, tunable, ev, scenario, want,
				  tunables[tunable].num_values, reason);
	if (ret == 1 && g->orig[0] < 0 && scenario != UDP_BUFFER_SHRINK)
		memcpy(g->orig, old, tunables[tunable].num_values * sizeof(long));
	timer_update(s);
	return ret;
}

/* pages UDP holds (/proc/net/sockstat "UDP: inuse N mem M") */
static long udp_pages(void)
{
	static const char *const key[] = { "UDP.mem" };
	uint64_t mem;

	return bpftune_proc_sockstat(NULL, key, &mem, 1) == 1 ? (long)mem : -1;
}

/* A socket sized by rmem_default dropped: raise the default (and max). */
static void rcvbuf_full(struct bpftune_tuner *t, void *priv,
			const struct bpftune_event *ev)
{
	const struct udp_buffer_event *e = (const void *)ev->payload;
	struct ub_state *s = priv;
	long def, max, want, want_max;
	struct bpftune_value inputs[8];
	enum udp_buffer_verdict v;
	char reason[320];

	if (bpftune_tunable_get(t, UB_RMEM_DEFAULT, ev, &def) != 1 ||
	    bpftune_tunable_get(t, UB_RMEM_MAX, ev, &max) != 1)
		return;
	inputs[0] = BPFTUNE_VALUE_INT(e->port);
	inputs[1] = BPFTUNE_VALUE_INT(e->family);
	inputs[2] = BPFTUNE_VALUE_INT(e->rcvbuf);
	inputs[3] = BPFTUNE_VALUE_INT(e->rmem_alloc);
	inputs[4] = BPFTUNE_VALUE_INT(def);
	inputs[5] = BPFTUNE_VALUE_INT(max);
	inputs[6] = BPFTUNE_VALUE_INT(e->allocated);
	inputs[7] = BPFTUNE_VALUE_INT(e->udp_mem[1]);
	s->grown[UB_RMEM_DEFAULT].need_ms = bpftune_now_ms();
	s->grown[UB_RMEM_MAX].need_ms = bpftune_now_ms();
	v = udp_buffer_rcvbuf_decide(e->rcvbuf, def, max, bpftune_learning_rate(),
				     &want, &want_max);
	bpftune_decide_values(t, ev, UDP_BUFFER_RCVBUF_FULL, UB_RMEM_DEFAULT, "grow-rmem-default",
			      inputs, BPFTUNE_ARRAY_SIZE(inputs), udp_buffer_verdict_name(v));
	if (v != UDP_BUFFER_RAISE)
		return;
	snprintf(reason, sizeof(reason),
		 "a UDP socket on port %u dropped datagrams with its receive buffer (%d bytes, the rmem_default size) full",
		 e->port, e->rcvbuf);
	/* rmem_max first: the default stays within what SO_RCVBUF may ask */
	if (want_max && set_grown(s, ev, UB_RMEM_MAX, UDP_BUFFER_RCVBUF_FULL, &max,
				  &want_max, reason) < 0)
		return;
	set_grown(s, ev, UB_RMEM_DEFAULT, UDP_BUFFER_RCVBUF_FULL, &def, &want, reason);
}

/* The kernel refused UDP memory: grow udp_mem while there is room. */
static void mem_exhausted(struct bpftune_tuner *t, void *priv,
			  const struct bpftune_event *ev)
{
	const struct udp_buffer_event *e = (const void *)ev->payload;
	const struct bpftune_tunable_desc *d = &tunables[UB_UDP_MEM];
	struct ub_state *s = priv;
	long cur[3], want[3], pages, avail, ceiling;
	struct bpftune_value inputs[8];
	enum udp_buffer_verdict v;
	char reason[320];
	unsigned int i;

	if (bpftune_tunable_get(t, UB_UDP_MEM, NULL, cur) != 3)
		return;
	s->grown[UB_UDP_MEM].need_ms = bpftune_now_ms();
	pages = udp_pages();
	if (pages < 0)
		pages = e->allocated;
	avail = bpftune_mem_available_pages();
	ceiling = udp_buffer_mem_ceiling(pages, avail, cur[2], d->max);
	inputs[0] = BPFTUNE_VALUE_INT(pages);
	inputs[1] = BPFTUNE_VALUE_INT(e->allocated);
	for (i = 0; i < 3; i++)
		inputs[2 + i] = BPFTUNE_VALUE_INT(cur[i]);
	inputs[5] = BPFTUNE_VALUE_INT(avail);
	inputs[6] = BPFTUNE_VALUE_INT(ceiling);
	inputs[7] = BPFTUNE_VALUE_INT(e->port);
	v = udp_buffer_mem_decide(cur, ceiling, bpftune_learning_rate(), want);
	bpftune_decide_values(t, ev, UDP_BUFFER_MEM_EXHAUSTED, UB_UDP_MEM, "grow-udp-mem",
			      inputs, BPFTUNE_ARRAY_SIZE(inputs), udp_buffer_verdict_name(v));
	if (v != UDP_BUFFER_RAISE)
		return;
	snprintf(reason, sizeof(reason),
		 "the kernel refused UDP socket memory (UDP holds %ld pages, udp_mem %ld %ld %ld); growing up to %ld pages at most (what UDP holds plus a quarter of available memory)",
		 pages, cur[0], cur[1], cur[2], ceiling);
	set_grown(s, ev, UB_UDP_MEM, UDP_BUFFER_MEM_EXHAUSTED, cur, want, reason);
}

/* One step back toward the original value of @tunable, if it is due. */
static void shrink_one(struct ub_state *s, const struct bpftune_event *ev,
		       unsigned int tunable, uint64_t now)
{
	const struct bpftune_tunable_desc *d = &tunables[tunable];
	struct grown *g = &s->grown[tunable];
	long cur[3], want[3], def, pages = -1;
	struct bpftune_value inputs[4];
	unsigned int n = d->num_values;
	char reason[256];

	if (g->orig[0] < 0 || !bpftune_quiet_for(now, g->need_ms, SHRINK_QUIET_MS))
		return;
	if (bpftune_tunable_get(s->tuner, tunable, NULL, cur) != (int)n)
		return;
	if (!bpftune_shrink_toward(cur, g->orig, n, bpftune_learning_rate(), want)) {
		g->orig[0] = -1;	/* back where it started */
		return;
	}
	/* rmem_max stays at or above rmem_default */
	if (tunable == UB_RMEM_MAX &&
	    bpftune_tunable_get(s->tuner, UB_RMEM_DEFAULT, NULL, &def) == 1 &&
	    want[0] < def)
		want[0] = def;
	if (tunable == UB_UDP_MEM) {
		pages = udp_pages();
		if (!udp_buffer_mem_may_shrink(pages, want[1], bpftune_learning_rate()))
			return;
	}
	inputs[0] = BPFTUNE_VALUE_INT(now - g->need_ms);
	inputs[1] = BPFTUNE_VALUE_INT(cur[n - 1]);
	inputs[2] = BPFTUNE_VALUE_INT(g->orig[n - 1]);
	inputs[3] = pages >= 0 ? BPFTUNE_VALUE_INT(pages) : BPFTUNE_VALUE_NULL;
	if (!memcmp(want, cur, n * sizeof(long))) {
		bpftune_decide_values(s->tuner, ev, UDP_BUFFER_SHRINK, tunable, "shrink-when-quiet",
			      inputs, BPFTUNE_ARRAY_SIZE(inputs), "none: held by rmem_default");
		return;
	}
	bpftune_decide_values(s->tuner, ev, UDP_BUFFER_SHRINK, tunable, "shrink-when-quiet",
			      inputs, BPFTUNE_ARRAY_SIZE(inputs), "shrink");
	snprintf(reason, sizeof(reason),
		 "no UDP drop has needed it for %llu s: one step back toward %ld",
		 (unsigned long long)(now - g->need_ms) / 1000, g->orig[n - 1]);
	set_grown(s, ev, tunable, UDP_BUFFER_SHRINK, cur, want, reason);
}

/* global tunables: the event has no netns */
static void udp_buffer_timer(struct bpftune_tuner *t, void *priv)
{
	uint64_t now = bpftune_now_ms();
	struct ub_state *s = priv;
	struct bpftune_event ev;

	bpftune_event_init(&ev, t, UDP_BUFFER_SHRINK, 0, 0);
	/* the default first: rmem_max may then follow it down */
	shrink_one(s, &ev, UB_RMEM_DEFAULT, now);
	shrink_one(s, &ev, UB_RMEM_MAX, now);
	shrink_one(s, &ev, UB_UDP_MEM, now);
	timer_update(s);
}

static void forget(struct ub_state *s)
{
	unsigned int i;

	for (i = 0; i < UB_NUM_TUNABLES; i++)
		s->grown[i].orig[0] = -1;
}

/* The admin took the tuner over (its tunables are global): stop shrinking. */
static void udp_buffer_netns_state(struct bpftune_tuner *t, void *priv,
				   uint64_t cookie, enum bpftune_state state)
{
	struct ub_state *s = priv;

	(void)t;
	if (state != BPFTUNE_STATE_MANUAL || cookie)
		return;
	forget(s);
	timer_update(s);
}

static int udp_buffer_init(struct bpftune_tuner *t, void *priv)
{
	struct ub_state *s = priv;
	long pages = bpftune_ram_quarter_pages();

	s->tuner = t;
	forget(s);
	if (pages > 0)
		tunables[UB_UDP_MEM].max = pages;
	bpftune_log(LOG_INFO, "tuner udp_buffer: caps: rmem_default %ld bytes, rmem_max %ld bytes, udp_mem %ld pages (a quarter of RAM)",
		    RMEM_DEFAULT_CAP, RMEM_MAX_CAP, tunables[UB_UDP_MEM].max);
	return 0;
}

static const struct bpftune_scenario_desc scenarios[] = {
	[UDP_BUFFER_RCVBUF_FULL] = {
		.name = "UDP receive buffer full",
		.description = "a UDP socket sized by rmem_default dropped datagrams: its receive buffer was full",
		.payload_size = sizeof(struct udp_buffer_event),
		.handle = rcvbuf_full,
	},
	[UDP_BUFFER_MEM_EXHAUSTED] = {
		.name = "UDP memory exhausted",
		.description = "the kernel refused UDP socket memory at the udp_mem limit",
		.payload_size = sizeof(struct udp_buffer_event),
		.handle = mem_exhausted,
	},
	[UDP_BUFFER_SHRINK] = {
		.name = "UDP buffers no longer needed",
		.description = "no UDP drop has asked for the raised limits for a while: one step back",
	},
};

BPFTUNE_TUNER(udp_buffer_tuner_bpf,
	.name = "udp_buffer",
	.description = "UDP receive buffers (rmem_default, rmem_max) and udp_mem",
	BPFTUNE_TUNABLES(tunables),
	BPFTUNE_SCENARIOS(scenarios),
	.priv_size = sizeof(struct ub_state),
	.init = udp_buffer_init,
	.netns_state = udp_buffer_netns_state,
	.timer = udp_buffer_timer,
	.telemetry = &udp_buffer_telemetry);
