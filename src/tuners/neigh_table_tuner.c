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
 * applied through rtnetlink (RTM_SETNEIGHTBL, NDTA_THRESH1-3 of the table),
 * with libmnl; the sysctls read back the same table fields, so the
 * library's reads, journal and -R rollback use /proc/sys as for any
 * tunable.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <net/if.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <libmnl/libmnl.h>
#include <bpf/bpf.h>

#include "core/internal.h"
#include "table_policy.h"
#include "neigh_table_tuner.h"
#include "tuner_tables.h"
#include "neigh_table_tuner.skel.h"
#include "neigh_table_tuner.legacy.skel.h"

/*
 * Hard cap for every threshold.  An entry costs about half a KiB of
 * unswappable kernel memory (struct neighbour, its hash slot, queued
 * skbs): 65536 of them is ~32 MiB.  An L2 domain with more neighbours
 * than that is something to configure by hand.
 */
#define NEIGH_HARD_CAP		65536
#define NEIGH_CAP_REASON	"65536 neighbours cost ~32 MiB of unswappable kernel memory; " \
				"larger L2 domains are configured by hand; growth is also " \
				"bounded by what the configured prefixes can hold"
/* a shrink step every this often while the table stays a quarter full */
#define SHRINK_PERIOD_MS	1000
/* devices without ARP/ND whose prefixes hold no neighbours, per dump */
#define MAX_NOARP		256
#define NL_TIMEOUT_MS		1000

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

static const struct bpftune_scenario_desc scenarios[] = {
	[NEIGH_TABLE_NEAR_FULL] = {
		"neighbour table near full",
		"entries counted by the neighbour garbage collector came within delta of gc_thresh3",
	},
	[NEIGH_TABLE_FULL] = {
		"neighbour table full",
		"the kernel refused a new neighbour entry: the table is at gc_thresh3",
	},
	[NEIGH_TABLE_EMPTYING] = {
		"neighbour table emptied",
		"thresholds we raised see a table at most a quarter full: step back towards their original values",
	},
};

struct fam_state {
	bool enabled;
	bool grown;		/* thresholds above orig, by us */
	bool shrinking;		/* the timer steps them back */
	struct neigh_thresh orig;	/* values when the tuner started */
	/* last growth refusal logged, to log each one once */
	enum neigh_grow_verdict stop_verdict;
	long stop_t3;
};

static struct nt_state {
	struct bpftune_tuner *tuner;
	struct bpftune_observer observer;
	struct fam_state fam[NEIGH_TABLE_NUM];
	int grown_map_fd;
	struct bpftune_timer *timer;
} *state;

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

/* delta as a percentage of the value, for the log */
static double delta_pct(void)
{
	return 100.0 / (double)(1u << (6 - bpftune_learning_rate()));
}

/* ---- rtnetlink with libmnl ---------------------------------------------- */

/* A NETLINK_ROUTE socket of the thread's current netns. */
static struct mnl_socket *nl_open(void)
{
	struct timeval tv = { .tv_sec = NL_TIMEOUT_MS / 1000,
			      .tv_usec = (NL_TIMEOUT_MS % 1000) * 1000 };
	struct mnl_socket *nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC);

	if (!nl)
		return NULL;
	/* the handler runs in the daemon's only thread: never wait long */
	if (setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_RCVTIMEO, &tv,
		       sizeof(tv)) || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID)) {
		int err = errno;

		mnl_socket_close(nl);
		errno = err;
		return NULL;
	}
	return nl;
}

/* Send @nlh and run @cb on the answers until the ack or the dump's end. */
static int nl_talk(struct mnl_socket *nl, struct nlmsghdr *nlh,
		   mnl_cb_t cb, void *data)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	unsigned int seq = nlh->nlmsg_seq, portid = mnl_socket_get_portid(nl);
	ssize_t n;
	int ret;

	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	for (;;) {
		n = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (n < 0)
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		ret = mnl_cb_run(buf, n, seq, portid, cb, data);
		if (ret == MNL_CB_ERROR)
			return errno ? -errno : -EIO;
		if (ret == MNL_CB_STOP)
			return 0;
	}
}

