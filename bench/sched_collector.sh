#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The sched collector at full rate: does it lose events, and what does it
# cost?
#  1. The writer alone (build/bench/sched_writer: the collector's rows
#     through the telemetry writer, no BPF), 3 s: rows/s it commits.
#  2. Each of seed 003's 12 workloads (collect's catalogue; WORKLOADS= to
#     choose, DURATION= seconds for the timed ones, default 10), RUNS
#     times (default 1), with the daemon running --collectors sched
#     --keep-observer (every switch a row, the daemon's too; OBSERVER=0
#     leaves them out as by default) and --buffer-size $BUFFER_KB:
#     - the kernel's own count of context switches over the workload
#       (ctxt of /proc/stat: rq->nr_switches, bumped exactly where
#       sched_switch fires) against the sched_events switch rows in the
#       same CLOCK_BOOTTIME window: lost % = 1 - rows / ctxt;
#     - what the collector says it lost (lost_ringbuf + lost_writer of
#       sched_stats, the dropped of sched_gaps);
#     - events/s the kernel made (switches), rows/s the writer committed
#       from the workload's start until it had written everything (the
#       daemon writes what its buffer holds before it exits), and the
#       daemon's CPU (health.cpu_user_us + cpu_system_us) while the
#       workload ran, in % of one CPU.
# Not a test: it prints numbers and never fails on them.
#
# Usage (root, from the top of the tree, after make and make bench):
#   bench/sched_collector.sh [RUNS]
# Results go to bench/results/sched_collector-<time>.txt as well.
set -eu
cd "$(dirname "$0")/.."
. bench/lib.sh

RUNS="${1:-${N:-1}}"
DURATION="${DURATION:-10}"
BUFFER_KB="${BUFFER_KB:-131072}"
OBSERVER="${OBSERVER:-1}"
WRITER=build/bench/sched_writer
bench_init
make -s "$WRITER" || bench_die "cannot build the writer benchmark"
OUT="$RESULTS/sched_collector-$STAMP.txt"
TOOLS="$PWD/tools"

# the workload's argv, one per line (collect's catalogue)
workload_argv() {
	/usr/bin/python3 - "$TOOLS" "$1" "$DURATION" "$BENCH_TMP/scratch" <<'PY'
import os, sys
sys.path.insert(0, sys.argv[1])
from bpftune_telemetry.workloads import CATALOGUE
w = CATALOGUE[sys.argv[2]]
why = w.missing()
if why:
    sys.exit(why)
os.makedirs(sys.argv[4], exist_ok=True)
print("\n".join(w.client(int(sys.argv[3]), sys.argv[4])))
PY
}

seed_workloads() {
	/usr/bin/python3 - "$TOOLS" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from bpftune_telemetry.workloads import CATALOGUE
print(" ".join(n for n, w in CATALOGUE.items() if w.server is None and not n.startswith("listen")))
PY
}

boot_ns() {
	/usr/bin/python3 -c 'import time; print(time.clock_gettime_ns(time.CLOCK_BOOTTIME))'
}

ctxt() {
	awk '$1 == "ctxt" {print $2}' /proc/stat
}

