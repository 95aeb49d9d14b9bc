#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# bats file_tags=kernel
# tcp_conn's model strategy: a learned tree ([strategy tcp_conn] model =
# PATH, or --strategy tcp_conn.model=PATH) walked by the sockops program
# for each new connection, the hand rule when it cannot be used, SIGHUP
# swapping it, and bpftune-telemetry learn writing one the daemon takes.
# Two namespaces (md...) joined by a veth pair; the clients run in the
# test's own cgroup (-c), so no other connection is touched.

load helpers
load telemetry_helpers

TOOL="$REPO/tools/bpftune-telemetry"

setup() {
	make_plugin_dir tcp_conn netns
	CG="$(make_cgroup)" || skip "no cgroup2 hierarchy"
	SAVED_ALLOWED=
	SAVED_STATS=
}

teardown() {
	common_teardown
	if [ -n "$SAVED_ALLOWED" ]; then
		sysctl -qw net.ipv4.tcp_allowed_congestion_control="$SAVED_ALLOWED"
	fi
	if [ -n "$SAVED_STATS" ]; then
		sysctl -qw kernel.bpf_stats_enabled="$SAVED_STATS"
	fi
}

make_md_netns() {
	local ns="md$$-${#NETNS_LIST[@]}-$RANDOM"
	ip netns add "$ns"
	ip -n "$ns" link set lo up
	echo "$ns" >> "$BATS_TEST_TMPDIR/.bt-netns"
	echo "$ns"
}

# $CLI (10.79.1.1) and $SRV (10.79.1.2) joined by a veth pair
make_pair() {
	CLI="$(make_md_netns)"
	SRV="$(make_md_netns)"
	ip link add mdc netns "$CLI" type veth peer name mds netns "$SRV"
	ip -n "$CLI" addr add 10.79.1.1/24 dev mdc
	ip -n "$SRV" addr add 10.79.1.2/24 dev mds
	ip -n "$CLI" link set mdc up
	ip -n "$SRV" link set mds up
}

# the client netns' default congestion control: reno, which neither the
# hand rule (before 8 connections) nor a model ever picks
default_reno() {
	local allowed
	allowed="$(cat /proc/sys/net/ipv4/tcp_allowed_congestion_control)"
	if ! grep -qw reno <<<"$allowed"; then
		SAVED_ALLOWED="$allowed"
		sysctl -qw net.ipv4.tcp_allowed_congestion_control="$allowed reno"
	fi
	ip netns exec "$CLI" sysctl -qw net.ipv4.tcp_congestion_control=reno
}

# write_model FILE CC: a model file whose tree is one leaf, CC, over
# features ranging over every value
write_model() {
	PYTHONPATH="$REPO/tools" python3 -c '
import sys
from bpftune_telemetry.learn import fnv1a64, FEATURES
text = "bpftune-model 1\npolicy tcp_conn cc\nfeatures %d %s\n" % (len(FEATURES), " ".join(FEATURES))
text += "".join("range %s 0 18446744073709551615\n" % f for f in FEATURES)
text += "nodes 1\nnode 0 -1 0 -1 -1 %s\n" % sys.argv[2]
open(sys.argv[1], "w").write(text + "checksum fnv1a64 %016x\n" % fnv1a64(text.encode()))
' "$1" "$2"
}

# a config file naming model $1
write_config() {
	CONF="$BATS_TEST_TMPDIR/bpftune.conf"
	printf '[strategy tcp_conn]\nmodel = %s\n' "$1" > "$CONF"
	chmod 0644 "$CONF"
}

SERVER_PY='
import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("10.79.1.2", 7979)); s.listen(64)
held = []
while True:
    c, _ = s.accept()
    held.append(c)
'
# N connections, held open until killed
CLIENT_PY='
import socket, sys, time
held = [socket.create_connection(("10.79.1.2", 7979)) for i in range(int(sys.argv[1]))]
time.sleep(3600)
'

