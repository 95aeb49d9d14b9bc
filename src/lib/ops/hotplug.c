// SPDX-License-Identifier: GPL-2.0-only
/*
 * Plugin hot plug: inotify on the plugin directory, in the main loop.  A
 * plugin written or moved into it is loaded, with the same trust checks
 * and -a allow-list as at start-up; one removed or moved away is
 * unloaded; one replaced (package upgrade: rename over it) is reloaded.
 * Only names a plugin may have (<name>_tuner.so) are looked at, so
 * package managers' and editors' temporary files (*.so.dpkg-new, .swp,
 * ~, .#name) are ignored.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>
#include <dlfcn.h>

#include "core/loop.h"
#include "core/operate.h"
#include "plugin/plugin.h"
#include "ops/metrics.h"

#define MAX_REFUSED	64

static int ino_fd = -1;
static int watch = -1;
static char *dir;
static const struct bpftune_allow *allow;
static struct bpftune_bpf_opts bpf_opts;
static void (*drain)(void);
/* names refused as untrusted: a chmod/chown (IN_ATTRIB) may fix them */
static char *refused[MAX_REFUSED];

static bool was_refused(const char *name, bool forget)
{
	unsigned int i;

	for (i = 0; i < MAX_REFUSED; i++) {
		if (!refused[i] || strcmp(refused[i], name))
			continue;
		if (forget) {
			free(refused[i]);
			refused[i] = NULL;
		}
		return true;
	}
	return false;
}

static void remember_refused(const char *name)
{
	unsigned int i;

	if (was_refused(name, false))
		return;
	for (i = 0; i < MAX_REFUSED && refused[i]; i++)
		;
	if (i == MAX_REFUSED) {
		/* forget the oldest slot rather than grow without bound */
		i = 0;
		free(refused[0]);
	}
	refused[i] = strdup(name);
}

static struct bpftune_tuner *loaded_from(const char *file)
{
	unsigned int id;

	for (id = 0; id < BPFTUNE_MAX_TUNERS; id++) {
		struct bpftune_tuner *t = bpftune_tuner_get(id);

		if (t && !strcmp(t->file, file))
			return t;
	}
	return NULL;
}

static void unload(const char *file, const char *why)
{
	struct bpftune_tuner *t = loaded_from(file);

	if (!t)
		return;
	/* deliver what its programs already sent before its id is reused */
	if (drain)
		drain();
	bpftune_log(LOG_NOTICE, "hot plug: %s %s: tuner %s unloaded", file, why,
		    t->ops->name);
	bpftune_tuner_remove(t);
	bpftune_metrics_dirty();
}

/* The library's start sequence, and the hot plug's log line. */
static struct bpftune_tuner *start(const char *file,
				   const struct bpftune_tuner_ops *ops,
				   void *handle, int fd)
{
	struct bpftune_tuner *t = bpftune_plugin_start(file, ops, handle, fd,
						       &bpf_opts);

	if (t)
		bpftune_log(LOG_NOTICE, "hot plug: tuner %s loaded from %s/%s",
			    ops->name, dir, file);
	return t;
}

static void load(const char *file)
{
	const struct bpftune_tuner_ops *ops;
	struct bpftune_tuner *t;
	char why[512] = "";
	void *handle;
	int dfd, pfd;

	if (!bpftune_plugin_allowed(allow, file)) {
		bpftune_log(LOG_INFO, "plugin %s not loaded: not in the -a allow-list", file);
		return;
	}
	dfd = bpftune_dir_open_trusted(dir, why, sizeof(why));
	if (dfd < 0) {
		bpftune_log(LOG_ERR, "hot plug: plugin directory %s refused: %s", dir, why);
		return;
	}
	ops = bpftune_plugin_open(dfd, file, &handle, &pfd, why, sizeof(why));
	close(dfd);
	if (!ops) {
		bpftune_log(LOG_WARNING, "plugin %s/%s refused: %s", dir, file, why);
		remember_refused(file);
		return;
	}
	was_refused(file, true);
	t = start(file, ops, handle, pfd);
	bpftune_kernel_btf_release();	/* loaded: the BTF index goes */
	if (!t)
		return;
	bpftune_check_learning_rate(t);
	bpftune_metrics_dirty();
}