# "rows lost_collector ctxt_rows_window cpu_pct writer_rps" of the run file
run_counts() {
	/usr/bin/python3 - "$@" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
t0, t1 = int(sys.argv[2]), int(sys.argv[3])
sw = db.execute("SELECT count(*) FROM sched_events WHERE event = 'switch' AND ts_ns BETWEEN ? AND ?",
                (t0, t1)).fetchone()[0]
lost = db.execute("SELECT coalesce(sum(lost_ringbuf), 0) + coalesce(sum(lost_writer), 0) FROM sched_stats "
                  "WHERE seq IN (SELECT max(seq) FROM sched_stats GROUP BY cpu)").fetchone()[0]
gaps = db.execute("SELECT coalesce(sum(dropped), 0) FROM sched_gaps").fetchone()[0]
def health(at_us, last=False):
    q = ("SELECT ts_uptime_us, cpu_user_us + cpu_system_us, rows_written FROM health "
         + ("ORDER BY seq DESC LIMIT 1" if last else
            "WHERE ts_uptime_us <= ? ORDER BY seq DESC LIMIT 1"))
    return db.execute(q, () if last else (at_us,)).fetchone()
# the daemon's first health row may come after the workload's start: the
# window then begins there
first = db.execute("SELECT ts_uptime_us, cpu_user_us + cpu_system_us, rows_written "
                   "FROM health ORDER BY seq LIMIT 1").fetchone()
z = health(0, last=True)
if first is None:
    print(sw, lost, gaps, "nan", "nan")
    sys.exit(0)
a = health(t0 // 1000) or first
b = health(t1 // 1000) or z
cpu = 100.0 * (b[1] - a[1]) / max(b[0] - a[0], 1)
rps = 1e6 * (z[2] - a[2]) / max(z[0] - a[0], 1)
print(sw, lost, gaps, "%.1f" % cpu, "%.0f" % rps)
PY
}

bench_plugin_dir admin_override "$BUILD_PLUGINS/sched_collector.so"
obs=(--keep-observer)
[ "$OBSERVER" = 1 ] || obs=()
{
	echo "sched collector: seed 003 workloads, $RUNS run(s) each, ${DURATION} s timed," \
	     "--buffer-size $BUFFER_KB ${obs[*]}, $(nproc) CPUs, kernel $(uname -r)"
	rm -rf "$BENCH_TMP/w"
	line="$("$WRITER" "$BENCH_TMP/w" 3)"
	/usr/bin/python3 - "$BENCH_TMP/w" "$line" <<'PY'
import glob, re, sqlite3, sys
db = sqlite3.connect(glob.glob(sys.argv[1] + "/*.db")[0])
rows = db.execute("SELECT count(*) FROM sched_events").fetchone()[0]
secs = float(re.search(r"writer done after ([0-9.]+) s", sys.argv[2]).group(1))
print("writer alone: %d sched_events rows committed in %.2f s: %.0f rows/s" % (rows, secs, rows / secs))
PY
	printf "%-22s %6s %10s %10s %10s %8s %9s %9s %7s %10s\n" workload wall_s ctxt/s \
		ctxt rows lost% coll_lost gap_drop cpu% writer_r/s
} | tee "$OUT"
for w in ${WORKLOADS:-$(seed_workloads)}; do
	mapfile -t argv < <(workload_argv "$w") || true
	if [ "${#argv[@]}" -eq 0 ]; then
		echo "$w: skipped (not runnable here)" | tee -a "$OUT"
		continue
	fi
	for r in $(seq 1 "$RUNS"); do
		tel="$BENCH_TMP/tel-$w-$r"
		bench_daemon_start --telemetry-dir "$tel" --collectors sched \
			--sample-interval 250 --buffer-size "$BUFFER_KB" "${obs[@]}"
		t0="$(boot_ns)"
		c0="$(ctxt)"
		"${argv[@]}" >/dev/null 2>&1 || echo "$w: the workload failed" >&2
		c1="$(ctxt)"
		t1="$(boot_ns)"
		bench_daemon_stop
		read -r rows clost gdrop cpu rps < <(run_counts "$(ls "$tel"/*.db)" "$t0" "$t1")
		awk -v w="$w" -v t0="$t0" -v t1="$t1" -v c="$((c1 - c0))" -v n="$rows" \
		    -v cl="$clost" -v g="$gdrop" -v cpu="$cpu" -v rps="$rps" 'BEGIN {
			s = (t1 - t0) / 1e9
			printf "%-22s %6.1f %10.0f %10d %10d %8.3f %9d %9d %7.1f %10.0f\n", w, s,
			       c / s, c, n, c ? 100 * (c - n) / c : 0, cl, g, cpu, rps }' | tee -a "$OUT"
		rm -rf "$tel"
	done
done
echo "lost%: 1 - switch rows / the kernel's ctxt over the same window (negative:" \
     "switches at the window's edges)" | tee -a "$OUT"
