// SPDX-License-Identifier: GPL-2.0-only
/* Pure tunable arithmetic: hard caps and the learning-rate delta. */
#include "core/internal.h"

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
