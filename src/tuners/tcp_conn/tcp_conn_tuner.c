// SPDX-License-Identifier: GPL-2.0-only
/*
 * tcp_conn tuner: congestion control per connection, set by a sockops
 * program (tcp_conn_tuner.bpf.c).
 *
 * - A connection that retransmits more than 1 % of its data segments
 *   (after 100 of them) is moved to bbr, which does not read loss as
 *   congestion.
 * - Per destination (remote address under a /32 or /64 mask, in one
 *   netns) every algorithm available among cubic, bbr, htcp and dctcp
 *   (dctcp only on connections that negotiated ECN) gets a cost from the
 *   connections that used it: how far their smoothed RTT was above the
 *   lowest smoothed RTT seen to that destination (relative, at most 4),
 *   plus how far their delivery rate
 *   was below the best seen, averaged (EWMA).  Once a destination has had
 *   8 connections, new ones get the cheapest algorithm (untried ones
 *   first), or with probability epsilon = 5 % a random one.  Every choice
 *   is recorded with bpftune_decision() when the connection ends.
 * - With a learned model ([strategy tcp_conn] model = PATH, written by
 *   bpftune-telemetry learn), the sockops program asks the model first,
 *   from the destination's history; outside the model's training ranges
 *   the rules above decide (tcp_conn_strategy.c, docs/learning.md).
 * The costs and the greedy choice are pure functions (tcp_conn_policy.c).
 * Missing algorithms are loaded as modules when the kernel has them; the
 * rest are skipped.  No sysctl is changed.  Each reported connection is a
 * row of tcp_conn_outcomes, each lossy one of tcp_conn_lossy
 * (tcp_conn_tables.c).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpftune/libbpftune.h>
#include <bpftune/kernel.h>

#include "tcp_conn_tuner.h"
#include "tcp_conn_policy.h"
#include "tcp_conn_tables.h"
#include "tcp_conn_strategy.h"
#include "tcp_conn_tuner.skel.h"
#include "tcp_conn_tuner.legacy.skel.h"

#define EPSILON			0.05
#define MIN_CONNS		8
#define LOSS_PER_MILLE		10
#define LOSS_MIN_SEGS		100
#define LEARN_MIN_BYTES		(64 * 1024)
#define PREFIX4			32
#define PREFIX6			64
#define DEST_BUCKETS		1024
#define DEST_MAX		4096	/* userspace cost tables kept */


static const char *const candidates[] = { "cubic", "bbr", "htcp", "dctcp" };

static const char *const how_names[] = {
	[TCP_CONN_DEFAULT] = "default",
	[TCP_CONN_GREEDY] = "greedy",
	[TCP_CONN_EXPLORE] = "explore",
	[TCP_CONN_MODEL] = "model",
};

struct dest {
	struct dest *next;
	struct tcp_conn_dest key;
	uint64_t last_used;
	struct tcp_conn_costs c;
	int greedy;
	bool ecn;
	bool model_miss;		/* said: outside the model's ranges */
	unsigned int lossy;
};

struct conn_priv {
	struct bpftune_tuner *tuner;
	struct tcp_conn_config cfg;
	int choice_fd, stats_fd;
	struct dest *buckets[DEST_BUCKETS];
	unsigned int num_dests;
	uint64_t clock;
	uint64_t placed[4], lossy, lossy_dests, evicted;
	struct tcp_conn_strategy strategy;
};

/* ---- algorithms ---------------------------------------------------- */

