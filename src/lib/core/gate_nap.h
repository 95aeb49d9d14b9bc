/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The daemon's gates asleep (gate.h, @wake): when they may sleep and what
 * sleeping costs against staying awake.  gate.c says when the gates were
 * busy, what their checks cost and which tracepoints wake them; this
 * file arms the alarm (gate_wake.c), decides and keeps the figures.
 */
#ifndef BPFTUNE_GATE_NAP_H
#define BPFTUNE_GATE_NAP_H

#include <stdbool.h>
#include <stdint.h>

#include "core/gate_wake.h"
#include "core/operate.h"	/* struct bpftune_gate_nap_info */

/*
 * A gate that may sleep was set: the alarm is loaded now, so that its
 * load is the start-up's and a sleep is the attach alone.  A load that
 * fails is said once and the gates never sleep.
 */
void bpftune_gate_nap_prepare(void);
/* the last gate is gone: the alarm is unloaded */
void bpftune_gate_nap_fini(void);
/* pressure, a start or a change at @now: the calm time begins again */
void bpftune_gate_nap_busy(uint64_t now);
/* the awake gates' checks took @us of CPU */
void bpftune_gate_nap_checked(uint64_t us);
bool bpftune_gate_nap_asleep(void);
/*
 * The alarm rang or the gates changed at @now: awake (and busy).  True
 * if they slept: every gate is then looked at.
 */
bool bpftune_gate_nap_wake(uint64_t now);
/* what an arm + disarm is thought to cost until one is measured */
void bpftune_gate_nap_estimate(uint64_t cycle_us);
/* calm long enough at @now to sleep */
bool bpftune_gate_nap_due(uint64_t now);
/* sleep until a tracepoint of @tps fires, then @fn runs; 0 or -errno */
int bpftune_gate_nap_sleep(uint64_t now, const char *tps, bpftune_gate_wake_fn fn);

#endif
