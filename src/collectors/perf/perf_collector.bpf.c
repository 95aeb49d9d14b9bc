// SPDX-License-Identifier: GPL-2.0-only
/*
 * BPF side of the perf collector: none.  Its counters come from
 * perf_event_open(2) in userspace; the object carries only bpftune's
 * globals, which every plugin object has.
 */
#include <bpftune/bpftune.bpf.h>
#include "perf_collector.h"
