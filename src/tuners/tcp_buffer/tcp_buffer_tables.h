/* SPDX-License-Identifier: GPL-2.0-only */
/* tcp_buffer's telemetry declarations, in tcp_buffer_tables.c (ops->telemetry). */
#ifndef BPFTUNE_TCP_BUFFER_TABLES_H
#define BPFTUNE_TCP_BUFFER_TABLES_H

#include <bpftune/telemetry.h>

extern const struct bpftune_telemetry_desc tcp_buffer_telemetry;

#endif