/* Does this kernel load modules, and does it have any installed? */
static bool have_modules(void)
{
	char path[PATH_MAX];
	struct utsname u;
	struct stat st;

	if (access("/proc/modules", F_OK) || uname(&u))
		return false;
	snprintf(path, sizeof(path), "/lib/modules/%s", u.release);
	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

static void cc_discover(struct tcp_conn_config *cfg)
{
	bool modules = have_modules();
	char skipped[128] = "";
	unsigned int i;
	int err;

	cfg->bbr = -1;
	cfg->dctcp = -1;
	for (i = 0; i < BPFTUNE_ARRAY_SIZE(candidates); i++) {
		const char *name = candidates[i];

		if (!bpftune_tcp_cc_available(name)) {
			err = modules ? bpftune_tcp_cc_load(name) : -ENOENT;
			if (err || !bpftune_tcp_cc_available(name)) {
				snprintf(skipped + strlen(skipped),
					 sizeof(skipped) - strlen(skipped), " %s", name);
				continue;
			}
			bpftune_log(LOG_INFO, "tcp_conn: loaded congestion control %s (module tcp_%s)",
				    name, name);
		}
		if (!strcmp(name, "bbr"))
			cfg->bbr = cfg->num_cc;
		if (!strcmp(name, "dctcp"))
			cfg->dctcp = cfg->num_cc;
		snprintf(cfg->names[cfg->num_cc], TCP_CONN_CC_NAME, "%s", name);
		cfg->num_cc++;
	}
	if (skipped[0])
		bpftune_log(LOG_INFO, "tcp_conn: congestion control not available, skipped:%s%s",
			    skipped, modules ? "" : " (this kernel has no modules to load)");
}

static int cc_index(const struct tcp_conn_config *cfg, const char *name)
{
	unsigned int i;

	for (i = 0; i < cfg->num_cc; i++)
		if (!strncmp(cfg->names[i], name, TCP_CONN_CC_NAME))
			return i;
	return -1;
}

/* ---- destinations ------------------------------------------------------ */

static unsigned int dest_hash(const struct tcp_conn_dest *k)
{
	const unsigned char *p = (const void *)k;
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < sizeof(*k); i++)
		h = (h ^ p[i]) * 16777619u;
	return h % DEST_BUCKETS;
}

static void dest_unlink(struct conn_priv *p, struct dest *d)
{
	struct dest **pp;

	for (pp = &p->buckets[dest_hash(&d->key)]; *pp; pp = &(*pp)->next)
		if (*pp == d) {
			*pp = d->next;
			p->num_dests--;
			return;
		}
}

static void dest_free(struct conn_priv *p, struct dest *d)
{
	bpf_map_delete_elem(p->choice_fd, &d->key);
	dest_unlink(p, d);
	free(d);
}

static void dest_evict_oldest(struct conn_priv *p)
{
	struct dest *d, *oldest = NULL;
	unsigned int b;

	for (b = 0; b < DEST_BUCKETS; b++)
		for (d = p->buckets[b]; d; d = d->next)
			if (!oldest || d->last_used < oldest->last_used)
				oldest = d;
	if (oldest) {
		dest_free(p, oldest);
		p->evicted++;
	}
}

static struct dest *dest_get(struct conn_priv *p, const struct tcp_conn_dest *k)
{
	unsigned int b = dest_hash(k);
	struct dest *d;

	for (d = p->buckets[b]; d; d = d->next)
		if (!memcmp(&d->key, k, sizeof(*k)))
			break;
	if (!d) {
		if (p->num_dests >= DEST_MAX)
			dest_evict_oldest(p);
		d = calloc(1, sizeof(*d));
		if (!d)
			return NULL;
		d->key = *k;
		d->greedy = -1;
		d->next = p->buckets[b];
		p->buckets[b] = d;
		p->num_dests++;
	}
	d->last_used = ++p->clock;
	return d;
}

/* "address/prefix" */
static const char *dest_text(const struct tcp_conn_dest *k, char *buf,
			     size_t len)
{
	char addr[INET6_ADDRSTRLEN] = "?";

	inet_ntop(k->family == AF_INET ? AF_INET : AF_INET6, k->addr, addr,
		  sizeof(addr));
	snprintf(buf, len, "%s/%u", addr, k->prefix);
	return buf;
}

static const char *dest_describe(const struct tcp_conn_dest *k, char *buf,
				 size_t len)
{
	char dest[INET6_ADDRSTRLEN + 8], where[128];

	snprintf(buf, len, "%s in %s", dest_text(k, dest, sizeof(dest)),
		 bpftune_netns_describe(k->netns_cookie, where, sizeof(where)));
	return buf;
}

static int64_t family_number(const struct tcp_conn_dest *k)
{
	return k->family == AF_INET ? 4 : 6;
}

static void costs_text(const struct conn_priv *p, const struct dest *d,
		       char *buf, size_t len)
{
	size_t off = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < p->cfg.num_cc && off < len; i++) {
		if (d->c.n[i])
			off += snprintf(buf + off, len - off, "%scost[%s]=%.3f/%u",
					off ? " " : "", p->cfg.names[i],
					d->c.cost[i], d->c.n[i]);
		else
			off += snprintf(buf + off, len - off, "%scost[%s]=untried",
					off ? " " : "", p->cfg.names[i]);
	}
}

