/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The telemetry declarations of the in-tree tuners, each in its
 * <name>_tables.c (ops->telemetry points at it).  The docs generator
 * finds them by those file names (make docs).
 */
#ifndef BPFTUNE_TUNER_TABLES_H
#define BPFTUNE_TUNER_TABLES_H

#include <bpftune/telemetry.h>

extern const struct bpftune_telemetry_desc ip_frag_telemetry;
extern const struct bpftune_telemetry_desc neigh_table_telemetry;
extern const struct bpftune_telemetry_desc net_buffer_telemetry;
extern const struct bpftune_telemetry_desc route_table_telemetry;
extern const struct bpftune_telemetry_desc tcp_buffer_telemetry;
extern const struct bpftune_telemetry_desc tcp_conn_telemetry;
extern const struct bpftune_telemetry_desc udp_buffer_telemetry;

/* a decision policy's inputs (BPFTUNE_POLICY): what it saw, as gauges */
#define IN_INT(n, u, d)		BPFTUNE_COL_INT(n, GAUGE, u, d)
#define IN_REAL(n, u, d)	BPFTUNE_COL_FLOAT(n, GAUGE, u, d)
#define IN_TEXT(n, d)		BPFTUNE_COL_LABEL(n, d)

#endif
