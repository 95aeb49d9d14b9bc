// SPDX-License-Identifier: GPL-2.0-only
/*
 * The daemon's gates asleep (gate_nap.h).  A sleep costs an arm and a
 * disarm of the alarm (kernel text patched twice); staying awake costs the
 * gates' checks.  The gates stay awake after they were last busy until
 * their checks have cost what a sleep costs (bpftune_gate_awake_ms()),
 * so that sleeping never costs more than staying awake would.
 */
#include <string.h>

#include "base/base.h"
#include "core/gate_nap.h"
#include "core/gate_step.h"
#include "core/loop.h"

static struct {
	bool asleep;
	bool failed;			/* the alarm cannot be armed: said once */
	uint64_t busy_ms;		/* the last alarm, start or pressure */
	uint64_t since_ms;		/* asleep since */
	uint64_t asleep_ms;		/* past sleeps */
	uint64_t sleeps;
	unsigned int short_sleeps;	/* in a row (gate_step.h) */
	uint64_t arm_us;		/* what arming cost this sleep */
	struct bpftune_gate_cost cost;	/* an arm + disarm */
	uint64_t estimate_us;		/* the same, until one is measured */
	uint64_t checks_us;		/* the awake gates' checks */
	uint64_t awake_ms;		/* past awake periods */
	uint64_t awake_from_ms;		/* this one's start */
} nap;

static void failed(const char *tps, int err)
{
	nap.failed = true;
	bpftune_log(LOG_WARNING, "gates: cannot sleep%s%s: %s; they are looked at every check",
		    tps ? " on " : "", tps ? tps : "", strerror(-err));
}

void bpftune_gate_nap_prepare(void)
{
	int err;

	if (nap.failed)
		return;
	err = bpftune_gate_wake_load();
	if (err)
		failed(NULL, err);
}

void bpftune_gate_nap_fini(void)
{
	bpftune_gate_wake_fini();
	nap.asleep = false;
}

void bpftune_gate_nap_busy(uint64_t now)
{
	nap.busy_ms = now;
	if (!nap.awake_from_ms)
		nap.awake_from_ms = now;
}

void bpftune_gate_nap_checked(uint64_t us)
{
	nap.checks_us += us;
}

bool bpftune_gate_nap_asleep(void)
{
	return nap.asleep;
}

void bpftune_gate_nap_estimate(uint64_t cycle_us)
{
	nap.estimate_us = cycle_us;
}

static uint64_t awake_ms(uint64_t now)
{
	uint64_t cycle_us = nap.cost.samples ? nap.cost.cycle_us : nap.estimate_us;
	uint64_t awake = nap.awake_ms + (nap.asleep ? 0 : now - nap.awake_from_ms);

	return bpftune_gate_awake_ms(cycle_us, nap.checks_us, awake, nap.short_sleeps);
}

bool bpftune_gate_nap_wake(uint64_t now)
{
	uint64_t start, slept, cycle_us;

	bpftune_gate_nap_busy(now);
	if (!nap.asleep)
		return false;
	/* the clock is read only for a sleep that ends: never per gate set */
	start = bpftune_thread_cpu_us();
	slept = now - nap.since_ms;
	bpftune_gate_wake_disarm();
	cycle_us = nap.arm_us + bpftune_thread_cpu_us() - start;
	bpftune_gate_cost_add(&nap.cost, cycle_us);
	nap.asleep = false;
	nap.asleep_ms += slept;
	nap.awake_from_ms = now;
	nap.short_sleeps = bpftune_gate_short_sleeps(nap.short_sleeps, slept);
	bpftune_log(LOG_DEBUG, "gates: awake after %llu ms asleep (arm + disarm %llu us); may sleep again after %llu ms calm",
		    (unsigned long long)slept, (unsigned long long)cycle_us,
		    (unsigned long long)awake_ms(now));
	return true;
}

bool bpftune_gate_nap_due(uint64_t now)
{
	return !nap.asleep && !nap.failed && now >= nap.busy_ms + awake_ms(now);
}

int bpftune_gate_nap_sleep(uint64_t now, const char *tps, bpftune_gate_wake_fn fn)
{
	uint64_t start = bpftune_thread_cpu_us();
	int err;

	err = bpftune_gate_wake_arm(tps, fn);
	nap.arm_us = bpftune_thread_cpu_us() - start;
	if (err) {
		failed(tps, err);
		return err;
	}
	nap.asleep = true;
	nap.since_ms = now;
	nap.sleeps++;
	nap.awake_ms += now - nap.awake_from_ms;
	bpftune_log(LOG_DEBUG, "gates: asleep until %s fires (arming took %llu us; awake %llu ms, the checks took %llu us)",
		    tps, (unsigned long long)nap.arm_us, (unsigned long long)nap.awake_ms,
		    (unsigned long long)nap.checks_us);
	return 0;
}

void bpftune_gate_nap_info(struct bpftune_gate_nap_info *info, uint64_t now)
{
	*info = (struct bpftune_gate_nap_info){
		.asleep = nap.asleep,
		.sleeps = nap.sleeps,
		.asleep_ms = nap.asleep_ms + (nap.asleep ? now - nap.since_ms : 0),
		.sleep_after_ms = awake_ms(now),
	};
}
