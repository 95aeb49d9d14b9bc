#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# bats file_tags=kernel,hooks
# Paths shaped with netem (delay, loss): the TCP tuners on a long, lossy
# path.  This host's kernel has no netem, so these run in the qemu guests
# of the kernel matrix (make test-matrix), where netem is a module; there a
# missing netem is a failure, not a skip.

load helpers

setup() {
	command -v iperf3 >/dev/null || skip "iperf3 is not installed"
	CLI="$(make_netns)"
	SRV="$(make_netns)"
	ip link add nmc netns "$CLI" type veth peer name nms netns "$SRV"
	ip -n "$CLI" addr add 10.79.1.1/24 dev nmc
	ip -n "$SRV" addr add 10.79.1.2/24 dev nms
	ip -n "$CLI" link set nmc up
	ip -n "$SRV" link set nms up
	modprobe -q sch_netem 2>/dev/null || true
	if ! ip netns exec "$SRV" tc qdisc add dev nms root netem delay 1ms 2>/dev/null; then
		[ "$MODE" = host ] && skip "no netem on this kernel (runs in the kernel matrix)"
		echo "netem is missing on a kernel-matrix guest" >&3
		return 1
	fi
	ip netns exec "$SRV" tc qdisc del dev nms root
	CG="$(make_cgroup)" || skip "no cgroup2 hierarchy"
	SAVED_ALLOWED=
}

teardown() {
	local pid
	if [ -z "${BATS_TEST_COMPLETED:-}" ] && [ -n "${LOG:-}" ] && [ -f "$LOG" ]; then
		grep -E "tcp_|error|warning" "$LOG" | tail -40 | sed 's/^/# log: /' >&3
	fi
	for pid in ${BG_PIDS:-}; do
		kill "$pid" 2>/dev/null || true
	done
	BG_PIDS=
	common_teardown
	if [ -n "$SAVED_ALLOWED" ]; then
		sysctl -qw net.ipv4.tcp_allowed_congestion_control="$SAVED_ALLOWED"
	fi
}

# netem on both directions: $1 one-way delay, $2 loss on the server's ingress
# path (the client's data leaving its veth), e.g. "20ms" "3%"
shape() {
	ip netns exec "$CLI" tc qdisc add dev nmc root netem delay "$1" ${2:+loss "$2"}
	ip netns exec "$SRV" tc qdisc add dev nms root netem delay "$1"
}

# iperf3 from $CLI (in the test cgroup) to $SRV for $1 s, in the background
start_iperf() {
	local port=$((5400 + RANDOM % 400)) i
	ip netns exec "$SRV" iperf3 -s -1 -p "$port" >/dev/null 2>&1 &
	BG_PIDS="$BG_PIDS $!"
	for i in $(seq 1 100); do
		ip netns exec "$SRV" ss -Hltn "sport = :$port" | grep -q . && break
		sleep 0.1
	done
	IPERF_OUT="$BATS_TEST_TMPDIR/iperf.out"
	in_cgroup "$CG" ip netns exec "$CLI" iperf3 -c 10.79.1.2 -p "$port" -t "$1" \
		-f m >"$IPERF_OUT" 2>&1 &
	IPERF_PID=$!
	BG_PIDS="$BG_PIDS $IPERF_PID"
}

@test "netem delay + loss: a cubic connection is moved to bbr, with the reason logged" {
	local allowed ccs
	allowed="$(cat /proc/sys/net/ipv4/tcp_allowed_congestion_control)"
	modprobe -q tcp_bbr 2>/dev/null || true
	if ! grep -qw cubic <<<"$allowed"; then
		SAVED_ALLOWED="$allowed"
		sysctl -qw net.ipv4.tcp_allowed_congestion_control="$allowed cubic"
	fi
	ip netns exec "$CLI" sysctl -qw net.ipv4.tcp_congestion_control=cubic
	shape 20ms 3%
	make_plugin_dir tcp_conn netns
	start_daemon -c "$CG"
	grep -q "tcp_conn: choosing among .* bbr[ ;]" "$LOG"
	start_iperf 8
	wait_for_log "tuner tcp_conn: lossy connection: connection from 10.79.1.1 port [0-9]+ to 10.79.1.2/32 in netns $CLI \(cookie [0-9]+\) port [0-9]+: congestion control cubic -> bbr: [0-9]+ of [0-9]+ data segments retransmitted" 30
	ccs="$(ip netns exec "$CLI" ss -tin dst 10.79.1.2 |
		grep -oE '^[[:space:]]+(cubic|bbr|reno) ' | tr -d ' \t')"
	echo "# client connections: $(echo $ccs)" >&3
	grep -qx bbr <<<"$ccs"
	wait "$IPERF_PID"
	grep -q "iperf Done" "$IPERF_OUT"
}

@test "high bandwidth-delay path: a small tcp_rmem max in the receiver's netns grows" {
	local before after
	# 2 x 25 ms: 50 ms RTT; 128 KiB of window allows only ~20 Mbit/s
	ip netns exec "$SRV" sysctl -qw net.ipv4.tcp_rmem="4096 65536 131072"
	before="$(ip netns exec "$SRV" sysctl -n net.ipv4.tcp_rmem | awk '{print $3}')"
	shape 25ms
	make_plugin_dir tcp_buffer
	start_daemon
	start_iperf 10
	wait_for_log "receive buffer near tcp_rmem max: net.ipv4.tcp_rmem 4096 65536 131072 -> 4096 65536 [0-9]+ in netns $SRV \(cookie [0-9]+\)" 30
	wait "$IPERF_PID"
	after="$(ip netns exec "$SRV" sysctl -n net.ipv4.tcp_rmem | awk '{print $3}')"
	echo "# tcp_rmem max in the receiver's netns: $before -> $after" >&3
	[ "$after" -gt "$before" ]
	# the sender's namespace and the global one were not touched
	! grep -q "tcp_rmem .* in netns $CLI " "$LOG"
	! grep -q "tcp_rmem .* in global netns" "$LOG"
}
