/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The walk of a learned tree (struct tcp_conn_model_map), shared by the
 * sockops program (tcp_conn_tuner.bpf.c) and the unit tests, so that both
 * evaluate the same code.  Bounded: the range check is one pass over the
 * feature slots, the walk at most TCP_CONN_MODEL_DEPTH + 1 nodes.
 */
#ifndef BPFTUNE_TCP_CONN_MODEL_WALK_H
#define BPFTUNE_TCP_CONN_MODEL_WALK_H

#include "tcp_conn_tuner.h"

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

/* keep a bounds check where it is: clang may move it off the index */
#ifndef barrier_var
#define barrier_var(v)	__asm__ __volatile__("" : "+r"(v))
#endif

#define TCP_CONN_WALK_NONE	-1	/* no model, or a broken one */
#define TCP_CONN_WALK_RANGE	-2	/* a feature outside the training ranges */

/*
 * The action (an index into tcp_conn_config.names) the tree @m gives the
 * features @x (TCP_CONN_F_SLOTS of them, enum tcp_conn_feature), or
 * TCP_CONN_WALK_NONE / TCP_CONN_WALK_RANGE.
 */
static __always_inline int tcp_conn_model_walk(const struct tcp_conn_model_map *m,
					       const __u64 *x)
{
	__u32 i, n = 0, f;

	if (!m->num_nodes || m->num_nodes > TCP_CONN_MODEL_NODES)
		return TCP_CONN_WALK_NONE;
	for (i = 0; i < TCP_CONN_F_SLOTS; i++)
		if (x[i] < m->lo[i] || x[i] > m->hi[i])
			return TCP_CONN_WALK_RANGE;
	for (i = 0; i <= TCP_CONN_MODEL_DEPTH; i++) {
		const struct tcp_conn_model_node *node;

		if (n >= m->num_nodes)
			return TCP_CONN_WALK_NONE;
		barrier_var(n);
		node = &m->nodes[n & (TCP_CONN_MODEL_SLOTS - 1)];
		if (node->feature < 0)
			return node->action >= 0 ? node->action : TCP_CONN_WALK_NONE;
		f = (__u32)node->feature;
		barrier_var(f);
		f &= TCP_CONN_F_SLOTS - 1;
		n = (__u32)(x[f] <= node->threshold ? node->left : node->right);
	}
	return TCP_CONN_WALK_NONE;	/* deeper than the limit */
}

#endif
