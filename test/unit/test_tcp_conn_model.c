// SPDX-License-Identifier: GPL-2.0-only
/*
 * tcp_conn's model files (src/tuners/tcp_conn/tcp_conn_model.c): parsing,
 * checking and compiling them, and the walk the sockops program runs
 * (tcp_conn_model_walk.h) on the compiled tree.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "../../src/tuners/tcp_conn/tcp_conn_model.h"
#include "../../src/tuners/tcp_conn/tcp_conn_model_walk.h"

static const char names[TCP_CONN_CC_MAX][TCP_CONN_CC_NAME] = {
	"cubic", "bbr", "htcp",
};

/* srtt_us <= 5000: cubic; else retrans_pm <= 9: htcp, else bbr */
static const char body[] =
	"# a test model\n"
	"bpftune-model 1\n"
	"policy tcp_conn cc\n"
	"features 2 srtt_us retrans_pm\n"
	"range srtt_us 0 100000\n"
	"range retrans_pm 0 1000\n"
	"nodes 5\n"
	"node 0 0 5000 1 2 -\n"
	"node 1 -1 0 -1 -1 cubic\n"
	"node 2 1 9 3 4 -\n"
	"node 3 -1 0 -1 -1 htcp\n"
	"node 4 -1 0 -1 -1 bbr\n";

/* @text with its checksum line appended (malloc'd) */
static char *sealed(const char *text)
{
	size_t n = strlen(text);
	char *s = malloc(n + 64);

	assert_non_null(s);
	snprintf(s, n + 64, "%schecksum fnv1a64 %016llx\n", text,
		 (unsigned long long)tcp_conn_model_fnv1a64(text, n));
	return s;
}

static int parse(const char *text, struct tcp_conn_model *m, char *err)
{
	return tcp_conn_model_parse(text, strlen(text), m, err, 256);
}

/* @body with @from replaced by @to, sealed: the error it gets ("" if none) */
static int parse_edit(const char *from, const char *to, char *err)
{
	struct tcp_conn_model *m = malloc(sizeof(*m));
	char text[2048], *s;
	const char *at = strstr(body, from);
	int ret;

	assert_non_null(m);
	assert_non_null(at);
	snprintf(text, sizeof(text), "%.*s%s%s", (int)(at - body), body, to,
		 at + strlen(from));
	s = sealed(text);
	err[0] = '\0';
	ret = parse(s, m, err);
	free(s);
	free(m);
	return ret;
}

static void test_parse_good(void **state)
{
	struct tcp_conn_model *m = malloc(sizeof(*m));
	char err[256] = "", *s = sealed(body);

	(void)state;
	assert_int_equal(parse(s, m, err), 0);
	assert_int_equal(m->num_features, 2);
	assert_string_equal(m->features[1], "retrans_pm");
	assert_int_equal(m->hi[0], 100000);
	assert_int_equal(m->num_nodes, 5);
	assert_int_equal(m->depth, 2);
	assert_int_equal(m->nodes[2].feature, 1);
	assert_int_equal(m->nodes[2].threshold, 9);
	assert_string_equal(m->nodes[4].action, "bbr");
	free(s);
	free(m);
}

static void test_checksum(void **state)
{
	struct tcp_conn_model *m = malloc(sizeof(*m));
	char err[256], *s = sealed(body);

	(void)state;
	/* one byte changed after sealing */
	*strstr(s, "5000") = '6';
	assert_int_equal(parse(s, m, err), -EINVAL);
	assert_non_null(strstr(err, "checksum mismatch"));
	/* no checksum line at all */
	assert_int_equal(parse(body, m, err), -EINVAL);
	assert_non_null(strstr(err, "no checksum line"));
	free(s);
	free(m);
}