/*
 * The writer of every threshold: RTM_SETNEIGHTBL on the family's table
 * with the one NDTA_THRESHn attribute.  Called in the daemon's netns.
 */
static int thresh_write(struct bpftune_tuner *t, unsigned int index,
			const long *values, unsigned int n, void *ctx)
{
	static const uint16_t attr[3] = { NDTA_THRESH1, NDTA_THRESH2, NDTA_THRESH3 };
	char buf[MNL_SOCKET_BUFFER_SIZE];
	unsigned int fam = index / 3;
	struct mnl_socket *nl;
	struct nlmsghdr *nlh;
	struct ndtmsg *ndtm;
	int err;

	(void)t;
	(void)ctx;
	if (n != 1 || fam >= NEIGH_TABLE_NUM || values[0] < 0 || values[0] > INT_MAX)
		return -EINVAL;
	nl = nl_open();
	if (!nl)
		return -errno;
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_SETNEIGHTBL;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = (unsigned int)time(NULL);
	ndtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ndtm));
	ndtm->ndtm_family = fam_af(fam);
	mnl_attr_put_strz(nlh, NDTA_NAME, fam_table(fam));
	mnl_attr_put_u32(nlh, attr[index % 3], (uint32_t)values[0]);
	err = nl_talk(nl, nlh, NULL, NULL);
	mnl_socket_close(nl);
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

static int link_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
	struct capacity *c = data;

	if (nlh->nlmsg_type != RTM_NEWLINK ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(*ifi))
		return MNL_CB_OK;
	/* no neighbours there; past MAX_NOARP the bound is only looser */
	if ((ifi->ifi_flags & (IFF_NOARP | IFF_LOOPBACK)) &&
	    c->num_noarp < MAX_NOARP)
		c->noarp[c->num_noarp++] = ifi->ifi_index;
	return MNL_CB_OK;
}

static int addr_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct ifaddrmsg *ifa = mnl_nlmsg_get_payload(nlh);
	struct capacity *c = data;
	unsigned int i;

	if (nlh->nlmsg_type != RTM_NEWADDR ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(*ifa) ||
	    ifa->ifa_family != c->family || ifa->ifa_scope == RT_SCOPE_HOST)
		return MNL_CB_OK;
	for (i = 0; i < c->num_noarp; i++)
		if (c->noarp[i] == (int)ifa->ifa_index)
			return MNL_CB_OK;
	c->sum = table_add_capped(c->sum,
				  table_prefix_hosts(c->family, ifa->ifa_prefixlen,
						     c->limit), c->limit);
	c->prefixes++;
	return MNL_CB_OK;
}

static int neigh_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct ndmsg *ndm = mnl_nlmsg_get_payload(nlh);
	struct capacity *c = data;

	/* multicast and the like need no resolution: not on-link hosts */
	if (nlh->nlmsg_type == RTM_NEWNEIGH &&
	    mnl_nlmsg_get_payload_len(nlh) >= sizeof(*ndm) &&
	    ndm->ndm_family == c->family && !(ndm->ndm_state & NUD_NOARP))
		c->entries++;
	return MNL_CB_OK;
}

static int dump(struct mnl_socket *nl, uint16_t type, int family,
		mnl_cb_t cb, void *data)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct rtgenmsg *g;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = (unsigned int)time(NULL);
	/* ifinfomsg, ifaddrmsg and ndmsg all start with the family */
	g = mnl_nlmsg_put_extra_header(nlh, type == RTM_GETLINK ?
				       sizeof(struct ifinfomsg) :
				       type == RTM_GETADDR ?
				       sizeof(struct ifaddrmsg) :
				       sizeof(struct ndmsg));
	g->rtgen_family = family;
	return nl_talk(nl, nlh, cb, data);
}

