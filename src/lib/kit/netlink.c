// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kit's rtnetlink (see <bpftune/netlink.h>) on libnl-route-3: links,
 * addresses and neighbours through libnl's caches.  Neighbour tables are
 * the one place for raw messages, built and parsed with libnl's message
 * API: libnl keeps a table's thresholds and entry count (NDTA_CONFIG) to
 * itself, without getters, and its rtnl_neightbl_build_change_request()
 * sends NDTA_THRESH2 where NDTA_THRESH3 is asked for, so gc_thresh3 could
 * not be set through it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <netlink/netlink.h>
#include <netlink/msg.h>
#include <netlink/attr.h>
#include <netlink/route/link.h>
#include <netlink/route/addr.h>
#include <netlink/route/neighbour.h>
#include <bpftune/netlink.h>

#include "core/internal.h"

struct bpftune_nl {
	struct nl_sock *sk;
};

/* libnl's NLE_* codes as -errno */
static int nl_errno(int nle)
{
	switch (nle < 0 ? -nle : nle) {
	case 0:
		return 0;
	case NLE_NOMEM:
		return -ENOMEM;
	case NLE_PERM:
		return -EPERM;
	case NLE_NOACCESS:
		return -EACCES;
	case NLE_OBJ_NOTFOUND:
		return -ENOENT;
	case NLE_INVAL:
	case NLE_RANGE:
		return -EINVAL;
	case NLE_OPNOTSUPP:
		return -EOPNOTSUPP;
	case NLE_AGAIN:
		return -EAGAIN;
	case NLE_BUSY:
		return -EBUSY;
	default:
		return -EIO;
	}
}

static struct nl_sock *connect_here(void)
{
	struct timeval tv = {
		.tv_sec = BPFTUNE_NL_TIMEOUT_MS / 1000,
		.tv_usec = (BPFTUNE_NL_TIMEOUT_MS % 1000) * 1000,
	};
	struct nl_sock *sk = nl_socket_alloc();
	int err;

	if (!sk) {
		errno = ENOMEM;
		return NULL;
	}
	err = nl_connect(sk, NETLINK_ROUTE);
	/* the callers run in the daemon's only thread: never wait long */
	if (!err && setsockopt(nl_socket_get_fd(sk), SOL_SOCKET, SO_RCVTIMEO,
			       &tv, sizeof(tv)))
		err = -NLE_FAILURE;
	if (err) {
		nl_socket_free(sk);
		errno = -nl_errno(err);
		return NULL;
	}
	return sk;
}

struct bpftune_nl *bpftune_nl_open(const struct bpftune_event *ev)
{
	struct bpftune_nl *nl;
	int fd, saved, err;

	nl = calloc(1, sizeof(*nl));
	if (!nl)
		return NULL;
	fd = ev ? bpftune_netns_fd_for_event(ev) : -1;
	err = fd < -1 ? fd : 0;
	/* a netlink socket belongs to the netns it is opened in */
	if (!err && ev)
		err = bpftune_netns_enter(fd, &saved);
	if (!err) {
		nl->sk = connect_here();
		err = nl->sk ? 0 : -errno;
		if (ev)
			bpftune_netns_leave(saved);
	}
	if (err) {
		free(nl);
		errno = -err;
		return NULL;
	}
	return nl;
}

void bpftune_nl_close(struct bpftune_nl *nl)
{
	if (!nl)
		return;
	nl_socket_free(nl->sk);
	free(nl);
}

/* ---- walking a libnl cache -------------------------------------------- */

struct walk {
	int family;
	int (*fn)(struct nl_object *obj, struct walk *w);
	int ret;
	void *user_fn;
	void *ctx;
};

static void walk_one(struct nl_object *obj, void *arg)
{
	struct walk *w = arg;

	if (!w->ret)
		w->ret = w->fn(obj, w);
}

enum dump { DUMP_LINKS, DUMP_ADDRS, DUMP_NEIGHS };

