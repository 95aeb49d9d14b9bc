/* SPDX-License-Identifier: GPL-2.0-only */
/* route_table's telemetry declarations, in route_table_tables.c (ops->telemetry). */
#ifndef BPFTUNE_ROUTE_TABLE_TABLES_H
#define BPFTUNE_ROUTE_TABLE_TABLES_H

#include <bpftune/telemetry.h>

extern const struct bpftune_telemetry_desc route_table_telemetry;

#endif
