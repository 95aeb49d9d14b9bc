#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# What the tcp_buffer tuner buys: iperf3 throughput into a netns whose
# tcp_rmem max is too small, before tuning and after the daemon has tuned
# it, as a ratio.  Not a test: it prints numbers and never fails on them.
#
# Usage (root, from the top of the tree, after make):
#   bench/tcp_buffer_effect.sh [RUNS] [SECONDS]
# Results go to bench/results/tcp_buffer_effect-<time>.txt as well, with
# the daemon's log next to them (.log).
set -eu
cd "$(dirname "$0")/.."

RUNS="${1:-3}"
SECS="${2:-4}"
SMALL_RMEM="4096 16384 65536"
BPFTUNE=build/bin/bpftune
PLUGIN=build/lib/bpftune/tcp_buffer_tuner.so

[ "$(id -u)" -eq 0 ] || { echo "run as root" >&2; exit 1; }
command -v iperf3 >/dev/null || { echo "iperf3 is not installed" >&2; exit 1; }
[ -x "$BPFTUNE" ] && [ -f "$PLUGIN" ] || { echo "run make first" >&2; exit 1; }

CLI="bench-tbc-$$"
SRV="bench-tbs-$$"
PLUGIN_DIR=""
DAEMON_PID=""
LOG="$(mktemp)"

cleanup() {
	if [ -n "$DAEMON_PID" ]; then
		kill -TERM "$DAEMON_PID" 2>/dev/null || true
		wait "$DAEMON_PID" 2>/dev/null || true
	fi
	ip netns del "$CLI" 2>/dev/null || true
	ip netns del "$SRV" 2>/dev/null || true
	[ -n "$PLUGIN_DIR" ] && rm -rf "$PLUGIN_DIR"
	rm -f "$LOG"
}
trap cleanup EXIT

ip netns add "$CLI"
ip netns add "$SRV"
ip -n "$CLI" link set lo up
ip -n "$SRV" link set lo up
ip link add tbc netns "$CLI" type veth peer name tbs netns "$SRV"
ip -n "$CLI" addr add 192.168.97.1/24 dev tbc
ip -n "$SRV" addr add 192.168.97.2/24 dev tbs
ip -n "$CLI" link set tbc up
ip -n "$SRV" link set tbs up
# set before the daemon starts: a write while it runs is an admin's
ip netns exec "$SRV" sysctl -qw net.ipv4.tcp_rmem="$SMALL_RMEM"

# one iperf3 run into $SRV; prints the receiver's Mbit/s
run_once() {
	local port=$((5400 + RANDOM % 500)) srv

	ip netns exec "$SRV" iperf3 -s -1 -B 192.168.97.2 -p "$port" >/dev/null 2>&1 &
	srv=$!
	for _ in $(seq 1 100); do
		ip netns exec "$SRV" ss -Hltn "sport = :$port" | grep -q . && break
		sleep 0.1
	done
	ip netns exec "$CLI" iperf3 -c 192.168.97.2 -p "$port" -t "$1" -J |
		python3 -c 'import json,sys; print("%.0f" % (json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"] / 1e6))'
	wait "$srv" || true
}

# RUNS runs: "median min max" in Mbit/s
measure() {
	local i
	for i in $(seq 1 "$RUNS"); do
		run_once "$SECS"
	done | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)], v[1], v[NR]}'
}

rmem_max() {
	ip netns exec "$SRV" sysctl -n net.ipv4.tcp_rmem | awk '{print $3}'
}

echo "tcp_buffer effect: $RUNS runs of ${SECS}s, veth pair, tcp_rmem '$SMALL_RMEM' in the receiver's netns"
read -r before bmin bmax < <(measure)
echo "before tuning: median $before Mbit/s (min $bmin, max $bmax), tcp_rmem max $(rmem_max)"

PLUGIN_DIR="$(mktemp -d /run/bpftune-bench.XXXXXX)"
chmod 0755 "$PLUGIN_DIR"
install -m 0755 "$PLUGIN" build/lib/bpftune/sysctl_tuner.so "$PLUGIN_DIR/"
"$BPFTUNE" -s -l "$PLUGIN_DIR" >"$LOG" 2>&1 &
DAEMON_PID=$!
for _ in $(seq 1 100); do
	grep -q "bpftune running" "$LOG" && break
	sleep 0.1
done
grep -q "tuner tcp_buffer started" "$LOG" || { cat "$LOG" >&2; exit 1; }
# let it tune: traffic that keeps the receive buffer at its max
run_once 3 >/dev/null
tuned="$(rmem_max)"
read -r after amin amax < <(measure)
echo "after tuning:  median $after Mbit/s (min $amin, max $amax), tcp_rmem max $tuned when measuring began, $(rmem_max) at the end ($(grep -c 'net.ipv4.tcp_rmem .* ->' "$LOG") changes)"
ratio="$(awk -v a="$after" -v b="$before" 'BEGIN {printf "%.2f", (b > 0 ? a / b : 0)}')"
echo "ratio after/before: $ratio"

mkdir -p bench/results
out="bench/results/tcp_buffer_effect-$(date -u +%Y%m%dT%H%M%SZ)"
kill -TERM "$DAEMON_PID" && wait "$DAEMON_PID" || true
DAEMON_PID=""
cp "$LOG" "$out.log"
{
	echo "kernel $(uname -r) runs $RUNS seconds $SECS start_rmem '$SMALL_RMEM'"
	echo "before_mbps $before $bmin $bmax"
	echo "after_mbps $after $amin $amax"
	echo "tuned_rmem_max $tuned"
	echo "ratio $ratio"
} >"$out.txt"
echo "results: $out.txt (daemon log: $out.log)"
