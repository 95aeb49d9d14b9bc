#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# bats file_tags=kernel
# The tcp_conn tuner: per-connection congestion control from sockops.
# Two namespaces joined by a veth pair; loss comes from a tc classifier
# (test/bpf/loss.bpf.c) dropping about 5 % of the data segments arriving
# at the server, since there is no netem here.  The daemon's sockops
# program is attached to a cgroup of the test's own (-c) and the clients
# run in it, so that no other test's connections are touched.

load helpers
load telemetry_helpers

setup() {
	command -v iperf3 >/dev/null || skip "iperf3 is not installed"
	LOSS_OBJ="$BUILD/test/bpf/loss.bpf.o"
	[ -f "$LOSS_OBJ" ] || {
		echo "missing $LOSS_OBJ: run make test (or make fixtures)" >&3
		return 1
	}
	make_plugin_dir tcp_conn netns
	CG="$(make_cgroup)" || skip "no cgroup2 hierarchy"
	SAVED_ALLOWED=
}

teardown() {
	local pid
	for pid in ${BG_PIDS:-}; do
		kill "$pid" 2>/dev/null || true
	done
	BG_PIDS=
	common_teardown
	if [ -n "$SAVED_ALLOWED" ]; then
		sysctl -qw net.ipv4.tcp_allowed_congestion_control="$SAVED_ALLOWED"
	fi
}

# $CLI (10.78.1.1) and $SRV (10.78.1.2) joined by a veth pair
make_pair() {
	CLI="$(make_netns)"
	SRV="$(make_netns)"
	ip link add tcc netns "$CLI" type veth peer name tcs netns "$SRV"
	ip -n "$CLI" addr add 10.78.1.1/24 dev tcc
	ip -n "$SRV" addr add 10.78.1.2/24 dev tcs
	ip -n "$CLI" link set tcc up
	ip -n "$SRV" link set tcs up
}

# Drop data on the way in to the server: the client's segments are lost
# on the path (a drop at the client's own egress is a local drop, which
# TCP sends again without counting a retransmission).
add_loss() {
	ip netns exec "$SRV" tc qdisc add dev tcs clsact
	ip netns exec "$SRV" tc filter add dev tcs ingress bpf direct-action \
		obj "$LOSS_OBJ" sec tc
}

# The default of a netns other than the first may only be an algorithm in
# the (global) allowed list: add it for the write, then put the list back.
set_default_cc() {
	local ns="$1" cc="$2" allowed
	allowed="$(cat /proc/sys/net/ipv4/tcp_allowed_congestion_control)"
	if ! grep -qw "$cc" <<<"$allowed"; then
		SAVED_ALLOWED="$allowed"
		sysctl -qw net.ipv4.tcp_allowed_congestion_control="$allowed $cc"
	fi
	ip netns exec "$ns" sysctl -qw net.ipv4.tcp_congestion_control="$cc"
	if [ -n "$SAVED_ALLOWED" ]; then
		sysctl -qw net.ipv4.tcp_allowed_congestion_control="$SAVED_ALLOWED"
		SAVED_ALLOWED=
	fi
}

need_cc() {
	grep -q "tcp_conn: choosing among .* $1[ ;]" "$LOG" ||
		skip "congestion control $1 is not available on this kernel"
}

# iperf3 from $CLI (in the test cgroup) to $SRV for $1 seconds, in the
# background; IPERF_OUT has the client's report
start_iperf() {
	ip netns exec "$SRV" iperf3 -s -1 >/dev/null 2>&1 &
	BG_PIDS="$BG_PIDS $!"
	wait_listen "$SRV" 5201
	IPERF_OUT="$BATS_TEST_TMPDIR/iperf.out"
	in_cgroup "$CG" ip netns exec "$CLI" iperf3 -c 10.78.1.2 -t "$1" \
		>"$IPERF_OUT" 2>&1 &
	IPERF_PID=$!
	BG_PIDS="$BG_PIDS $IPERF_PID"
}

# bytes acknowledged on the client's busiest connection to the server that
# runs congestion control $1 (0: none)
bytes_acked_on() {
	ip netns exec "$CLI" ss -tin dst 10.78.1.2 | awk -v cc="$1" '
		$1 == cc { for (i = 1; i <= NF; i++)
			if (sub(/^bytes_acked:/, "", $i) && $i + 0 > n) n = $i + 0 }
		END { print n + 0 }'
}

# congestion control of the client's connections to the server, as ss sees them
client_ccs() {
	ip netns exec "$CLI" ss -tin dst 10.78.1.2 |
		grep -oE '^[[:space:]]+(cubic|bbr|reno|htcp|dctcp) ' | tr -d ' \t'
}

