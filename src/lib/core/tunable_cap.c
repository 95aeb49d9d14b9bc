// SPDX-License-Identifier: GPL-2.0-only
/* Pure tunable arithmetic: hard caps and the learning-rate delta. */
#include <stdio.h>

#include "core/internal.h"
#include "core/sysctl.h"

unsigned int bpftune_cap_values(const struct bpftune_tunable_desc *d,
				long *values, unsigned int n)
{
	unsigned int i, changed = 0;

	for (i = 0; i < n; i++) {
		if (values[i] > d->max) {
			values[i] = d->max;
			changed++;
		} else if (values[i] < d->min) {
			values[i] = d->min;
			changed++;
		}
	}
	return changed;
}

/* Same rule as bpftune_delta() on the BPF side: value / 2^(6 - rate). */
long bpftune_delta_for_rate(long value, unsigned int rate)
{
	if (rate > BPFTUNE_LEARNING_RATE_MAX)
		rate = BPFTUNE_LEARNING_RATE_MAX;
	return value >> (6 - rate);
}

unsigned int bpftune_cap_audit(const struct bpftune_tunable_desc *d,
			       const long *values, unsigned int n, char *buf,
			       size_t len)
{
	unsigned int i, out = 0;
	size_t off = 0;
	int w;

	if (len)
		buf[0] = '\0';
	for (i = 0; i < n; i++) {
		const char *side;
		long cap;

		if (values[i] > d->max) {
			side = "above the cap";
			cap = d->max;
		} else if (values[i] < d->min) {
			side = "below the floor";
			cap = d->min;
		} else {
			continue;
		}
		out++;
		if (off >= len)
			continue;
		if (n > 1)
			w = snprintf(buf + off, len - off, "%svalue %u (%ld) %s %ld",
				     off ? ", " : "", i + 1, values[i], side, cap);
		else
			w = snprintf(buf + off, len - off, "%s%ld %s %ld",
				     off ? ", " : "", values[i], side, cap);
		off += w > 0 ? (size_t)w : 0;
	}
	return out;
}
