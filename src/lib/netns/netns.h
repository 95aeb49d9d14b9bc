/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Network namespaces: the cache that turns an event's netns cookie into
 * an fd (netns.c) and finding a netns again by name, inode and cookie,
 * after a restart too (netns_id.c).  Uses only base/; core and the areas
 * above it use this (scripts/check-layers.sh).  Main thread only, except
 * bpftune_netns_enter_ref() and bpftune_netns_leave().
 */
#ifndef BPFTUNE_NETNS_H
#define BPFTUNE_NETNS_H

#include "base/daemon_api.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <bpftune/libbpftune.h>

/* ---- netns (netns.c) ---- */
BPFTUNE_DAEMON int bpftune_netns_init(void);
BPFTUNE_DAEMON void bpftune_netns_fini(void);
int bpftune_netns_cookie_of_fd(int fd, uint64_t *cookie);
/*
 * An fd for the network namespace an event came from, found through the
 * event's pid and checked against its cookie: -1 (global) when the
 * cookie is the global one; -errno if it cannot be found.  Released by
 * bpftune_netns_release() (after each event and timer).
 */
int bpftune_netns_fd_for_event(const struct bpftune_event *event);
/* fd for a known netns cookie: -1 global, -ESRCH if gone or unknown */
int bpftune_netns_fd_for_cookie(uint64_t cookie);
const char *bpftune_netns_exec_prefix(uint64_t cookie, char *buf, size_t len);
/* /run/netns name of a known netns, "" if none (main thread: the cache) */
void bpftune_netns_name(uint64_t cookie, char *name, size_t len);
int bpftune_netns_enter(int netns_fd, int *saved_fd);
void bpftune_netns_leave(int saved_fd);
/* is this thread in a netns it entered (not back in the global one)? */
bool bpftune_netns_entered(void);
/*
 * @fn (NULL: none) is called on the thread that has just entered a netns
 * with bpftune_netns_enter(), still inside it: the netns tracker learns
 * there of namespaces that existed before the daemon.  Any thread.
 */
void bpftune_netns_on_enter(void (*fn)(void));
/*
 * fds from bpftune_netns_fd_for_*() stay open until this call: none is
 * kept between events, since an open netns fd keeps the netns alive.
 */
void bpftune_netns_release(void);
/* drop what the cache knows about a destroyed netns */
void bpftune_netns_forget(uint64_t cookie);
/* set while the netns tuner sees every netns destruction */
void bpftune_netns_set_tracking(bool on);
/* forget every cached netns (learnt again, entering it, when needed) */
void bpftune_netns_flush(void);
bool bpftune_netns_tracking(void);
unsigned int bpftune_netns_cached(void);
/* a netns another thread can open and check (telemetry sampling) */
struct bpftune_netns_ref {
	uint64_t cookie;
	dev_t dev;
	ino_t ino;
	char path[288];		/* /run/netns/NAME or /proc/PID/ns/net */
};
/*
 * Main thread: up to @max namespaces the cache can reopen (named, or with
 * a pid seen in them), not the global one, in turns; *known: how many.
 */
unsigned int bpftune_netns_sample_list(struct bpftune_netns_ref *refs,
				       unsigned int max, unsigned int *known);
/* Any thread: enter a listed netns; leave with bpftune_netns_leave(). */
int bpftune_netns_enter_ref(const struct bpftune_netns_ref *ref, int *saved);

/* ---- finding a netns again (netns_id.c) ---- */
struct bpftune_netns_id {
	bool global;
	char name[NAME_MAX + 1];	/* /run/netns name, "" if none */
	uint64_t ino;
	uint64_t dev;
	uint64_t cookie;
};

/* Identify the netns of @cookie (it must be reachable now). */
int bpftune_netns_identify(uint64_t cookie, struct bpftune_netns_id *id);
/*
 * Find @id again: by name, else by inode and device among the processes'
 * namespaces; the cookie is checked before the fd is returned.  Returns a
 * new fd (caller closes), -1 for the global netns, -ESRCH if it is gone,
 * -ESTALE if what is found is another netns.
 */
int bpftune_netns_find(const struct bpftune_netns_id *id);
/* "global netns", "netns NAME (cookie N)", "netns cookie N" */
const char *bpftune_netns_id_describe(const struct bpftune_netns_id *id,
				      char *buf, size_t len);

#endif
