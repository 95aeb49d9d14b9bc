/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The sleeping gates' alarm (gate.h, @wake; gate_wake.bpf.c): while the
 * daemon's gates sleep, one tiny program sits on the tracepoints they
 * named and the first hit of any wakes the daemon's loop.
 */
#ifndef BPFTUNE_GATE_WAKE_H
#define BPFTUNE_GATE_WAKE_H

#include <stdint.h>

typedef void (*bpftune_gate_wake_fn)(void);

/* load the alarm's object (once): 0, or -errno */
int bpftune_gate_wake_load(void);
/*
 * Attach the alarm to every tracepoint named in @tps (space-separated;
 * names repeated are attached once) and arm it; @fn runs on the loop
 * after the first hit and disarms it.  Loads the object if it is not.
 * 0, or -errno with nothing attached (the object does not load, a
 * tracepoint is missing).
 */
int bpftune_gate_wake_arm(const char *tps, bpftune_gate_wake_fn fn);
/* detach (idempotent) */
void bpftune_gate_wake_disarm(void);
/* disarm, unload */
void bpftune_gate_wake_fini(void);

#endif
