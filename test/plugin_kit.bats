#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# bats file_tags=kernel
# The plugin kit's contract with the daemon: plugins built for another ABI
# are refused, events that do not carry what their scenario declares are
# refused and counted, collectors are plugins of their own kind, and the
# admin-override guarantee needs a cgroup2 hierarchy (-c).

load helpers

setup() {
	SOCK="$BATS_TEST_TMPDIR/bpftune.sock"
}

teardown() {
	common_teardown
	[ -n "${CG_DIR:-}" ] && { umount "$CG_DIR" 2>/dev/null; rm -rf "$CG_DIR"; }
	CG_DIR=
}

bq() {
	"$BPFTUNE" --socket "$SOCK" -q "$@"
}

# getpgid() of a "pid" no task has: the payload fixture's trigger
trigger() {
	python3 -c "import os
try:
    os.getpgid($1)
except OSError:
    pass"
}

@test "a plugin built for plugin ABI 1 is refused, naming both versions; the daemon runs on" {
	make_plugin_dir old_abi sample
	local abi
	abi="$(awk '$2 == "BPFTUNE_ABI_VERSION" { print $3 }' "$REPO/include/bpftune/bpftune.h")"
	[ -n "$abi" ]
	start_daemon --socket "$SOCK"
	grep -q "plugin $PLUGIN_DIR/old_abi_tuner.so refused: built for plugin ABI 1, but this daemon speaks plugin ABI $abi: rebuild it" "$LOG"
	grep -q "tuner sample started" "$LOG"
	! grep -q "old_abi: an ABI 1 handler was called" "$LOG"
	kill -0 "$DAEMON_PID"
	bq tuners | grep -q "^sample: active"
	run "$BPFTUNE" -S $(mode_flags) -l "$PLUGIN_DIR" --collectors listen
	[[ "$output" == *"old_abi_tuner.so"*"skipped: plugin refused"* ]]
}

@test "an event shorter than its scenario's payload is refused and counted; the daemon runs on" {
	local i
	make_plugin_dir payload
	start_daemon --socket "$SOCK"
	for i in 1 2 3; do
		trigger 1999998002
	done
	trigger 1999998003
	trigger 1999998001
	wait_for_log "payload: event of 16 bytes, well-formed"
	# the handler never saw the short ones, nor the undeclared scenario
	[ "$(grep -cE "payload: event of [0-9]+ bytes" "$LOG")" -eq 1 ]
	! grep -q CORRUPT "$LOG"
	# said once per tuner and scenario, however many come
	[ "$(grep -c "tuner payload: event of scenario 0 refused: 'pair' declares a payload of 16 bytes, the event carries 4" "$LOG")" -eq 1 ]
	grep -q "tuner payload: event of scenario 7 refused: the plugin declares 1 scenario" "$LOG"
	run bq status
	[ "$status" -eq 0 ]
	[[ "$output" == *"events refused for 'pair': 3"* ]]
	[[ "$output" == *"events refused for '(unknown scenario)': 1"* ]]
	bq status --json | python3 -c '
import json, sys
t = [t for t in json.load(sys.stdin)["tuners"] if t["name"] == "payload"][0]
r = {x["scenario"]: x["count"] for x in t["events_rejected"]}
assert r == {"pair": 3, "(unknown scenario)": 1}, r
'
	bq metrics | grep -qx 'bpftune_events_rejected_total{tuner="payload",scenario="pair"} 3'
	kill -0 "$DAEMON_PID"
}

@test "a collector is a plugin of its own kind: -S, -q tuners and the log say so" {
	make_plugin_dir listen sample
	start_daemon --socket "$SOCK" --collectors listen
	grep -q "collector listen started" "$LOG"
	listen_backlog - 64
	wait_for_log "listen collector: pid [0-9]+ called listen\(\) with backlog 64"
	run bq tuners
	[[ "$output" == *"  collector: test fixture: a collector of listen() calls"* ]]
	[[ "$output" == *"  tuner: raises somaxconn"* ]]
	[[ "$output" == *"admin_override: active, "*"core mechanism, always on"* ]]
	bq tuners --json | python3 -c '
import json, sys
k = {t["name"]: t["kind"] for t in json.load(sys.stdin)["tuners"]}
assert k["listen"] == "collector" and k["sample"] == "tuner", k
assert k["admin_override"] == "core" and k["netns"] == "core", k
'
	run "$BPFTUNE" -S $(mode_flags) -l "$PLUGIN_DIR" --collectors listen
	[[ "$output" =~ listen\ +will\ run\ \(collector\) ]]
}

@test "-c with a plain empty directory: cgroup2 is mounted there, the admin still wins, and it is unmounted at exit" {
	local ns
	CG_DIR="$(mktemp -d /run/bpftune-cg.XXXXXX)"
	ns="$(make_netns)"
	ip netns exec "$ns" sysctl -qw net.core.somaxconn=128
	make_plugin_dir sample
	start_daemon -c "$CG_DIR"
	grep -q "cgroup2 mounted on $CG_DIR for the daemon's cgroup programs" "$LOG"
	[ "$(stat -f -c %T "$CG_DIR")" = cgroup2fs ]
	grep -q "core admin_override started" "$LOG"
	ip netns exec "$ns" sysctl -qw net.core.somaxconn=256
	wait_for_log "tuner sample stopped in netns $ns"
	stop_daemon
	[ "$DAEMON_STATUS" -eq 0 ]
	grep -q "cgroup2 on $CG_DIR unmounted" "$LOG"
	[ "$(stat -f -c %T "$CG_DIR")" != cgroup2fs ]
}

@test "-c with a directory that cannot hold cgroup2: the daemon refuses to start, and says why" {
	CG_DIR="$(mktemp -d /run/bpftune-cg.XXXXXX)"
	echo keep > "$CG_DIR/a-file"
	make_plugin_dir sample
	run "$BPFTUNE" -s -l "$PLUGIN_DIR" --no-telemetry -c "$CG_DIR"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"-c $CG_DIR is neither a cgroup2 directory nor an empty directory to mount cgroup2 on; admin-override detection needs a cgroup2 hierarchy: not starting"* ]]
	[[ "$output" != *"tuner sample started"* ]]
	[ -f "$CG_DIR/a-file" ]
	run "$BPFTUNE" -s -l "$PLUGIN_DIR" --no-telemetry -c /nonexistent/cgroup
	[ "$status" -eq 1 ]
	[[ "$output" == *"-c /nonexistent/cgroup: No such file or directory"* ]]
}
