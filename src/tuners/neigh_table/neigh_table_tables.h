/* SPDX-License-Identifier: GPL-2.0-only */
/* neigh_table's telemetry declarations, in neigh_table_tables.c (ops->telemetry). */
#ifndef BPFTUNE_NEIGH_TABLE_TABLES_H
#define BPFTUNE_NEIGH_TABLE_TABLES_H

#include <bpftune/telemetry.h>

extern const struct bpftune_telemetry_desc neigh_table_telemetry;

#endif
