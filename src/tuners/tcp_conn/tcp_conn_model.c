// SPDX-License-Identifier: GPL-2.0-only
/* tcp_conn's model files (tcp_conn_model.h): pure, unit-tested, fuzzed. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tcp_conn_model.h"

#define MAX_WORDS	8
#define LINE_MAX_LEN	256

const char *const tcp_conn_feature_names[TCP_CONN_F_MAX] = {
	[TCP_CONN_F_HIST] = "hist",
	[TCP_CONN_F_SRTT] = "srtt_us",
	[TCP_CONN_F_MIN_RTT] = "min_rtt_us",
	[TCP_CONN_F_RETRANS] = "retrans_pm",
	[TCP_CONN_F_RATE] = "rate",
};

/* what the parser expects next */
enum stage { MAGIC, POLICY, FEATURES, RANGES, NODES, NODE, CHECKSUM, DONE };

struct parse {
	struct tcp_conn_model *m;
	enum stage stage;
	unsigned int line, ranges, nodes_seen;
	char *err;
	size_t err_len;
};

uint64_t tcp_conn_model_fnv1a64(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

static int fail(struct parse *ps, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(struct parse *ps, const char *fmt, ...)
{
	char msg[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (ps->line)
		snprintf(ps->err, ps->err_len, "line %u: %s", ps->line, msg);
	else
		snprintf(ps->err, ps->err_len, "%s", msg);
	return -EINVAL;
}

/* a whole number of at most 20 digits, no sign */
static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!isdigit((unsigned char)*s) || strlen(s) > 20)
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return !errno && !*end;
}

/* -1 .. max - 1 */
static bool parse_index(const char *s, int max, int *v)
{
	uint64_t u;

	if (!strcmp(s, "-1")) {
		*v = -1;
		return true;
	}
	if (!parse_u64(s, &u) || u >= (uint64_t)max)
		return false;
	*v = (int)u;
	return true;
}

static bool name_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n >= TCP_CONN_MODEL_NAME)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-')
			return false;
	return true;
}

static int feature_index(const struct tcp_conn_model *m, const char *name)
{
	unsigned int i;

	for (i = 0; i < m->num_features; i++)
		if (!strcmp(m->features[i], name))
			return i;
	return -1;
}

static int on_features(struct parse *ps, char **w, unsigned int n)
{
	struct tcp_conn_model *m = ps->m;
	uint64_t count;
	unsigned int i;

	if (n < 2 || strcmp(w[0], "features") || !parse_u64(w[1], &count))
		return fail(ps, "expected 'features N NAME ...'");
	if (!count || count > TCP_CONN_F_SLOTS || count != n - 2)
		return fail(ps, "features: N must be 1 to %d and match the names that follow",
			    TCP_CONN_F_SLOTS);
	for (i = 0; i < count; i++) {
		if (!name_ok(w[2 + i]))
			return fail(ps, "features: bad name '%.40s'", w[2 + i]);
		if (feature_index(m, w[2 + i]) >= 0)
			return fail(ps, "features: '%s' named twice", w[2 + i]);
		snprintf(m->features[i], TCP_CONN_MODEL_NAME, "%s", w[2 + i]);
		m->num_features = i + 1;
	}
	ps->stage = RANGES;
	return 0;
}

static int on_range(struct parse *ps, char **w, unsigned int n)
{
	struct tcp_conn_model *m = ps->m;
	int f;

	if (n != 4 || strcmp(w[0], "range"))
		return fail(ps, "expected 'range NAME LO HI' (one per feature)");
	f = feature_index(m, w[1]);
	if (f < 0)
		return fail(ps, "range: '%.40s' is not among the features", w[1]);
	if (f != (int)ps->ranges)
		return fail(ps, "range: give the ranges in the order of the features");
	if (!parse_u64(w[2], &m->lo[f]) || !parse_u64(w[3], &m->hi[f]) ||
	    m->lo[f] > m->hi[f])
		return fail(ps, "range %s: LO and HI are whole numbers, LO <= HI", w[1]);
	if (++ps->ranges == m->num_features)
		ps->stage = NODES;
	return 0;
}

