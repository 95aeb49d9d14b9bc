// SPDX-License-Identifier: GPL-2.0-only
/*
 * Admin-override detection (core): report every sysctl write made by a
 * task other than the daemon.  The userspace side decides whether it
 * touches a tunable some tuner manages.  cgroup/sysctl works in every
 * mode (it needs no function hook).
 */
#include <bpftune/bpftune.bpf.h>
#include "admin_override.h"

SEC("cgroup/sysctl")
int sysctl_write(struct bpf_sysctl *ctx)
{
	struct bpftune_sysctl_write *w;
	struct bpftune_event *ev;

	if (!ctx->write || bpftune_from_daemon())
		return 1;
	ev = bpftune_event_reserve(ADMIN_SCENARIO_WRITE,
				   bpftune_current_netns_cookie());
	if (!ev)
		return 1;
	w = (struct bpftune_sysctl_write *)ev->payload;
	if (bpf_sysctl_get_name(ctx, w->name, sizeof(w->name), 0) < 0)
		w->name[0] = '\0';
	if (bpf_sysctl_get_new_value(ctx, w->value, sizeof(w->value)) < 0)
		w->value[0] = '\0';
	ev->payload_len = sizeof(*w);
	bpftune_event_submit(ev);
	return 1;	/* never block the write: the admin wins */
}
