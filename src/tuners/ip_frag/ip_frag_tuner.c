// SPDX-License-Identifier: GPL-2.0-only
/*
 * ip_frag tuner: IPv4 and IPv6 reassembly memory, per network namespace.
 *
 *  - net.ipv4.ipfrag_high_thresh / net.ipv6.ip6frag_high_thresh: raised
 *    by delta, in the netns where it happened, when the memory held by
 *    reassembly comes within delta of it (above it, new fragments are
 *    dropped and whole datagrams are lost).  Capped at FRAG_CAP.
 *  - Flood guard: every raise adds (threshold, reassembly failures per
 *    fragment since the previous raise: ReasmFails, which counts timed-out
 *    datagrams as well as dropped fragments) to a correlation
 *    window kept per tuner, family and netns.  When failures rise with
 *    the threshold, the extra memory only holds fragments that never
 *    complete (a fragment flood): step back one raise and hold, longer
 *    each time.  Legitimate load shows the opposite: failures fall as
 *    the threshold grows.
 *  - Shrink: once reassembly memory has stayed below a step under the
 *    threshold, with no report, for IPF_SHRINK_QUIET_MS, one step goes back
 *    toward the value found before the first raise every SHRINK_EVERY_MS,
 *    never below it nor below the low threshold.
 *
 * Every decision is a pure function in ip_frag_policy.c (unit-tested);
 * this file reads the kernel, keeps the per-netns state and writes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <bpftune/libbpftune.h>
#include <bpftune/correlation.h>
#include <bpftune/gate.h>
#include <bpftune/proc.h>

#include "ip_frag_policy.h"
#include "ip_frag_tuner.h"
#include "ip_frag_tables.h"
#include "ip_frag_tuner.skel.h"
#include "ip_frag_tuner.legacy.skel.h"

static const struct bpftune_tunable_desc tunables[] = {
	[IP_FRAG_V4] = {
		.name = "net.ipv4.ipfrag_high_thresh",
		.flags = BPFTUNE_TUNABLE_NAMESPACED, .num_values = 1,
		.min = FRAG_MIN, .max = FRAG_CAP,
		.cap_reason = "8 times the 4 MiB default: room for hundreds of 64 KB "
			      "datagrams in reassembly at once; beyond that the memory "
			      "mostly holds fragments of a flood that never complete",
	},
	[IP_FRAG_V6] = {
		.name = "net.ipv6.ip6frag_high_thresh",
		.flags = BPFTUNE_TUNABLE_NAMESPACED, .num_values = 1,
		.min = FRAG_MIN, .max = FRAG_CAP,
		.cap_reason = "as for IPv4: 8 times the 4 MiB default",
	},
};

static const char *const low_names[] = {
	"net.ipv4.ipfrag_low_thresh", "net.ipv6.ip6frag_low_thresh",
};

#define SHRINK_EVERY_MS		(5 * 1000ULL)
#define MAX_NETNS		1024

struct fam {
	long orig;		/* before our first raise; -1 none */
	long raised_from;	/* before the last raise; 0 none */
	uint64_t need_ms;	/* last report */
	uint64_t hold_until_ms;
	unsigned int trips;
	bool have_base;
	struct ipf_counters base;	/* at the last raise */
};

struct if_netns {
	struct bpftune_netns_priv ns;	/* cookie, pid, last use */
	struct fam fam[2];
};

static const char *fam_name(unsigned int family)
{
	return family == IP_FRAG_V6 ? "IPv6" : "IPv4";
}

/* ---- per-netns state ---------------------------------------------------- */

/* something of ours to shrink there: not to be recycled */
static bool netns_grown(const struct bpftune_netns_priv *p)
{
	const struct if_netns *n = (const void *)p;

	return n->fam[0].orig >= 0 || n->fam[1].orig >= 0;
}

static void netns_init(struct bpftune_netns_priv *p)
{
	struct if_netns *n = (void *)p;

	n->fam[0].orig = n->fam[1].orig = -1;
}

static void timer_update(struct bpftune_tuner *t)
{
	bool want = false;
	struct if_netns *n;

	bpftune_netns_table_for_each(t, n)
		want |= netns_grown(&n->ns);
	bpftune_timer_keep(t, want, SHRINK_EVERY_MS);
}

/* ---- /proc in the event's netns ----------------------------------------- */

