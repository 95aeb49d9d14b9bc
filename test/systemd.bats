#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# The installed systemd unit.

load helpers

@test "the installed unit passes systemd-analyze verify" {
	command -v systemd-analyze >/dev/null || skip "systemd-analyze not installed"
	local unit="$SUITE_PREFIX/lib/systemd/system/bpftune.service"
	[ -f "$unit" ]
	grep -q "^ExecStart=$SUITE_PREFIX/sbin/bpftune$" "$unit"
	# Documentation=man:...: the pages make install put in the prefix
	run env MANPATH="$SUITE_PREFIX/share/man" systemd-analyze verify "$unit"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "the unit matches the daemon: notify type, after systemd-sysctl, restart on failure" {
	local unit="$REPO/systemd/bpftune.service"
	grep -q '^Type=notify$' "$unit"
	grep -q '^After=.*systemd-sysctl.service' "$unit"
	grep -q '^Restart=on-failure$' "$unit"
	# hardening must not take away what the daemon needs
	! grep -q '^ProtectKernelTunables=yes' "$unit"
	! grep -q '^PrivateNetwork=yes' "$unit"
	grep -q '^CapabilityBoundingSet=.*CAP_BPF.*CAP_PERFMON.*CAP_NET_ADMIN.*CAP_SYS_ADMIN' "$unit"
	grep -q '^RestrictNamespaces=net$' "$unit"
	# reload: the policy is checked, then applied by SIGHUP
	grep -q '^ExecReload=@SBINDIR@/bpftune --check-config$' "$unit"
	grep -q '^ExecReload=/bin/kill -HUP $MAINPID$' "$unit"
	grep -q '^SystemCallFilter=@system-service bpf perf_event_open setns$' "$unit"
	# the daemon does tell systemd it is ready
	grep -q 'sd_notify(0, "READY=1")' "$REPO/src/bpftune.c"
}