/*
 * The event's netns, for @fam: the neighbours the prefixes on its ARP/ND
 * devices can hold (saturating at the hard cap) and the entries it holds.
 * 0, or -errno if that netns cannot be looked at.
 */
static int netns_view(const struct bpftune_event *ev, unsigned int fam,
		      struct capacity *c)
{
	struct mnl_socket *nl;
	int fd, saved, err;

	memset(c, 0, sizeof(*c));
	c->family = fam_af(fam);
	c->limit = NEIGH_HARD_CAP;

	fd = bpftune_netns_fd_for_event(ev);
	if (fd < -1)
		return fd;
	err = bpftune_netns_enter(fd, &saved);
	if (err)
		return err;
	/* a netlink socket belongs to the netns it was opened in */
	nl = nl_open();
	err = nl ? 0 : -errno;
	bpftune_netns_leave(saved);
	if (err)
		return err;
	err = dump(nl, RTM_GETLINK, AF_UNSPEC, link_cb, c);
	if (!err)
		err = dump(nl, RTM_GETADDR, c->family, addr_cb, c);
	if (!err)
		err = dump(nl, RTM_GETNEIGH, c->family, neigh_cb, c);
	mnl_socket_close(nl);
	return err;
}

/* ---- state shared with the BPF side ------------------------------------- */

static void set_grown(unsigned int fam, bool grown)
{
	uint32_t key = fam, val = grown;

	state->fam[fam].grown = grown;
	if (state->grown_map_fd >= 0)
		bpf_map_update_elem(state->grown_map_fd, &key, &val, BPF_ANY);
}

/* every entry of a table, all netns: /proc/net/stat/<table> (hex) */
static long table_entries(unsigned int fam)
{
	char path[64], line[512];
	unsigned long v;
	long ret = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/net/stat/%s", fam_table(fam));
	f = fopen(path, "re");
	if (!f)
		return -errno;
	/* a header line, then one line per CPU whose first field is global */
	if (fgets(line, sizeof(line), f) && fgets(line, sizeof(line), f) &&
	    sscanf(line, "%lx", &v) == 1 && v <= INT_MAX)
		ret = (long)v;
	fclose(f);
	return ret;
}

static int read_thresh(const struct bpftune_event *ev, unsigned int fam,
		       struct neigh_thresh *t)
{
	long v[3];
	unsigned int i;
	int err;

	for (i = 0; i < 3; i++) {
		err = bpftune_tunable_get(state->tuner, fam * 3 + i, ev, &v[i]);
		if (err != 1)
			return err < 0 ? err : -EINVAL;
	}
	t->t1 = v[0];
	t->t2 = v[1];
	t->t3 = v[2];
	return 0;
}

/* Write @to over @from in @order (indexes 0..2 into the thresholds). */
static int apply(const struct bpftune_event *ev, unsigned int fam,
		 unsigned int scenario, const struct neigh_thresh *from,
		 const struct neigh_thresh *to, const unsigned int order[3],
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
		err = bpftune_tunable_set(state->tuner, fam * 3 + i, ev,
					  scenario, &v[i], 1, reason);
		if (err < 0)
			return err;
		changed += err;
	}
	return changed;
}

/* ---- growth -------------------------------------------------------------- */

static void log_stop(unsigned int fam, enum neigh_grow_verdict v, long t3,
		     const char *why)
{
	struct fam_state *fs = &state->fam[fam];

	if (fs->stop_verdict == v && fs->stop_t3 == t3)
		return;
	fs->stop_verdict = v;
	fs->stop_t3 = t3;
	bpftune_log(LOG_NOTICE, "tuner neigh_table: %s neighbour table: gc_thresh3 stays at %ld: %s",
		    fam_name(fam), t3, why);
}