static int read_counters(const struct bpftune_event *ev, unsigned int family,
			 struct ipf_counters *c)
{
	static const char *const v4[] = {
		"Ip.ReasmReqds", "Ip.ReasmOKs", "Ip.ReasmFails", "Ip.ReasmTimeout",
	};
	static const char *const v6[] = {
		"Ip6ReasmReqds", "Ip6ReasmOKs", "Ip6ReasmFails", "Ip6ReasmTimeout",
	};
	uint64_t v[4];
	int err;

	if (family == IP_FRAG_V6)
		err = bpftune_proc_snmp6(ev, v6, v, 4);
	else
		err = bpftune_proc_snmp(ev, v4, v, 4);
	if (err < 0)
		return err;
	if (err < 4)
		return -ENOENT;
	c->reqds = v[0];
	c->oks = v[1];
	c->fails = v[2];
	c->timeouts = v[3];
	return 0;
}

/* bytes held by reassembly now ("FRAG: inuse N memory M") */
static long frag_memory(const struct bpftune_event *ev, unsigned int family)
{
	static const char *const v4[] = { "FRAG.memory" };
	static const char *const v6[] = { "FRAG6.memory" };
	uint64_t mem;
	int n;

	if (family == IP_FRAG_V6)
		n = bpftune_proc_sockstat6(ev, v6, &mem, 1);
	else
		n = bpftune_proc_sockstat(ev, v4, &mem, 1);
	return n == 1 ? (long)mem : -1;
}

/* ---- decisions ---------------------------------------------------------- */

/* inputs of grow-near-limit and frag-flood-guard (ip_frag_tables.c) */
#define NEAR_NUM_INPUTS	11

/*
 * Add the failure share seen at the current threshold to the window; a
 * rising line trips the guard: step back to before the last raise.
 */
static bool flood_guard(struct bpftune_tuner *t, const struct bpftune_event *ev,
			struct if_netns *n, unsigned int family, long cur,
			const struct ipf_counters *c, struct bpftune_value *inputs)
{
	struct fam *f = &n->fam[family];
	struct bpftune_guard_verdict v;
	struct bpftune_corr *w;
	char reason[320];
	double share;

	w = bpftune_corr_for(t, family, n->ns.cookie);
	if (!w || !f->have_base || !ipf_fail_share(&f->base, c, &share))
		return false;
	bpftune_corr_add(w, (double)cur, share);
	inputs[9] = BPFTUNE_VALUE_REAL(share);
	inputs[10] = BPFTUNE_VALUE_INT(w->n);
	if (!ipf_flood_trips(w, cur, f->raised_from, f->trips,
			     bpftune_learning_rate(), &v))
		return false;
	f->hold_until_ms = bpftune_now_ms() + v.hold_ms;
	f->trips++;
	f->raised_from = 0;
	bpftune_decide_values(t, ev, IP_FRAG_FLOOD, family, "frag-flood-guard", inputs,
			      NEAR_NUM_INPUTS, ipf_verdict_action(IPF_STEP_BACK));
	snprintf(reason, sizeof(reason),
		 "%s reassembly failures rose with the threshold (r=%.2f over %u samples at %u settings, now %.0f%% of fragments): the memory holds a fragment flood; stepping back and holding for %llu s",
		 fam_name(family), v.r, w->n, bpftune_corr_settings(w), share * 100,
		 (unsigned long long)v.hold_ms / 1000);
	bpftune_corr_reset(w);
	bpftune_tunable_set(t, family, ev, IP_FRAG_FLOOD, &v.back, 1,
			    reason);
	return true;
}

/* record grow-near-limit's verdict @v */
static void near_decide(struct bpftune_tuner *t, const struct bpftune_event *ev,
			unsigned int family, const struct bpftune_value *inputs,
			enum ipf_verdict v)
{
	bpftune_decide_values(t, ev, IP_FRAG_NEAR_THRESH, family, "grow-near-limit", inputs,
			      NEAR_NUM_INPUTS, ipf_verdict_action(v));
}

