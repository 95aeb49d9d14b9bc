// SPDX-License-Identifier: GPL-2.0-only
/*
 * Scanning the plugin directory: trust check of the directory, the -a
 * allow-list, and one callback per candidate plugin in name order.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/internal.h"
#include "plugin/plugin.h"

/* "sample", "sample_tuner.so" and "/x/sample_tuner.so" all name one file */
void bpftune_plugin_normalize(const char *name, char *buf, size_t len)
{
	const char *base = strrchr(name, '/');
	size_t n;

	base = base ? base + 1 : name;
	n = strlen(base);
	if (n > 3 && !strcmp(base + n - 3, ".so"))
		snprintf(buf, len, "%s", base);
	else
		snprintf(buf, len, "%s_tuner.so", base);
}

/* "sched", "sched_collector.so" or "/x/sched_collector.so" */
static bool names_collector(const char *name, const char *file)
{
	const char *base = strrchr(name, '/');
	char buf[NAME_MAX + 1];

	base = base ? base + 1 : name;
	if (bpftune_plugin_is_collector(base))
		return !strcmp(base, file);
	snprintf(buf, sizeof(buf), "%s_collector.so", base);
	return !strcmp(buf, file);
}

static bool collector_named(const struct bpftune_allow *allow, const char *file)
{
	unsigned int i;

	for (i = 0; allow && i < allow->num_collectors; i++)
		if (names_collector(allow->collectors[i], file))
			return true;
	for (i = 0; allow && i < allow->num; i++)
		if (names_collector(allow->names[i], file))
			return true;
	return false;
}

bool bpftune_plugin_allowed(const struct bpftune_allow *allow, const char *file)
{
	char norm[NAME_MAX + 1];
	unsigned int i;

	/* collectors cost nothing unless asked for */
	if (bpftune_plugin_is_collector(file))
		return collector_named(allow, file);
	if (!allow || !allow->num)
		return true;
	for (i = 0; i < allow->num; i++) {
		bpftune_plugin_normalize(allow->names[i], norm, sizeof(norm));
		if (!strcmp(norm, file) || names_collector(allow->names[i], file))
			return true;
	}
	return false;
}

/* Files that are not plugins and not worth a log line. */
static bool ignored_file(const char *name)
{
	size_t n = strlen(name);

	return name[0] == '.' || n < 3 || strcmp(name + n - 3, ".so");
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int bpftune_plugin_dir_scan(const char *dir, const struct bpftune_allow *allow,
			    bpftune_plugin_cb cb, void *ctx)
{
	char why[512] = "", **names = NULL;
	unsigned int num = 0, cap = 0, i;
	struct dirent *d;
	int dfd, fd;
	DIR *dp;

	dfd = bpftune_dir_open_trusted(dir, why, sizeof(why));
	if (dfd < 0) {
		bpftune_log(LOG_ERR, "plugin directory %s refused: %s", dir, why);
		return dfd;
	}
	fd = dup(dfd);
	dp = fd >= 0 ? fdopendir(fd) : NULL;
	if (!dp) {
		int err = -errno;

		if (fd >= 0)
			close(fd);
		close(dfd);
		return err;
	}
	while ((d = readdir(dp))) {
		if (ignored_file(d->d_name))
			continue;
		if (num == cap) {
			char **n = realloc(names, (cap = cap ? cap * 2 : 16) * sizeof(*n));

			if (!n)
				break;
			names = n;
		}
		names[num] = strdup(d->d_name);
		if (names[num])
			num++;
	}
	closedir(dp);
	if (num)
		qsort(names, num, sizeof(*names), cmp_names);
	for (i = 0; i < num; i++) {
		const struct bpftune_tuner_ops *ops;
		void *handle;
		int pfd;

		if (!bpftune_plugin_allowed(allow, names[i])) {
			bpftune_log(LOG_INFO, "plugin %s not loaded: %s", names[i],
				    bpftune_plugin_is_collector(names[i]) ?
				    "a collector not named by --collectors" :
				    "not in the -a allow-list");
			continue;
		}
		ops = bpftune_plugin_open(dfd, names[i], &handle, &pfd, why,
					  sizeof(why));
		if (!ops)
			bpftune_log(LOG_WARNING, "plugin %s/%s refused: %s", dir,
				    names[i], why);
		cb(names[i], ops, handle, pfd, ctx);
	}
	/* every plugin here is loaded: the kernel BTF index is not needed now */
	bpftune_kernel_btf_release();
	for (i = 0; i < num; i++)
		free(names[i]);
	free(names);
	close(dfd);
	return 0;
}
