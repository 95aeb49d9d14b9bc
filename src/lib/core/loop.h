/* SPDX-License-Identifier: GPL-2.0-only */
/* The daemon's epoll loop: register an fd and a callback. */
#ifndef BPFTUNE_LOOP_H
#define BPFTUNE_LOOP_H

#include "base/daemon_api.h"

#include <stdbool.h>
#include <stdint.h>

typedef void (*bpftune_fd_cb)(int fd, uint32_t events, void *ctx);

BPFTUNE_DAEMON int bpftune_loop_init(void);
BPFTUNE_DAEMON int bpftune_loop_add(int fd, bpftune_fd_cb cb, void *ctx);
BPFTUNE_DAEMON int bpftune_loop_del(int fd);
/* change the events watched (EPOLLIN, EPOLLOUT) for a registered fd */
int bpftune_loop_mod(int fd, uint32_t events);
/* block, calling callbacks, until bpftune_loop_stop() */
BPFTUNE_DAEMON int bpftune_loop_run(void);
BPFTUNE_DAEMON void bpftune_loop_stop(void);
BPFTUNE_DAEMON void bpftune_loop_fini(void);

/*
 * One-shot timers on the loop (timer.c).  @fn runs with the timer
 * disarmed; netns fds taken during it are released after it, as after an
 * event.  new() returns NULL with errno set.
 */
struct bpftune_timer;
typedef void (*bpftune_loop_timer_fn)(void *ctx);
struct bpftune_timer *bpftune_loop_timer_new(bpftune_loop_timer_fn fn, void *ctx);
/* fire once in @delay_ms (re-arming if armed); 0 disarms.  0 or -errno */
int bpftune_loop_timer_set(struct bpftune_timer *tm, uint64_t delay_ms);
/* fire once at @when_ms of bpftune_now_ms() (now if past); 0 disarms */
int bpftune_loop_timer_at(struct bpftune_timer *tm, uint64_t when_ms);
bool bpftune_loop_timer_armed(const struct bpftune_timer *tm);
/* CPU time of the calling thread, in us: what a timer's work costs */
uint64_t bpftune_thread_cpu_us(void);
/* remove from the loop and free; NULL is fine */
void bpftune_loop_timer_free(struct bpftune_timer *tm);

/*
 * A timer that lives with an observer of the bus (gate.c, strategy.c):
 * start makes *@tm and adds @obs unless *@tm exists; stop removes @obs
 * and frees *@tm, if it exists.  start: 0 or -errno.
 */
struct bpftune_observer;
int bpftune_loop_timer_watch_start(struct bpftune_timer **tm,
				   bpftune_loop_timer_fn fn,
				   struct bpftune_observer *obs);
void bpftune_loop_timer_watch_stop(struct bpftune_timer **tm,
				   struct bpftune_observer *obs);

#endif
