// SPDX-License-Identifier: GPL-2.0-only
/*
 * One-shot timers for the main loop (timerfd, CLOCK_MONOTONIC): a
 * plugin's timer (lifecycle.c) is one.  They are armed only while
 * something is pending, so an idle daemon never wakes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "core/loop.h"
#include "core/observer.h"
#include "core/operate.h"

struct bpftune_timer {
	int fd;
	bool armed;
	bpftune_loop_timer_fn fn;
	void *ctx;
};

uint64_t bpftune_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

uint64_t bpftune_thread_cpu_us(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* arm @tfd for absolute monotonic time @when_ms, or disarm when 0 */
static int timer_arm_at(int tfd, uint64_t when_ms)
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

static void timer_fired(int fd, uint32_t events, void *ctx)
{
	struct bpftune_timer *tm = ctx;
	uint64_t expirations;

	(void)events;
	if (read(fd, &expirations, sizeof(expirations)) < 0)
		return;
	tm->armed = false;
	tm->fn(tm->ctx);
	/* as after an event: no netns fd may outlive this round */
	bpftune_netns_release();
}

struct bpftune_timer *bpftune_loop_timer_new(bpftune_loop_timer_fn fn, void *ctx)
{
	struct bpftune_timer *tm;
	int err;

	if (!fn) {
		errno = EINVAL;
		return NULL;
	}
	tm = calloc(1, sizeof(*tm));
	if (!tm)
		return NULL;
	tm->fn = fn;
	tm->ctx = ctx;
	tm->fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (tm->fd < 0) {
		err = errno;
		free(tm);
		errno = err;
		return NULL;
	}
	err = bpftune_loop_add(tm->fd, timer_fired, tm);
	if (err) {
		close(tm->fd);
		free(tm);
		errno = -err;
		return NULL;
	}
	return tm;
}

int bpftune_loop_timer_set(struct bpftune_timer *tm, uint64_t delay_ms)
{
	struct itimerspec its;

	if (!tm)
		return -EINVAL;
	memset(&its, 0, sizeof(its));
	its.it_value.tv_sec = delay_ms / 1000;
	its.it_value.tv_nsec = (delay_ms % 1000) * 1000000;
	if (timerfd_settime(tm->fd, 0, &its, NULL))
		return -errno;
	tm->armed = delay_ms != 0;
	return 0;
}

int bpftune_loop_timer_at(struct bpftune_timer *tm, uint64_t when_ms)
{
	int err;

	if (!tm)
		return -EINVAL;
	err = timer_arm_at(tm->fd, when_ms);
	if (!err)
		tm->armed = when_ms != 0;
	return err;
}

bool bpftune_loop_timer_armed(const struct bpftune_timer *tm)
{
	return tm && tm->armed;
}

void bpftune_loop_timer_free(struct bpftune_timer *tm)
{
	if (!tm)
		return;
	bpftune_loop_del(tm->fd);
	close(tm->fd);
	free(tm);
}

int bpftune_loop_timer_watch_start(struct bpftune_timer **tm,
				   bpftune_loop_timer_fn fn,
				   struct bpftune_observer *obs)
{
	if (*tm)
		return 0;
	*tm = bpftune_loop_timer_new(fn, NULL);
	if (!*tm)
		return -errno;
	bpftune_observer_add(obs);
	return 0;
}

void bpftune_loop_timer_watch_stop(struct bpftune_timer **tm,
				   struct bpftune_observer *obs)
{
	if (!*tm)
		return;
	bpftune_observer_remove(obs);
	bpftune_loop_timer_free(*tm);
	*tm = NULL;
}

void bpftune_event_init(struct bpftune_event *ev,
			const struct bpftune_tuner *tuner,
			unsigned int scenario, uint64_t netns_cookie,
			uint32_t pid)
{
	struct timespec ts;

	memset(ev, 0, sizeof(*ev));
	ev->tuner_id = tuner->id;
	ev->scenario_id = scenario;
	ev->netns_cookie = netns_cookie;
	ev->pid = pid;
	/* the events' clock: CLOCK_BOOTTIME */
	clock_gettime(CLOCK_BOOTTIME, &ts);
	ev->ts_uptime_ns = (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}
