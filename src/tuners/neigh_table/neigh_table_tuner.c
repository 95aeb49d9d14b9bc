// SPDX-License-Identifier: GPL-2.0-only
/*
 * neigh_table tuner: the gc thresholds of the neighbour tables (ARP and,
 * unless IPv6 is disabled, IPv6 neighbour discovery).
 *
 *  - Grow: when the entries the garbage collector counts come within delta
 *    of gc_thresh3, or the kernel refuses a new neighbour because the table
 *    is full, gc_thresh3 grows by delta and gc_thresh1/2 keep their
 *    proportion to it.  Growth is bounded by a hard cap and by what the
 *    table can legitimately need: the entries other namespaces hold now
 *    plus the neighbours the prefixes configured on the devices of the
 *    netns that needs room can hold (2^host bits each, IPv6 saturating at
 *    the cap).  A netns that already holds more entries than its prefixes
 *    explain gets no more room.  Growth that stops is logged, once.
 *  - Shrink: once thresholds we grew see a table at most a quarter full,
 *    they step back by delta, every second while it stays so, until they
 *    are back at the values they had when the tuner started.
 *
 * The neighbour tables are global: one arp_cache and one ndisc_cache for
 * every netns.  Their gc_thresh sysctls exist in the initial netns only
 * (6.x: a netns has no net.ipv4.neigh.default.gc_thresh*, and
 * RTM_SETNEIGHTBL with NDTA_THRESH* from another netns fails), so these
 * tunables are global ones, changed in the daemon's netns.  They are
 * applied through rtnetlink (RTM_SETNEIGHTBL, NDTA_THRESH1-3 of the table)
 * with the kit's netlink (<bpftune/netlink.h>); the sysctls read back the
 * same table fields, so the library's reads, journal and -R rollback use
 * /proc/sys as for any tunable.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <net/if.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <bpf/bpf.h>
#include <bpftune/libbpftune.h>
#include <bpftune/grow.h>
#include <bpftune/netlink.h>

#include "neigh_table_policy.h"
#include "neigh_table_tuner.h"
#include "neigh_table_tables.h"
#include "neigh_table_tuner.skel.h"
#include "neigh_table_tuner.legacy.skel.h"

/* a shrink step every this often while the table stays a quarter full */
#define SHRINK_PERIOD_MS	1000
/* devices without ARP/ND whose prefixes hold no neighbours, per dump */
#define MAX_NOARP		256

#define T(fam, n) {							\
	.name = "net." fam ".neigh.default.gc_thresh" #n,		\
	.num_values = 1, .min = 0, .max = NEIGH_HARD_CAP,		\
	.cap_reason = NEIGH_CAP_REASON,					\
}

/* index: family * 3 + threshold - 1 */
static const struct bpftune_tunable_desc tunables[] = {
	T("ipv4", 1), T("ipv4", 2), T("ipv4", 3),
	T("ipv6", 1), T("ipv6", 2), T("ipv6", 3),
};


struct fam_state {
	bool enabled;
	bool grown;		/* thresholds above orig, by us */
	bool shrinking;		/* the timer steps them back */
	struct nt_thresh orig;	/* values when the tuner started */
	/* last growth refusal logged, to log each one once */
	enum nt_grow_verdict stop_verdict;
	long stop_t3;
};

struct nt_state {
	struct bpftune_tuner *tuner;
	struct fam_state fam[NEIGH_TABLE_NUM];
	int grown_map_fd;
};

static const char *fam_name(unsigned int i)
{
	return i == NEIGH_TABLE_ARP ? "IPv4" : "IPv6";
}

static int fam_af(unsigned int i)
{
	return i == NEIGH_TABLE_ARP ? AF_INET : AF_INET6;
}

static const char *fam_table(unsigned int i)
{
	return i == NEIGH_TABLE_ARP ? "arp_cache" : "ndisc_cache";
}

/* ---- rtnetlink, through the kit ----------------------------------------- */

