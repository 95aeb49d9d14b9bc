#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# The installed systemd unit.

load helpers

teardown() {
	[ -n "${NOTIFY_PID:-}" ] && kill "$NOTIFY_PID" 2>/dev/null
	NOTIFY_PID=
	common_teardown
}

@test "the installed unit passes systemd-analyze verify" {
	command -v systemd-analyze >/dev/null || skip "systemd-analyze not installed"
	local unit="$SUITE_PREFIX/lib/systemd/system/bpftune.service"
	[ -f "$unit" ]
	grep -q "^ExecStart=$SUITE_PREFIX/sbin/bpftune$" "$unit"
	# Documentation=man:...: the pages make install put in the prefix
	[ -f "$SUITE_PREFIX/share/man/man8/bpftune.8" ]
	# (--man=no: the page is checked above; man-db looking it up from a
	# 0700 temporary prefix failed once with code 16 on a busy host)
	run systemd-analyze verify --man=no "$unit"
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
	# reload: the config is checked, then applied by SIGHUP
	grep -q '^ExecReload=@SBINDIR@/bpftune --check-config$' "$unit"
	grep -q '^ExecReload=/bin/kill -HUP $MAINPID$' "$unit"
	grep -q '^SystemCallFilter=@system-service bpf perf_event_open setns$' "$unit"
}

# notify_seen N MSG: until the socket has received MSG N times
notify_seen() {
	local i
	for i in $(seq 1 300); do
		[ "$(grep -cx "$2" "$BATS_TEST_TMPDIR/notify.txt")" -ge "$1" ] && return 0
		sleep 0.1
	done
	cat "$BATS_TEST_TMPDIR/notify.txt" >&3
	return 1
}

@test "Type=notify: the daemon tells \$NOTIFY_SOCKET it is ready, reloading on SIGHUP, and stopping" {
	local sock="$BATS_TEST_TMPDIR/notify" got="$BATS_TEST_TMPDIR/notify.txt" pid
	make_plugin_dir sample
	# systemd's end of the protocol: a datagram socket, one message each,
	# with the sender's pid (NotifyAccess=main takes only the main PID's)
	python3 -c '
import socket, struct, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
s.bind(sys.argv[1])
with open(sys.argv[2], "w") as f, open(sys.argv[2] + ".pid", "w") as p:
    while True:
        msg, anc, _, _ = s.recvmsg(4096, socket.CMSG_SPACE(12))
        for level, kind, data in anc:
            if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS:
                p.write("%d\n" % struct.unpack("iII", data[:12])[0])
        p.flush()
        f.write(msg.decode() + "\n")
        f.flush()
' "$sock" "$got" &
	NOTIFY_PID=$!
	for _ in $(seq 1 100); do [ -S "$sock" ] && [ -e "$got" ] && break; sleep 0.1; done
	export NOTIFY_SOCKET="$sock"
	start_daemon --no-telemetry
	unset NOTIFY_SOCKET
	notify_seen 1 READY=1
	pid="$DAEMON_PID"
	kill -HUP "$DAEMON_PID"
	notify_seen 2 READY=1
	stop_daemon
	[ "$DAEMON_STATUS" -eq 0 ]
	notify_seen 1 STOPPING=1
	[ "$(tr '\n' ' ' <"$got")" = "READY=1 RELOADING=1 READY=1 STOPPING=1 " ]
	# each from the main PID, though sent by the event loop's thread
	[ "$(sort -u "$got.pid")" = "$pid" ]
}