static void update_greedy(struct conn_priv *p, struct dest *d)
{
	struct tcp_conn_choice choice;
	char desc[256], costs[256];
	int pick = tcp_conn_greedy(&d->c, p->cfg.num_cc, p->cfg.dctcp, d->ecn);

	if (pick == d->greedy)
		return;
	choice.greedy = pick;
	if (bpf_map_update_elem(p->choice_fd, &d->key, &choice, BPF_ANY)) {
		bpftune_log(LOG_WARNING, "tcp_conn: cannot store the choice for a destination: %s",
			    strerror(errno));
		return;
	}
	costs_text(p, d, costs, sizeof(costs));
	bpftune_log(LOG_INFO, "tcp_conn: %s: greedy congestion control %s -> %s (%s)",
		    dest_describe(&d->key, desc, sizeof(desc)),
		    d->greedy >= 0 ? p->cfg.names[d->greedy] : "none",
		    p->cfg.names[pick], costs);
	d->greedy = pick;
}

/* ---- events -------------------------------------------------------------- */

static void lossy_row(struct bpftune_tuner *t, const struct bpftune_event *ev,
		      const struct tcp_conn_loss *l, const char *from,
		      const char *local, double pct)
{
	char dest[INET6_ADDRSTRLEN + 8];

	bpftune_table_row(t, TCP_CONN_TABLE_LOSSY, ev, (const struct bpftune_value[]){
		BPFTUNE_VALUE_INT(family_number(&l->dest)),
		BPFTUNE_VALUE_TEXT(dest_text(&l->dest, dest, sizeof(dest))),
		BPFTUNE_VALUE_TEXT(local),
		BPFTUNE_VALUE_INT(l->lport), BPFTUNE_VALUE_INT(l->rport),
		BPFTUNE_VALUE_TEXT(from),
		BPFTUNE_VALUE_INT(l->segs_out), BPFTUNE_VALUE_INT(l->retrans),
		BPFTUNE_VALUE_REAL(pct), BPFTUNE_VALUE_INT(l->srtt_us) }, 10);
}

static void on_loss(struct bpftune_tuner *t, void *priv,
		    const struct bpftune_event *ev)
{
	const struct tcp_conn_loss *l = (const void *)ev->payload;
	struct conn_priv *p = priv;
	char desc[256], from[TCP_CONN_CC_NAME + 1];
	struct bpftune_value inputs[6];
	char local[INET6_ADDRSTRLEN] = "?";
	double pct, limit = LOSS_PER_MILLE / 10.0;
	struct dest *d;

	if (!l->segs_out)
		return;
	memcpy(from, l->from, TCP_CONN_CC_NAME);
	from[TCP_CONN_CC_NAME] = '\0';
	pct = 100.0 * l->retrans / l->segs_out;
	p->lossy++;
	d = dest_get(p, &l->dest);
	inputs[0] = BPFTUNE_VALUE_INT(l->retrans);
	inputs[1] = BPFTUNE_VALUE_INT(l->segs_out);
	inputs[2] = BPFTUNE_VALUE_REAL(pct);
	inputs[3] = BPFTUNE_VALUE_REAL(limit);
	inputs[4] = BPFTUNE_VALUE_INT(l->srtt_us);
	inputs[5] = BPFTUNE_VALUE_TEXT(from);
	bpftune_decide_values(t, ev, TCP_CONN_SCENARIO_LOSS, -1, "bbr-on-loss", inputs, 6,
			      "cc=bbr");
	dest_describe(&l->dest, desc, sizeof(desc));
	inet_ntop(l->dest.family == AF_INET ? AF_INET : AF_INET6, l->laddr,
		  local, sizeof(local));
	lossy_row(t, ev, l, from, local, pct);
	/* one line per destination; the others are counted */
	bpftune_log(d && d->lossy++ ? LOG_DEBUG : LOG_NOTICE,
		    "tuner tcp_conn: lossy connection: connection from %s port %u to %s port %u: congestion control %s -> bbr: %u of %u data segments retransmitted (%.2f %% > %.1f %%), srtt %u us%s",
		    local, l->lport,
		    desc, l->rport, from, l->retrans, l->segs_out, pct, limit,
		    l->srtt_us, bpftune_observe_only() ? " (observe-only: left on its algorithm)" : "");
	if (d && d->lossy == 1)
		p->lossy_dests++;
}