/*
 * The writer of every threshold: RTM_SETNEIGHTBL on the family's table,
 * in the daemon's netns (the library has entered it, capabilities raised).
 */
static int thresh_write(struct bpftune_tuner *t, unsigned int index,
			const long *values, unsigned int n, void *ctx)
{
	unsigned int fam = index / 3;
	struct bpftune_nl *nl;
	int err;

	(void)t;
	(void)ctx;
	if (n != 1 || fam >= NEIGH_TABLE_NUM)
		return -EINVAL;
	nl = bpftune_nl_open(NULL);
	if (!nl)
		return -errno;
	err = bpftune_nl_neigh_table_set(nl, fam_af(fam), index % 3 + 1, values[0]);
	bpftune_nl_close(nl);
	return err;
}

/* what a netns holds and can hold, from its links, addresses, neighbours */
struct capacity {
	int family;
	long limit;
	long sum;		/* neighbours its prefixes can hold */
	long entries;		/* neighbour entries it holds */
	unsigned int prefixes;
	unsigned int num_noarp;
	int noarp[MAX_NOARP];
};

static int link_cb(const struct bpftune_link *l, void *data)
{
	struct capacity *c = data;

	/* no neighbours there; past MAX_NOARP the bound is only looser */
	if ((l->flags & (IFF_NOARP | IFF_LOOPBACK)) && c->num_noarp < MAX_NOARP)
		c->noarp[c->num_noarp++] = l->ifindex;
	return 0;
}

static int addr_cb(const struct bpftune_addr *a, void *data)
{
	struct capacity *c = data;

	if (!nt_addr_counts(a->scope, a->ifindex, c->noarp, c->num_noarp))
		return 0;
	c->sum = bpftune_add_capped(c->sum,
				    nt_prefix_hosts(c->family, a->prefixlen,
							 c->limit), c->limit);
	c->prefixes++;
	return 0;
}

static int neigh_cb(const struct bpftune_neigh *nb, void *data)
{
	struct capacity *c = data;

	/* multicast and the like need no resolution: not on-link hosts */
	if (nt_neigh_counts(nb->state))
		c->entries++;
	return 0;
}

/*
 * The event's netns, for @fam: the neighbours the prefixes on its ARP/ND
 * devices can hold (saturating at the hard cap) and the entries it holds.
 * 0, or -errno if that netns cannot be looked at.
 */
static int netns_view(const struct bpftune_event *ev, unsigned int fam,
		      struct capacity *c)
{
	struct bpftune_nl *nl;
	int err;

	memset(c, 0, sizeof(*c));
	c->family = fam_af(fam);
	c->limit = NEIGH_HARD_CAP;
	nl = bpftune_nl_open(ev);
	if (!nl)
		return -errno;
	err = bpftune_nl_links(nl, link_cb, c);
	if (!err)
		err = bpftune_nl_addrs(nl, c->family, addr_cb, c);
	if (!err)
		err = bpftune_nl_neighs(nl, c->family, neigh_cb, c);
	bpftune_nl_close(nl);
	return err;
}

/* ---- state shared with the BPF side ------------------------------------- */

static void set_grown(struct nt_state *s, unsigned int fam, bool grown)
{
	uint32_t key = fam, val = grown;

	s->fam[fam].grown = grown;
	if (s->grown_map_fd >= 0)
		bpf_map_update_elem(s->grown_map_fd, &key, &val, BPF_ANY);
}

/* every entry of a table, all netns (the tables are global) */
static long table_entries(unsigned int fam)
{
	struct bpftune_neigh_table tbl;
	struct bpftune_nl *nl = bpftune_nl_open(NULL);
	int err;

	if (!nl)
		return -errno;
	err = bpftune_nl_neigh_table(nl, fam_af(fam), &tbl);
	bpftune_nl_close(nl);
	return err ? err : tbl.entries;
}

static int read_thresh(struct nt_state *s, const struct bpftune_event *ev,
		       unsigned int fam,
		       struct nt_thresh *t)
{
	long v[3];
	unsigned int i;
	int err;