static void near_thresh(struct bpftune_tuner *t, void *priv,
			const struct bpftune_event *ev)
{
	const struct ip_frag_event *e = (const void *)ev->payload;
	unsigned int family = e->family == IP_FRAG_V6 ? IP_FRAG_V6 : IP_FRAG_V4;
	struct ipf_counters c = { 0 };
	struct bpftune_value inputs[NEAR_NUM_INPUTS] = { 0 };
	char reason[256];
	enum ipf_verdict v;
	struct if_netns *n;
	struct fam *f;
	long cur, want;
	bool have_c;

	(void)priv;
	if (bpftune_tunable_get(t, family, ev, &cur) != 1)
		return;
	have_c = !read_counters(ev, family, &c);
	inputs[0] = BPFTUNE_VALUE_TEXT(fam_name(family));
	inputs[1] = BPFTUNE_VALUE_INT(e->mem);
	inputs[2] = BPFTUNE_VALUE_INT(e->high_thresh);
	inputs[3] = BPFTUNE_VALUE_INT(cur);
	inputs[4] = BPFTUNE_VALUE_INT(e->low_thresh);
	if (have_c) {
		inputs[5] = BPFTUNE_VALUE_INT(c.reqds);
		inputs[6] = BPFTUNE_VALUE_INT(c.oks);
		inputs[7] = BPFTUNE_VALUE_INT(c.fails);
		inputs[8] = BPFTUNE_VALUE_INT(c.timeouts);
	}
	if (ipf_near_precheck(cur, e->high_thresh) == IPF_CHANGED) {
		near_decide(t, ev, family, inputs, IPF_CHANGED);
		return;
	}
	n = bpftune_netns_table_get(t, ev);
	if (!n)
		return;
	f = &n->fam[family];
	f->need_ms = bpftune_now_ms();
	v = ipf_near_decide(cur, f->need_ms, f->hold_until_ms,
			    bpftune_learning_rate(), &want);
	if (v != IPF_RAISE) {
		near_decide(t, ev, family, inputs, v);
		return;
	}
	if (have_c && flood_guard(t, ev, n, family, cur, &c, inputs)) {
		f->base = c;
		return;
	}
	near_decide(t, ev, family, inputs, v);
	snprintf(reason, sizeof(reason),
		 "%s fragments awaiting reassembly hold %lld bytes, within %.4g%% of the threshold",
		 fam_name(family), (long long)e->mem,
		 100.0 / (1 << (6 - bpftune_learning_rate())));
	if (bpftune_tunable_set(t, family, ev, IP_FRAG_NEAR_THRESH,
				&want, 1, reason) != 1)
		return;
	if (f->orig < 0)
		f->orig = cur;
	f->raised_from = cur;
	if (have_c) {
		f->base = c;
		f->have_base = true;
	}
	timer_update(t);
}

/* @n's threshold for @family one step back, if it is no longer needed */
static void shrink(struct bpftune_tuner *t, struct if_netns *n,
		   unsigned int family, uint64_t now)
{
	struct fam *f = &n->fam[family];
	struct ipf_shrink_in in = { .rate = bpftune_learning_rate() };
	struct bpftune_event ev;
	struct bpftune_value inputs[7];
	char reason[256];
	enum ipf_verdict v;
	long want;
	int err;

	if (!ipf_shrink_due(f->orig, now, f->need_ms))
		return;
	bpftune_event_init(&ev, t, IP_FRAG_SHRINK, n->ns.cookie, n->ns.pid);
	err = bpftune_tunable_get(t, family, &ev, &in.cur);
	if (err == -ESRCH || err == -ENOENT) {
		/* the netns is gone: nothing left to give back */
		f->orig = -1;
		return;
	}
	if (err != 1)
		return;
	in.orig = f->orig;
	in.have_low = bpftune_proc_sysctl(&ev, low_names[family], &in.low, 1) == 1;
	in.mem = frag_memory(&ev, family);
	v = ipf_shrink_decide(&in, &want);
	if (v == IPF_GIVEN_BACK) {
		f->orig = -1;	/* nothing more to give back */
		return;
	}
	inputs[0] = BPFTUNE_VALUE_TEXT(fam_name(family));
	inputs[1] = BPFTUNE_VALUE_INT(in.cur);
	inputs[2] = BPFTUNE_VALUE_INT(want);
	inputs[3] = BPFTUNE_VALUE_INT(f->orig);
	inputs[4] = BPFTUNE_VALUE_INT(in.low);
	inputs[5] = in.mem >= 0 ? BPFTUNE_VALUE_INT(in.mem) : BPFTUNE_VALUE_NULL;
	inputs[6] = BPFTUNE_VALUE_INT(now - f->need_ms);
	bpftune_decide_values(t, &ev, IP_FRAG_SHRINK, family, "shrink-when-quiet", inputs,
			      BPFTUNE_ARRAY_SIZE(inputs), ipf_verdict_action(v));
	if (v != IPF_SHRINK)
		return;
	snprintf(reason, sizeof(reason),
		 "%s reassembly holds %ld bytes and has needed no more for %llu s: one step back toward %ld",
		 fam_name(family), in.mem, (unsigned long long)(now - f->need_ms) / 1000,
		 f->orig);
	bpftune_tunable_set(t, family, &ev, IP_FRAG_SHRINK, &want, 1,
			    reason);
	f->raised_from = 0;
}

