#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A socket-heavy load (stress-ng --sock, loopback in a network namespace of
# its own) without and with the daemon (all tuners), interleaved, N times:
# bogo-ops and their ratio, the daemon's CPU time and peak RSS, and what its
# adaptive sampling did (calls of each sampled hook vs calls processed, from
# `bpftune -q metrics`).  Then one more run with the daemon under
# `perf record -e cpu-clock -g` (no PMU needed) and the kernel's BPF run-time
# statistics on (kernel.bpf_stats_enabled, restored after), rendered as a
# flame graph SVG by bench/flamegraph.py; the BPF programs'
# run time is what the tuners cost the workload inside the kernel, where
# the daemon's own CPU time does not show it.
#
# The daemon runs with --observe and -c <the load's cgroup> (see
# overhead.sh for why).  Not a test: it prints numbers, never fails on them.
#
# Usage (root, from the top of the tree, after make):
#   bench/stress.sh
# Knobs (environment): N=5 STRESS_SECS=5 STRESS_WORKERS=<CPUs>
#   PROFILE=1 (0: no perf/flame graph run) PERF_CALLGRAPH=fp (or dwarf)
#   BPF_STATS=1 (0: leave kernel.bpf_stats_enabled alone)
#   BENCH_DAEMON_FLAGS="-L"
# Results: bench/results/stress-<time>.{csv,md,png}, -summary.csv,
# -flame.svg (and the perf data's script output, -perf.txt).
set -eu
cd "$(dirname "$0")/.."
. bench/lib.sh

N="${N:-5}"
STRESS_SECS="${STRESS_SECS:-5}"
STRESS_WORKERS="${STRESS_WORKERS:-$(nproc)}"
PROFILE="${PROFILE:-1}"
PERF_CALLGRAPH="${PERF_CALLGRAPH:-fp}"
BPF_STATS="${BPF_STATS:-1}"

bench_need stress-ng python3
[ "$PROFILE" = 1 ] && bench_need perf bpftool
bench_init
bench_cgroup
bench_netns_one stress

OUT="$RESULTS/stress-$STAMP"
CSV="$OUT.csv"
echo "rep,config,case,metric,unit,value" >"$CSV"

row() {
	echo "$1,$2,$3,$4,$5,$6" >>"$CSV"
}

# one stress-ng run in the namespace and cgroup: "bogo_ops ops_per_s"
run_stress() {
	local y="$BENCH_TMP/stress.yaml"

	rm -f "$y"
	bench_in_cg ip netns exec "$NS" stress-ng --sock "$STRESS_WORKERS" \
		-t "$STRESS_SECS" --metrics-brief --yaml "$y" >/dev/null 2>&1 || true
	awk '/bogo-ops:/ {o = $2} /bogo-ops-per-second-real-time:/ {r = $2}
	     END {print (o == "" ? "-" : o), (r == "" ? "-" : r)}' "$y" 2>/dev/null ||
		echo "- -"
}

daemon_up() {
	bench_plugin_dir
	bench_daemon_start -c "$BENCH_CG" --observe
}

run_one() {
	local rep="$1" cfg="$2" cpu0 cpu1 t0 t1 ops rate

	if [ "$cfg" = all ]; then
		daemon_up
		cpu0="$(bench_cpu_ms "$DAEMON_PID")"
		t0="$(date +%s.%N)"
	fi
	read -r ops rate < <(run_stress)
	row "$rep" "$cfg" stress-sock bogo_ops count "$ops"
	row "$rep" "$cfg" stress-sock bogo_ops_per_s 1/s "$rate"
	if [ "$cfg" = all ]; then
		cpu1="$(bench_cpu_ms "$DAEMON_PID")"
		t1="$(date +%s.%N)"
		row "$rep" all daemon cpu ms $((cpu1 - cpu0))
		row "$rep" all daemon cpu_share % "$(awk -v c=$((cpu1 - cpu0)) -v a="$t0" -v b="$t1" \
			'BEGIN {printf "%.3f", c / 10 / (b - a)}')"
		row "$rep" all daemon rss_peak MB \
			"$(awk -v k="$(bench_hwm_kb "$DAEMON_PID")" 'BEGIN {printf "%.1f", k / 1024}')"
		# bpftune_sampler_calls_total{tuner="tcp_buffer",hook="probe_sampler"} 123
		bench_query metrics | sed -n \
			's/^bpftune_sampler_\(calls\|sampled\)_total{tuner="\([^"]*\)",hook="\([^"]*\)"} \([0-9]*\)$/\1 \2\/\3 \4/p' |
			while read -r what hook n; do
				row "$rep" all "daemon:sampler:$hook" "$what" count "$n"
			done
		bench_daemon_stop "$OUT-daemon.log"
	fi
}

