#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# What the tcp_buffer tuner buys: iperf3 throughput into a netns whose
# tcp_rmem is too small (SMALL_RMEM), with well-chosen static values
# (STATIC_RMEM: the kernel's built-in default, 4096 131072 6291456, unless
# set),
# and after the daemon has tuned the too-small values; and how long it
# takes, after "bpftune running", until the throughput reaches 95 % of the
# static one (the first 0.5 s interval of a continuous iperf3 run that is
# at that level together with the next one).  Each repetition runs the
# three in turn (too small, static, then the daemon from the too-small
# start), so the phases are interleaved.  With AB_BPFTUNE and AB_PLUGINS
# (another build, e.g. the last release) a fourth phase runs that build
# from the same start as configuration AB_NAME (default "other"): same-run
# ratios between the two builds.
#
# The daemon loads only the tcp_buffer tuner (with its core mechanisms:
# admin-override detection and netns tracking), and writes:
# on a shared host it may also tune other users' namespaces whose sockets
# reach their limits while it runs (there is no namespace filter), so the
# daemon runs only CONVERGE_SECS + N*SECS per repetition.
# Not a test: it prints numbers and never fails on them.
#
# Usage (root, from the top of the tree, after make):
#   bench/tcp_buffer_effect.sh [N] [SECS]
# Knobs (environment): N=5 repetitions, SECS=3 per measurement,
#   CONVERGE_SECS=12, SMALL_RMEM="4096 8192 16384", STATIC_RMEM=...,
#   BENCH_DAEMON_FLAGS="-L", AB_BPFTUNE=PATH AB_PLUGINS=DIR [AB_NAME=other]
#   or AB_CMD/AB_READY as in cost.sh (it must load its tcp_buffer tuner)
# Results: bench/results/tcp_buffer_effect-<time>.{csv,md,png},
# -summary.csv, -timeline.dat (rep, config, s after bpftune running,
# Mbit/s) and the daemon's log of each repetition (-[CONFIG-]repN.log).
set -eu
cd "$(dirname "$0")/.."
. bench/lib.sh

N="${1:-${N:-5}}"
SECS="${2:-${SECS:-3}}"
CONVERGE_SECS="${CONVERGE_SECS:-12}"
SMALL_RMEM="${SMALL_RMEM:-4096 8192 16384}"
bench_ab_init

bench_need iperf3 python3
bench_init
bench_netns_pair e 192.168.97
STATIC_RMEM="${STATIC_RMEM:-4096 131072 6291456}"
CLI_DEFAULTS="$(bench_tcp_sysctls "$CLI")"

OUT="${EFFECT_OUT:-$RESULTS/tcp_buffer_effect-$STAMP}"
CSV="$OUT.csv"
TIMELINE="$OUT-timeline.dat"
echo "rep,config,case,metric,unit,value" >"$CSV"
echo "# rep config seconds_after_bpftune_running mbit_per_s" >"$TIMELINE"

row() {
	echo "$1,$2,$3,$4,$5,$6" >>"$CSV"
}

set_rmem() {
	ip netns exec "$SRV" sysctl -qw net.ipv4.tcp_rmem="$1"
}

rmem_max() {
	ip netns exec "$SRV" sysctl -n net.ipv4.tcp_rmem | awk '{print $3}'
}

# iperf3 into $SRV for $1 s with extra client arguments; prints the JSON
iperf_json() {
	local secs="$1" port srv
	shift

	port=$((5200 + RANDOM % 700))
	ip netns exec "$SRV" iperf3 -s -1 -B "$SRV4" -p "$port" >/dev/null 2>&1 &
	srv=$!
	if bench_wait_listen "$SRV" "$port"; then
		ip netns exec "$CLI" iperf3 -c "$SRV4" -p "$port" -t "$secs" -J "$@" 2>/dev/null || true
	fi
	kill "$srv" 2>/dev/null || true
	wait "$srv" 2>/dev/null || true
}

# one measurement: Mbit/s received, or "-"
measure() {
	iperf_json "$SECS" | python3 -c 'import json,sys
try:
    print("%.1f" % (json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"] / 1e6))
except Exception:
    print("-")'
}

# the daemon (configuration $2: tuned, this build, or AB_NAME, the other
# one) from the too-small start: a continuous run with 0.5 s intervals
# right after start-up, then SECS measurements while it runs
converge() {
	local rep="$1" cfg="$2" t_run t_cli log="$OUT-rep$1.log"

	set_rmem "$SMALL_RMEM"
	bench_tcp_sysctls_set "$CLI" "$CLI_DEFAULTS"
	bench_use_build "$cfg"
	[ "$cfg" = "$AB_NAME" ] && log="$OUT-$cfg-rep$rep.log"
	bench_plugin_dir tcp_buffer admin_override
	bench_daemon_start
	t_run="$DAEMON_READY_AT"
	t_cli="$(date +%s.%N)"
	iperf_json "$CONVERGE_SECS" -i 0.5 | python3 -c 'import json,sys
off = float(sys.argv[2]) - float(sys.argv[1])
try:
    for iv in json.load(sys.stdin)["intervals"]:
        s = iv["sum"]
        print("%s %s %.2f %.1f" % (sys.argv[3], sys.argv[4], off + s["end"],
                                   s["bits_per_second"] / 1e6))
except Exception:
    pass' "$t_run" "$t_cli" "$rep" "$cfg" >>"$TIMELINE"
	echo >>"$TIMELINE"
	row "$rep" "$cfg" convergence rmem_max_after_converge bytes "$(rmem_max)"
	row "$rep" "$cfg" iperf-v4-up throughput Mbit/s "$(measure)"
	row "$rep" "$cfg" convergence rmem_max bytes "$(rmem_max)"
	row "$rep" "$cfg" convergence changes count \
		"$(grep -c "net.ipv4.tcp_rmem .* -> .* in netns $SRV " "$DAEMON_LOG" || true)"
	row "$rep" "$cfg" convergence holds count \
		"$(grep -c "tcp_rmem .* in netns $SRV .*holding" "$DAEMON_LOG" || true)"
	bench_daemon_stop "$log"
}

{
	echo "# tcp_buffer effect: $N repetitions of ${SECS}s iperf3 (IPv4, one stream) into a netns over veth"
	echo "# receiver tcp_rmem: too small '$SMALL_RMEM', static '$STATIC_RMEM'; daemon: tuners tcp_buffer and admin_override, convergence run ${CONVERGE_SECS}s ${BENCH_DAEMON_FLAGS:-}$(bench_ab_desc)"
	echo "# machine: $(bench_machine)"
	echo "# date: $(date -u '+%Y-%m-%d %H:%M UTC')"
} | tee "$OUT.info" >&2

start=$SECONDS
for rep in $(seq 1 "$N"); do
	echo "rep $rep/$N ($((SECONDS - start)) s)" >&2
	set_rmem "$SMALL_RMEM"
	row "$rep" small iperf-v4-up throughput Mbit/s "$(measure)"
	set_rmem "$STATIC_RMEM"
	row "$rep" static iperf-v4-up throughput Mbit/s "$(measure)"
	converge "$rep" tuned
	! bench_ab || converge "$rep" "$AB_NAME"
done
echo "done in $((SECONDS - start)) s" >&2

python3 bench/report.py effect "$CSV" "$OUT"
echo "results: $OUT.md $CSV $OUT-summary.csv $OUT.png" >&2
