#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bpftune-ship against a local redis-server (AOF on, appendfsync everysec),
# RUNS times:
#  - rows/s one shipper sustains shipping a run file of ROWS rows with
#    --once (Redis emptied before each run), median and min..max;
#  - the CPU each side spends per row (shipper, Redis), so that a Redis
#    core's capacity in rows/s follows from this machine's numbers;
#  - Redis memory per million rows (used_memory after a run), with the
#    default stream-node-max-bytes (4096) and with 16384, and the bytes a
#    row costs on the wire; the shipper's peak RSS (one batch in memory);
#  - fleet dump: rows/s rebuilt into SQLite.
# The run file is the daemon's DDL with the fixture's mix of tables
# (test/telemetry_fixture.py, test/fleet_grow.py), or SHIP_SRC=FILE.db
# (e.g. a real run of the daemon) grown to ROWS rows.
# Not a test: it prints numbers and never fails on them.
#
# Usage (root, from the top of the tree, after make):
#   bench/ship.sh [RUNS] [ROWS]
# Results go to bench/results/ship-<time>.txt as well.
set -eu
cd "$(dirname "$0")/.."
. bench/lib.sh

RUNS="${1:-5}"
ROWS="${2:-1000000}"
SHIP=build/bin/bpftune-ship
PY=/usr/bin/python3

bench_need redis-server redis-cli sqlite3
[ -x /usr/bin/time ] || bench_die "/usr/bin/time is not installed (apt-get install time)"
[ -x "$SHIP" ] || bench_die "run make first"
bench_init
WORK="$BENCH_TMP"
OUT="$RESULTS/ship-$STAMP.txt"

# ---- the run file ----------------------------------------------------------
RUN_ID=bbbbbbbb-0000-4000-8000-000000000001
DIR="$WORK/runs"
mkdir -p "$DIR"
if [ -n "${SHIP_SRC:-}" ]; then
	src="$SHIP_SRC"
else
	build/bin/telemetry-schema --sql > "$WORK/schema.sql"
	$PY test/telemetry_fixture.py "$WORK/schema.sql" "$WORK/fixture" bench:1 >/dev/null
	src="$(ls "$WORK"/fixture/*.db)"
fi
$PY test/fleet_grow.py "$src" "$DIR/20250101T000000Z-$RUN_ID.db" "$ROWS" \
	--host-id bench-host --run-id "$RUN_ID" --wal
FILE="$DIR/20250101T000000Z-$RUN_ID.db"
NROWS=0
for t in $(sqlite3 "$FILE" "SELECT name FROM sqlite_master WHERE type = 'table'"); do
	NROWS=$((NROWS + $(sqlite3 "$FILE" "SELECT count(*) FROM \"$t\"")))
done

# ---- redis ---------------------------------------------------------------------
PORT="$($PY -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
mkdir -p "$WORK/redis"
redis-server --bind 127.0.0.1 --port "$PORT" --dir "$WORK/redis" --appendonly yes \
	--appendfsync everysec --save "" --daemonize no --logfile "$WORK/redis/log" &
REDIS_PID=$!
BENCH_PIDS+=("$REDIS_PID")
for _ in $(seq 1 100); do
	[ "$(redis-cli -p "$PORT" ping 2>/dev/null)" = PONG ] && break
	sleep 0.1