	for (i = 0; i < 3; i++) {
		err = bpftune_tunable_get(s->tuner, fam * 3 + i, ev, &v[i]);
		if (err != 1)
			return err < 0 ? err : -EINVAL;
	}
	t->t1 = v[0];
	t->t2 = v[1];
	t->t3 = v[2];
	return 0;
}

/* Write @to over @from in @order (indexes 0..2 into the thresholds). */
static int apply(struct nt_state *s, const struct bpftune_event *ev,
		 unsigned int fam,
		 unsigned int scenario, const struct nt_thresh *from,
		 const struct nt_thresh *to, const unsigned int order[3],
		 const char *reason)
{
	const long f[3] = { from->t1, from->t2, from->t3 };
	const long v[3] = { to->t1, to->t2, to->t3 };
	unsigned int i, k;
	int err, changed = 0;

	for (k = 0; k < 3; k++) {
		i = order[k];
		if (f[i] == v[i])
			continue;
		err = bpftune_tunable_set(s->tuner, fam * 3 + i, ev,
					  scenario, &v[i], 1, reason);
		if (err < 0)
			return err;
		changed += err;
	}
	return changed;
}

/* ---- growth -------------------------------------------------------------- */

static void log_stop(struct nt_state *s, unsigned int fam,
		     enum nt_grow_verdict v, long t3,
		     const char *why)
{
	struct fam_state *fs = &s->fam[fam];

	if (fs->stop_verdict == v && fs->stop_t3 == t3)
		return;
	fs->stop_verdict = v;
	fs->stop_t3 = t3;
	bpftune_log(LOG_NOTICE, "tuner neigh_table: %s neighbour table: gc_thresh3 stays at %ld: %s",
		    fam_name(fam), t3, why);
}

/* inputs of grow-near-limit (neigh_table_tables.c) */
#define GROW_NUM_INPUTS	12

/* Growth refused: record the decision and log why, once. */
static void refused(struct nt_state *s, const struct bpftune_event *ev,
		    unsigned int fam, enum nt_grow_verdict v,
		    const struct nt_grow_input *in, long bound,
		    const struct bpftune_value *inputs, const char *where)
{
	char why[320];

	bpftune_decide_values(s->tuner, ev, ev->scenario_id, fam * 3 + 2,
			      "grow-near-limit", inputs, GROW_NUM_INPUTS, nt_grow_action(v));
	if (v == NT_NS_OVER_PREFIX)
		snprintf(why, sizeof(why), "%s holds %ld %s entries, at least the %ld neighbours its prefixes can hold: more room would not be for on-link neighbours",
			 where, in->ns_entries, fam_name(fam), in->ns_capacity);
	else if (v == NT_AT_PREFIX_CAP)
		snprintf(why, sizeof(why), "the prefixes of %s can hold %ld neighbours and %ld entries belong elsewhere: a table of %ld entries is all that can be needed",
			 where, in->ns_capacity, bound - in->ns_capacity, bound);
	else
		snprintf(why, sizeof(why), "the hard cap is %d (%s)",
			 NEIGH_HARD_CAP, NEIGH_CAP_REASON);
	log_stop(s, fam, v, in->cur.t3, why);
}

/* Why gc_thresh3 grows, for the log. */
static void grow_reason(const struct bpftune_event *ev,
			const struct neigh_table_event *e, unsigned int fam,
			const struct nt_grow_input *in, long bound,
			const char *where, char *reason, size_t len)
{
	char room[128];

	if (bound < NEIGH_HARD_CAP)
		snprintf(room, sizeof(room), "room for at most %ld entries: %ld elsewhere + %ld its prefixes can hold",
			 bound, bound - in->ns_capacity, in->ns_capacity);
	else
		snprintf(room, sizeof(room), "room for at most %d entries: the hard cap",
			 NEIGH_HARD_CAP);
	if (ev->scenario_id == NEIGH_TABLE_FULL)
		snprintf(reason, len, "the kernel refused a neighbour on %.16s in %s: the %s table is full (%d entries, gc_thresh3 %ld); %s",
			 e->dev, where, fam_table(fam), e->gc_entries, in->cur.t3,
			 room);
	else
		snprintf(reason, len, "%d entries of the %s table count against gc_thresh3 %ld, within %g%% of it (new entry on %.16s in %s); %s",
			 e->gc_entries, fam_table(fam), in->cur.t3, nt_delta_pct(bpftune_learning_rate()),
			 e->dev, where, room);
}

