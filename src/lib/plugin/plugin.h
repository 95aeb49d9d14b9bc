/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Plugin loading and trust (src/lib/plugin/): a plugin runs as root, so it
 * is loaded only from a trusted directory after its descriptor is checked
 * (plugin.c); the plugin directory is scanned under the -a allow-list
 * (plugin_dir.c); files that decide what the daemon writes follow the same
 * trust rule (trusted_file.c, bpftune_trusted_file_read() in
 * <bpftune/libbpftune.h>).  Above the core, beside write/: used by ops
 * (hot plug, the journal's directory, the config file) and the daemon.
 */
#ifndef BPFTUNE_PLUGIN_H
#define BPFTUNE_PLUGIN_H

#include "base/daemon_api.h"

#include <stdbool.h>
#include <stddef.h>

struct bpftune_tuner_ops;

/* ---- trust and descriptor checks (plugin.c) ---- */
/* fd of @dir if every component is a root-owned, non-g/o-writable real dir */
int bpftune_dir_open_trusted(const char *dir, char *why, size_t why_len);
/* NAME_tuner.so or NAME_collector.so, NAME of [A-Za-z0-9_-] */
bool bpftune_plugin_name_valid(const char *name);
bool bpftune_plugin_is_collector(const char *name);
/* dlopen a plugin from a trusted dir; returns its ops or NULL with why */
const struct bpftune_tuner_ops *bpftune_plugin_open(int dirfd,
						    const char *file,
						    void **handle, int *fd,
						    char *why, size_t why_len);

/* ---- the plugin directory (plugin_dir.c) ---- */
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

#endif /* BPFTUNE_PLUGIN_H */