# bats test_tags=hooks
@test "a lossy connection moves from cubic to bbr, and the log says why" {
	make_pair
	set_default_cc "$CLI" cubic
	add_loss
	start_daemon -c "$CG"
	need_cc cubic
	need_cc bbr
	# traffic until the test has seen the switch and data after it (a
	# loaded guest can take longer than any fixed run to decide)
	start_iperf 3600
	wait_for_log "tuner tcp_conn: lossy connection: connection from 10.78.1.1 port [0-9]+ to 10.78.1.2/32 in netns $CLI \(cookie [0-9]+\) port 5201: congestion control cubic -> bbr: [0-9]+ of [0-9]+ data segments retransmitted \([0-9.]+ % > 1.0 %\)" 300
	local ccs acked i
	ccs="$(client_ccs)"
	echo "# client connections: $(echo $ccs)" >&3
	# the data connection is on bbr now; iperf3's idle control one kept cubic
	grep -qx bbr <<<"$ccs"
	grep -qx cubic <<<"$ccs"
	# and it carries on under bbr: another megabyte acknowledged
	acked="$(bytes_acked_on bbr)"
	for i in $(seq 1 600); do
		[ "$(bytes_acked_on bbr)" -gt $((acked + 1048576)) ] && break
		sleep 0.1
	done
	[ "$(bytes_acked_on bbr)" -gt $((acked + 1048576)) ]
	netns_pids "$CLI" | xargs -r kill
	# and tcp_conn's own table has it, in the client's netns
	stop_daemon
	local c
	c="$(netns_cookie_of "$CLI")"
	sql "SELECT * FROM tcp_conn_lossy"
	[ "$(sql "SELECT count(*) FROM tcp_conn_lossy WHERE netns_cookie = $c AND family = 4 AND dest = '10.78.1.2/32' AND laddr = '10.78.1.1' AND rport = 5201 AND lport > 0 AND from_cc = 'cubic' AND segs_out >= 100 AND retrans * 100.0 / segs_out > 1 AND abs(loss_pct - retrans * 100.0 / segs_out) < 0.01 AND srtt_us > 0")" -ge 1 ]
	# one row per lossy connection: as many as the log's lines (debug ones too)
	[ "$(sql "SELECT count(*) FROM tcp_conn_lossy")" -eq "$(sql "SELECT count(*) FROM decisions WHERE tuner = 'tcp_conn' AND policy = 'bbr-on-loss'")" ]
}

# A lossy iperf3 connection under a daemon that observes only: reported
# and decided, but it carries on under cubic (a megabyte acknowledged
# after the report, nothing on bbr); the daemon is stopped after.
lossy_stays_cubic() {
	local ccs acked i
	start_iperf 3600
	wait_for_log "tuner tcp_conn: lossy connection: connection from 10.78.1.1 port [0-9]+ to 10.78.1.2/32 in netns $CLI \\(cookie [0-9]+\\) port 5201: congestion control cubic -> bbr: .* \\(observe-only: left on its algorithm\\)" 300
	acked="$(bytes_acked_on cubic)"
	for i in $(seq 1 600); do
		[ "$(bytes_acked_on cubic)" -gt $((acked + 1048576)) ] && break
		sleep 0.1
	done
	ccs="$(client_ccs)"
	echo "# client connections: $(echo $ccs)" >&3
	[ "$(bytes_acked_on cubic)" -gt $((acked + 1048576)) ]
	! grep -qx bbr <<<"$ccs"
	netns_pids "$CLI" | xargs -r kill
	stop_daemon
	grep -qE "tcp_conn: connections reported: .* [1-9][0-9]* lossy connections would have moved to bbr" "$LOG"
	[ "$(sql "SELECT count(*) FROM decisions WHERE tuner = 'tcp_conn' AND policy = 'bbr-on-loss'")" -ge 1 ]
	[ "$(sql "SELECT count(*) FROM tcp_conn_lossy WHERE from_cc = 'cubic'")" -ge 1 ]
}

@test "with --observe a lossy connection is reported and decided but keeps its algorithm" {
	make_pair
	set_default_cc "$CLI" cubic
	add_loss
	start_daemon --observe -c "$CG"
	need_cc cubic
	need_cc bbr
	lossy_stays_cubic
}