static int on_node(struct parse *ps, char **w, unsigned int n)
{
	struct tcp_conn_model *m = ps->m;
	struct tcp_conn_model_tree_node *nd;
	uint64_t id;

	if (n != 7 || strcmp(w[0], "node") || !parse_u64(w[1], &id))
		return fail(ps, "expected 'node ID FEATURE THRESHOLD LEFT RIGHT ACTION'");
	if (id != ps->nodes_seen)
		return fail(ps, "node %.20s: expected node %u (in order from 0)", w[1],
			    ps->nodes_seen);
	nd = &m->nodes[id];
	if (!parse_index(w[2], m->num_features, &nd->feature) ||
	    !parse_u64(w[3], &nd->threshold) ||
	    !parse_index(w[4], m->num_nodes, &nd->left) ||
	    !parse_index(w[5], m->num_nodes, &nd->right))
		return fail(ps, "node %u: FEATURE, LEFT and RIGHT are indexes or -1, THRESHOLD a whole number",
			    ps->nodes_seen);
	if (nd->feature < 0) {
		if (nd->left != -1 || nd->right != -1 || !name_ok(w[6]))
			return fail(ps, "node %u: a leaf has LEFT and RIGHT -1 and an algorithm",
				    ps->nodes_seen);
		snprintf(nd->action, sizeof(nd->action), "%s", w[6]);
	} else if (strcmp(w[6], "-") || nd->left <= (int)id || nd->right <= (int)id ||
		   nd->left == nd->right) {
		return fail(ps, "node %u: a split has ACTION '-' and two children of higher IDs",
			    ps->nodes_seen);
	}
	if (++ps->nodes_seen == m->num_nodes)
		ps->stage = CHECKSUM;
	return 0;
}

static int on_words(struct parse *ps, char **w, unsigned int n)
{
	uint64_t v;

	switch (ps->stage) {
	case MAGIC:
		if (n != 2 || strcmp(w[0], "bpftune-model") || !parse_u64(w[1], &v))
			return fail(ps, "not a bpftune model file (expected 'bpftune-model %d')",
				    TCP_CONN_MODEL_VERSION);
		if (v != TCP_CONN_MODEL_VERSION)
			return fail(ps, "model format version %.20s; this bpftune reads version %d",
				    w[1], TCP_CONN_MODEL_VERSION);
		ps->stage = POLICY;
		return 0;
	case POLICY:
		if (n != 3 || strcmp(w[0], "policy") || strcmp(w[1], "tcp_conn") ||
		    strcmp(w[2], "cc"))
			return fail(ps, "expected 'policy tcp_conn cc': a model for another policy");
		ps->stage = FEATURES;
		return 0;
	case FEATURES:
		return on_features(ps, w, n);
	case RANGES:
		return on_range(ps, w, n);
	case NODES:
		if (n != 2 || strcmp(w[0], "nodes") || !parse_u64(w[1], &v) || !v ||
		    v > TCP_CONN_MODEL_NODES)
			return fail(ps, "expected 'nodes N', N from 1 to %d", TCP_CONN_MODEL_NODES);
		ps->m->num_nodes = (unsigned int)v;
		ps->stage = NODE;
		return 0;
	case NODE:
		if (!strcmp(w[0], "checksum"))
			return fail(ps, "incomplete: %u nodes declared, %u given",
				    ps->m->num_nodes, ps->nodes_seen);
		return on_node(ps, w, n);
	default:
		return fail(ps, "text after the checksum line");
	}
}

/* split @line in place; the count, or MAX_WORDS + 1 if there are more */
static unsigned int split(char *line, char **w)
{
	unsigned int n = 0;
	char *save = NULL, *tok;

	for (tok = strtok_r(line, " \t\r", &save); tok; tok = strtok_r(NULL, " \t\r", &save)) {
		if (n == MAX_WORDS)
			return MAX_WORDS + 1;
		w[n++] = tok;
	}
	return n;
}

/* the checksum line, over the @covered bytes before it */
static int on_checksum(struct parse *ps, char **w, unsigned int n,
		       const char *text, size_t covered)
{
	uint64_t want;
	char *end;

	if (n != 3 || strcmp(w[0], "checksum") || strcmp(w[1], "fnv1a64") ||
	    strlen(w[2]) != 16)
		return fail(ps, "expected 'checksum fnv1a64 HEX' (16 hex digits)");
	errno = 0;
	want = strtoull(w[2], &end, 16);
	if (errno || *end || !isxdigit((unsigned char)w[2][0]))
		return fail(ps, "checksum: '%.20s' is not 16 hex digits", w[2]);
	ps->m->checksum = tcp_conn_model_fnv1a64(text, covered);
	if (want != ps->m->checksum)
		return fail(ps, "checksum mismatch: the file says %016llx, its text has %016llx (damaged or edited)",
			    (unsigned long long)want, (unsigned long long)ps->m->checksum);
	ps->stage = DONE;
	return 0;
}

