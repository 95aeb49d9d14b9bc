// SPDX-License-Identifier: GPL-2.0-only
/* Finding the cgroup v2 hierarchy that cgroup programs attach to. */
#include <errno.h>
#include <fcntl.h>
#include <mntent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/internal.h"
#include "core/cgroup.h"

/* Open @path, or the root of the first cgroup2 mount when @path is NULL. */
int bpftune_cgroup_open(const char *path)
{
	struct mntent *m;
	FILE *f;
	int fd;

	if (path) {
		fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		return fd < 0 ? -errno : fd;
	}
	f = setmntent("/proc/self/mounts", "r");
	if (!f)
		return -errno;
	fd = -ENOENT;
	while ((m = getmntent(f))) {
		if (strcmp(m->mnt_type, "cgroup2"))
			continue;
		fd = open(m->mnt_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			fd = -errno;
		break;
	}
	endmntent(f);
	return fd;
}
