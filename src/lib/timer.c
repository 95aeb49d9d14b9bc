// SPDX-License-Identifier: GPL-2.0-only
/*
 * One-shot timers for the main loop (timerfd, CLOCK_MONOTONIC).  They are
 * armed only while something is pending, so an idle daemon never wakes.
 */
#include <errno.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>

#include "operate.h"

uint64_t bpftune_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int bpftune_timer_arm(int tfd, uint64_t when_ms)
{
	struct itimerspec its;

	memset(&its, 0, sizeof(its));
	if (when_ms) {
		its.it_value.tv_sec = when_ms / 1000;
		its.it_value.tv_nsec = (when_ms % 1000) * 1000000;
	}
	/* a zero it_value disarms; an absolute time in the past fires now */
	return timerfd_settime(tfd, when_ms ? TFD_TIMER_ABSTIME : 0, &its,
			       NULL) ? -errno : 0;
}
