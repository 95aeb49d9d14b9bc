/* SPDX-License-Identifier: GPL-2.0-only */
/* tcp_conn's telemetry declarations, in tcp_conn_tables.c (ops->telemetry). */
#ifndef BPFTUNE_TCP_CONN_TABLES_H
#define BPFTUNE_TCP_CONN_TABLES_H

#include <bpftune/telemetry.h>

extern const struct bpftune_telemetry_desc tcp_conn_telemetry;

#endif
