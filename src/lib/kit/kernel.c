// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kit's view of the running kernel (see <bpftune/kernel.h>): its
 * build configuration, from /boot/config-$(uname -r) or /proc/config.gz,
 * for tuners that need a build-time constant (CONFIG_HZ) that no sysctl
 * shows; its tick; and its TCP congestion control algorithms.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <zlib.h>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>
#include <bpftune/kernel.h>

#include "core/internal.h"
#include "core/sysctl.h"

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

long bpftune_kernel_tick_ns(void)
{
	struct timespec res;
	long hz;

	/* the coarse clocks read the jiffy-time: their resolution is one */
	if (!clock_getres(CLOCK_MONOTONIC_COARSE, &res) && !res.tv_sec &&
	    res.tv_nsec > 0)
		return res.tv_nsec;
	if (bpftune_kernel_config_long("CONFIG_HZ", &hz) || hz <= 0)
		return -ENOENT;
	return 1000000000L / hz;
}

bool bpftune_tcp_cc_available(const char *name)
{
	char buf[512], *tok, *save;

	if (bpftune_sysctl_read_string(-1, "net.ipv4.tcp_available_congestion_control",
				       buf, sizeof(buf)) < 0)
		return false;
	for (tok = strtok_r(buf, " \t\n", &save); tok;
	     tok = strtok_r(NULL, " \t\n", &save))
		if (!strcmp(tok, name))
			return true;
	return false;
}

/*
 * Setting TCP_CONGESTION from userspace with CAP_NET_ADMIN makes the
 * kernel load tcp_<name> itself (request_module()), which a BPF program's
 * setsockopt never does.
 */
int bpftune_tcp_cc_load(const char *name)
{
	int fd, err = 0;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	bpftune_cap_raise();
	if (setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, strlen(name)))
		err = -errno;
	bpftune_cap_lower();
	close(fd);
	return err;
}
