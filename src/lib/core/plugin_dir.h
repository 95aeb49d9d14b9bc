/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Moved to src/lib/plugin/plugin.h.  Kept only for src/bpftune.c, which
 * another branch edits: once both are merged, its include names
 * "plugin/plugin.h" and this file goes (scripts/check-layers.sh allows
 * this one include until then).
 */
#include "plugin/plugin.h"
