// SPDX-License-Identifier: GPL-2.0-only
/*
 * A value of the running kernel's build configuration, from
 * /boot/config-$(uname -r) or /proc/config.gz, for tuners that need a
 * build-time constant (CONFIG_HZ) that no sysctl shows.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <zlib.h>

#include "core/internal.h"

/* "CONFIG_HZ=250" for @name "CONFIG_HZ" -> 250; 0 if found, else -ENOENT */
static int config_line(const char *line, const char *name, long *val)
{
	size_t len = strlen(name);
	char *end;
	long v;

	if (strncmp(line, name, len) || line[len] != '=')
		return -ENOENT;
	v = strtol(line + len + 1, &end, 0);
	if (end == line + len + 1)
		return -EINVAL;
	*val = v;
	return 0;
}

int bpftune_kernel_config_long(const char *name, long *val)
{
	char path[128 + sizeof(((struct utsname *)0)->release)], line[256];
	struct utsname u;
	int err = -ENOENT;
	gzFile gz;
	FILE *f;

	if (!name || !val)
		return -EINVAL;
	if (!uname(&u)) {
		snprintf(path, sizeof(path), "/boot/config-%s", u.release);
		f = fopen(path, "re");
		if (f) {
			while (err == -ENOENT && fgets(line, sizeof(line), f))
				err = config_line(line, name, val);
			fclose(f);
			if (!err)
				return 0;
		}
	}
	gz = gzopen("/proc/config.gz", "rb");
	if (!gz)
		return -ENOENT;
	err = -ENOENT;
	while (err == -ENOENT && gzgets(gz, line, sizeof(line)))
		err = config_line(line, name, val);
	gzclose(gz);
	return err;
}
