// SPDX-License-Identifier: GPL-2.0-only
/* Readiness notification to the service manager (see notify.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "notify.h"

int bpftune_notify_addr(const char *name, struct sockaddr_un *addr,
			socklen_t *len)
{
	size_t n = name ? strlen(name) : 0;

	if (n < 2 || (name[0] != '/' && name[0] != '@') ||
	    n > sizeof(addr->sun_path) - (name[0] == '/'))
		return -EINVAL;
	memset(addr, 0, sizeof(*addr));
	addr->sun_family = AF_UNIX;
	memcpy(addr->sun_path, name, n);
	/* abstract: a leading NUL, and the length says where the name ends */
	if (name[0] == '@')
		addr->sun_path[0] = '\0';
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n +
			   (name[0] == '/'));
	return 0;
}

int bpftune_notify(const char *state)
{
	const char *name = getenv("NOTIFY_SOCKET");
	struct sockaddr_un addr;
	size_t n = strlen(state);
	socklen_t len;
	ssize_t sent;
	int fd, err;

	if (!name)
		return 0;
	err = bpftune_notify_addr(name, &addr, &len);
	if (err)
		return err;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	sent = sendto(fd, state, n, MSG_NOSIGNAL, (struct sockaddr *)&addr, len);
	err = sent < 0 ? -errno : 1;
	close(fd);
	if (sent >= 0 && (size_t)sent != n)
		err = -EMSGSIZE;
	return err;
}