/* in the order neigh_table_tables.c declares them (grow_inputs) */
static void grow_inputs(const struct neigh_table_event *e, unsigned int fam,
			const struct nt_grow_input *in, long capacity,
			unsigned int prefixes, long bound, char *dev,
			struct bpftune_value *v)
{
	snprintf(dev, NEIGH_TABLE_IFNAMSIZ + 1, "%.*s", NEIGH_TABLE_IFNAMSIZ, e->dev);
	v[0] = BPFTUNE_VALUE_TEXT(fam_name(fam));
	v[1] = BPFTUNE_VALUE_TEXT(dev);
	v[2] = BPFTUNE_VALUE_INT(e->entries);
	v[3] = BPFTUNE_VALUE_INT(e->gc_entries);
	v[4] = BPFTUNE_VALUE_INT(in->cur.t1);
	v[5] = BPFTUNE_VALUE_INT(in->cur.t2);
	v[6] = BPFTUNE_VALUE_INT(in->cur.t3);
	v[7] = BPFTUNE_VALUE_INT(in->ns_entries);
	v[8] = capacity >= 0 ? BPFTUNE_VALUE_INT(capacity) : BPFTUNE_VALUE_NULL;
	v[9] = BPFTUNE_VALUE_INT(prefixes);
	v[10] = BPFTUNE_VALUE_INT(bound);
	v[11] = BPFTUNE_VALUE_INT(e->created);
}

static void grow(struct nt_state *s, const struct bpftune_event *ev,
		 const struct neigh_table_event *e, unsigned int fam)
{
	static const unsigned int order[3] = { 2, 1, 0 };	/* t3 first */
	struct bpftune_value inputs[GROW_NUM_INPUTS];
	char reason[400], where[128], dev[NEIGH_TABLE_IFNAMSIZ + 1];
	struct nt_thresh cur, out;
	struct nt_grow_input in;
	enum nt_grow_verdict v;
	struct capacity c;
	long bound = 0;
	int err;

	err = read_thresh(s, NULL, fam, &cur);
	if (err) {
		bpftune_log(LOG_WARNING, "tuner neigh_table: cannot read the %s thresholds: %s",
			    fam_name(fam), strerror(-err));
		return;
	}
	bpftune_netns_describe(ev->netns_cookie, where, sizeof(where));
	err = netns_view(ev, fam, &c);
	if (err)	/* cannot see its prefixes: only the hard cap applies */
		bpftune_log(LOG_DEBUG, "tuner neigh_table: prefixes of %s unknown: %s",
			    where, strerror(-err));
	nt_grow_in(&cur, &s->fam[fam].orig, e->entries, c.entries, err ? -1 : c.sum,
		   bpftune_learning_rate(), &in);
	v = nt_grow_step(&in, &out, &bound);
	grow_inputs(e, fam, &in, err ? -1 : c.sum, c.prefixes, bound, dev, inputs);
	if (v != NT_GROW) {
		refused(s, ev, fam, v, &in, bound, inputs, where);
		return;
	}
	bpftune_decide_values(s->tuner, ev, ev->scenario_id, fam * 3 + 2,
			      "grow-near-limit", inputs, GROW_NUM_INPUTS, nt_grow_action(v));
	grow_reason(ev, e, fam, &in, bound, where, reason, sizeof(reason));
	if (apply(s, ev, fam, ev->scenario_id, &in.cur, &out, order, reason) > 0)
		set_grown(s, fam, true);
}

