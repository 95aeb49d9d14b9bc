/* SPDX-License-Identifier: GPL-2.0-only */
/* net_buffer's telemetry declarations, in net_buffer_tables.c (ops->telemetry). */
#ifndef BPFTUNE_NET_BUFFER_TABLES_H
#define BPFTUNE_NET_BUFFER_TABLES_H

#include <bpftune/telemetry.h>

extern const struct bpftune_telemetry_desc net_buffer_telemetry;

#endif
