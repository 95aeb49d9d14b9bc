/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tuner kit: the kernel's counters and settings from /proc, read in the
 * network namespace of an event.
 *
 * Contract:
 *  - @event names the netns: NULL is the daemon's own (the global one);
 *    otherwise the event's netns, found through its pid and checked
 *    against its cookie (a timer builds its event with
 *    bpftune_event_init()).  The calling thread enters it and comes back;
 *    nothing stays open after the event or timer callback.
 *  - Counter readers look @n keys up in one read of the file: absent keys
 *    read 0; they return how many were found, or -errno when the file
 *    cannot be read or the netns found.  Keys are "Section.Name" for the
 *    two-line tables of snmp/netstat ("TcpExt.ListenDrops"), "SOCK.field"
 *    for sockstat ("FRAG.memory", "UDP.mem") and the bare name for snmp6
 *    ("Ip6ReasmFails").
 *  - Global files (protocols, softnet_stat, pressure, meminfo) take no
 *    event.
 * The parsers are pure and unit-tested (test/unit/test_proc_file.c).
 */
#ifndef BPFTUNE_PROC_H
#define BPFTUNE_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <bpftune/bpftune.h>

#pragma GCC visibility push(default)

/* /proc/net/snmp: "Ip.ReasmFails", "Tcp.RetransSegs", "Udp.RcvbufErrors" */
int bpftune_proc_snmp(const struct bpftune_event *event,
		      const char *const keys[], uint64_t vals[], unsigned int n);
/* /proc/net/netstat: "TcpExt.ListenDrops", "IpExt.InOctets" */
int bpftune_proc_netstat(const struct bpftune_event *event,
			 const char *const keys[], uint64_t vals[],
			 unsigned int n);
/* /proc/net/snmp6: "Ip6ReasmFails" */
int bpftune_proc_snmp6(const struct bpftune_event *event,
		       const char *const keys[], uint64_t vals[], unsigned int n);
/* /proc/net/sockstat: "TCP.inuse", "UDP.mem" (pages), "FRAG.memory" (bytes) */
int bpftune_proc_sockstat(const struct bpftune_event *event,
			  const char *const keys[], uint64_t vals[],
			  unsigned int n);
/* /proc/net/sockstat6: "FRAG6.memory" */
int bpftune_proc_sockstat6(const struct bpftune_event *event,
			   const char *const keys[], uint64_t vals[],
			   unsigned int n);

/*
 * A sysctl, managed or not, read in the event's netns: values into
 * @values (at most @max), their number returned, or -errno.  Changing a
 * tunable is bpftune_tunable_set()'s alone.
 */
int bpftune_proc_sysctl(const struct bpftune_event *event, const char *name,
			long *values, unsigned int max);

/*
 * Memory held by protocol @proto ("TCP", "UDP") in pages and the kernel's
 * memory pressure flag for it (/proc/net/protocols; the same in every
 * netns).  0 or -errno (-ENOENT: no such protocol).
 */
int bpftune_proc_protocol_memory(const char *proto, long *pages,
				 bool *pressure);

/*
 * Column @col of /proc/net/softnet_stat, per CPU: values[cpu] for CPUs
 * 0..@max-1 (0 for CPUs without a row); the number of rows read, or
 * -errno.  Columns: 0 processed, 1 dropped (backlog full), 2 time_squeeze.
 */
int bpftune_proc_softnet(unsigned int col, uint64_t *values, unsigned int max);

/*
 * The same for several columns at once, from one read of the file:
 * values[cpu] is the sum of the columns whose bits are set in @cols
 * (bit N: column N), e.g. 1u << 1 | 1u << 2 for dropped + time_squeeze.
 */
int bpftune_proc_softnet_sum(unsigned int cols, uint64_t *values,
			     unsigned int max);

/*
 * How long tasks have waited for a CPU so far: the PSI "some" total of
 * /proc/pressure/cpu in microseconds, else the run delay of
 * /proc/schedstat summed over CPUs, in nanoseconds.  *@source (optional)
 * says which: "PSI" or "run delay".  0, or -ENOENT if neither exists.
 * Only the growth of the figure between two reads means anything.
 */
int bpftune_proc_cpu_wait(double *wait, const char **source);

/*
 * Memory sysctls (tcp_mem, udp_mem) count pages (of at least 4096 bytes):
 * a quarter of RAM in pages, the usual cap of a memory sysctl; -1 unknown
 */
long bpftune_ram_quarter_pages(void);
/* MemAvailable of /proc/meminfo in pages; -1 if unknown */
long bpftune_mem_available_pages(void);

#pragma GCC visibility pop

#endif /* BPFTUNE_PROC_H */
