/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * BPFTUNE_DAEMON marks the library functions the daemon (src/bpftune.c,
 * src/daemon/) calls: its interface to the rest of the library, for the
 * reader.  The daemon is linked into libbpftune and reaches them there, so
 * nothing is exported for it: the library exports exactly what
 * include/bpftune/ declares (make check).  See CONTRIBUTING.md, "The
 * sealed library".
 */
#ifndef BPFTUNE_DAEMON_API_H
#define BPFTUNE_DAEMON_API_H

#define BPFTUNE_DAEMON

#endif
