// SPDX-License-Identifier: GPL-2.0-only
/*
 * The cgroup v2 hierarchy that cgroup programs attach to.  Admin-override
 * detection is a cgroup/sysctl program: without a cgroup2 directory the
 * daemon would tune on without the guarantee that the admin wins, so it
 * mounts one where it may, and otherwise refuses to start.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <mntent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/magic.h>

#include "base/base.h"
#include "loader/cgroup.h"

/* where the daemon mounts cgroup2 when none is mounted at all */
#define OWN_MOUNT	"/run/bpftune/cgroup2"

/* what we mounted, to unmount at exit */
static char *mounted;

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

static bool is_cgroup2(int fd)
{
	struct statfs st;

	return !fstatfs(fd, &st) && st.f_type == CGROUP2_SUPER_MAGIC;
}

/* Does directory @fd hold anything (mounting over it would hide it)? */
static bool has_entries(int fd)
{
	struct dirent *d;
	bool any = false;
	int dfd = dup(fd);
	DIR *dir = dfd >= 0 ? fdopendir(dfd) : NULL;

	if (!dir) {
		if (dfd >= 0)
			close(dfd);
		return true;
	}
	while (!any && (d = readdir(dir)))
		any = strcmp(d->d_name, ".") && strcmp(d->d_name, "..");
	closedir(dir);
	return any;
}

static int mount_here(const char *path, char *why, size_t len)
{
	int err = 0;

	bpftune_cap_raise();
	if (mount("cgroup2", path, "cgroup2", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  NULL))
		err = -errno;
	bpftune_cap_lower();
	if (err) {
		snprintf(why, len, "%s is not a cgroup2 mount and mounting cgroup2 there failed: %s",
			 path, strerror(-err));
		return err;
	}
	mounted = strdup(path);
	bpftune_log(LOG_NOTICE, "cgroup2 mounted on %s for the daemon's cgroup programs (unmounted at exit)",
		    path);
	return bpftune_cgroup_open(path);
}

/* -c @path: a cgroup2 directory, or an empty directory to mount one on */
static int setup_path(const char *path, char *why, size_t len)
{
	int fd = bpftune_cgroup_open(path), err;

	if (fd < 0) {
		snprintf(why, len, "-c %s: %s", path, strerror(-fd));
		return fd;
	}
	if (is_cgroup2(fd))
		return fd;
	err = has_entries(fd) ? -ENOTEMPTY : 0;
	close(fd);
	if (err) {
		snprintf(why, len, "-c %s is neither a cgroup2 directory nor an empty directory to mount cgroup2 on",
			 path);
		return err;
	}
	return mount_here(path, why, len);
}

int bpftune_cgroup_setup(const char *path, char *why, size_t len)
{
	int fd;

	if (path)
		return setup_path(path, why, len);
	fd = bpftune_cgroup_open(NULL);
	if (fd != -ENOENT) {
		if (fd < 0)
			snprintf(why, len, "cannot open the cgroup2 hierarchy: %s",
				 strerror(-fd));
		return fd;
	}
	/* no cgroup2 anywhere: one of our own */
	if (mkdir("/run/bpftune", 0700) && errno != EEXIST)
		fd = -errno;
	else if (mkdir(OWN_MOUNT, 0700) && errno != EEXIST)
		fd = -errno;
	if (fd != -ENOENT) {
		snprintf(why, len, "no cgroup2 mounted, and %s cannot be made: %s",
			 OWN_MOUNT, strerror(-fd));
		return fd;
	}
	return mount_here(OWN_MOUNT, why, len);
}

void bpftune_cgroup_cleanup(void)
{
	int err = 0;

	if (!mounted)
		return;
	bpftune_cap_raise();
	if (umount2(mounted, UMOUNT_NOFOLLOW))
		err = errno;
	/* something still uses it: let it go when that ends */
	if (err == EBUSY && !umount2(mounted, MNT_DETACH | UMOUNT_NOFOLLOW))
		err = 0;
	bpftune_cap_lower();
	if (err)
		bpftune_log(LOG_WARNING, "cannot unmount the cgroup2 we mounted on %s: %s",
			    mounted, strerror(err));
	else
		bpftune_log(LOG_INFO, "cgroup2 on %s unmounted", mounted);
	free(mounted);
	mounted = NULL;
}
