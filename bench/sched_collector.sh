#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The sched collector's cost and throughput under seed 003's
# hackbench_pipe_large (hackbench -g 8 -l 5000 --pipe; WORKLOAD= to
# change the arguments), RUNS times, each run a pair in one go:
#  1. the workload without the daemon (baseline wall time);
#  2. the workload with the daemon running --collectors sched (only the
#     sysctl tuner besides): wall time, and from the run file the events
#     the BPF programs saw, the rows written and what was lost where
#     (lost_ringbuf: the collector's ring buffer was full; lost_writer:
#     the telemetry queue was), per second of workload.
# Prints per run and the median with min..max of: the slowdown ratio
# (with / without), events/s seen, rows/s written, lost/s and lost %.
# Not a test: it prints numbers and never fails on them.
#
# Usage (root, from the top of the tree, after make):
#   bench/sched_collector.sh [RUNS]
# Results go to bench/results/sched_collector-<time>.txt as well.
set -eu
cd "$(dirname "$0")/.."
. bench/lib.sh

RUNS="${1:-${N:-3}}"
WORKLOAD="${WORKLOAD:--g 8 -l 5000 --pipe}"
bench_need hackbench
bench_init
OUT="$RESULTS/sched_collector-$STAMP.txt"

# wall seconds of one workload run
run_workload() {
	local t0 t1

	t0="$(date +%s.%N)"
	# shellcheck disable=SC2086
	hackbench $WORKLOAD >/dev/null
	t1="$(date +%s.%N)"
	awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}'
}

# "seen written lost_ringbuf lost_writer" of the events between T0 and T1
# (CLOCK_BOOTTIME ns), from the run's file
run_counts() {
	/usr/bin/python3 - "$1" "$2" "$3" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
t0, t1 = int(sys.argv[2]), int(sys.argv[3])
def stats(at_us):
    # per CPU, the last sample at or before at_us (cumulative counters)
    q = ("SELECT sum(events), sum(lost_ringbuf), sum(lost_writer) FROM sched_stats s "
         "WHERE seq IN (SELECT max(seq) FROM sched_stats WHERE ts_uptime_us <= ? GROUP BY cpu)")
    return [v or 0 for v in db.execute(q, (at_us,)).fetchone()]
a, b = stats(t0 // 1000), stats(t1 // 1000 + 10**6)
rows = db.execute("SELECT count(*) FROM sched_events WHERE ts_ns BETWEEN ? AND ?",
                  (t0, t1)).fetchone()[0]
print(b[0] - a[0], rows, b[1] - a[1], b[2] - a[2])
PY
}

boot_ns() {
	/usr/bin/python3 -c 'import time; print(time.clock_gettime_ns(time.CLOCK_BOOTTIME))'
}

bench_plugin_dir sysctl "$BUILD_PLUGINS/sched_collector.so"
echo "sched collector under hackbench $WORKLOAD, $RUNS runs, $(nproc) CPUs" | tee "$OUT"
printf "%-4s %8s %8s %7s %11s %11s %10s %10s\n" run base_s sched_s ratio seen/s written/s lost/s lost% |
	tee -a "$OUT"
for r in $(seq 1 "$RUNS"); do
	base="$(run_workload)"
	tel="$BENCH_TMP/tel-$r"
	bench_daemon_start --telemetry-dir "$tel" --collectors sched --sample-interval 500
	t0="$(boot_ns)"
	with="$(run_workload)"
	t1="$(boot_ns)"
	# the drain and the writer catch up, then a last sample: stop
	sleep 2
	bench_daemon_stop
	read -r seen written lrb lwr < <(run_counts "$(ls "$tel"/*.db)" "$t0" "$t1")
	awk -v r="$r" -v b="$base" -v w="$with" -v s="$seen" -v n="$written" \
	    -v l1="$lrb" -v l2="$lwr" 'BEGIN {
		printf "%-4s %8.2f %8.2f %7.3f %11.0f %11.0f %10.0f %10.2f\n", r, b, w, w / b,
		       s / w, n / w, (l1 + l2) / w, s ? 100 * (l1 + l2) / s : 0 }' | tee -a "$OUT"
	rm -rf "$tel"
done
# median and range per column (python3: mawk has no arrays of arrays)
/usr/bin/python3 - "$OUT" <<'PY' | tee "$OUT.summary"
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]).read().splitlines()[2:] if l.strip()]
names = ["ratio", "seen/s", "written/s", "lost/s", "lost%"]
for i, name in enumerate(names, start=3):
    v = sorted(float(r[i]) for r in rows)
    print("%-10s median %12.3f  (min %.3f .. max %.3f, %d runs)" % (
        name, statistics.median(v), v[0], v[-1], len(v)))
PY
cat "$OUT.summary" >>"$OUT" && rm -f "$OUT.summary"