static void test_bad_files(void **state)
{
	char err[256];

	(void)state;
	assert_int_equal(parse_edit("bpftune-model 1", "bpftune-model 2", err), -EINVAL);
	assert_non_null(strstr(err, "line 2: model format version 2"));
	assert_int_equal(parse_edit("policy tcp_conn cc", "policy tcp_buffer rmem", err), -EINVAL);
	assert_int_equal(parse_edit("features 2", "features 3", err), -EINVAL);
	assert_int_equal(parse_edit("range retrans_pm 0 1000", "range retrans_pm 9 1", err), -EINVAL);
	assert_int_equal(parse_edit("range retrans_pm 0 1000", "range rate 0 1", err), -EINVAL);
	assert_int_equal(parse_edit("nodes 5", "nodes 0", err), -EINVAL);
	assert_int_equal(parse_edit("nodes 5", "nodes 6", err), -EINVAL);
	assert_non_null(strstr(err, "incomplete"));
	/* a child pointing back up: a cycle */
	assert_int_equal(parse_edit("node 2 1 9 3 4 -", "node 2 1 9 0 4 -", err), -EINVAL);
	/* two parents for node 3, none for node 4 */
	assert_int_equal(parse_edit("node 2 1 9 3 4 -", "node 2 1 9 3 3 -", err), -EINVAL);
	/* a leaf with a child, a split with an action, a feature out of range */
	assert_int_equal(parse_edit("node 3 -1 0 -1 -1 htcp", "node 3 -1 0 4 -1 htcp", err), -EINVAL);
	assert_int_equal(parse_edit("node 2 1 9 3 4 -", "node 2 1 9 3 4 bbr", err), -EINVAL);
	assert_int_equal(parse_edit("node 2 1 9 3 4 -", "node 2 2 9 3 4 -", err), -EINVAL);
	assert_int_equal(parse_edit("node 2 1 9", "node 2 1 -9", err), -EINVAL);
	assert_int_equal(parse_edit("node 1 ", "node 7 ", err), -EINVAL);
	assert_non_null(strstr(err, "in order"));
	assert_int_equal(parse_edit("# a test model\n", "x\n", err), -EINVAL);
	assert_non_null(strstr(err, "line 1: not a bpftune model file"));
	assert_int_equal(parse_edit("nodes 5", "nodes 99999999999999999999999", err), -EINVAL);
}

static void test_too_deep(void **state)
{
	char text[8192], *s;
	struct tcp_conn_model *m = malloc(sizeof(*m));
	size_t off;
	char err[256];
	int i, depth = TCP_CONN_MODEL_DEPTH + 1;

	(void)state;
	/* a chain: node 2i splits to leaf 2i+1 and node 2i+2 */
	off = snprintf(text, sizeof(text), "bpftune-model 1\npolicy tcp_conn cc\n"
		       "features 1 hist\nrange hist 0 100\nnodes %d\n", 2 * depth + 1);
	for (i = 0; i < depth; i++)
		off += snprintf(text + off, sizeof(text) - off,
				"node %d 0 %d %d %d -\nnode %d -1 0 -1 -1 cubic\n",
				2 * i, i, 2 * i + 1, 2 * i + 2, 2 * i + 1);
	snprintf(text + off, sizeof(text) - off, "node %d -1 0 -1 -1 bbr\n", 2 * depth);
	s = sealed(text);
	assert_int_equal(parse(s, m, err), -EINVAL);
	assert_non_null(strstr(err, "deep"));
	free(s);
	free(m);
}