# BPF programs of a process: "name run_cnt run_time_ns", one per program
bpf_prog_stats() {
	local f id seen=" "

	for f in /proc/"$1"/fdinfo/*; do
		id="$(awk '/^prog_id:/ {print $2}' "$f" 2>/dev/null)"
		[ -n "$id" ] || continue
		# a program can be open more than once
		[[ "$seen" == *" $id "* ]] && continue
		seen="$seen$id "
		printf '%s %s %s\n' \
			"$(bpftool prog show id "$id" 2>/dev/null | sed -n 's/^[0-9]*: [a-z_]*  name \([^ ]*\) .*/\1/p')" \
			"$(awk '/^run_cnt:/ {print $2}' "$f")" "$(awk '/^run_time_ns:/ {print $2}' "$f")"
	done
}

profile_run() {
	local perf_data="$BENCH_TMP/perf.data" old_stats="" pp cpu0 cpu1 ops rate

	daemon_up
	if [ "$BPF_STATS" = 1 ]; then
		old_stats="$(sysctl -n kernel.bpf_stats_enabled)"
		bench_on_exit "sysctl -qw kernel.bpf_stats_enabled=$old_stats"
		sysctl -qw kernel.bpf_stats_enabled=1
	fi
	cpu0="$(bench_cpu_ms "$DAEMON_PID")"
	perf record -q -e cpu-clock --call-graph "$PERF_CALLGRAPH" -p "$DAEMON_PID" \
		-o "$perf_data" -- sleep $((STRESS_SECS + 1)) >/dev/null 2>&1 &
	pp=$!
	sleep 0.5
	read -r ops rate < <(run_stress)
	wait "$pp" || true
	cpu1="$(bench_cpu_ms "$DAEMON_PID")"
	row profile profile stress-sock bogo_ops_per_s 1/s "$rate"
	row profile profile profile daemon_cpu ms $((cpu1 - cpu0))
	if [ "$BPF_STATS" = 1 ]; then
		bpf_prog_stats "$DAEMON_PID" | while read -r name cnt ns; do
			[ -n "$name" ] || continue
			row profile profile "bpf:$name" run_cnt count "${cnt:-0}"
			row profile profile "bpf:$name" run_time_ns ns "${ns:-0}"
		done
		sysctl -qw kernel.bpf_stats_enabled="$old_stats"
	fi
	bench_daemon_stop
	perf script -i "$perf_data" 2>/dev/null >"$OUT-perf.txt" || true
	row profile profile profile perf_samples count \
		"$(grep -c ' cpu-clock' "$OUT-perf.txt" || true)"
	if [ -s "$OUT-perf.txt" ]; then
		python3 bench/flamegraph.py --title "bpftune daemon under stress-ng --sock" \
			"$OUT-perf.txt" "$OUT-flame.svg" || echo "flame graph: flamegraph.py failed" >&2
	fi
}

{
	echo "# stress: stress-ng --sock $STRESS_WORKERS for ${STRESS_SECS}s, $N repetitions, baseline and all tuners interleaved"
	echo "# daemon: --observe, -c <load cgroup> ${BENCH_DAEMON_FLAGS:-}"
	echo "# machine: $(bench_machine)"
	echo "# date: $(date -u '+%Y-%m-%d %H:%M UTC')"
} | tee "$OUT.info" >&2

start=$SECONDS
for rep in $(seq 1 "$N"); do
	if [ $((rep % 2)) = 1 ]; then order="baseline all"; else order="all baseline"; fi
	for cfg in $order; do
		echo "rep $rep/$N: $cfg ($((SECONDS - start)) s)" >&2
		run_one "$rep" "$cfg"
	done
done
if [ "$PROFILE" = 1 ]; then
	echo "profile run ($((SECONDS - start)) s)" >&2
	profile_run
fi
echo "done in $((SECONDS - start)) s" >&2

python3 bench/report.py stress "$CSV" "$OUT"
[ -s "$OUT-flame.svg" ] && echo "flame graph: $OUT-flame.svg" >&2
echo "results: $OUT.md $CSV $OUT-summary.csv $OUT.png" >&2
