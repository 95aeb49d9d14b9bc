#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Where the daemon's own CPU goes under load: the daemon (all tuners,
# --observe, default telemetry) while stress-ng --sock runs in a namespace
# of its own for PROFILE_SECS, under perf record -e cpu-clock (a software
# event: no PMU needed) with call graphs.  Writes a flame graph whose
# title names the commit (bench/flamegraph.py: well-formed SVG, checked
# by parsing it back) and a PNG of it (rsvg-convert), and a per-function
# table: samples in each function itself (self) and below it (total), as
# markdown.  Exits non-zero, naming the picture, when either cannot be
# drawn.
#
# Usage (root, from the top of the tree, after make; on a shared host
# under the host-kernel lock):
#   bench/profile.sh
# Knobs: PROFILE_SECS=8 PERF_FREQ=4000 PERF_CALLGRAPH=dwarf (or fp)
#   PROFILE_OUT=PATH PROFILE_TITLE="..." STRESS_WORKERS=<CPUs>
# Results: OUT-flame.svg and .png, OUT.md, OUT-functions.csv, OUT-perf.txt,
# OUT-folded.txt (the stacks, folded: flamegraph.py --folded redraws them)
set -eu
cd "$(dirname "$0")/.."
. bench/lib.sh

PROFILE_SECS="${PROFILE_SECS:-8}"
PERF_FREQ="${PERF_FREQ:-4000}"
PERF_CALLGRAPH="${PERF_CALLGRAPH:-dwarf}"
STRESS_WORKERS="${STRESS_WORKERS:-$(nproc)}"

bench_need perf stress-ng python3 rsvg-convert
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
rm -f "$OUT-flame.svg" "$OUT-flame.png"
python3 bench/profile_report.py "$OUT-perf.txt" "$OUT" "$TITLE" \
	"daemon CPU $((cpu1 - cpu0)) ms in $((PROFILE_SECS + 1)) s, $samples samples at $PERF_FREQ Hz, $events events handled"
if [ "${samples:-0}" -gt 0 ]; then
	# any failure here fails the run, naming the picture (set -e)
	python3 bench/flamegraph.py --title "$TITLE" --fold-out "$OUT-folded.txt" \
		"$OUT-perf.txt" "$OUT-flame.svg" ||
		bench_die "flame graph $OUT-flame.svg: bench/flamegraph.py failed"
	rsvg-convert -w 1200 -b white "$OUT-flame.svg" -o "$OUT-flame.png" ||
		bench_die "flame graph $OUT-flame.png: rsvg-convert failed"
fi