static void grow(const struct bpftune_event *ev,
		 const struct neigh_table_event *e, unsigned int fam)
{
	static const unsigned int order[3] = { 2, 1, 0 };	/* t3 first */
	struct neigh_grow_in in = {
		.hard_cap = NEIGH_HARD_CAP, .orig = state->fam[fam].orig,
	};
	char inputs[320], why[320], reason[400], where[128], room[128];
	unsigned int scenario = ev->scenario_id;
	enum neigh_grow_verdict v;
	struct neigh_thresh out;
	struct capacity c;
	long bound = 0;
	int err;

	err = read_thresh(NULL, fam, &in.cur);
	if (err) {
		bpftune_log(LOG_WARNING, "tuner neigh_table: cannot read the %s thresholds: %s",
			    fam_name(fam), strerror(-err));
		return;
	}
	in.entries = e->entries;
	bpftune_netns_describe(ev->netns_cookie, where, sizeof(where));
	err = netns_view(ev, fam, &c);
	if (err) {
		/* cannot see its prefixes: only the hard cap applies */
		bpftune_log(LOG_DEBUG, "tuner neigh_table: prefixes of %s unknown: %s",
			    where, strerror(-err));
		c.sum = NEIGH_HARD_CAP;
		c.entries = 0;
	}
	in.ns_entries = c.entries;
	in.ns_capacity = c.sum;
	/* the netns' entries are part of the table (one may lag the other) */
	if (in.entries < in.ns_entries)
		in.entries = in.ns_entries;
	in.delta = bpftune_delta(in.cur.t3);
	v = neigh_grow(&in, &out, &bound);
	snprintf(inputs, sizeof(inputs),
		 "family=%s dev=%.16s entries=%d gc_entries=%d thresh=%ld,%ld,%ld ns_entries=%ld prefix_capacity=%ld prefixes=%u bound=%ld created=%u",
		 fam_name(fam), e->dev, e->entries, e->gc_entries, in.cur.t1,
		 in.cur.t2, in.cur.t3, in.ns_entries, err ? -1L : c.sum,
		 c.prefixes, bound,
		 e->created);
	switch (v) {
	case NEIGH_NS_OVER_PREFIX:
		bpftune_decide(state->tuner, ev, scenario, fam * 3 + 2, "grow-near-limit", inputs,
			       "none: netns holds more entries than its prefixes");
		snprintf(why, sizeof(why), "%s holds %ld %s entries, at least the %ld neighbours its prefixes can hold: more room would not be for on-link neighbours",
			 where, in.ns_entries, fam_name(fam), in.ns_capacity);
		log_stop(fam, v, in.cur.t3, why);
		return;
	case NEIGH_AT_PREFIX_CAP:
		bpftune_decide(state->tuner, ev, scenario, fam * 3 + 2, "grow-near-limit", inputs,
			       "none: at what the prefixes can hold");
		snprintf(why, sizeof(why), "the prefixes of %s can hold %ld neighbours and %ld entries belong elsewhere: a table of %ld entries is all that can be needed",
			 where, in.ns_capacity, bound - in.ns_capacity, bound);
		log_stop(fam, v, in.cur.t3, why);
		return;
	case NEIGH_AT_HARD_CAP:
		bpftune_decide(state->tuner, ev, scenario, fam * 3 + 2, "grow-near-limit", inputs,
			       "none: at the hard cap");
		snprintf(why, sizeof(why), "the hard cap is %d (%s)",
			 NEIGH_HARD_CAP, NEIGH_CAP_REASON);
		log_stop(fam, v, in.cur.t3, why);
		return;
	case NEIGH_GROW:
		break;
	}
	bpftune_decide(state->tuner, ev, scenario, fam * 3 + 2, "grow-near-limit", inputs, "raise");
	if (bound < NEIGH_HARD_CAP)
		snprintf(room, sizeof(room), "room for at most %ld entries: %ld elsewhere + %ld its prefixes can hold",
			 bound, bound - in.ns_capacity, in.ns_capacity);
	else
		snprintf(room, sizeof(room), "room for at most %d entries: the hard cap",
			 NEIGH_HARD_CAP);
	if (scenario == NEIGH_TABLE_FULL)
		snprintf(reason, sizeof(reason), "the kernel refused a neighbour on %.16s in %s: the %s table is full (%d entries, gc_thresh3 %ld); %s",
			 e->dev, where, fam_table(fam), e->gc_entries, in.cur.t3,
			 room);
	else
		snprintf(reason, sizeof(reason), "%d entries of the %s table count against gc_thresh3 %ld, within %g%% of it (new entry on %.16s in %s); %s",
			 e->gc_entries, fam_table(fam), in.cur.t3, delta_pct(),
			 e->dev, where, room);
	err = apply(ev, fam, scenario, &in.cur, &out, order, reason);
	if (err > 0)
		set_grown(fam, true);
}

