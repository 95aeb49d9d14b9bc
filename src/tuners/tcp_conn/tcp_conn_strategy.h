/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tcp_conn's model strategy (tcp_conn_strategy.c): the learned model of
 * [strategy tcp_conn] model = PATH (or --strategy tcp_conn.model=PATH)
 * loaded into the sockops program's conn_model map, swapped on SIGHUP,
 * and what its evaluation costs per connection.
 */
#ifndef BPFTUNE_TCP_CONN_STRATEGY_H
#define BPFTUNE_TCP_CONN_STRATEGY_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <bpftune/libbpftune.h>

#include "tcp_conn_tuner.h"

struct tcp_conn_strategy {
	bool have_maps;
	int model_fd, stats_fd;		/* conn_model, model_stats */
	unsigned int generation;		/* models written so far */
	char path[PATH_MAX];		/* the model in force; "" for none */
	uint64_t checksum;
	struct tcp_conn_model_stats base;	/* model_stats when it was loaded */
};

/*
 * Load the model the policy names (none: the hand rule), for algorithms
 * @cfg->names.  Says in one log line what it did; a model that cannot be
 * used leaves the hand rule in force.  0, or -errno if the maps are
 * missing.
 */
int tcp_conn_strategy_load(struct bpftune_tuner *t, struct tcp_conn_strategy *s,
			   const struct tcp_conn_config *cfg);
/* log what the model's evaluation cost since it was loaded */
void tcp_conn_strategy_report(const struct tcp_conn_strategy *s);

#endif
