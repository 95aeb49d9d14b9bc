// SPDX-License-Identifier: GPL-2.0-only
/*
 * Capabilities: after start-up the daemon keeps only the capabilities it
 * needs in its permitted set and none in its effective set; privileged
 * calls are bracketed by bpftune_cap_raise()/bpftune_cap_lower().
 */
#include <errno.h>
#include <string.h>
#include <sys/capability.h>

#include "base/base.h"

/*
 * BPF + PERFMON: load programs and read kernel memory; NET_ADMIN: attach
 * cgroup programs and write net sysctls; SYS_ADMIN: setns() and the BPF
 * operations older kernels still gate on it; SYS_PTRACE: open
 * /proc/PID/ns/net of other users' tasks.
 */
static const cap_value_t needed[] = {
	CAP_BPF, CAP_PERFMON, CAP_NET_ADMIN, CAP_SYS_ADMIN, CAP_SYS_PTRACE,
	CAP_SYS_RESOURCE, CAP_SYSLOG,
};
/*
 * The last two are kept when we have them, never required (containers
 * and sandboxes often drop them).  SYS_RESOURCE only raises
 * RLIMIT_MEMLOCK on kernels before 5.11, which charge BPF memory to it;
 * SYSLOG lets /proc/kallsyms show addresses (netns tracking with
 * tracepoints only looks up cleanup_net() there).
 */
#define NUM_REQUIRED (BPFTUNE_ARRAY_SIZE(needed) - 2)

static cap_value_t kept[BPFTUNE_ARRAY_SIZE(needed)];
static int num_kept;
/*
 * Capabilities are per thread (cap_set_proc() sets the caller's): each
 * thread raises and lowers its own, the telemetry writer to enter a netns.
 */
static __thread int raised;
static bool managed;
/*
 * The two states a thread switches between, made once: permitted the
 * kept set, effective none or all of it, inheritable none.  A raise or
 * a lower is then one capset() instead of a capget() and a capset():
 * the daemon raises around every setns() and netns open, which at 1,000
 * namespaces happens for nearly every event (bench/netns_scale.sh).
 */
static cap_t lowered, raised_caps;

static cap_t state_of(cap_flag_value_t effective)
{
	cap_t caps = cap_init();

	if (!caps)
		return NULL;
	if (cap_set_flag(caps, CAP_PERMITTED, num_kept, kept, CAP_SET) ||
	    (effective == CAP_SET &&
	     cap_set_flag(caps, CAP_EFFECTIVE, num_kept, kept, CAP_SET))) {
		cap_free(caps);
		return NULL;
	}
	return caps;
}

static int set_effective(cap_flag_value_t v)
{
	return cap_set_proc(v == CAP_SET ? raised_caps : lowered) ? -errno : 0;
}

int bpftune_cap_init(void)
{
	cap_flag_value_t have;
	cap_t caps;
	size_t i;
	int ret = 0;

	caps = cap_get_proc();
	if (!caps)
		return -errno;
	for (i = 0; i < BPFTUNE_ARRAY_SIZE(needed); i++) {
		/* CAP_BPF/PERFMON may be unknown to an old kernel: skip those */
		if (!CAP_IS_SUPPORTED(needed[i]))
			continue;
		if (cap_get_flag(caps, needed[i], CAP_PERMITTED, &have))
			have = CAP_CLEAR;
		if (have == CAP_SET)
			kept[num_kept++] = needed[i];
		else if (i < NUM_REQUIRED) {
			char *name = cap_to_name(needed[i]);

			bpftune_log(LOG_ERR, "missing capability %s: run bpftune as root",
				    name ? name : "?");
			cap_free(name);
			ret = -EPERM;
		}
	}
	if (ret)
		goto out;
	cap_free(lowered);
	cap_free(raised_caps);
	lowered = state_of(CAP_CLEAR);
	raised_caps = state_of(CAP_SET);
	if (!lowered || !raised_caps) {
		ret = -ENOMEM;
		goto out;
	}
	if (cap_set_proc(lowered)) {
		ret = -errno;
		bpftune_log(LOG_ERR, "could not drop capabilities: %s",
			    strerror(errno));
		goto out;
	}
	managed = true;
out:
	cap_free(caps);
	return ret;
}

void bpftune_cap_raise(void)
{
	if (!managed || raised++)
		return;
	if (set_effective(CAP_SET))
		bpftune_log(LOG_WARNING, "could not raise capabilities: %s",
			    strerror(errno));
}

void bpftune_cap_lower(void)
{
	if (!managed || !raised || --raised)
		return;
	set_effective(CAP_CLEAR);
}