start_server() {
	ip netns exec "$SRV" python3 -c "$SERVER_PY" >/dev/null 2>&1 </dev/null &
	wait_listen "$SRV" 7979
}

# connect N times from the test cgroup, in the background (CLIENT_PID)
start_clients() {
	in_cgroup "$CG" ip netns exec "$CLI" python3 -c "$CLIENT_PY" "$1" \
		>/dev/null 2>&1 </dev/null &
	CLIENT_PID=$!
}

# the algorithms of the client's established connections to the server,
# once there are N of them
ccs_of() {
	local n="$1" i out
	for i in $(seq 1 300); do
		out="$(ip netns exec "$CLI" ss -tin state established dst 10.79.1.2 |
			grep -oE '^[[:space:]]+(cubic|bbr|reno|htcp|dctcp) ' | tr -d ' \t')"
		[ "$(grep -c . <<<"$out")" -ge "$n" ] && break
		sleep 0.1
	done
	echo "$out"
}

# connect N times; CCS: their algorithms
connect_ccs() {
	start_clients "$1"
	CCS="$(ccs_of "$1")"
}

need_bbr() {
	grep -q "tcp_conn: choosing among .* bbr[ ;]" "$LOG" ||
		skip "bbr is not available on this kernel"
}

# bats test_tags=hooks
@test "a model that always picks bbr puts new connections on bbr" {
	make_pair
	default_reno
	write_model "$BATS_TEST_TMPDIR/bbr.model" bbr
	write_config "$BATS_TEST_TMPDIR/bbr.model"
	SAVED_STATS="$(sysctl -n kernel.bpf_stats_enabled)"
	sysctl -qw kernel.bpf_stats_enabled=1
	start_daemon -c "$CG" --config "$CONF"
	need_bbr
	wait_for_log "tcp_conn: model $BATS_TEST_TMPDIR/bbr.model loaded \(checksum [0-9a-f]{16}\): a tree of 1 nodes, depth 0"
	start_server
	connect_ccs 4
	echo "# client connections: $(echo $CCS)" >&3
	[ "$(grep -cx bbr <<<"$CCS")" -eq 4 ]
	# the whole sockops program per run, with the model (kernel stats)
	local prog
	prog="$(bpftool prog show name conn_sockops -j 2>/dev/null)" || true
	if [ -n "$prog" ]; then
		python3 -c '
import json, sys
for p in json.loads(sys.argv[1]) if sys.argv[1].startswith("[") else [json.loads(sys.argv[1])]:
    if p.get("run_cnt"):
        print("# conn_sockops: %d runs, %.0f ns per run (bpf_stats)" % (p["run_cnt"], p["run_time_ns"] / p["run_cnt"]))
' "$prog" >&3 || true
	fi
	kill "$CLIENT_PID"
}

@test "a damaged model leaves the hand rule in force, said in one log line" {
	make_pair
	default_reno
	write_model "$BATS_TEST_TMPDIR/bbr.model" bbr
	sed -i 's/^node 0 -1 0 -1 -1 bbr/node 0 -1 0 -1 -1 cubic/' "$BATS_TEST_TMPDIR/bbr.model"
	start_daemon -c "$CG" --strategy "tcp_conn.model=$BATS_TEST_TMPDIR/bbr.model"
	need_bbr
	wait_for_log "tcp_conn: model $BATS_TEST_TMPDIR/bbr.model: line [0-9]+: checksum mismatch"
	[ "$(grep -c "tcp_conn: model " "$LOG")" -eq 1 ]
	grep -q "checksum mismatch.*: the hand rule decides" "$LOG"
	start_server
	connect_ccs 3
	echo "# client connections: $(echo $CCS)" >&3
	# the hand rule leaves the first connections to the netns default
	[ "$(grep -cx reno <<<"$CCS")" -eq 3 ]
	# a missing file, the same way
	stop_daemon
	start_daemon -c "$CG" --strategy "tcp_conn.model=$BATS_TEST_TMPDIR/none.model"
	wait_for_log "tcp_conn: model $BATS_TEST_TMPDIR/none.model: cannot open it: No such file or directory: the hand rule decides"
	[ "$(grep -c "tcp_conn: model " "$LOG")" -eq 1 ]
	# a sound model anyone may have written, the same way (as a config file)
	stop_daemon
	write_model "$BATS_TEST_TMPDIR/open.model" bbr
	chmod 0666 "$BATS_TEST_TMPDIR/open.model"
	start_daemon -c "$CG" --strategy "tcp_conn.model=$BATS_TEST_TMPDIR/open.model"
	wait_for_log "tcp_conn: model $BATS_TEST_TMPDIR/open.model: refused: must be owned by root and writable by root only: the hand rule decides"
}

