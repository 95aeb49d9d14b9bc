#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# bats file_tags=offline
# bpftune-ship and run files damaged on disk: a page of one table
# overwritten (a leaf, the root), a file truncated or its header broken.
# Each is that file's problem: refused with the reason and exit 3, the
# other tables and files shipped, Redis never blamed.  The damage is
# made by test/fleet_damage.py from the file's own b-tree pages.  Also:
# a finished file changed later, files that are not run files, and what
# the shipper must never write.  A real redis-server, as in fleet.bats.

load helpers
load fleet_helpers

setup() {
	fleet_setup
}

teardown() {
	fleet_teardown
}

damage() {
	$PY "$REPO/test/fleet_damage.py" "$@"
}

run_id_of() {
	sqlite3 -readonly "$1" "SELECT value FROM meta WHERE key = 'run_id'"
}

# the tables after T in FILE (shipping order) with rows: "name max_rowid"
tables_after() {
	sqlite3 -readonly "$1" "SELECT name FROM sqlite_master WHERE type = 'table' AND rowid >
		(SELECT rowid FROM sqlite_master WHERE name = '$2')" | while read -r t; do
		echo "$t $(sqlite3 -readonly "$1" "SELECT coalesce(max(rowid), 0) FROM \"$t\"")"
	done
}

# every table listed by tables_after is acknowledged whole in Redis
after_shipped() {
	local host="$1" run="$2" t max wm
	while read -r t max; do
		[ "$max" -gt 0 ] || continue
		wm="$(rcli hget "bpftune:{$host}:run:$run" "wm.$t")"
		[ "$wm" = "$max" ] || { echo "$t: acknowledged '$wm' of $max"; return 1; }
	done
}

# the directory holds exactly these names (nothing written beside them)
only_files() {
	local want="$1"
	diff <(ls -A "$RUNS" | sort) <(echo "$want" | tr ' ' '\n' | sort)
}

@test "a damaged leaf page: the table refused with exit 3, the rest of the file and later files shipped" {
	local bad good run after max wm
	bad="$(make_run "$RUNS" host-leaf 3000)"
	good="$(make_run "$RUNS" host-leaf 100)"
	# the damaged file first in name order, as an older run would be
	mv "$bad" "$RUNS/20240101T000000Z-bad.db"
	bad="$RUNS/20240101T000000Z-bad.db"
	run="$(run_id_of "$bad")"
	after="$(tables_after "$bad" samples_tcp)"
	max="$(sqlite3 -readonly "$bad" "SELECT max(rowid) FROM samples_tcp")"
	damage "$bad" samples_tcp leaf
	# a running shipper goes on to the next file
	start_shipper c "$RUNS"
	wait_in "$BATS_TEST_TMPDIR/ship-c.log" "$(basename "$good"): run .* shipped completely"
	stop_shippers
	run cat "$BATS_TEST_TMPDIR/ship-c.log"
	[[ "$output" == *"bad.db: not shipped: table samples_tcp: cannot read its rows: database disk image is malformed"* ]]
	[[ "$output" != *"dropping the connection"* ]]
	# --once (another state: from the start): exit 3, Redis not blamed
	run "$SHIP" --redis "$REDIS_URL" --dir "$RUNS" --state "$BATS_TEST_TMPDIR/s" --once --give-up 5
	echo "$output"
	[ "$status" -eq 3 ]
	[[ "$output" == *"bad.db: samples_tcp not shipped after rowid "*": cannot read its rows: database disk image is malformed"* ]]
	[[ "$output" != *"Redis unavailable"* ]]
	[[ "$output" != *"bad.db: run"*"shipped completely"* ]]
	# the rows before the damaged page, and every later table, are in Redis
	wm="$(rcli hget "bpftune:{host-leaf}:run:$run" wm.samples_tcp)"
	[ "$wm" -gt 0 ]
	[ "$wm" -lt "$max" ]
	echo "$after" | after_shipped host-leaf "$run"
	[ -n "$(rcli hget "bpftune:{host-leaf}:run:$run" refused.samples_tcp)" ]
	[ -z "$(rcli hget "bpftune:{host-leaf}:run:$run" done)" ]
	# the host's record: the refusal, a kernel, a heartbeat, the real lag
	[[ "$(rcli hget "bpftune:{host-leaf}:host" refused)" == *"bad.db: table samples_tcp: "* ]]
	[ -n "$(rcli hget "bpftune:{host-leaf}:host" kernel)" ]
	[ -n "$(rcli hget "bpftune:{host-leaf}:host" seen_ms)" ]
	[ "$(rcli hget "bpftune:{host-leaf}:host" pending)" -eq $((max - wm)) ]
	run fleet dump --redis "$REDIS_URL" --out "$OUT"
	echo "$output"
	same_run "$good" "$OUT"
	[[ "$output" == *"samples_tcp: not shipped: cannot read its rows: database disk image is malformed"* ]]
}

