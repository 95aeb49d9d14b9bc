// SPDX-License-Identifier: GPL-2.0-only
/*
 * tcp_conn's model strategy: read the model file the policy names, check
 * it (tcp_conn_model.c) and write the compiled tree into conn_model,
 * where the sockops program walks it for every new connection.  A model
 * that cannot be used (missing, damaged, another version, a feature or
 * algorithm this daemon does not have) clears the map: the hand rule
 * decides, and one log line says why.  The walk's time is summed by the
 * BPF side (model_stats): the mean per connection is logged when the
 * model is swapped and at exit.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpftune/libbpftune.h>

#include "tcp_conn_model.h"
#include "tcp_conn_strategy.h"
#include "tcp_conn_tuner.skel.h"
#include "tcp_conn_tuner.legacy.skel.h"

/* parse, check and compile @path into @map; -errno with why in @err */
static int compile_file(const char *path, const struct tcp_conn_config *cfg,
			struct tcp_conn_model *m, struct tcp_conn_model_map *map,
			char *err, size_t err_len)
{
	char *text = NULL;
	size_t len = 0;
	int ret;

	ret = bpftune_trusted_file_read(path, TCP_CONN_MODEL_MAX_SIZE, &text, &len,
					err, err_len);
	if (ret)
		return ret;
	ret = tcp_conn_model_parse(text, len, m, err, err_len);
	free(text);
	if (ret)
		return ret;
	return tcp_conn_model_compile(m, cfg->names, cfg->num_cc, map, err, err_len);
}

static void describe(const struct tcp_conn_model *m, char *buf, size_t len)
{
	size_t off = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < m->num_features && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s", i ? " " : "", m->features[i]);
}

static int maps(struct bpftune_tuner *t, struct tcp_conn_strategy *s)
{
	if (s->have_maps)
		return 0;
	s->model_fd = bpf_map__fd(BPFTUNE_SKEL_MAP(t, tcp_conn_tuner_bpf, conn_model));
	s->stats_fd = bpf_map__fd(BPFTUNE_SKEL_MAP(t, tcp_conn_tuner_bpf, model_stats));
	s->have_maps = s->model_fd >= 0 && s->stats_fd >= 0;
	return s->have_maps ? 0 : -ENOENT;
}

int tcp_conn_strategy_load(struct bpftune_tuner *t, struct tcp_conn_strategy *s,
			   const struct tcp_conn_config *cfg)
{
	const char *path = bpftune_strategy_setting(t, "model");
	struct tcp_conn_model_map *map = calloc(1, sizeof(*map));
	struct tcp_conn_model *m = calloc(1, sizeof(*m));
	char err[320], features[256];
	__u32 zero = 0;
	int ret = 0;

	if (!map || !m || maps(t, s)) {
		ret = !map || !m ? -ENOMEM : -ENOENT;
		goto out;
	}
	if (s->path[0])
		tcp_conn_strategy_report(s);
	if (path && compile_file(path, cfg, m, map, err, sizeof(err))) {
		bpftune_log(LOG_WARNING, "tcp_conn: model %s: %s: the hand rule decides",
			    path, err);
		memset(map, 0, sizeof(*map));
	}
	bpf_map_lookup_elem(s->stats_fd, &zero, &s->base);
	map->generation = ++s->generation;
	if (bpf_map_update_elem(s->model_fd, &zero, map, BPF_ANY)) {
		ret = -errno;
		bpftune_log(LOG_WARNING, "tcp_conn: cannot write the model map: %s: the hand rule decides",
			    strerror(errno));
		goto out;
	}
	s->path[0] = '\0';
	if (!map->num_nodes)
		goto out;
	snprintf(s->path, sizeof(s->path), "%s", path);
	s->checksum = m->checksum;
	describe(m, features, sizeof(features));
	bpftune_log(LOG_NOTICE, "tcp_conn: model %s loaded (checksum %016llx): a tree of %u nodes, depth %u, over %s; new connections get its pick, the hand rule outside its training ranges",
		    path, (unsigned long long)m->checksum, m->num_nodes, m->depth, features);
out:
	free(map);
	free(m);
	return ret;
}

void tcp_conn_strategy_report(const struct tcp_conn_strategy *s)
{
	struct tcp_conn_model_stats now = { 0 };
	__u32 zero = 0;
	uint64_t evals, ns;

	if (!s->path[0] || !s->have_maps ||
	    bpf_map_lookup_elem(s->stats_fd, &zero, &now))
		return;
	evals = now.evals - s->base.evals;
	ns = now.eval_ns - s->base.eval_ns;
	bpftune_log(LOG_NOTICE, "tcp_conn: model %s: %llu connections evaluated, %.0f ns per evaluation on average; %llu picked by it, %llu outside its training ranges",
		    s->path, (unsigned long long)evals, evals ? (double)ns / evals : 0.0,
		    (unsigned long long)(now.picks - s->base.picks),
		    (unsigned long long)(now.out_of_range - s->base.out_of_range));
}