/* After a queue overflow: make what is loaded match what is there. */
static void resync(void)
{
	unsigned int id;
	int dfd;

	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return;
	for (id = 0; id < BPFTUNE_MAX_TUNERS; id++) {
		struct bpftune_tuner *t = bpftune_tuner_get(id);

		/* core mechanisms come from no file: never unloaded */
		if (t && t->handle &&
		    faccessat(dfd, t->file, F_OK, AT_SYMLINK_NOFOLLOW) &&
		    errno == ENOENT)
			unload(t->file, "is gone");
	}
	close(dfd);
}

static void resync_load(const char *file, const struct bpftune_tuner_ops *ops,
			void *handle, int fd, void *ctx)
{
	(void)ctx;
	if (!ops)
		return;
	if (loaded_from(file)) {
		dlclose(handle);
		close(fd);
		return;
	}
	start(file, ops, handle, fd);
}

static void handle_event(const struct inotify_event *ev)
{
	if (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED)) {
		if (watch >= 0)
			bpftune_log(LOG_WARNING, "hot plug: plugin directory %s was removed or moved: no more hot plug",
				    dir);
		watch = -1;
		return;
	}
	if (ev->mask & IN_Q_OVERFLOW) {
		bpftune_log(LOG_WARNING, "hot plug: too many changes at once in %s: rescanning it",
			    dir);
		resync();
		bpftune_plugin_dir_scan(dir, allow, resync_load, NULL);
		return;
	}
	if (!ev->len || !bpftune_plugin_name_valid(ev->name)) {
		if (ev->len)
			bpftune_log(LOG_DEBUG, "hot plug: ignoring %s (not a plugin name)",
				    ev->name);
		return;
	}
	if (ev->mask & (IN_DELETE | IN_MOVED_FROM)) {
		was_refused(ev->name, true);
		unload(ev->name, ev->mask & IN_DELETE ? "was removed" : "was moved away");
	} else if (ev->mask & (IN_CLOSE_WRITE | IN_MOVED_TO)) {
		unload(ev->name, "was replaced");
		load(ev->name);
	} else if ((ev->mask & IN_ATTRIB) && !loaded_from(ev->name) &&
		   was_refused(ev->name, false)) {
		/* ownership or mode changed: it may be trusted now */
		load(ev->name);
	}
}

static void on_inotify(int fd, uint32_t events, void *ctx)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	const struct inotify_event *ev;
	ssize_t n;
	char *p;

	(void)events;
	(void)ctx;
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (p = buf; p < buf + n; p += sizeof(*ev) + ev->len) {
			ev = (const struct inotify_event *)p;
			handle_event(ev);
		}
	}
}

int bpftune_hotplug_init(const char *plugin_dir, const struct bpftune_allow *a,
			 const struct bpftune_bpf_opts *opts, void (*drain_fn)(void))
{
	int err;

	ino_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (ino_fd < 0)
		return -errno;
	watch = inotify_add_watch(ino_fd, plugin_dir,
				  IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM |
				  IN_DELETE | IN_ATTRIB | IN_DELETE_SELF |
				  IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW);
	if (watch < 0) {
		err = -errno;
		goto err;
	}
	dir = strdup(plugin_dir);
	err = dir ? bpftune_loop_add(ino_fd, on_inotify, NULL) : -ENOMEM;
	if (err)
		goto err;
	allow = a;
	bpf_opts = *opts;
	drain = drain_fn;
	bpftune_log(LOG_INFO, "hot plug: watching %s for plugins", plugin_dir);
	return 0;
err:
	bpftune_log(LOG_WARNING, "hot plug: cannot watch %s: %s", plugin_dir,
		    strerror(-err));
	close(ino_fd);
	ino_fd = -1;
	free(dir);
	dir = NULL;
	return err;
}

void bpftune_hotplug_fini(void)
{
	unsigned int i;

	if (ino_fd >= 0) {
		bpftune_loop_del(ino_fd);
		close(ino_fd);
	}
	ino_fd = watch = -1;
	free(dir);
	dir = NULL;
	for (i = 0; i < MAX_REFUSED; i++) {
		free(refused[i]);
		refused[i] = NULL;
	}
}