static void test_compile_and_walk(void **state)
{
	struct tcp_conn_model *m = malloc(sizeof(*m));
	struct tcp_conn_model_map *map = malloc(sizeof(*map));
	__u64 x[TCP_CONN_F_SLOTS] = { 0 };
	char err[256], *s = sealed(body);

	(void)state;
	assert_int_equal(parse(s, m, err), 0);
	assert_int_equal(tcp_conn_model_compile(m, names, 3, map, err, sizeof(err)), 0);
	assert_int_equal(map->num_nodes, 5);
	assert_int_equal(map->nodes[0].feature, TCP_CONN_F_SRTT);
	assert_int_equal(map->nodes[2].feature, TCP_CONN_F_RETRANS);
	x[TCP_CONN_F_SRTT] = 5000;
	assert_int_equal(tcp_conn_model_walk(map, x), 0);	/* cubic */
	x[TCP_CONN_F_SRTT] = 5001;
	assert_int_equal(tcp_conn_model_walk(map, x), 2);	/* htcp */
	x[TCP_CONN_F_RETRANS] = 10;
	assert_int_equal(tcp_conn_model_walk(map, x), 1);	/* bbr */
	/* features the model does not name are not range-checked */
	x[TCP_CONN_F_RATE] = UINT64_MAX;
	assert_int_equal(tcp_conn_model_walk(map, x), 1);
	/* outside the training range: the hand rule */
	x[TCP_CONN_F_SRTT] = 100001;
	assert_int_equal(tcp_conn_model_walk(map, x), TCP_CONN_WALK_RANGE);
	/* a daemon without htcp refuses the model */
	assert_int_equal(tcp_conn_model_compile(m, names, 2, map, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "htcp"));
	assert_int_equal(map->num_nodes, 0);
	assert_int_equal(tcp_conn_model_walk(map, x), TCP_CONN_WALK_NONE);
	free(s);
	free(m);
	free(map);
}

static void test_feature_mismatch(void **state)
{
	struct tcp_conn_model *m = malloc(sizeof(*m));
	struct tcp_conn_model_map *map = malloc(sizeof(*map));
	char err[256], text[2048], *s;
	const char *at = strstr(body, "retrans_pm");

	(void)state;
	/* a feature name this daemon does not compute */
	snprintf(text, sizeof(text), "%.*sjitter_us%s", (int)(at - body), body,
		 at + strlen("retrans_pm"));
	at = strstr(text, "range retrans_pm");
	memcpy((char *)at, "range jitter_us ", 16);
	s = sealed(text);
	assert_int_equal(parse(s, m, err), 0);
	assert_int_equal(tcp_conn_model_compile(m, names, 3, map, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "feature 'jitter_us'"));
	free(s);
	free(m);
	free(map);
}

/* a broken map (as a bad write could leave it) never loops or reads outside */
static void test_walk_is_bounded(void **state)
{
	struct tcp_conn_model_map *map = calloc(1, sizeof(*map));
	__u64 x[TCP_CONN_F_SLOTS] = { 0 };
	int i;

	(void)state;
	for (i = 0; i < TCP_CONN_F_SLOTS; i++)
		map->hi[i] = UINT64_MAX;
	map->num_nodes = 2;
	map->nodes[0].feature = 0;
	map->nodes[0].left = map->nodes[0].right = 0;	/* a loop */
	assert_int_equal(tcp_conn_model_walk(map, x), TCP_CONN_WALK_NONE);
	map->nodes[0].left = map->nodes[0].right = TCP_CONN_MODEL_NODES + 5;
	assert_int_equal(tcp_conn_model_walk(map, x), TCP_CONN_WALK_NONE);
	map->nodes[0].left = -1;
	assert_int_equal(tcp_conn_model_walk(map, x), TCP_CONN_WALK_NONE);
	map->num_nodes = TCP_CONN_MODEL_NODES + 1;
	assert_int_equal(tcp_conn_model_walk(map, x), TCP_CONN_WALK_NONE);
	free(map);
}

int unit_run_tcp_conn_model(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_good),
		cmocka_unit_test(test_checksum),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_too_deep),
		cmocka_unit_test(test_compile_and_walk),
		cmocka_unit_test(test_feature_mismatch),
		cmocka_unit_test(test_walk_is_bounded),
	};

	return cmocka_run_group_tests_name("tcp_conn_model", tests, NULL, NULL);
}
