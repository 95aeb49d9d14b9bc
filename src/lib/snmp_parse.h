/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Counters from /proc/net/snmp-style files, for tuners that look at what
 * the kernel counted (reassembly failures, softnet drops).  Pure parsing
 * of an open FILE: unit-tested in test/unit/test_snmp_parse.c.
 */
#ifndef BPFTUNE_SNMP_PARSE_H
#define BPFTUNE_SNMP_PARSE_H

#include <stdint.h>
#include <stdio.h>

/*
 * Find @n counters of table @table ("Ip", "Udp", "TcpExt") in a file of
 * "Table: name name ..." / "Table: value value ..." line pairs
 * (/proc/net/snmp, /proc/net/netstat), or, with @table NULL, in a file of
 * "Name value" lines (/proc/net/snmp6).  Counters not found are left
 * untouched; a name the file repeats counts once (the last value wins).
 * Returns how many of @names were found, or -EINVAL on bad arguments or
 * a malformed pair of lines (-ENOMEM if out of memory).
 */
int bpftune_snmp_parse(FILE *f, const char *table, const char *const *names,
		       uint64_t *values, unsigned int n);

/*
 * Per-CPU rows of /proc/net/softnet_stat (hex columns): column @col of
 * each row into values[cpu], for at most @max rows.  The row's CPU is
 * column 12 when present (kernels >= 5.10 list only online CPUs, so row
 * i is not always CPU i), else its position.  Returns the number of rows
 * read, or -EINVAL.
 */
int bpftune_softnet_parse(FILE *f, unsigned int col, uint64_t *values,
			  unsigned int *cpus, unsigned int max);

#endif
