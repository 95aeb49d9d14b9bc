/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The core mechanisms: admin-override detection (admin_override.c) and
 * netns tracking (netns_watch.c).  Always on, whatever -a selects, and
 * never plugins: they are built into libbpftune and started before any.
 */
#ifndef BPFTUNE_CORE_H
#define BPFTUNE_CORE_H

#include "base/daemon_api.h"

#include <stdbool.h>

#include "core/internal.h"

BPFTUNE_DAEMON extern const struct bpftune_tuner_ops bpftune_admin_override_ops;
BPFTUNE_DAEMON extern const struct bpftune_tuner_ops bpftune_netns_watch_ops;

/*
 * Start both; 0, or -errno when one cannot run (logged): the daemon must
 * not tune without them.
 */
BPFTUNE_DAEMON int bpftune_core_start(const struct bpftune_bpf_opts *opts);
/*
 * Is @name ("admin_override", "netns", or the old name "sysctl") a core
 * mechanism?  (-a does not select them)
 */
BPFTUNE_DAEMON bool bpftune_core_named(const char *name);

#endif
