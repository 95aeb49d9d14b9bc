/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * net_buffer's decisions as pure functions: when netdev_max_backlog grows
 * and flow limiting is switched on for a CPU, when netdev_budget or
 * netdev_budget_usecs grows on a squeeze or the CPU wait guard steps it
 * back, when high_order_alloc_disable is switched back off, and when a
 * raised value shrinks.  No I/O and no library state: net_buffer_tuner.c
 * reads softnet_stat, the sysctls and the CPU wait, passes them in with
 * the learning rate and its bookkeeping, and writes what comes back.
 * Unit-tested in test/unit/test_net_buffer_policy.c.
 */
#ifndef BPFTUNE_NET_BUFFER_POLICY_H
#define BPFTUNE_NET_BUFFER_POLICY_H

#include <stdbool.h>
#include <stdint.h>
#include <bpftune/grow.h>

enum net_buffer_tunable {
	NB_MAX_BACKLOG,
	NB_FLOW_LIMIT,
	NB_BUDGET,
	NB_BUDGET_USECS,
	NB_HIGH_ORDER_OFF,
	NB_NUM_TUNABLES,
};

#define NB_BACKLOG_CAP		32768
#define NB_BUDGET_MIN		8
#define NB_BUDGET_CAP		3000
#define NB_USECS_MIN		100
#define NB_USECS_CAP		20000
#define NB_MAX_CPUS		64
#define NB_SHRINK_QUIET_MS	(30 * 1000ULL)

enum nb_verdict {
	NBV_RAISE,		/* *want is the new value */
	NBV_AT_CAP,
	NBV_NO_DROP,		/* softnet_stat counted no backlog drop */
	NBV_CHANGED,		/* the limits moved since the event */
	NBV_NO_SQUEEZE,		/* softnet_stat counted no squeeze */
	NBV_HELD,		/* the wait guard holds it */
	NBV_ONE_POLL,		/* one NAPI poll outlasted the time limit */
	NBV_STEP_BACK,		/* the wait guard tripped */
	NBV_ENABLE,		/* high-order allocations back on */
	NBV_LOWMEM,		/* not while TCP memory is under pressure */
	NBV_SET,		/* flow limiting on for more CPUs */
	NBV_SHRINK,		/* quiet: *want is one step back */
	NBV_DONE,		/* nothing (more) to do: forget it */
};

/* what bpftune_decide_values() records for @v */
const char *nb_verdict_action(enum nb_verdict v);

/*
 * Backlog drops per CPU now (@now) and at the last look (@before), @n
 * CPUs: how many since, and in *mask the CPUs that dropped (CPU i: bit i,
 * for i < NB_MAX_CPUS).  A counter that went back counts none.
 */
uint64_t nb_backlog_drops(const uint64_t *now, const uint64_t *before,
			  unsigned int n, uint64_t *mask);

/*
 * @drops backlog drops since the last look, netdev_max_backlog being
 * @cur: NBV_NO_DROP, NBV_AT_CAP, or NBV_RAISE with *want one step up
 * (else 0).
 */
enum nb_verdict nb_backlog_decide(uint64_t drops, long cur, unsigned int rate,
				  long *want);

/*
 * The CPUs of @mask dropped packets, flow_limit_cpu_bitmap being @flow
 * and @present the CPUs present: NBV_SET with *want the bitmap with
 * theirs added, or NBV_DONE when they all have it already.
 */
enum nb_verdict nb_flow_limit_decide(long flow, uint64_t mask, long present,
				     long *want);

/* A receive round squeezed: what the event saw, what is in force now. */
struct nb_squeeze_in {
	unsigned int tunable;	/* NB_BUDGET or NB_BUDGET_USECS */
	long ev_budget;		/* the limits the BPF side compared against */
	long ev_usecs;
	long budget;		/* netdev_budget now */
	long usecs;		/* netdev_budget_usecs now */
	uint64_t squeezes;	/* time_squeeze counted since the last look */
	uint32_t polls;		/* NAPI polls in the round */
	uint64_t round_ns;	/* how long it ran */
	uint64_t now_ms;
	uint64_t hold_until_ms;	/* raises refused until then */
	unsigned int rate;
};

/*
 * Raise @in->tunable?  NBV_CHANGED, NBV_NO_SQUEEZE, NBV_HELD, NBV_AT_CAP,
 * NBV_ONE_POLL (time limit only: the limit is checked between polls), or
 * NBV_RAISE with *want one step up (else 0).  The wait guard
 * (nb_wait_guard_trips()) has the last word on a raise.
 */
enum nb_verdict nb_squeeze_decide(const struct nb_squeeze_in *in, long *want);

/*
 * The CPU wait guard on @w, the wait rate seen at each value of @tunable:
 * trips when the wait rose with the value.  On a trip (true) @v has the
 * value to step back to (@raised_from when known: > 0) and the hold.
 */
bool nb_wait_guard_trips(const struct bpftune_corr *w, unsigned int tunable,
			 long cur, long raised_from, unsigned int trips,
			 unsigned int rate, struct bpftune_guard_verdict *v);

/*
 * high_order_alloc_disable is @off (@have_off: it was read) on a busy
 * receive path: NBV_ENABLE, NBV_LOWMEM while @tcp_pressure (tcp_buffer's
 * low-memory mode sets it on purpose then), or NBV_DONE when it is not
 * set (or unreadable): never to be looked at again.
 */
enum nb_verdict nb_high_order_decide(bool have_off, long off, bool tcp_pressure);

/* Is a value raised from @orig (< 0: not raised) due a shrink at @now_ms? */
bool nb_shrink_due(long orig, uint64_t now_ms, uint64_t need_ms);

/*
 * @tunable raised from @orig is @cur and quiet: NBV_SHRINK with *want one
 * step back toward @orig (the flow-limit bitmap: @orig at once), or
 * NBV_DONE when there is nothing to give back.
 */
enum nb_verdict nb_shrink_decide(unsigned int tunable, long cur, long orig,
				 unsigned int rate, long *want);

#endif
