#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Telemetry writer throughput, RUNS times each:
#  1. the writer alone (bench/telemetry_writer.c): for 3 s a fake tuner
#     offers decision rows faster than the writer can commit them; rows
#     committed per second of writer work is its capacity;
#  2. end to end: the daemon with the flood fixture tuner (one event and
#     one decision row per getpgid(FLOOD_MAGIC)) under CALLS syscalls:
#     rows written per second while the writer was busy (health table),
#     events delivered per second, what was lost where (ring buffer,
#     writer queue), the longest flush and the daemon's RSS.  The flood,
#     the daemon's thread and the writer share the machine's CPUs.
# Not a test: it prints numbers and never fails on them.
#
# Usage (root, from the top of the tree, after make all fixtures; make
# bench builds the writer's binary too):
#   bench/telemetry.sh [RUNS] [CALLS]
# Results go to bench/results/telemetry-<time>.txt as well.
set -eu
cd "$(dirname "$0")/.."
. bench/lib.sh

RUNS="${1:-3}"
CALLS="${2:-2000000}"
PLUGIN=build/test/plugins/flood_tuner.so
FLOOD=build/test/flood

if [ ! -f "$PLUGIN" ] || [ ! -x "$FLOOD" ]; then
	bench_die "run make all fixtures first"
fi
bench_init
WORK="$BENCH_TMP"
OUT="$RESULTS/telemetry-$STAMP.txt"

# one run: prints "rows_per_s events_per_s ringbuf_lost rows_dropped
# rows_written flush_max_us rss_kb"
one_run() {
	local tel="$WORK/tel-$1" db

	bench_plugin_dir "$PLUGIN"
	bench_daemon_start --telemetry-dir "$tel" --sample-interval 250
	"$FLOOD" "$CALLS" >"$WORK/flood-$1"
	# let the writer drain, then stop: the last health row has the totals
	sleep 1
	bench_daemon_stop
	db="$(ls "$tel"/*.db)"
	/usr/bin/python3 - "$db" <<'EOF'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
h = db.execute("SELECT ts_uptime_us, rows_written, events_seen, ringbuf_lost, rows_dropped,"
               " flush_latency_max_us, rss_kb FROM health ORDER BY seq").fetchall()
# rate while busy: intervals in which rows were written, first and last excluded
rates, erates = [], []
for a, b in zip(h, h[1:]):
    dt = (b[0] - a[0]) / 1e6
    if dt > 0 and b[1] > a[1]:
        rates.append((b[1] - a[1]) / dt)
        erates.append((b[2] - a[2]) / dt)
busy = rates[1:-1] or rates
ebusy = erates[1:-1] or erates
last = h[-1]
print("%.0f %.0f %d %d %d %d %d" % (sum(busy) / len(busy), sum(ebusy) / len(ebusy),
      last[3], last[4], last[1], max(r[5] for r in h), max(r[6] for r in h)))
EOF
}

# the writer alone (make bench builds it)
WRITER=build/bench/telemetry_writer
make -s "$WRITER" || bench_die "cannot build the writer benchmark"
{
	echo "telemetry writer alone: decision rows offered for 3 s per run, $RUNS runs"
	printf '%-4s %12s %12s %12s %10s\n' run "rows/s" written dropped seconds
} | tee "$OUT"
wrates=()
for r in $(seq 1 "$RUNS"); do
	line="$("$WRITER" "$WORK/w-$r" 3)"
	read -r rps written dropped secs < <(/usr/bin/python3 - "$WORK/w-$r" "$line" <<'EOF'
import glob, re, sqlite3, sys
db = sqlite3.connect(glob.glob(sys.argv[1] + "/*.db")[0])
written = db.execute("SELECT count(*) FROM decisions").fetchone()[0]
dropped = db.execute("SELECT rows_dropped FROM health ORDER BY seq DESC LIMIT 1").fetchone()[0]
secs = float(re.search(r"writer done after ([0-9.]+) s", sys.argv[2]).group(1))
print("%.0f %d %d %.3f" % (written / secs, written, dropped, secs))
EOF
)
	printf '%-4s %12s %12s %12s %10s\n' "$r" "$rps" "$written" "$dropped" "$secs" | tee -a "$OUT"
	wrates+=("$rps")
done
printf '%s\n' "${wrates[@]}" | sort -n | awk '
	{ v[NR] = $1 }
	END { printf "writer alone, rows/s: min %d, median %d, max %d\n\n",
		  v[1], v[int((NR + 1) / 2)], v[NR] }' | tee -a "$OUT"

{
	echo "end to end: flood fixture, $CALLS getpgid() calls per run, $RUNS runs"
	echo "kernel $(uname -r), $(nproc) CPUs, sample interval 250 ms, queue 4096 rows"
	printf '%-4s %12s %12s %12s %12s %12s %10s %8s\n' run "rows/s" "events/s" \
		"rb_lost" "q_dropped" "written" "flush_max" "rss_kB"
} | tee -a "$OUT"
rates=()
for r in $(seq 1 "$RUNS"); do
	read -r rps eps lost dropped written fmax rss < <(one_run "$r")
	printf '%-4s %12s %12s %12s %12s %12s %8sus %8s\n' "$r" "$rps" "$eps" "$lost" \
		"$dropped" "$written" "$fmax" "$rss" | tee -a "$OUT"
	rates+=("$rps")
done
printf '%s\n' "${rates[@]}" | sort -n | awk '
	{ v[NR] = $1 }
	END { printf "end to end, rows/s written while busy: min %d, median %d, max %d\n",
		  v[1], v[int((NR + 1) / 2)], v[NR] }' | tee -a "$OUT"
echo "results: $OUT"