/* Dump @what into a libnl cache and call w->fn on each object. */
static int walk_dump(struct bpftune_nl *nl, enum dump what, struct walk *w)
{
	struct nl_cache *cache = NULL;
	int err;

	if (!nl || !w->user_fn)
		return -EINVAL;
	if (what == DUMP_LINKS)
		err = rtnl_link_alloc_cache(nl->sk, AF_UNSPEC, &cache);
	else if (what == DUMP_ADDRS)
		err = rtnl_addr_alloc_cache(nl->sk, &cache);
	else
		err = rtnl_neigh_alloc_cache(nl->sk, &cache);
	if (err < 0)
		return nl_errno(err);
	nl_cache_foreach(cache, walk_one, w);
	nl_cache_free(cache);
	return w->ret;
}

static int link_one(struct nl_object *obj, struct walk *w)
{
	struct rtnl_link *l = (struct rtnl_link *)obj;
	struct bpftune_link k = {
		.ifindex = rtnl_link_get_ifindex(l),
		.flags = rtnl_link_get_flags(l),
	};
	const char *name = rtnl_link_get_name(l);

#define S(x)	rtnl_link_get_stat(l, RTNL_LINK_##x)
	snprintf(k.name, sizeof(k.name), "%s", name ? name : "");
	k.rx_bytes = S(RX_BYTES);
	k.rx_packets = S(RX_PACKETS);
	k.rx_errors = S(RX_ERRORS);
	k.rx_dropped = S(RX_DROPPED) + S(RX_MISSED_ERR);
	k.rx_fifo_errors = S(RX_FIFO_ERR);
	k.rx_frame_errors = S(RX_LEN_ERR) + S(RX_OVER_ERR) + S(RX_CRC_ERR) +
			    S(RX_FRAME_ERR);
	k.rx_compressed = S(RX_COMPRESSED);
	k.multicast = S(MULTICAST);
	k.tx_bytes = S(TX_BYTES);
	k.tx_packets = S(TX_PACKETS);
	k.tx_errors = S(TX_ERRORS);
	k.tx_dropped = S(TX_DROPPED);
	k.tx_fifo_errors = S(TX_FIFO_ERR);
	k.collisions = S(COLLISIONS);
	k.tx_carrier_errors = S(TX_CARRIER_ERR) + S(TX_ABORT_ERR) +
			      S(TX_WIN_ERR) + S(TX_HBEAT_ERR);
	k.tx_compressed = S(TX_COMPRESSED);
#undef S
	return ((bpftune_link_fn)w->user_fn)(&k, w->ctx);
}

int bpftune_nl_links(struct bpftune_nl *nl, bpftune_link_fn fn, void *ctx)
{
	struct walk w = {
		.fn = link_one, .user_fn = (void *)fn, .ctx = ctx,
	};

	return walk_dump(nl, DUMP_LINKS, &w);
}

static int addr_one(struct nl_object *obj, struct walk *w)
{
	struct rtnl_addr *a = (struct rtnl_addr *)obj;
	struct bpftune_addr k = {
		.family = rtnl_addr_get_family(a),
		.ifindex = rtnl_addr_get_ifindex(a),
		.prefixlen = rtnl_addr_get_prefixlen(a),
		.scope = rtnl_addr_get_scope(a),
	};

	if (w->family != AF_UNSPEC && k.family != w->family)
		return 0;
	return ((bpftune_addr_fn)w->user_fn)(&k, w->ctx);
}

int bpftune_nl_addrs(struct bpftune_nl *nl, int family, bpftune_addr_fn fn,
		     void *ctx)
{
	struct walk w = {
		.family = family, .fn = addr_one, .user_fn = (void *)fn, .ctx = ctx,
	};

	return walk_dump(nl, DUMP_ADDRS, &w);
}

static int neigh_one(struct nl_object *obj, struct walk *w)
{
	struct rtnl_neigh *n = (struct rtnl_neigh *)obj;
	int state = rtnl_neigh_get_state(n);
	struct bpftune_neigh k = {
		.family = rtnl_neigh_get_family(n),
		.ifindex = rtnl_neigh_get_ifindex(n),
		.state = state < 0 ? 0 : (unsigned int)state,
	};

	if (w->family != AF_UNSPEC && k.family != w->family)
		return 0;
	return ((bpftune_neigh_fn)w->user_fn)(&k, w->ctx);
}

