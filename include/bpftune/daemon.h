/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The daemon itself.  The bpftune program is a main() that calls
 * bpftune_main(): the daemon lives in libbpftune, so that it and the
 * plugins it loads share one copy of the library's state, and the library
 * exports nothing but what include/bpftune/ declares.  Not for plugins.
 */
#ifndef BPFTUNE_DAEMON_H
#define BPFTUNE_DAEMON_H

#pragma GCC visibility push(default)

/* Run the daemon with the command line of bpftune(8); its exit status. */
int bpftune_main(int argc, char **argv);

#pragma GCC visibility pop

#endif /* BPFTUNE_DAEMON_H */
