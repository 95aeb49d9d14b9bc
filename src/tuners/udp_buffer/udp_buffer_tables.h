/* SPDX-License-Identifier: GPL-2.0-only */
/* udp_buffer's telemetry declarations, in udp_buffer_tables.c (ops->telemetry). */
#ifndef BPFTUNE_UDP_BUFFER_TABLES_H
#define BPFTUNE_UDP_BUFFER_TABLES_H

#include <bpftune/telemetry.h>

extern const struct bpftune_telemetry_desc udp_buffer_telemetry;

#endif
