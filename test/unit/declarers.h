/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The in-tree plugins' telemetry declarations, as the docs generator
 * finds them (build/telemetry_declarers.inc, from the *_tables.c names).
 */
#ifndef BPFTUNE_UNIT_DECLARERS_H
#define BPFTUNE_UNIT_DECLARERS_H

#include "telemetry/telemetry_schema.h"

#define DECLARER(n) extern const struct bpftune_telemetry_desc n##_telemetry;
#include "telemetry_declarers.inc"
#undef DECLARER
#define DECLARER(n) { #n, &n##_telemetry },
static const struct bpftune_declarer unit_declarers[] = {
#include "telemetry_declarers.inc"
};
#undef DECLARER

#define UNIT_NUM_DECLARERS	(sizeof(unit_declarers) / sizeof(unit_declarers[0]))

#endif