done
rcli() { redis-cli -p "$PORT" "$@"; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
used_memory() { rcli info memory | sed -n 's/^used_memory:\([0-9]*\).*/\1/p'; }
net_in() { rcli info stats | sed -n 's/^total_net_input_bytes:\([0-9]*\).*/\1/p'; }
HZ="$(getconf CLK_TCK)"

{
	echo "bpftune-ship $($SHIP -V | cut -d' ' -f2) -> redis-server $(redis-server -v | sed 's/.*v=\([^ ]*\).*/\1/') on 127.0.0.1, AOF everysec"
	echo "$(bench_machine)"
	echo "run file: $NROWS rows in $(sqlite3 "$FILE" "SELECT count(*) FROM sqlite_master WHERE type = 'table'") tables, $(($(stat -c %s "$FILE") / 1048576)) MB, $RUNS runs"
	printf '%-4s %10s %10s %12s %12s %10s %9s %9s\n' run seconds "rows/s" "ship us/row" \
		"redis us/row" "MB/M rows" "B/row in" "ship RSS"
} | tee "$OUT"

rates=() ship_us=() redis_us=() mem=() wire=() rsses=()
for r in $(seq 1 "$RUNS"); do
	rcli flushall >/dev/null
	rcli config set stream-node-max-bytes 4096 >/dev/null
	rm -rf "$WORK/state"
	base="$(used_memory)"
	n0="$(net_in)"
	c0="$(cpu_ticks "$REDIS_PID")"
	/usr/bin/time -o "$WORK/time" -f '%e %U %S %M' "$SHIP" --redis "redis://127.0.0.1:$PORT" \
		--dir "$DIR" --state "$WORK/state" --once 2>/dev/null
	c1="$(cpu_ticks "$REDIS_PID")"
	read -r secs user sys rss < "$WORK/time"
	rps="$(awk -v n="$NROWS" -v s="$secs" 'BEGIN { printf "%.0f", n / s }')"
	sus="$(awk -v n="$NROWS" -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", (u + s) * 1e6 / n }')"
	rus="$(awk -v n="$NROWS" -v c="$((c1 - c0))" -v hz="$HZ" 'BEGIN { printf "%.2f", c / hz * 1e6 / n }')"
	mb="$(awk -v n="$NROWS" -v a="$base" -v b="$(used_memory)" 'BEGIN { printf "%.1f", (b - a) / n }')"
	bw="$(awk -v n="$NROWS" -v a="$n0" -v b="$(net_in)" 'BEGIN { printf "%.0f", (b - a) / n }')"
	printf '%-4s %10s %10s %12s %12s %10s %9s %7sMB\n' "$r" "$secs" "$rps" "$sus" "$rus" "$mb" \
		"$bw" "$((rss / 1024))" | tee -a "$OUT"
	rates+=("$rps") ship_us+=("$sus") redis_us+=("$rus") mem+=("$mb") wire+=("$bw") rsses+=("$((rss / 1024))")
done

summary() {
	local name="$1" unit="$2"
	shift 2
	read -r m lo hi n < <(printf '%s\n' "$@" | bench_stats)
	printf '%-34s median %s %s (min %s, max %s, %d runs)\n' "$name" "$m" "$unit" "$lo" "$hi" "$n"
}
{
	echo
	summary "rows/s, one shipper:" "rows/s" "${rates[@]}"
	summary "shipper CPU per row:" "us" "${ship_us[@]}"
	summary "Redis CPU per row:" "us" "${redis_us[@]}"
	summary "Redis memory per million rows:" "MB" "${mem[@]}"
	summary "bytes per row into Redis:" "B" "${wire[@]}"
	summary "shipper peak RSS:" "MB" "${rsses[@]}"
} | tee -a "$OUT"

# the same rows with larger stream nodes (fewer master entries)
rcli flushall >/dev/null
rcli config set stream-node-max-bytes 16384 >/dev/null
rm -rf "$WORK/state"
base="$(used_memory)"
"$SHIP" --redis "redis://127.0.0.1:$PORT" --dir "$DIR" --state "$WORK/state" --once 2>/dev/null
printf '%-34s %s MB (stream-node-max-bytes 16384)\n' "Redis memory per million rows:" \
	"$(awk -v n="$NROWS" -v a="$base" -v b="$(used_memory)" 'BEGIN { printf "%.1f", (b - a) / n }')" | tee -a "$OUT"

# the central side: the run rebuilt from Redis
TIMEFORMAT='%R'
t="$( { time $PY tools/bpftune-telemetry fleet dump --redis "redis://127.0.0.1:$PORT" \
	--out "$WORK/dump" >/dev/null; } 2>&1 )"
printf '%-34s %.0f rows/s (%s s)\n' "fleet dump into SQLite:" \
	"$(awk -v n="$NROWS" -v s="$t" 'BEGIN { print n / s }')" "$t" | tee -a "$OUT"
if diff <(sqlite3 "$FILE" .dump) <(sqlite3 "$WORK/dump/$(basename "$FILE")" .dump) >/dev/null; then
	echo "dump identical to the run file: yes" | tee -a "$OUT"
else
	echo "dump identical to the run file: NO" | tee -a "$OUT"
fi
echo "results: $OUT"
