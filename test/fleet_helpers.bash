# SPDX-License-Identifier: GPL-2.0-only
# Helpers for the fleet tests: a real redis-server of the test's own (a
# free port on 127.0.0.1, its directory under the test's, AOF on),
# bpftune-ship processes, run files, and comparisons with sqlite3.

# BPFTUNE_SHIP: another build of it; make test-asan (BPFTUNE_BUILD=build/asan)
# runs the ASan/UBSan one
SHIP="${BPFTUNE_SHIP:-$BUILD/bin/bpftune-ship}"
TOOL="$REPO/tools/bpftune-telemetry"
PY=/usr/bin/python3

free_port() {
	$PY -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# start_redis [redis-server args]: sets REDIS_PORT (kept across restarts),
# REDIS_DIR, REDIS_PID, REDIS_URL; waits until it answers
start_redis() {
	local try i fixed="${REDIS_PORT:+1}"
	REDIS_DIR="${REDIS_DIR:-$BATS_TEST_TMPDIR/redis}"
	mkdir -p "$REDIS_DIR"
	for try in 1 2 3 4 5; do
		[ -n "${REDIS_PORT:-}" ] || REDIS_PORT="$(free_port)"
		redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --dir "$REDIS_DIR" \
			--appendonly yes --appendfsync everysec --save "" --daemonize no \
			--logfile "$REDIS_DIR/redis.log" "$@" &
		REDIS_PID=$!
		for i in $(seq 1 300); do
			[ "$(redis-cli -p "$REDIS_PORT" ping 2>/dev/null)" = PONG ] && break
			kill -0 "$REDIS_PID" 2>/dev/null || break
			sleep 0.1
		done
		if [ "$(redis-cli -p "$REDIS_PORT" ping 2>/dev/null)" = PONG ]; then
			REDIS_URL="redis://127.0.0.1:$REDIS_PORT"
			return 0
		fi
		kill -KILL "$REDIS_PID" 2>/dev/null
		wait "$REDIS_PID" 2>/dev/null
		# the port was taken meanwhile: another one (not on a restart)
		grep -q "Address already in use" "$REDIS_DIR/redis.log" && [ -z "$fixed" ] &&
			REDIS_PORT=
	done
	cat "$REDIS_DIR/redis.log" >&3
	return 1
}

# kill_redis [SIGNAL]: stop our redis-server and wait for it
kill_redis() {
	[ -n "${REDIS_PID:-}" ] || return 0
	kill -"${1:-TERM}" "$REDIS_PID" 2>/dev/null || true
	wait "$REDIS_PID" 2>/dev/null || true
	REDIS_PID=
}

rcli() {
	redis-cli -p "$REDIS_PORT" "$@"
}

# start_shipper NAME DIR [ARGS]: a shipper in the background, its log in
# $BATS_TEST_TMPDIR/ship-NAME.log, its state in .../state-NAME
start_shipper() {
	local name="$1" dir="$2" url="${SHIP_URL:-$REDIS_URL}"
	shift 2
	"$SHIP" --redis "$url" --dir "$dir" --state "$BATS_TEST_TMPDIR/state-$name" \
		--interval 100 "$@" >"$BATS_TEST_TMPDIR/ship-$name.log" 2>&1 &
	SHIPPERS+=("$!")
	eval "SHIP_PID_$name=$!"
}

stop_shippers() {
	local p
	for p in "${SHIPPERS[@]}"; do
		kill -TERM "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	SHIPPERS=()
}

# wait_in FILE PATTERN [seconds]: grep -E PATTERN in FILE until it appears
wait_in() {
	local i
	for i in $(seq 1 $((${3:-30} * 10))); do
		grep -qE -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "timed out waiting for '$2' in $1:" >&3
	cat "$1" >&3 2>/dev/null
	return 1
}

# wait_until SECONDS 'SHELL CONDITION': evaluate it every 0.1 s until true
wait_until() {
	local t="$1" i
	shift
	for i in $(seq 1 $((t * 10))); do
		eval "$*" && return 0
		sleep 0.1
	done
	echo "timed out waiting for: $*" >&3
	return 1
}

# rows Redis acknowledged for host H (all tables)
acked_rows() {
	rcli hgetall "bpftune:{$1}:host" | awk 'NR % 2 == 1 { f = $0 } NR % 2 == 0 && f ~ /^rows\./ { s += $0 } END { print s + 0 }'
}

# entries in the streams of host H (duplicates included)
stream_entries() {
	local k n=0
	for k in $(rcli --scan --pattern "bpftune:{$1}:rows:*"); do
		n=$((n + $(rcli xlen "$k")))
	done
	echo "$n"
}

# rows of every table of a run file
file_rows() {
	local t n=0
	for t in $(sqlite3 -readonly "$1" "SELECT name FROM sqlite_master WHERE type = 'table'"); do
		n=$((n + $(sqlite3 -readonly "$1" "SELECT count(*) FROM \"$t\"")))
	done
	echo "$n"
}

# same_run ORIG DUMPDIR: DUMPDIR's file of ORIG's run is identical: the
# schema and every row (sqlite3 .dump: types and values), the rowids of
# every table, user_version and application_id
same_run() {
	local orig="$1" copy="$2/$(basename "$1")" t
	if [ ! -f "$copy" ]; then
		echo "no $copy"
		return 1
	fi
	diff <(sqlite3 -readonly "$orig" .dump) <(sqlite3 -readonly "$copy" .dump) || return 1
	for t in "PRAGMA user_version" "PRAGMA application_id" "PRAGMA journal_mode"; do
		[ "$(sqlite3 -readonly "$orig" "$t")" = "$(sqlite3 -readonly "$copy" "$t")" ] ||
			{ echo "$t differs"; return 1; }
	done
	for t in $(sqlite3 -readonly "$orig" "SELECT name FROM sqlite_master WHERE type = 'table'"); do
		diff <(sqlite3 -readonly "$orig" "SELECT rowid FROM \"$t\" ORDER BY rowid") \
		     <(sqlite3 -readonly "$copy" "SELECT rowid FROM \"$t\" ORDER BY rowid") >/dev/null ||
			{ echo "$t: rowids differ"; return 1; }
	done
}

# make_run DIR HOST ROWS [LABEL]: a run file in DIR for HOST, grown from a
# fixture written with the daemon's DDL to about ROWS more rows; WAL mode
# as the daemon leaves it.  Prints its path.
make_run() {
	local dir="$1" host="$2" rows="$3" label="${4:-fleet}" base run
	base="$BATS_TEST_TMPDIR/base-$RANDOM$RANDOM"
	"$REPO/build/bin/telemetry-schema" --sql > "$base.sql"
	$PY "$REPO/test/telemetry_fixture.py" "$base.sql" "$base" "$label:1" >/dev/null
	run="$($PY -c 'import uuid; print(uuid.uuid4())')"
	mkdir -p "$dir"
	$PY "$REPO/test/fleet_grow.py" "$base"/*.db "$dir/20250101T$(printf %06d $((RANDOM % 1000000)))Z-$run.db" \
		"$rows" --host-id "$host" --run-id "$run" --wal --start-wall-us 1735689600000000
	rm -rf "$base" "$base.sql"
	echo "$dir"/*"-$run.db"
}

fleet() {
	$PY "$TOOL" fleet "$@"
}

# the setup of a test against its own redis-server, with run files in
# $RUNS and dumps in $OUT (fleet.bats, fleet_damage.bats)
fleet_setup() {
	SHIPPERS=()
	command -v redis-server >/dev/null || skip "redis-server is not installed"
	start_redis
	RUNS="$BATS_TEST_TMPDIR/runs"
	OUT="$BATS_TEST_TMPDIR/dump"
}

fleet_teardown() {
	stop_shippers
	kill_redis KILL
	stop_cluster
}

CLUSTER_PIDS=()

# a free port whose cluster bus port (+10000) is free and valid too
free_cluster_port() {
	$PY -c '
import socket
for _ in range(1000):
    a = socket.socket(); a.bind(("127.0.0.1", 0)); p = a.getsockname()[1]
    if p + 10000 > 65535:
        continue
    b = socket.socket()
    try:
        b.bind(("127.0.0.1", p + 10000))
    except OSError:
        continue
    print(p)
    break'
}

# start_cluster N: N redis-server nodes in cluster mode (own ports and
# directories), all slots assigned; CLUSTER_PORTS, CLUSTER_PIDS
start_cluster() {
	local i port d
	CLUSTER_PORTS=() CLUSTER_PIDS=()
	for i in $(seq 1 "$1"); do
		port="$(free_cluster_port)"
		d="$BATS_TEST_TMPDIR/cluster-$i"
		mkdir -p "$d"
		(cd "$d" && exec redis-server --bind 127.0.0.1 --port "$port" --cluster-enabled yes \
			--cluster-config-file nodes.conf --appendonly yes --save "" \
			--daemonize no --logfile "$d/log") &
		CLUSTER_PIDS+=("$!")
		CLUSTER_PORTS+=("$port")
	done
	for port in "${CLUSTER_PORTS[@]}"; do
		wait_until 30 '[ "$(redis-cli -p '"$port"' ping 2>/dev/null)" = PONG ]' || return 1
	done
	# the slots split evenly, each node its own config epoch, then MEET
	# (not redis-cli --cluster create: it once hung for good on a reply)
	local n="$1" first last
	for i in $(seq 0 $((n - 1))); do
		port="${CLUSTER_PORTS[$i]}"
		first=$((16384 * i / n)) last=$((16384 * (i + 1) / n - 1))
		redis-cli -p "$port" cluster addslotsrange "$first" "$last" | grep -qx OK || return 1
		redis-cli -p "$port" cluster set-config-epoch $((i + 1)) | grep -qx OK || return 1
	done
	for port in "${CLUSTER_PORTS[@]:1}"; do
		redis-cli -p "${CLUSTER_PORTS[0]}" cluster meet 127.0.0.1 "$port" | grep -qx OK || return 1
	done
	for port in "${CLUSTER_PORTS[@]}"; do
		wait_until 30 'redis-cli -p '"$port"' cluster info | grep -q "^cluster_state:ok"' || return 1
	done
}

stop_cluster() {
	local p
	for p in "${CLUSTER_PIDS[@]}"; do
		kill -KILL "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	CLUSTER_PIDS=()
}