/* ---- shrink -------------------------------------------------------------- */

static void timer_update(void)
{
	bool want = false;
	unsigned int i;

	for (i = 0; i < NEIGH_TABLE_NUM; i++)
		want |= state->fam[i].shrinking;
	if (want != bpftune_timer_armed(state->timer))
		bpftune_timer_set(state->timer, want ? SHRINK_PERIOD_MS : 0);
}

/* One step back towards the original thresholds, if the table is small. */
static void shrink(const struct bpftune_event *ev, unsigned int fam)
{
	static const unsigned int order[3] = { 0, 1, 2 };	/* t1 first */
	struct fam_state *fs = &state->fam[fam];
	struct neigh_thresh cur, out;
	char inputs[256], reason[256];
	long entries;
	bool step;
	int err;

	if (!fs->grown) {
		fs->shrinking = false;
		return;
	}
	entries = table_entries(fam);
	if (entries < 0 || read_thresh(NULL, fam, &cur)) {
		fs->shrinking = false;
		return;
	}
	step = neigh_shrink(&cur, entries, &fs->orig, bpftune_delta(cur.t3), &out);
	snprintf(inputs, sizeof(inputs), "family=%s entries=%ld thresh=%ld,%ld,%ld orig=%ld,%ld,%ld",
		 fam_name(fam), entries, cur.t1, cur.t2, cur.t3, fs->orig.t1,
		 fs->orig.t2, fs->orig.t3);
	bpftune_decide(state->tuner, ev, NEIGH_TABLE_EMPTYING, fam * 3 + 2, "shrink-when-empty",
		       inputs, step ? "lower" : "none: table not a quarter empty");
	if (!step) {
		fs->shrinking = false;
		if (cur.t3 <= fs->orig.t3)
			set_grown(fam, false);
		return;
	}
	snprintf(reason, sizeof(reason), "the %s table holds %ld entries, at most a quarter of gc_thresh3 %ld: back towards %ld,%ld,%ld",
		 fam_table(fam), entries, cur.t3, fs->orig.t1, fs->orig.t2,
		 fs->orig.t3);
	err = apply(ev, fam, NEIGH_TABLE_EMPTYING, &cur, &out, order, reason);
	if (err < 0) {
		fs->shrinking = false;
		return;
	}
	fs->shrinking = out.t3 > fs->orig.t3;
	if (!fs->shrinking)
		set_grown(fam, false);
	/* a later refusal at the same value is news again */
	fs->stop_t3 = -1;
}

static void on_timer(void *ctx)
{
	struct bpftune_event ev;
	unsigned int i;

	(void)ctx;
	bpftune_event_init(&ev, state->tuner, NEIGH_TABLE_EMPTYING, 0, 0);
	for (i = 0; i < NEIGH_TABLE_NUM; i++)
		if (state->fam[i].shrinking)
			shrink(&ev, i);
	timer_update();
}

/* ---- plumbing ------------------------------------------------------------ */