@test "observe = yes on SIGHUP reaches the sockops program at once" {
	local conf="$BATS_TEST_TMPDIR/bpftune.conf"
	make_pair
	set_default_cc "$CLI" cubic
	add_loss
	printf '[daemon]\nobserve = no\n' > "$conf"
	start_daemon --config "$conf" -c "$CG"
	need_cc bbr
	printf '[daemon]\nobserve = yes\n' > "$conf"
	kill -HUP "$DAEMON_PID"
	wait_for_log "config: observe = yes \\($conf:2\\): tuners decide and are recorded"
	lossy_stays_cubic
}

@test "without loss a connection keeps the netns default" {
	make_pair
	set_default_cc "$CLI" cubic
	start_daemon -c "$CG"
	need_cc cubic
	start_iperf 3
	# both of iperf3's connections are up (control and data), as seen then
	local ccs i
	for i in $(seq 1 100); do
		ccs="$(client_ccs)"
		[ "$(grep -c . <<<"$ccs")" -ge 2 ] && break
		sleep 0.1
	done
	! grep -qx bbr <<<"$ccs"
	grep -qx cubic <<<"$ccs"
	wait "$IPERF_PID"
	! grep -q "tuner tcp_conn: lossy connection:" "$LOG"
}

@test "connections outside the daemon's cgroup are left alone" {
	make_pair
	set_default_cc "$CLI" cubic
	add_loss
	start_daemon -c "$CG"
	need_cc bbr
	ip netns exec "$SRV" iperf3 -s -1 >/dev/null 2>&1 &
	BG_PIDS="$BG_PIDS $!"
	wait_listen "$SRV" 5201
	ip netns exec "$CLI" iperf3 -c 10.78.1.2 -t 3 >/dev/null
	! grep -q "tuner tcp_conn: lossy connection:" "$LOG"
}

# A server in $SRV that reads whatever it is sent; N clients from $CLI
# each sending 256 kB on a connection of its own.
SERVER_PY='
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("10.78.1.2", 7777)); s.listen(64)
while True:
    c, _ = s.accept()
    while c.recv(65536):
        pass
    c.close()
'
CLIENT_PY='
import socket, sys, time
for i in range(int(sys.argv[1])):
    c = socket.create_connection(("10.78.1.2", 7777))
    c.sendall(b"x" * 262144)
    c.shutdown(socket.SHUT_WR)
    c.recv(1)
    c.close()
    time.sleep(0.02)    # let the daemon keep up: no choice before its data
'

