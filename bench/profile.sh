#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Where the daemon's own CPU goes under load: the daemon (all tuners,
# --observe, default telemetry) while stress-ng --sock runs in a namespace
# of its own for PROFILE_SECS, under perf record -e cpu-clock (a software
# event: no PMU needed) with call graphs.  Writes a flame graph whose
# title names the commit (flamegraph from npm, and a PNG of it when
# rsvg-convert is there, to look at), and a per-function table: samples
# in each function itself (self) and below it (total), as markdown.
#
# Usage (root, from the top of the tree, after make; on a shared host
# under the host-kernel lock):
#   bench/profile.sh
# Knobs: PROFILE_SECS=8 PERF_FREQ=4000 PERF_CALLGRAPH=dwarf (or fp)
#   PROFILE_OUT=PATH PROFILE_TITLE="..." STRESS_WORKERS=<CPUs>
# Results: OUT-flame.svg (and .png), OUT.md, OUT-functions.csv, OUT-perf.txt
set -eu
cd "$(dirname "$0")/.."
. bench/lib.sh

PROFILE_SECS="${PROFILE_SECS:-8}"
PERF_FREQ="${PERF_FREQ:-4000}"
PERF_CALLGRAPH="${PERF_CALLGRAPH:-dwarf}"
STRESS_WORKERS="${STRESS_WORKERS:-$(nproc)}"

bench_need perf stress-ng python3 flamegraph
bench_init
bench_cgroup
bench_netns_one prof
OUT="${PROFILE_OUT:-$RESULTS/profile-$STAMP}"
COMMIT="$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
git diff --quiet HEAD 2>/dev/null || COMMIT="$COMMIT-dirty"
TITLE="${PROFILE_TITLE:-bpftune $COMMIT: daemon under stress-ng --sock ($PROFILE_SECS s, cpu-clock)}"

bench_plugin_dir
bench_daemon_start -c "$BENCH_CG" --observe
cpu0="$(bench_cpu_ms "$DAEMON_PID")"
perf record -q -e cpu-clock -F "$PERF_FREQ" --call-graph "$PERF_CALLGRAPH" -p "$DAEMON_PID" \
	-o "$BENCH_TMP/perf.data" -- sleep $((PROFILE_SECS + 1)) >/dev/null 2>&1 &
pp=$!
sleep 0.5
bench_in_cg ip netns exec "$NS" stress-ng --sock "$STRESS_WORKERS" -t "$PROFILE_SECS" \
	>/dev/null 2>&1 || true
wait "$pp" || true
cpu1="$(bench_cpu_ms "$DAEMON_PID")"
events="$(bench_query metrics 2>/dev/null | awk '/^bpftune_events_total/ {n += $2} END {print n + 0}')"
bench_daemon_stop "$OUT-daemon.log"

perf script -i "$BENCH_TMP/perf.data" 2>/dev/null >"$OUT-perf.txt" || true
samples="$(grep -c ' cpu-clock' "$OUT-perf.txt" || true)"
if [ -s "$OUT-perf.txt" ]; then
	flamegraph -t perf --titletext "$TITLE" <"$OUT-perf.txt" >"$OUT-flame.svg" 2>/dev/null ||
		echo "flamegraph failed" >&2
	if [ -s "$OUT-flame.svg" ] && command -v rsvg-convert >/dev/null; then
		rsvg-convert -w 1200 -b white "$OUT-flame.svg" -o "$OUT-flame.png" 2>/dev/null ||
			echo "rsvg-convert failed" >&2
	fi
fi
python3 bench/profile_report.py "$OUT-perf.txt" "$OUT" "$TITLE" \
	"daemon CPU $((cpu1 - cpu0)) ms in $((PROFILE_SECS + 1)) s, $samples samples at $PERF_FREQ Hz, $events events handled"
