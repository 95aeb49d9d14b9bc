/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The service manager's readiness notification (systemd's Type=notify):
 * one datagram per state change to the AF_UNIX socket named in
 * $NOTIFY_SOCKET, the protocol sd_notify(3) documents as stable for
 * programs that do not link libsystemd.  The daemon needs nothing else of
 * libsystemd, which with the libraries it pulls in (libgcrypt, liblzma,
 * libzstd, liblz4, libgpg-error) cost about 1 MB of resident memory.
 */
#ifndef BPFTUNE_DAEMON_NOTIFY_H
#define BPFTUNE_DAEMON_NOTIFY_H

#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>

/*
 * The address of @name ($NOTIFY_SOCKET): an absolute path, or "@" for the
 * abstract namespace.  Its length in @len; -EINVAL for anything else
 * (empty, relative, too long for sun_path).
 */
int bpftune_notify_addr(const char *name, struct sockaddr_un *addr,
			socklen_t *len);

/*
 * Send @state ("READY=1", "RELOADING=1", "STOPPING=1") to the service
 * manager.  0 when there is none (no $NOTIFY_SOCKET: not started by one),
 * 1 when sent, -errno when it could not be.
 */
int bpftune_notify(const char *state);

#endif