static void neigh_table_event(struct bpftune_tuner *t,
			      const struct bpftune_event *ev)
{
	const struct neigh_table_event *e = (const void *)ev->payload;
	unsigned int fam;

	(void)t;
	if (ev->payload_len < sizeof(*e))
		return;
	if (e->family == AF_INET)
		fam = NEIGH_TABLE_ARP;
	else if (e->family == AF_INET6)
		fam = NEIGH_TABLE_ND;
	else
		return;
	if (!state->fam[fam].enabled)
		return;
	switch (ev->scenario_id) {
	case NEIGH_TABLE_NEAR_FULL:
	case NEIGH_TABLE_FULL:
		state->fam[fam].shrinking = false;
		grow(ev, e, fam);
		break;
	case NEIGH_TABLE_EMPTYING:
		shrink(ev, fam);
		break;
	default:
		break;
	}
	timer_update();
}

/* Stopped by the admin: nothing of ours is left to shrink. */
static void on_state(const struct bpftune_tuner *t, uint64_t cookie,
		     enum bpftune_state s, const char *cause)
{
	unsigned int i;

	(void)cookie;
	(void)cause;
	if (!state || t != state->tuner || s != BPFTUNE_STATE_MANUAL)
		return;
	for (i = 0; i < NEIGH_TABLE_NUM; i++) {
		state->fam[i].shrinking = false;
		set_grown(i, false);
	}
	timer_update();
}

static void nt_free(void)
{
	bpftune_timer_free(state->timer);
	free(state);
	state = NULL;
}

static int neigh_table_init(struct bpftune_tuner *t)
{
	unsigned int i, j;
	int err;

	state = calloc(1, sizeof(*state));
	if (!state)
		return -ENOMEM;
	state->tuner = t;
	state->grown_map_fd = bpftune_tuner_map_fd(t, "grown");
	for (i = 0; i < NEIGH_TABLE_NUM; i++) {
		struct fam_state *fs = &state->fam[i];

		fs->stop_t3 = -1;
		/* IPv6 disabled (ipv6.disable=1): no ND table to tune */
		fs->enabled = !read_thresh(NULL, i, &fs->orig);
		if (!fs->enabled) {
			if (i == NEIGH_TABLE_ARP) {
				nt_free();
				return -ENOENT;
			}
			bpftune_log(LOG_INFO, "tuner neigh_table: no IPv6 neighbour table (IPv6 disabled?): tuning ARP only");
			continue;
		}
		for (j = 0; j < 3; j++) {
			err = bpftune_tunable_set_writer(t, i * 3 + j, thresh_write, NULL);
			if (err) {
				nt_free();
				return err;
			}
		}
		set_grown(i, false);
	}
	state->timer = bpftune_timer_new(on_timer, NULL);
	if (!state->timer) {
		err = -errno;
		nt_free();
		return err;
	}
	state->observer.state = on_state;
	bpftune_observer_add(&state->observer);
	bpftune_log(LOG_INFO, "tuner neigh_table: caps: gc_thresh1-3 at most %d, and no more than the configured prefixes can hold; applied with RTM_SETNEIGHTBL; IPv4 starts at %ld,%ld,%ld",
		    NEIGH_HARD_CAP, state->fam[0].orig.t1, state->fam[0].orig.t2,
		    state->fam[0].orig.t3);
	return 0;
}

static void neigh_table_fini(struct bpftune_tuner *t)
{
	(void)t;
	if (!state)
		return;
	bpftune_observer_remove(&state->observer);
	nt_free();
}

BPFTUNE_TUNER("neigh_table",
	      "neighbour table gc thresholds (ARP, IPv6 ND): grown near full, capped by the prefixes, shrunk when empty",
	      neigh_table_tuner_bpf, tunables, scenarios, neigh_table_init,
	      neigh_table_fini, neigh_table_event,
	      .telemetry = &neigh_table_telemetry);