static void outcome_row(struct bpftune_tuner *t, const struct bpftune_event *ev,
			const struct tcp_conn_done *c, const char *choice,
			const char *cc, struct bpftune_value cost,
			uint64_t outcomes)
{
	char dest[INET6_ADDRSTRLEN + 8];

	bpftune_table_row(t, TCP_CONN_TABLE_OUTCOMES, ev, (const struct bpftune_value[]){
		BPFTUNE_VALUE_INT(family_number(&c->dest)),
		BPFTUNE_VALUE_TEXT(dest_text(&c->dest, dest, sizeof(dest))),
		BPFTUNE_VALUE_TEXT(choice), BPFTUNE_VALUE_TEXT(cc),
		BPFTUNE_VALUE_INT(c->srtt_us), BPFTUNE_VALUE_INT(c->min_rtt_us),
		BPFTUNE_VALUE_INT((int64_t)c->delivery_rate),
		BPFTUNE_VALUE_INT((int64_t)c->bytes_acked),
		BPFTUNE_VALUE_INT(c->segs_out), BPFTUNE_VALUE_INT(c->retrans),
		BPFTUNE_VALUE_INT((int64_t)c->duration_us), BPFTUNE_VALUE_INT(c->ecn),
		BPFTUNE_VALUE_INT(c->lossy), cost,
		BPFTUNE_VALUE_INT((int64_t)outcomes) }, 15);
}

/* in the order tcp_conn_tables.c declares them (choice_inputs) */
static void choice_inputs(unsigned int how, const struct dest *d, const char *costs,
			  int cc, const char *cc_name, const struct tcp_conn_done *c,
			  struct bpftune_value *v)
{
	v[0] = BPFTUNE_VALUE_TEXT(how_names[how]);
	v[1] = BPFTUNE_VALUE_INT(d->c.outcomes);
	v[2] = BPFTUNE_VALUE_TEXT(costs);
	v[3] = cc >= 0 && d->c.n[cc] ? BPFTUNE_VALUE_REAL(d->c.cost[cc]) : BPFTUNE_VALUE_NULL;
	v[4] = BPFTUNE_VALUE_TEXT(cc_name);
	v[5] = BPFTUNE_VALUE_INT(c->srtt_us);
	v[6] = BPFTUNE_VALUE_INT(c->min_rtt_us);
	v[7] = BPFTUNE_VALUE_INT(c->delivery_rate);
	v[8] = BPFTUNE_VALUE_INT(c->bytes_acked);
	v[9] = BPFTUNE_VALUE_INT(c->retrans);
	v[10] = BPFTUNE_VALUE_INT(c->lossy);
	v[11] = BPFTUNE_VALUE_INT(c->ecn);
}

/*
 * The choice as a decision of the epsilon-greedy policy, with the exact
 * odds of what it chose: epsilon as the BPF side draws it, the candidates
 * and the greedy algorithm it saw then.  A choice where nothing was drawn
 * (the model, too few connections, one candidate) is deterministic.
 */
static void record_choice(struct bpftune_tuner *t, const struct conn_priv *p,
			  const struct bpftune_event *ev,
			  const struct tcp_conn_done *c, unsigned int how,
			  const struct bpftune_value *inputs, const char *action)
{
	double eps = p->cfg.epsilon_64k / 65536.0;
	bool drawn = how != TCP_CONN_MODEL && c->candidates > 1;
	struct tcp_conn_choice_ctx ctx = {
		.how = how, .chosen = c->chosen, .greedy = c->greedy,
		.candidates = c->candidates,
	};

	bpftune_decision(t, ev, &(struct bpftune_decision){
		.scenario = TCP_CONN_SCENARIO_CHOICE, .policy = "epsilon-greedy",
		.values = inputs, .num_values = 12, .action = action, .tunable = -1,
		.epsilon = drawn ? eps : -1,
		.explored = drawn ? how == TCP_CONN_EXPLORE : -1,
		.propensity = tcp_conn_propensity(&ctx, eps) });
}

