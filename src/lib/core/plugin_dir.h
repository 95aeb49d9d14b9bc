/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BPFTUNE_PLUGIN_DIR_H
#define BPFTUNE_PLUGIN_DIR_H

#include "core/daemon_api.h"

#include <stdbool.h>
#include <stddef.h>

struct bpftune_tuner_ops;

/*
 * The -a allow-list (empty: every tuner) and the --collectors list: a
 * collector (NAME_collector.so) is loaded only when one of them names it.
 */
struct bpftune_allow {
	char **names;
	unsigned int num;
	char **collectors;	/* "sched", "perf" */
	unsigned int num_collectors;
};

/* ops is NULL for a refused plugin (already logged); else the callback owns handle and fd */
typedef void (*bpftune_plugin_cb)(const char *file,
				  const struct bpftune_tuner_ops *ops,
				  void *handle, int fd, void *ctx);

void bpftune_plugin_normalize(const char *name, char *buf, size_t len);
bool bpftune_plugin_allowed(const struct bpftune_allow *allow, const char *file);
BPFTUNE_DAEMON int bpftune_plugin_dir_scan(const char *dir, const struct bpftune_allow *allow,
			    bpftune_plugin_cb cb, void *ctx);

#endif