int bpftune_nl_neighs(struct bpftune_nl *nl, int family, bpftune_neigh_fn fn,
		      void *ctx)
{
	struct walk w = {
		.family = family, .fn = neigh_one, .user_fn = (void *)fn, .ctx = ctx,
	};

	return walk_dump(nl, DUMP_NEIGHS, &w);
}

/* ---- neighbour tables -------------------------------------------------- */

static const char *table_name(int family)
{
	return family == AF_INET ? "arp_cache" :
	       family == AF_INET6 ? "ndisc_cache" : NULL;
}

/* The table-level message of a RTM_GETNEIGHTBL dump (it has NDTA_CONFIG). */
static int table_msg(struct nl_msg *msg, void *arg)
{
	struct bpftune_neigh_table *t = arg;
	struct nlattr *tb[NDTA_MAX + 1];
	const struct ndt_config *cfg;
	const char *name;

	if (nlmsg_parse(nlmsg_hdr(msg), sizeof(struct ndtmsg), tb, NDTA_MAX,
			NULL) < 0 || !tb[NDTA_NAME] || !tb[NDTA_CONFIG] ||
	    nla_len(tb[NDTA_CONFIG]) < (int)sizeof(*cfg))
		return NL_OK;
	name = nla_get_string(tb[NDTA_NAME]);
	if (!name || strcmp(name, t->name))
		return NL_OK;
	cfg = nla_data(tb[NDTA_CONFIG]);
	t->entries = cfg->ndtc_entries;
	if (tb[NDTA_THRESH1])
		t->thresh[0] = nla_get_u32(tb[NDTA_THRESH1]);
	if (tb[NDTA_THRESH2])
		t->thresh[1] = nla_get_u32(tb[NDTA_THRESH2]);
	if (tb[NDTA_THRESH3])
		t->thresh[2] = nla_get_u32(tb[NDTA_THRESH3]);
	return NL_OK;
}

int bpftune_nl_neigh_table(struct bpftune_nl *nl, int family,
			   struct bpftune_neigh_table *t)
{
	struct ndtmsg ndtm = { .ndtm_family = family };
	const char *name = table_name(family);
	struct nl_cb *cb, *own;
	int err;

	if (!nl || !t || !name)
		return -EINVAL;
	memset(t, 0, sizeof(*t));
	t->family = family;
	t->entries = -1;
	snprintf(t->name, sizeof(t->name), "%s", name);
	err = nl_send_simple(nl->sk, RTM_GETNEIGHTBL, NLM_F_DUMP, &ndtm,
			     sizeof(ndtm));
	if (err < 0)
		return nl_errno(err);
	/* the socket's callbacks, by reference: cloned, then let go */
	cb = nl_socket_get_cb(nl->sk);
	own = cb ? nl_cb_clone(cb) : NULL;
	nl_cb_put(cb);
	if (!own)
		return -ENOMEM;
	cb = own;
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, table_msg, t);
	err = nl_recvmsgs(nl->sk, cb);
	nl_cb_put(cb);
	if (err < 0)
		return nl_errno(err);
	return t->entries < 0 ? -ENOENT : 0;
}

int bpftune_nl_neigh_table_set(struct bpftune_nl *nl, int family,
			       unsigned int which, long value)
{
	static const int attr[3] = { NDTA_THRESH1, NDTA_THRESH2, NDTA_THRESH3 };
	struct ndtmsg ndtm = { .ndtm_family = family };
	const char *name = table_name(family);
	struct nl_msg *msg;
	int err;

	if (!nl || !name || which < 1 || which > 3 || value < 0 || value > INT32_MAX)
		return -EINVAL;
	msg = nlmsg_alloc_simple(RTM_SETNEIGHTBL, 0);
	if (!msg)
		return -ENOMEM;
	err = nlmsg_append(msg, &ndtm, sizeof(ndtm), NLMSG_ALIGNTO);
	if (!err)
		err = nla_put_string(msg, NDTA_NAME, name);
	if (!err)
		err = nla_put_u32(msg, attr[which - 1], (uint32_t)value);
	/* with the socket's automatic ACK request: wait for the verdict */
	if (!err)
		err = nl_send_auto(nl->sk, msg);
	nlmsg_free(msg);
	if (err >= 0)
		err = nl_wait_for_ack(nl->sk);
	return nl_errno(err < 0 ? err : 0);
}