@test "a damaged root page: the table refused, never shipped as empty; the others shipped" {
	local bad good run after
	bad="$(make_run "$RUNS" host-root 3000)"
	good="$(make_run "$RUNS" host-root 100)"
	mv "$bad" "$RUNS/20240101T000000Z-bad.db"
	bad="$RUNS/20240101T000000Z-bad.db"
	run="$(run_id_of "$bad")"
	after="$(tables_after "$bad" samples_tcp)"
	run damage "$bad" samples_tcp root
	echo "$output"
	[[ "$output" == *"root of samples_tcp"* ]]
	run "$SHIP" --redis "$REDIS_URL" --dir "$RUNS" --state "$BATS_TEST_TMPDIR/s" --once --give-up 5
	echo "$output"
	[ "$status" -eq 3 ]
	[[ "$output" == *"bad.db: not shipped: table samples_tcp: its row range cannot be read: database disk image is malformed"* ]]
	[[ "$output" != *"bad.db: run"*"shipped completely"* ]]
	[ -z "$(rcli hget "bpftune:{host-root}:run:$run" done)" ]
	[ -z "$(rcli hget "bpftune:{host-root}:run:$run" wm.samples_tcp)" ]
	[ -n "$(rcli hget "bpftune:{host-root}:run:$run" refused.samples_tcp)" ]
	echo "$after" | after_shipped host-root "$run"
	run fleet dump --redis "$REDIS_URL" --out "$OUT"
	echo "$output"
	same_run "$good" "$OUT"
	[[ "$output" == *"samples_tcp: not shipped: its row range cannot be read"* ]]
	[[ "$output" == *"refused by the shipper"* ]]
}

@test "a truncated file and a broken header: refused at open, later files shipped, nothing written beside them" {
	local trunc hdr good
	trunc="$(make_run "$RUNS" host-whole 3000)"
	hdr="$(make_run "$RUNS" host-whole 3000)"
	good="$(make_run "$RUNS" host-whole 100)"
	mv "$trunc" "$RUNS/20240101T000000Z-trunc.db"
	mv "$hdr" "$RUNS/20240101T000001Z-hdr.db"
	damage "$RUNS/20240101T000000Z-trunc.db" samples_tcp truncate
	damage "$RUNS/20240101T000001Z-hdr.db" - header
	run "$SHIP" --redis "$REDIS_URL" --dir "$RUNS" --state "$BATS_TEST_TMPDIR/s" --once --give-up 5
	echo "$output"
	[ "$status" -eq 3 ]
	[[ "$output" == *"trunc.db: not shipped: not a readable SQLite file: database disk image is malformed"* ]]
	[[ "$output" == *"hdr.db: not shipped: not a readable SQLite file: file is not a database"* ]]
	[[ "$output" == *"$(basename "$good"): run "*" shipped completely"* ]]
	[[ "$(rcli hget "bpftune:{host-whole}:host" refused)" == *"trunc.db: "*"hdr.db: "* ]]
	# run by hand on a writable directory: no -shm or -wal left beside them
	only_files "20240101T000000Z-trunc.db 20240101T000001Z-hdr.db $(basename "$good")"
	fleet dump --redis "$REDIS_URL" --out "$OUT"
	same_run "$good" "$OUT"
}

@test "a finished file changed later (an UPDATE) is shipped again; a file with only meta is refused" {
	local f
	f="$(make_run "$RUNS" host-upd 300)"
	run "$SHIP" --redis "$REDIS_URL" --dir "$RUNS" --state "$BATS_TEST_TMPDIR/s" --once
	[ "$status" -eq 0 ]
	[[ "$output" == *"shipped completely"* ]]
	# the file is closed and done; someone changes a shipped row
	sqlite3 "$f" "UPDATE samples_tcp SET ts_uptime_us = ts_uptime_us + 1 WHERE rowid = 3"
	# and a SQLite file with a meta table and nothing else
	sqlite3 "$RUNS/20250101T000009Z-meta.db" "CREATE TABLE meta (key TEXT, value TEXT);
		INSERT INTO meta VALUES ('run_id', 'x1'), ('host_id', 'host-upd')"
	run "$SHIP" --redis "$REDIS_URL" --dir "$RUNS" --state "$BATS_TEST_TMPDIR/s" --once
	echo "$output"
	[ "$status" -eq 3 ]
	[[ "$output" == *"samples_tcp rows changed after they were shipped: shipping the table again"* ]]
	[[ "$output" == *"meta.db: not shipped: not a bpftune run file: no runs table"* ]]
	run fleet dump --redis "$REDIS_URL" --out "$OUT"
	echo "$output"
	[[ "$output" == *"1 run(s)"* ]]
	same_run "$f" "$OUT"
}

@test "--state's missing folders are made; a URL's query string is named as the problem" {
	local f
	f="$(make_run "$RUNS" host-st 50)"
	run "$SHIP" --redis "$REDIS_URL" --dir "$RUNS" --state "$BATS_TEST_TMPDIR/a/b/state" --once
	echo "$output"
	[ "$status" -eq 0 ]
	[ -d "$BATS_TEST_TMPDIR/a/b/state" ]
	[ "$(stat -c %a "$BATS_TEST_TMPDIR/a/b/state")" = 700 ]
	run "$SHIP" --redis "$REDIS_URL/0?x=1" --dir "$RUNS" --state "$BATS_TEST_TMPDIR/s2" --once
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"query strings are not supported"* ]]
	[[ "$output" != *"port"*"65535"* ]]
}