static void on_done(struct bpftune_tuner *t, void *priv,
		    const struct bpftune_event *ev)
{
	const struct tcp_conn_done *c = (const void *)ev->payload;
	struct conn_priv *p = priv;
	char cc_name[TCP_CONN_CC_NAME + 1], costs[256], action[32];
	struct bpftune_value inputs[12];
	unsigned int how;
	struct dest *d;
	double cost;
	int cc;

	how = c->how < BPFTUNE_ARRAY_SIZE(how_names) ? c->how : TCP_CONN_DEFAULT;
	memcpy(cc_name, c->cc, TCP_CONN_CC_NAME);
	cc_name[TCP_CONN_CC_NAME] = '\0';
	cc = cc_index(&p->cfg, cc_name);
	p->placed[how]++;
	d = dest_get(p, &c->dest);
	if (!d)
		return;
	if (c->ecn)
		d->ecn = true;
	if (c->model_miss && !d->model_miss) {
		d->model_miss = true;
		bpftune_log(LOG_INFO, "tcp_conn: %s: its history is outside the model's training ranges: the hand rule decides for it",
			    dest_describe(&d->key, costs, sizeof(costs)));
	}
	costs_text(p, d, costs, sizeof(costs));
	choice_inputs(how, d, costs, cc, cc_name, c, inputs);
	/* what was chosen: also with --observe, where the connection kept cc */
	snprintf(action, sizeof(action), how == TCP_CONN_DEFAULT ? "none" : "cc=%s",
		 c->chosen >= 0 && (unsigned int)c->chosen < p->cfg.num_cc ?
		 p->cfg.names[c->chosen] : cc_name);
	record_choice(t, p, ev, c, how, inputs, action);
	/* a connection moved to bbr midway says little about either algorithm */
	if (cc < 0 || c->lossy || c->bytes_acked < LEARN_MIN_BYTES) {
		outcome_row(t, ev, c, how_names[how], cc_name, BPFTUNE_VALUE_NULL,
			    d->c.outcomes);
		return;
	}
	cost = tcp_conn_learn(&d->c, cc, c->srtt_us, c->delivery_rate);
	outcome_row(t, ev, c, how_names[how], cc_name, BPFTUNE_VALUE_REAL(cost),
		    d->c.outcomes);
	update_greedy(p, d);
}

/* ---- netns destruction ------------------------------------------------- */

static void forget_netns(struct conn_priv *p, uint64_t cookie)
{
	struct tcp_conn_dest key, next, *prev = NULL;
	struct dest *d, *dn;
	unsigned int b, n = 0;
	int fds[2] = { p->choice_fd, p->stats_fd }, i;

	for (b = 0; b < DEST_BUCKETS; b++)
		for (d = p->buckets[b]; d; d = dn) {
			dn = d->next;
			if (d->key.netns_cookie == cookie) {
				dest_free(p, d);
				n++;
			}
		}
	/*
	 * The BPF side's entries too, when we knew the netns: walking both
	 * maps costs two syscalls per entry.  Destinations no connection was
	 * reported for age out of the LRU maps instead.
	 */
	for (i = 0; n && i < 2; i++) {
		prev = NULL;
		while (!bpf_map_get_next_key(fds[i], prev, &next)) {
			if (next.netns_cookie == cookie &&
			    !bpf_map_delete_elem(fds[i], &next))
				continue;	/* restart after the deleted key */
			key = next;
			prev = &key;
		}
	}
	if (n)
		bpftune_log(LOG_DEBUG, "tcp_conn: netns cookie %llu gone: %u destinations forgotten",
			    (unsigned long long)cookie, n);
}

/* a netns is gone: its destinations go with it */
static void conn_netns_state(struct bpftune_tuner *t, void *priv,
			     uint64_t cookie, enum bpftune_state state)
{
	(void)t;
	if (state == BPFTUNE_STATE_GONE && cookie)
		forget_netns(priv, cookie);
}

/* ---- init/fini ----------------------------------------------------------- */

