/* SPDX-License-Identifier: GPL-2.0-only */
/* sysctl tuner: spots writes by anyone but the daemon to managed sysctls. */
#ifndef BPFTUNE_SYSCTL_TUNER_H
#define BPFTUNE_SYSCTL_TUNER_H

enum sysctl_tuner_scenario {
	SYSCTL_SCENARIO_ADMIN_WRITE,
};

#endif