static void ip_frag_timer(struct bpftune_tuner *t, void *priv)
{
	uint64_t now = bpftune_now_ms();
	struct if_netns *n;

	(void)priv;
	bpftune_netns_table_for_each(t, n) {
		shrink(t, n, IP_FRAG_V4, now);
		shrink(t, n, IP_FRAG_V6, now);
	}
	timer_update(t);
}

/* a netns gone or taken over by the admin: its entry is gone already */
static void ip_frag_netns_state(struct bpftune_tuner *t, void *priv,
				uint64_t cookie, enum bpftune_state state)
{
	(void)priv;
	(void)cookie;
	(void)state;
	timer_update(t);
}

/*
 * The gate of netif_receive_skb's program (tracepoint-only kernels: every
 * received packet runs it): fragments dropped anywhere (the drop
 * program's frag_drops; over the threshold, too far, duplicates,
 * timeouts) plus the daemon's netns's reassembly requests.  A netns
 * whose requests the daemon does not read opens it at its first drop,
 * which the drop program reports itself when it is the limit reached:
 * a burst that fills the memory within one check interval (ip_frag.bats,
 * the cap test) is still seen, and the hook is attached for what comes
 * next.  Where inet_frag_find() can be hooked (fentry, kprobe) rcv__tp
 * is not loaded: nothing to gate.
 */
static int reasm_requests(struct bpftune_tuner *t, void *priv, uint64_t *value)
{
	static const char *const v4[] = { "Ip.ReasmReqds" };
	static const char *const v6[] = { "Ip6ReasmReqds" };
	uint64_t r4 = 0, r6 = 0;

	(void)t;
	(void)priv;
	if (bpftune_proc_snmp(NULL, v4, &r4, 1) != 1)
		return -EIO;
	/* no IPv6 (ipv6.disable=1): IPv4's alone */
	if (bpftune_proc_snmp6(NULL, v6, &r6, 1) != 1)
		r6 = 0;
	*value = r4 + r6;
	return 0;
}

static const struct bpftune_gate gates[] = {
	{
		.hook = "rcv__tp",
		.kind = BPFTUNE_GATE_EVENT,
		.what = "fragments dropped + Ip/Ip6 ReasmReqds",
		.counter = "frag_drops",
		.read = reasm_requests,
		/* nothing to look at while no packet arrives */
		.wake = "netif_receive_skb",
	},
};

static int ip_frag_init(struct bpftune_tuner *t, void *priv)
{
	(void)t;
	(void)priv;
	bpftune_log(LOG_INFO, "tuner ip_frag: caps: ipfrag_high_thresh and ip6frag_high_thresh %ld bytes per netns",
		    FRAG_CAP);
	return 0;
}

static const struct bpftune_scenario_desc scenarios[] = {
	[IP_FRAG_NEAR_THRESH] = {
		.name = "reassembly memory near its limit",
		.description = "fragments waiting for reassembly hold memory within delta of the high threshold",
		.payload_size = sizeof(struct ip_frag_event),
		.handle = near_thresh,
	},
	[IP_FRAG_FLOOD] = {
		.name = "fragment flood",
		.description = "reassembly failures rose together with the threshold: step back and hold",
	},
	[IP_FRAG_SHRINK] = {
		.name = "reassembly memory no longer needed",
		.description = "reassembly memory stayed low for a while: one step back",
	},
};

BPFTUNE_TUNER(ip_frag_tuner_bpf,
	.name = "ip_frag",
	.description = "IPv4/IPv6 reassembly memory (ipfrag_high_thresh), per netns, with a fragment flood guard",
	BPFTUNE_TUNABLES(tunables),
	BPFTUNE_SCENARIOS(scenarios),
	.netns = {
		.size = sizeof(struct if_netns), .max = MAX_NETNS,
		.init = netns_init, .busy = netns_grown,
	},
	.init = ip_frag_init,
	BPFTUNE_GATES(gates),
	.netns_state = ip_frag_netns_state,
	.timer = ip_frag_timer,
	.telemetry = &ip_frag_telemetry);
