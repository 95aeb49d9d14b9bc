/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tcp_conn's learned model files (written by bpftune-telemetry learn,
 * docs/learning.md): parsing and checking the text, and compiling it for
 * the sockops program's map.  Pure: text in, structs out, no I/O.
 * Unit-tested in test/unit/test_tcp_conn_model.c, fuzzed by
 * test/unit/fuzz/fuzz_tcp_conn_model.c.
 *
 * The file is lines of blank-separated words, '#' lines are comments:
 *
 *   bpftune-model 1
 *   policy tcp_conn cc
 *   features N NAME ...               (at most TCP_CONN_F_SLOTS)
 *   range NAME LO HI                  (one per feature, whole numbers)
 *   nodes N                           (at most TCP_CONN_MODEL_NODES)
 *   node ID FEATURE THRESHOLD LEFT RIGHT ACTION
 *                                     (N of them, ID 0..N-1 in order; a
 *                                      split has ACTION "-", a leaf
 *                                      FEATURE, LEFT and RIGHT -1)
 *   checksum fnv1a64 HEX              (FNV-1a 64 of every byte before
 *                                      this line; the last line)
 *
 * A split sends x[FEATURE] <= THRESHOLD to LEFT, else to RIGHT.  Node 0
 * is the root; every other node has exactly one parent of a lower ID, so
 * the tree has no cycle and every node is reached.
 */
#ifndef BPFTUNE_TCP_CONN_MODEL_H
#define BPFTUNE_TCP_CONN_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "tcp_conn_tuner.h"

#define TCP_CONN_MODEL_VERSION	1
#define TCP_CONN_MODEL_MAX_SIZE	(64 * 1024)	/* bytes of a model file */
#define TCP_CONN_MODEL_NAME	32		/* feature and action names */

struct tcp_conn_model_tree_node {
	int feature;			/* index into features, -1: a leaf */
	uint64_t threshold;
	int left, right;
	char action[TCP_CONN_MODEL_NAME];	/* a leaf's algorithm */
};

struct tcp_conn_model {
	unsigned int num_features;
	char features[TCP_CONN_F_SLOTS][TCP_CONN_MODEL_NAME];
	uint64_t lo[TCP_CONN_F_SLOTS], hi[TCP_CONN_F_SLOTS];
	unsigned int num_nodes;
	unsigned int depth;		/* edges from the root to the deepest leaf */
	struct tcp_conn_model_tree_node nodes[TCP_CONN_MODEL_NODES];
	uint64_t checksum;
};

/* The daemon's feature names, by enum tcp_conn_feature. */
extern const char *const tcp_conn_feature_names[TCP_CONN_F_MAX];

uint64_t tcp_conn_model_fnv1a64(const void *data, size_t len);

/*
 * Parse and check the model file text @text (@len bytes, need not end in
 * NUL).  0, or -EINVAL with "line N: what" (or what is wrong overall) in
 * @err.
 */
int tcp_conn_model_parse(const char *text, size_t len, struct tcp_conn_model *m,
			 char *err, size_t err_len);

/*
 * The map entry for model @m in a daemon with algorithms @names[0 ..
 * @num_cc - 1]: every feature must be one of tcp_conn_feature_names and
 * every leaf's action one of @names.  0, or -ENOENT (a name the daemon
 * does not have) with what in @err.
 */
int tcp_conn_model_compile(const struct tcp_conn_model *m,
			   const char names[][TCP_CONN_CC_NAME], unsigned int num_cc,
			   struct tcp_conn_model_map *out, char *err, size_t err_len);

#endif