/* ---- shrink -------------------------------------------------------------- */

static void timer_update(struct nt_state *s)
{
	bool want = false;
	unsigned int i;

	for (i = 0; i < NEIGH_TABLE_NUM; i++)
		want |= s->fam[i].shrinking;
	bpftune_timer_keep(s->tuner, want, SHRINK_PERIOD_MS);
}

/* One step back towards the original thresholds, if the table is small. */
static void shrink(struct nt_state *s, const struct bpftune_event *ev,
		   unsigned int fam)
{
	static const unsigned int order[3] = { 0, 1, 2 };	/* t1 first */
	struct fam_state *fs = &s->fam[fam];
	struct nt_thresh cur, out;
	struct bpftune_value inputs[8];
	char reason[256];
	enum nt_shrink step;
	long entries;
	int err;

	if (!fs->grown) {
		fs->shrinking = false;
		return;
	}
	entries = table_entries(fam);
	if (entries < 0 || read_thresh(s, NULL, fam, &cur)) {
		fs->shrinking = false;
		return;
	}
	step = nt_shrink_decide(&cur, entries, &fs->orig, bpftune_learning_rate(), &out);
	inputs[0] = BPFTUNE_VALUE_TEXT(fam_name(fam));
	inputs[1] = BPFTUNE_VALUE_INT(entries);
	inputs[2] = BPFTUNE_VALUE_INT(cur.t1);
	inputs[3] = BPFTUNE_VALUE_INT(cur.t2);
	inputs[4] = BPFTUNE_VALUE_INT(cur.t3);
	inputs[5] = BPFTUNE_VALUE_INT(fs->orig.t1);
	inputs[6] = BPFTUNE_VALUE_INT(fs->orig.t2);
	inputs[7] = BPFTUNE_VALUE_INT(fs->orig.t3);
	bpftune_decide_values(s->tuner, ev, NEIGH_TABLE_EMPTYING, fam * 3 + 2,
			      "shrink-when-empty", inputs, 8, nt_shrink_action(step));
	if (step == NT_SHRINK_WAIT || step == NT_SHRINK_DONE) {
		fs->shrinking = false;
		if (step == NT_SHRINK_DONE)
			set_grown(s, fam, false);
		return;
	}
	snprintf(reason, sizeof(reason), "the %s table holds %ld entries, at most a quarter of gc_thresh3 %ld: back towards %ld,%ld,%ld",
		 fam_table(fam), entries, cur.t3, fs->orig.t1, fs->orig.t2,
		 fs->orig.t3);
	err = apply(s, ev, fam, NEIGH_TABLE_EMPTYING, &cur, &out, order, reason);
	if (err < 0) {
		fs->shrinking = false;
		return;
	}
	fs->shrinking = step == NT_SHRINK_LOWER;
	if (!fs->shrinking)
		set_grown(s, fam, false);
	/* a later refusal at the same value is news again */
	fs->stop_t3 = -1;
}

static void neigh_table_timer(struct bpftune_tuner *t, void *priv)
{
	struct nt_state *s = priv;
	struct bpftune_event ev;
	unsigned int i;

	bpftune_event_init(&ev, t, NEIGH_TABLE_EMPTYING, 0, 0);
	for (i = 0; i < NEIGH_TABLE_NUM; i++)
		if (s->fam[i].shrinking)
			shrink(s, &ev, i);
	timer_update(s);
}

/* ---- plumbing ------------------------------------------------------------ */

static void neigh_table_event(struct bpftune_tuner *t, void *priv,
			      const struct bpftune_event *ev)
{
	const struct neigh_table_event *e = (const void *)ev->payload;
	struct nt_state *s = priv;
	unsigned int fam;

	(void)t;
	if (e->family == AF_INET)
		fam = NEIGH_TABLE_ARP;
	else if (e->family == AF_INET6)
		fam = NEIGH_TABLE_ND;
	else
		return;
	if (!s->fam[fam].enabled)
		return;
	if (ev->scenario_id == NEIGH_TABLE_EMPTYING) {
		shrink(s, ev, fam);
	} else {
		s->fam[fam].shrinking = false;
		grow(s, ev, e, fam);
	}
	timer_update(s);
}