# bats test_tags=hooks
@test "with enough connections to a destination each choice is epsilon-greedy and recorded" {
	make_pair
	set_default_cc "$CLI" cubic
	start_daemon -d -c "$CG"
	need_cc bbr
	ip netns exec "$SRV" python3 -c "$SERVER_PY" &
	BG_PIDS="$BG_PIDS $!"
	wait_listen "$SRV" 7777
	# the first 8 connections teach the cost; then the destination gets
	# its first choice (waited for: a slow guest may take a while)
	in_cgroup "$CG" ip netns exec "$CLI" python3 -c "$CLIENT_PY" 8
	wait_for_log "tcp_conn: 10.78.1.2/32 in netns $CLI \(cookie [0-9]+\): greedy congestion control none -> (cubic|bbr)" 30
	# from then on each connection is placed, and every placement recorded
	in_cgroup "$CG" ip netns exec "$CLI" python3 -c "$CLIENT_PY" 16
	wait_for_log "decision: scenario 1 policy epsilon-greedy inputs \[choice=(greedy|explore) outcomes=[0-9]+ costs=cost\[cubic\]=.* cost\[bbr\]=.* cc=(cubic|bbr) srtt_us=.* action cc=(cubic|bbr)$"
	# the client is done: every connection's event is queued; a query
	# delivers them (a slow guest under ASan took over a minute to)
	barrier
	local i n=0
	for i in $(seq 1 600); do
		n="$(grep -cE "policy epsilon-greedy inputs \[choice=(greedy|explore)" "$LOG")"
		[ "$n" -ge 16 ] && break
		sleep 0.2
	done
	stop_daemon
	n="$(grep -cE "policy epsilon-greedy inputs \[choice=(greedy|explore)" "$LOG")"
	[ "$n" -eq 16 ] || { echo "# $n choices recorded, not 16" >&3; grep -E "tcp_conn|lost" "$LOG" | tail -30 >&3; false; }
	grep -qE "tcp_conn: connections reported: [0-9]+ by the model, [0-9]+ greedy, [0-9]+ explored" "$LOG"
	check_outcomes_table
}

# tcp_conn_outcomes after the test above: a row per reported connection,
# each with its decision, the 16 placed ones with what they taught
check_outcomes_table() {
	local c q
	c="$(netns_cookie_of "$CLI")"
	sql "SELECT choice, cc, srtt_us, delivery_rate, bytes_acked, cost, outcomes FROM tcp_conn_outcomes"
	[ "$(sql "SELECT count(*) FROM tcp_conn_outcomes WHERE choice IN ('greedy', 'explore')")" -eq 16 ]
	[ "$(sql "SELECT count(*) FROM tcp_conn_outcomes")" -eq \
	  "$(sql "SELECT count(*) FROM decisions WHERE tuner = 'tcp_conn' AND policy = 'epsilon-greedy'")" ]
	# every row: the client's netns, the server as destination, the data
	q="netns_cookie = $c AND family = 4 AND dest = '10.78.1.2/32' AND cc IN ('cubic', 'bbr', 'htcp', 'dctcp') AND bytes_acked >= 262144 AND segs_out > 0 AND srtt_us > 0 AND min_rtt_us > 0 AND delivery_rate > 0 AND duration_us > 0"
	[ "$(sql "SELECT count(*) FROM tcp_conn_outcomes WHERE NOT ($q)")" -eq 0 ]
	# each connection without loss taught a cost (256 kB each); a lossy one
	# (a starved guest's spurious retransmissions can reach 1 % of its
	# segments) was moved to bbr midway, taught nothing and has a row of
	# tcp_conn_lossy; the count of outcomes to the destination grows by one
	# with every connection that taught a cost, and only then
	[ "$(sql "SELECT count(*) FROM tcp_conn_outcomes WHERE lossy = 0 AND (cost IS NULL OR cost < 0 OR cost > 5)")" -eq 0 ]
	[ "$(sql "SELECT count(*) FROM tcp_conn_outcomes WHERE lossy = 1 AND cost IS NOT NULL")" -eq 0 ]
	[ "$(sql "SELECT count(*) FROM tcp_conn_outcomes WHERE lossy = 1")" -eq "$(sql "SELECT count(*) FROM tcp_conn_lossy")" ]
	[ "$(sql "SELECT count(*) FROM tcp_conn_outcomes WHERE cost IS NOT NULL")" -ge 16 ]
	[ "$(sql "SELECT count(*) FROM (SELECT outcomes, sum(cost IS NOT NULL) OVER (ORDER BY seq) AS taught FROM tcp_conn_outcomes) WHERE outcomes != taught")" -eq 0 ]
	# a row is its event's: same time, same netns
	[ "$(sql "SELECT count(*) FROM tcp_conn_outcomes o JOIN events e ON e.ts_uptime_us = o.ts_uptime_us AND e.netns_cookie = o.netns_cookie WHERE e.tuner = 'tcp_conn'")" -eq \
	  "$(sql "SELECT count(*) FROM tcp_conn_outcomes")" ]
	run check_clock_and_seq
	echo "$output"
	[ "$status" -eq 0 ]
	check_propensities
}

# each choice's odds in outcomes_tcp_conn_epsilon_greedy: 1 where nothing
# was drawn (the first connections), 1 - e + e/k for the greedy algorithm
# (also when an exploration drew it) or for none when there was no greedy
# one yet, e/k for another drawn algorithm (e = 3276/65536, k = 2..4)
check_propensities() {
	local j="outcomes_tcp_conn_epsilon_greedy o JOIN decisions d ON d.seq = o.decision_seq"
	sql "SELECT d.explored, d.epsilon, o.decided, o.propensity FROM $j"
	[ "$(sql "SELECT count(*) FROM $j")" -eq "$(sql "SELECT count(*) FROM tcp_conn_outcomes")" ]
	[ "$(sql "SELECT count(*) FROM $j WHERE d.explored IS NULL AND o.propensity != 1.0")" -eq 0 ]
	[ "$(sql "SELECT count(*) FROM $j WHERE d.explored = 0 AND NOT (o.propensity > 0.949 AND o.propensity < 0.976)")" -eq 0 ]
	[ "$(sql "SELECT count(*) FROM $j WHERE d.explored = 1 AND NOT (o.propensity BETWEEN 0.0124 AND 0.025 OR o.propensity > 0.949 AND o.propensity < 0.976)")" -eq 0 ]
	[ "$(sql "SELECT count(*) FROM $j WHERE d.explored IS NOT NULL AND abs(d.epsilon - 3276.0 / 65536) > 1e-9")" -eq 0 ]
	[ "$(sql "SELECT count(*) FROM $j WHERE d.explored = 0")" -ge 1 ]
}
