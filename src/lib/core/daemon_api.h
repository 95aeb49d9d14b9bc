/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libbpftune is built with -fvisibility=hidden: it exports what
 * include/bpftune/ declares (version BPFTUNE_2) and, marked with
 * BPFTUNE_DAEMON, the functions the daemon itself (src/bpftune.c) calls
 * (version BPFTUNE_PRIVATE).  make check fails if a plugin links against a
 * BPFTUNE_PRIVATE symbol, or if one is exported that the daemon does not
 * use.  See CONTRIBUTING.md, "The sealed library".
 */
#ifndef BPFTUNE_DAEMON_API_H
#define BPFTUNE_DAEMON_API_H

#define BPFTUNE_DAEMON	__attribute__((visibility("default")))

#endif
