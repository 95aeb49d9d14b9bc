/* SPDX-License-Identifier: GPL-2.0-only */
/* The daemon's epoll loop: register an fd and a callback. */
#ifndef BPFTUNE_LOOP_H
#define BPFTUNE_LOOP_H

#include <stdint.h>

typedef void (*bpftune_fd_cb)(int fd, uint32_t events, void *ctx);

int bpftune_loop_init(void);
int bpftune_loop_add(int fd, bpftune_fd_cb cb, void *ctx);
int bpftune_loop_del(int fd);
/* change the events watched (EPOLLIN, EPOLLOUT) for a registered fd */
int bpftune_loop_mod(int fd, uint32_t events);
/* block, calling callbacks, until bpftune_loop_stop() */
int bpftune_loop_run(void);
void bpftune_loop_stop(void);
void bpftune_loop_fini(void);

#endif
