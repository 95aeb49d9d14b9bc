/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tuner kit: what a tuner needs to know of, or ask from, the running
 * kernel besides its counters (proc.h) and its tables (netlink.h).
 *
 * Contract: read-only but for bpftune_tcp_cc_load(), which loads a
 * congestion control module the way the kernel allows an unprivileged
 * request to (setsockopt TCP_CONGESTION with CAP_NET_ADMIN), and changes
 * no setting.
 */
#ifndef BPFTUNE_KERNEL_H
#define BPFTUNE_KERNEL_H

#include <stdbool.h>

#pragma GCC visibility push(default)

/*
 * A value of the running kernel's build configuration ("CONFIG_HZ"), from
 * /boot/config-$(uname -r) or /proc/config.gz: 0, or -ENOENT.
 */
int bpftune_kernel_config_long(const char *name, long *val);

/*
 * The running kernel's tick (a jiffy, 1 / CONFIG_HZ s) in ns: the
 * resolution of CLOCK_MONOTONIC_COARSE, which advances once a tick, so it
 * is known without a config file; from CONFIG_HZ where that clock is
 * missing.  -ENOENT if neither tells.
 */
long bpftune_kernel_tick_ns(void);

/*
 * Is TCP congestion control @name available now
 * (net.ipv4.tcp_available_congestion_control)?
 */
bool bpftune_tcp_cc_available(const char *name);
/*
 * Make the kernel load tcp_@name if it has that module: 0, or -errno
 * (-ENOENT: no such algorithm).
 */
int bpftune_tcp_cc_load(const char *name);

#pragma GCC visibility pop

#endif /* BPFTUNE_KERNEL_H */