/* every node but the root has one parent; depth within the limit */
static int check_tree(struct parse *ps)
{
	struct tcp_conn_model *m = ps->m;
	unsigned int depth[TCP_CONN_MODEL_NODES] = { 0 }, parents[TCP_CONN_MODEL_NODES] = { 0 };
	unsigned int i;

	ps->line = 0;
	for (i = 0; i < m->num_nodes; i++) {
		const struct tcp_conn_model_tree_node *nd = &m->nodes[i];

		if (nd->feature < 0)
			continue;
		parents[nd->left]++;
		parents[nd->right]++;
		depth[nd->left] = depth[i] + 1;
		depth[nd->right] = depth[i] + 1;
	}
	for (i = 1; i < m->num_nodes; i++)
		if (parents[i] != 1)
			return fail(ps, "node %u has %u parents (a tree gives each node but the root one)",
				    i, parents[i]);
	m->depth = 0;
	for (i = 0; i < m->num_nodes; i++)
		if (depth[i] > m->depth)
			m->depth = depth[i];
	if (m->depth > TCP_CONN_MODEL_DEPTH)
		return fail(ps, "the tree is %u deep; at most %d", m->depth, TCP_CONN_MODEL_DEPTH);
	return 0;
}

int tcp_conn_model_parse(const char *text, size_t len, struct tcp_conn_model *m,
			 char *err, size_t err_len)
{
	struct parse ps = { .m = m, .stage = MAGIC, .err = err, .err_len = err_len };
	char line[LINE_MAX_LEN], *w[MAX_WORDS];
	size_t off = 0, n;
	unsigned int nw;
	int ret = 0;

	memset(m, 0, sizeof(*m));
	if (len > TCP_CONN_MODEL_MAX_SIZE)
		return fail(&ps, "larger than %d bytes", TCP_CONN_MODEL_MAX_SIZE);
	if (memchr(text, '\0', len))
		return fail(&ps, "NUL byte in the text: not a model file");
	while (!ret && off < len) {
		const char *nl = memchr(text + off, '\n', len - off);
		size_t start = off;

		n = nl ? (size_t)(nl - (text + off)) : len - off;
		off += n + (nl ? 1 : 0);
		ps.line++;
		if (n >= sizeof(line))
			return fail(&ps, "line longer than %d characters", LINE_MAX_LEN - 1);
		memcpy(line, text + start, n);
		line[n] = '\0';
		nw = split(line, w);
		if (!nw || w[0][0] == '#')
			continue;
		if (nw > MAX_WORDS)
			return fail(&ps, "more than %d words", MAX_WORDS);
		ret = ps.stage == CHECKSUM ? on_checksum(&ps, w, nw, text, start) :
			on_words(&ps, w, nw);
	}
	if (ret)
		return ret;
	if (ps.stage != DONE) {
		ps.line = 0;
		return fail(&ps, ps.stage == CHECKSUM ? "no checksum line: incomplete or damaged" :
			    "incomplete: it ends before its nodes and checksum");
	}
	return check_tree(&ps);
}

static int daemon_feature(const char *name)
{
	int i;

	for (i = 0; i < TCP_CONN_F_MAX; i++)
		if (!strcmp(tcp_conn_feature_names[i], name))
			return i;
	return -1;
}

static int cc_of(const char names[][TCP_CONN_CC_NAME], unsigned int num_cc,
		 const char *name)
{
	unsigned int i;

	for (i = 0; i < num_cc && i < TCP_CONN_CC_MAX; i++)
		if (!strncmp(names[i], name, TCP_CONN_CC_NAME))
			return i;
	return -1;
}

int tcp_conn_model_compile(const struct tcp_conn_model *m,
			   const char names[][TCP_CONN_CC_NAME], unsigned int num_cc,
			   struct tcp_conn_model_map *out, char *err, size_t err_len)
{
	int map[TCP_CONN_F_SLOTS] = { 0 };
	unsigned int i;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < TCP_CONN_F_SLOTS; i++)
		out->hi[i] = UINT64_MAX;
	for (i = 0; i < m->num_features; i++) {
		map[i] = daemon_feature(m->features[i]);
		if (map[i] < 0) {
			snprintf(err, err_len, "feature '%s' is not one this daemon has (hist srtt_us min_rtt_us retrans_pm rate)",
				 m->features[i]);
			return -ENOENT;
		}
		out->lo[map[i]] = m->lo[i];
		out->hi[map[i]] = m->hi[i];
	}
	for (i = 0; i < m->num_nodes && i < TCP_CONN_MODEL_NODES; i++) {
		const struct tcp_conn_model_tree_node *nd = &m->nodes[i];
		struct tcp_conn_model_node *o = &out->nodes[i];

		o->left = nd->left;
		o->right = nd->right;
		o->threshold = nd->threshold;
		o->feature = nd->feature < 0 ? -1 : map[nd->feature];
		o->action = -1;
		if (nd->feature >= 0)
			continue;
		o->action = cc_of(names, num_cc, nd->action);
		if (o->action < 0) {
			snprintf(err, err_len, "node %u picks %s, which this kernel does not offer",
				 i, nd->action);
			return -ENOENT;
		}
	}
	out->num_nodes = m->num_nodes;
	return 0;
}
