// SPDX-License-Identifier: GPL-2.0-only
/* udp_buffer's decisions (udp_buffer_policy.h): pure, unit-tested. */
#include <limits.h>
#include <bpftune/grow.h>

#include "udp_buffer_policy.h"

static const char *const verdict_names[] = {
	[UDP_BUFFER_RAISE]	= "raise",
	[UDP_BUFFER_PREDATES]	= "none: the socket predates the current default",
	[UDP_BUFFER_AT_CAP]	= "none: at the cap",
	[UDP_BUFFER_AT_CEILING]	= "none: at the ceiling",
};

const char *udp_buffer_verdict_name(enum udp_buffer_verdict v)
{
	return (unsigned int)v < sizeof(verdict_names) / sizeof(verdict_names[0]) ?
	       verdict_names[v] : "none";
}

enum udp_buffer_verdict udp_buffer_rcvbuf_decide(long rcvbuf, long def, long max,
						 unsigned int rate, long *want_def,
						 long *want_max)
{
	*want_def = 0;
	*want_max = 0;
	if (rcvbuf < def)
		return UDP_BUFFER_PREDATES;
	if (def >= RMEM_DEFAULT_CAP)
		return UDP_BUFFER_AT_CAP;
	/* past the cap the library clamps, and says so */
	*want_def = bpftune_grow_step(def, LONG_MAX, rate);
	/* rmem_max first: the default stays within what SO_RCVBUF may ask */
	if (*want_def > max)
		*want_max = *want_def < RMEM_DEFAULT_CAP ? *want_def : RMEM_DEFAULT_CAP;
	return UDP_BUFFER_RAISE;
}

long udp_buffer_mem_ceiling(long pages, long avail, long cur_high, long cap)
{
	long ceiling = avail > 0 ? pages + avail / 4 : cur_high;

	return ceiling > cap ? cap : ceiling;
}

enum udp_buffer_verdict udp_buffer_mem_decide(const long cur[3], long ceiling,
					      unsigned int rate, long want[3])
{
	unsigned int i;

	if (cur[2] >= ceiling)
		return UDP_BUFFER_AT_CEILING;
	for (i = 0; i < 3; i++)
		want[i] = bpftune_grow_step(cur[i], ceiling, rate);
	return UDP_BUFFER_RAISE;
}

bool udp_buffer_mem_may_shrink(long pages, long want_pressure, unsigned int rate)
{
	return pages >= 0 &&
	       pages + bpftune_delta_for_rate(want_pressure, rate) < want_pressure;
}
