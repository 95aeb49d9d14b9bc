// SPDX-License-Identifier: GPL-2.0-only
/* The names of the plugin kinds, as logs and queries print them. */
#include "core/internal.h"

const char *bpftune_kind_name(enum bpftune_plugin_kind kind)
{
	switch (kind) {
	case BPFTUNE_KIND_TUNER:
		return "tuner";
	case BPFTUNE_KIND_COLLECTOR:
		return "collector";
	case BPFTUNE_KIND_CORE:
		return "core";
	}
	return "?";
}
