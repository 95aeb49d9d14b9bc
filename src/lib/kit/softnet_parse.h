/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * /proc/net/softnet_stat per CPU, for the net_buffer tuner (the telemetry
 * sampler only needs the sums, see telemetry_proc.c).  Pure parsing of an
 * open FILE: unit-tested in test/unit/test_grow.c.  Other /proc counter
 * files: bpftune_proc_file_lookup() (proc_file.h).
 */
#ifndef BPFTUNE_SOFTNET_PARSE_H
#define BPFTUNE_SOFTNET_PARSE_H

#include <stdint.h>
#include <stdio.h>

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