/* Stopped by the admin: nothing of ours is left to shrink. */
static void neigh_table_netns_state(struct bpftune_tuner *t, void *priv,
				    uint64_t cookie, enum bpftune_state state)
{
	struct nt_state *s = priv;
	unsigned int i;

	(void)t;
	(void)cookie;
	if (state != BPFTUNE_STATE_MANUAL)
		return;
	for (i = 0; i < NEIGH_TABLE_NUM; i++) {
		s->fam[i].shrinking = false;
		set_grown(s, i, false);
	}
	timer_update(s);
}

/* The family's starting thresholds and its writers; -ENOENT: no table. */
static int family_init(struct nt_state *s, unsigned int i)
{
	struct fam_state *fs = &s->fam[i];
	unsigned int j;
	int err;

	fs->stop_t3 = -1;
	/* IPv6 disabled (ipv6.disable=1): no ND table to tune */
	fs->enabled = !read_thresh(s, NULL, i, &fs->orig);
	if (!fs->enabled)
		return -ENOENT;
	for (j = 0; j < 3; j++) {
		err = bpftune_tunable_set_writer(s->tuner, i * 3 + j, thresh_write, NULL);
		if (err)
			return err;
	}
	set_grown(s, i, false);
	return 0;
}

static int neigh_table_init(struct bpftune_tuner *t, void *priv)
{
	struct nt_state *s = priv;
	unsigned int i;
	int err;

	s->tuner = t;
	s->grown_map_fd = bpf_map__fd(BPFTUNE_SKEL_MAP(t, neigh_table_tuner_bpf, grown));
	for (i = 0; i < NEIGH_TABLE_NUM; i++) {
		err = family_init(s, i);
		if (err == -ENOENT && i != NEIGH_TABLE_ARP) {
			bpftune_log(LOG_INFO, "tuner neigh_table: no IPv6 neighbour table (IPv6 disabled?): tuning ARP only");
			continue;
		}
		if (err)
			return err;
	}
	bpftune_log(LOG_INFO, "tuner neigh_table: caps: gc_thresh1-3 at most %d, and no more than the configured prefixes can hold; applied with RTM_SETNEIGHTBL; IPv4 starts at %ld,%ld,%ld",
		    NEIGH_HARD_CAP, s->fam[0].orig.t1, s->fam[0].orig.t2,
		    s->fam[0].orig.t3);
	return 0;
}

static const struct bpftune_scenario_desc scenarios[] = {
	[NEIGH_TABLE_NEAR_FULL] = {
		.name = "neighbour table near full",
		.description = "entries counted by the neighbour garbage collector came within delta of gc_thresh3",
		.payload_size = sizeof(struct neigh_table_event),
	},
	[NEIGH_TABLE_FULL] = {
		.name = "neighbour table full",
		.description = "the kernel refused a new neighbour entry: the table is at gc_thresh3",
		.payload_size = sizeof(struct neigh_table_event),
	},
	[NEIGH_TABLE_EMPTYING] = {
		.name = "neighbour table emptied",
		.description = "thresholds we raised see a table at most a quarter full: step back towards their original values",
		.payload_size = sizeof(struct neigh_table_event),
	},
};

BPFTUNE_TUNER(neigh_table_tuner_bpf,
	.name = "neigh_table",
	.description = "neighbour table gc thresholds (ARP, IPv6 ND): grown near full, capped by the prefixes, shrunk when empty",
	BPFTUNE_TUNABLES(tunables),
	BPFTUNE_SCENARIOS(scenarios),
	.priv_size = sizeof(struct nt_state),
	.event = neigh_table_event,
	.init = neigh_table_init,
	.netns_state = neigh_table_netns_state,
	.timer = neigh_table_timer,
	.telemetry = &neigh_table_telemetry);