static int conn_init(struct bpftune_tuner *t, void *priv)
{
	struct conn_priv *p = priv;
	__u32 zero = 0;
	int cfg_fd;

	p->tuner = t;
	cfg_fd = bpf_map__fd(BPFTUNE_SKEL_MAP(t, tcp_conn_tuner_bpf, conn_config));
	p->choice_fd = bpf_map__fd(BPFTUNE_SKEL_MAP(t, tcp_conn_tuner_bpf, dest_choice));
	p->stats_fd = bpf_map__fd(BPFTUNE_SKEL_MAP(t, tcp_conn_tuner_bpf, dest_stats));
	if (cfg_fd < 0 || p->choice_fd < 0 || p->stats_fd < 0)
		return -ENOENT;
	cc_discover(&p->cfg);
	if (!p->cfg.num_cc) {
		bpftune_log(LOG_NOTICE, "tcp_conn: none of cubic, bbr, htcp, dctcp is available");
		return -EOPNOTSUPP;
	}
	p->cfg.epsilon_64k = (uint32_t)(EPSILON * 65536);
	p->cfg.min_conns = MIN_CONNS;
	p->cfg.loss_per_mille = LOSS_PER_MILLE;
	p->cfg.loss_min_segs = LOSS_MIN_SEGS;
	p->cfg.learn_min_bytes = LEARN_MIN_BYTES;
	p->cfg.prefix4 = PREFIX4;
	p->cfg.prefix6 = PREFIX6;
	if (bpf_map_update_elem(cfg_fd, &zero, &p->cfg, BPF_ANY))
		return -errno;
	if (tcp_conn_strategy_load(t, &p->strategy, &p->cfg))
		return -ENOENT;
	bpftune_log(LOG_INFO, "tcp_conn: choosing among %u algorithm%s: %s%s%s%s%s%s%s; %s",
		    p->cfg.num_cc, p->cfg.num_cc == 1 ? "" : "s",
		    p->cfg.names[0], p->cfg.num_cc > 1 ? " " : "", p->cfg.names[1],
		    p->cfg.num_cc > 2 ? " " : "", p->cfg.names[2],
		    p->cfg.num_cc > 3 ? " " : "", p->cfg.names[3],
		    p->cfg.bbr >= 0 ? "lossy connections move to bbr" :
		    "no bbr: lossy connections are left alone");
	return 0;
}

static void conn_fini(struct bpftune_tuner *t, void *priv)
{
	struct conn_priv *p = priv;
	struct dest *d, *dn;
	unsigned int b;

	(void)t;
	tcp_conn_strategy_report(&p->strategy);
	bpftune_log(LOG_INFO, "tcp_conn: connections reported: %llu by the model, %llu greedy, %llu explored, %llu left to the default; %llu lossy connections %s bbr (%llu destinations); %u destinations known, %llu evicted",
		    (unsigned long long)p->placed[TCP_CONN_MODEL],
		    (unsigned long long)p->placed[TCP_CONN_GREEDY],
		    (unsigned long long)p->placed[TCP_CONN_EXPLORE],
		    (unsigned long long)p->placed[TCP_CONN_DEFAULT],
		    (unsigned long long)p->lossy,
		    bpftune_observe_only() ? "would have moved to" : "moved to",
		    (unsigned long long)p->lossy_dests, p->num_dests,
		    (unsigned long long)p->evicted);
	for (b = 0; b < DEST_BUCKETS; b++)
		for (d = p->buckets[b]; d; d = dn) {
			dn = d->next;
			free(d);
		}
}

/* SIGHUP: the policy may name another model, or none */
static void conn_reload(struct bpftune_tuner *t, void *priv)
{
	struct conn_priv *p = priv;

	tcp_conn_strategy_load(t, &p->strategy, &p->cfg);
}

_Static_assert(sizeof(struct tcp_conn_done) <= BPFTUNE_PAYLOAD_LEN &&
	       sizeof(struct tcp_conn_loss) <= BPFTUNE_PAYLOAD_LEN,
	       "the payloads fit in an event");

static const struct bpftune_scenario_desc scenarios[] = {
	[TCP_CONN_SCENARIO_LOSS] = {
		.name = "lossy connection",
		.description = "a connection retransmitted more than the threshold: moved to bbr",
		.payload_size = sizeof(struct tcp_conn_loss),
		.handle = on_loss,
	},
	[TCP_CONN_SCENARIO_CHOICE] = {
		.name = "congestion control choice",
		.description = "epsilon-greedy choice of the algorithm per destination, by RTT and delivery rate",
		.payload_size = sizeof(struct tcp_conn_done),
		.handle = on_done,
	},
};

BPFTUNE_TUNER(tcp_conn_tuner_bpf,
	.name = "tcp_conn",
	.description = "per-connection congestion control: bbr on loss, epsilon-greedy per destination",
	BPFTUNE_SCENARIOS(scenarios),
	.priv_size = sizeof(struct conn_priv),
	.init = conn_init,
	.fini = conn_fini,
	.netns_state = conn_netns_state,
	.reload = conn_reload,
	.telemetry = &tcp_conn_telemetry);
