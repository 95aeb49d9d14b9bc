/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BPFTUNE_CGROUP_H
#define BPFTUNE_CGROUP_H

#include "base/daemon_api.h"

#include <stddef.h>

/* fd of the cgroup at @path, or of the cgroup2 root if NULL; -errno */
int bpftune_cgroup_open(const char *path);

/*
 * The cgroup v2 directory the daemon's cgroup programs attach to (its
 * admin-override detection needs one): @path (-c), or the first cgroup2
 * mount.  When @path is a plain empty directory, cgroup2 is mounted there
 * (as users of -c expect); when no cgroup2 is mounted anywhere, it is
 * mounted on a directory of the daemon's own.  What we mount is unmounted
 * by bpftune_cgroup_cleanup().  Returns an fd, or -errno with the reason
 * in @why: the daemon must then not start.
 */
BPFTUNE_DAEMON int bpftune_cgroup_setup(const char *path, char *why, size_t len);
BPFTUNE_DAEMON void bpftune_cgroup_cleanup(void);

#endif