@test "SIGHUP swaps the model" {
	make_pair
	default_reno
	write_model "$BATS_TEST_TMPDIR/bbr.model" bbr
	write_model "$BATS_TEST_TMPDIR/cubic.model" cubic
	write_config "$BATS_TEST_TMPDIR/bbr.model"
	start_daemon -c "$CG" --config "$CONF"
	need_bbr
	wait_for_log "tcp_conn: model $BATS_TEST_TMPDIR/bbr.model loaded"
	start_server
	connect_ccs 2
	[ "$(grep -cx bbr <<<"$CCS")" -eq 2 ]
	kill "$CLIENT_PID"
	write_config "$BATS_TEST_TMPDIR/cubic.model"
	kill -HUP "$DAEMON_PID"
	wait_for_log "tcp_conn: model $BATS_TEST_TMPDIR/cubic.model loaded"
	"$BPFTUNE" --socket "$CTL_SOCK" -q config | grep -A1 -Fx "[strategy tcp_conn]" |
		grep -E "model = $BATS_TEST_TMPDIR/cubic.model +; $CONF:2"
	# the old model's account comes first
	grep -qE "tcp_conn: model $BATS_TEST_TMPDIR/bbr.model: [0-9]+ connections evaluated" "$LOG"
}

@test "learn on fixture runs writes a model file the daemon runs" {
	local fx="$BATS_TEST_TMPDIR/runs" model="$BATS_TEST_TMPDIR/learned.model"
	"$BUILD/bin/telemetry-schema" --sql > "$BATS_TEST_TMPDIR/ddl.sql"
	python3 "$REPO/test/learn_fixture.py" "$BATS_TEST_TMPDIR/ddl.sql" "$fx" 1 cubic,bbr
	run "$TOOL" learn --out "$model" "$fx"
	echo "$output" >&3
	[ "$status" -eq 0 ]
	[[ "$output" == *"learn: 180 rows, 180 labelled (12 destinations, 3 runs, categories: lan longrtt lossy)"* ]]
	# one line per held-out category
	grep -qE "^lan +60 +4 " <<<"$output"
	grep -qE "^lossy +60 +4 " <<<"$output"
	head -3 "$model" | grep -qx "bpftune-model 1"
	grep -qE "^checksum fnv1a64 [0-9a-f]{16}$" "$model"
	# bad input: a clear error, no model
	run "$TOOL" learn --out "$BATS_TEST_TMPDIR/x.model" --depth 12 "$fx"
	[ "$status" -eq 1 ]
	[[ "$output" == *"--depth takes 1 to 8"* ]]
	run "$TOOL" learn --out "$BATS_TEST_TMPDIR/x.model" "$BATS_TEST_TMPDIR/ddl.sql"
	[ "$status" -eq 1 ]
	[ ! -e "$BATS_TEST_TMPDIR/x.model" ]
	start_daemon -c "$CG" --strategy "tcp_conn.model=$model"
	need_bbr
	wait_for_log "tcp_conn: model $model loaded \(checksum [0-9a-f]{16}\): a tree of [0-9]+ nodes, depth [0-9], over hist srtt_us min_rtt_us retrans_pm rate"
}
