/* SPDX-License-Identifier: GPL-2.0-only */
/* ip_frag's telemetry declarations, in ip_frag_tables.c (ops->telemetry). */
#ifndef BPFTUNE_IP_FRAG_TABLES_H
#define BPFTUNE_IP_FRAG_TABLES_H

#include <bpftune/telemetry.h>

extern const struct bpftune_telemetry_desc ip_frag_telemetry;

#endif
