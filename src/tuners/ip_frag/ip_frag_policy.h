/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ip_frag's decisions as pure functions: when a reassembly threshold
 * (ipfrag_high_thresh, ip6frag_high_thresh) grows, when the flood guard
 * steps it back and holds it, and when it shrinks.  No I/O and no library
 * state: ip_frag_tuner.c reads the sysctls, /proc/net/snmp{,6} and
 * sockstat{,6} in the event's netns, passes them in with the learning rate
 * and its per-netns bookkeeping, and writes what comes back.
 * Unit-tested in test/unit/test_ip_frag_policy.c.
 */
#ifndef BPFTUNE_IP_FRAG_POLICY_H
#define BPFTUNE_IP_FRAG_POLICY_H

#include <stdbool.h>
#include <stdint.h>
#include <bpftune/grow.h>

#define FRAG_CAP		(32L << 20)	/* 8 times the 4 MiB default */
#define FRAG_MIN		4096L
#define IPF_SHRINK_QUIET_MS	(30 * 1000ULL)

/* the flood guard: as net_buffer's wait guard, on the failure share */
#define IPF_GUARD_MIN_SAMPLES	4
#define IPF_GUARD_MIN_R		0.8
#define IPF_GUARD_MIN_RISE	0.5
#define IPF_GUARD_HOLD_MS	(60 * 1000ULL)
#define IPF_GUARD_HOLD_MAX_MS	(16 * IPF_GUARD_HOLD_MS)

enum ipf_verdict {
	IPF_RAISE,		/* near the threshold: *want is the new one */
	IPF_CHANGED,		/* the threshold moved since the event */
	IPF_HELD,		/* the flood guard holds it */
	IPF_AT_CAP,		/* at FRAG_CAP */
	IPF_STEP_BACK,		/* the flood guard tripped */
	IPF_SHRINK,		/* quiet: *want is one step back */
	IPF_IN_USE,		/* quiet, but the lower value would be near full */
	IPF_GIVEN_BACK,		/* nothing left to give back: forget the original */
};

/* what bpftune_decide_values() records for @v */
const char *ipf_verdict_action(enum ipf_verdict v);

/* reassembly counters of one family in one netns (/proc/net/snmp{,6}) */
struct ipf_counters {
	uint64_t reqds, oks, fails, timeouts;
};

/*
 * An event saw reassembly memory near @event_high; the threshold is @cur
 * now.  IPF_CHANGED: the event is stale.  Else IPF_RAISE: go on to
 * ipf_near_decide().
 */
enum ipf_verdict ipf_near_precheck(long cur, long event_high);

/*
 * Raise @cur at @now_ms, raises being refused until @hold_until_ms?
 * IPF_HELD, IPF_AT_CAP, or IPF_RAISE with *want one step up (else 0).
 * The flood guard (ipf_flood_trips()) has the last word on a raise.
 */
enum ipf_verdict ipf_near_decide(long cur, uint64_t now_ms,
				 uint64_t hold_until_ms, unsigned int rate,
				 long *want);

/*
 * Reassembly failures per fragment between @base (the last raise) and
 * @now into *share.  False when no fragment came since: nothing to add to
 * the guard's window.  ReasmFails counts timed-out datagrams too.
 */
bool ipf_fail_share(const struct ipf_counters *base,
		    const struct ipf_counters *now, double *share);

/*
 * The flood guard on @w, the failure share seen at each threshold: trips
 * when failures rose with the threshold.  On a trip (true) @v has the
 * value to step back to (@raised_from, the value before the last raise,
 * when known: > 0) and the hold, doubled per earlier trip (@trips).
 */
bool ipf_flood_trips(const struct bpftune_corr *w, long cur, long raised_from,
		     unsigned int trips, unsigned int rate,
		     struct bpftune_guard_verdict *v);

/* Is a threshold grown from @orig (-1: not grown) due a shrink at @now_ms? */
bool ipf_shrink_due(long orig, uint64_t now_ms, uint64_t need_ms);

struct ipf_shrink_in {
	long cur;		/* the threshold now */
	long orig;		/* before our first raise */
	long low;		/* the low threshold */
	bool have_low;		/* @low was read */
	long mem;		/* bytes reassembly holds; < 0 unknown */
	unsigned int rate;	/* learning rate */
};

/*
 * A quiet threshold: one step back toward @orig, never below the low
 * threshold, into *want.  IPF_GIVEN_BACK when that is no step at all,
 * IPF_IN_USE when what reassembly holds (or an unknown amount) would be
 * within a step of the lower value, else IPF_SHRINK.
 */
enum ipf_verdict ipf_shrink_decide(const struct ipf_shrink_in *in, long *want);

#endif
