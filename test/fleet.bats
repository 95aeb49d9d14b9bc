#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# bats file_tags=offline
# bpftune-ship and `bpftune-telemetry fleet` against a real redis-server
# (its own port and directory, AOF on), with run files written with the
# daemon's DDL: no daemon, no BPF, no sysctl here (test/fleet_daemon.bats
# ships the real daemon's files).

load helpers
load fleet_helpers

setup() {
	fleet_setup
}

teardown() {
	fleet_teardown
}

@test "ship --once, dump: every table of every run identical, whatever the batch size" {
	local a b c f
	a="$(make_run "$RUNS/a" host-a 3000)"
	b="$(make_run "$RUNS/b" host-b 5000)"
	c="$(make_run "$RUNS/c" host-c 100)"
	# three shippers at once, one per host, small batches
	"$SHIP" --redis "$REDIS_URL" --dir "$RUNS/a" --state "$BATS_TEST_TMPDIR/sa" --once --batch 7 &
	local pa=$!
	"$SHIP" --redis "$REDIS_URL" --dir "$RUNS/b" --state "$BATS_TEST_TMPDIR/sb" --once --batch 1000 &
	local pb=$!
	run "$SHIP" --redis "$REDIS_URL" --dir "$RUNS/c" --state "$BATS_TEST_TMPDIR/sc" --once --batch 1
	[ "$status" -eq 0 ]
	wait "$pa"
	wait "$pb"
	run fleet dump --redis "$REDIS_URL" --out "$OUT"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"3 run(s)"*"0 duplicates removed"* ]]
	for f in "$a" "$b" "$c"; do
		same_run "$f" "$OUT"
	done
	[ "$(ls "$OUT"/*.db | wc -l)" -eq 3 ]
	# Redis holds each row once, and the host records say so
	[ "$(stream_entries host-b)" -eq "$(file_rows "$b")" ]
	[ "$(acked_rows host-b)" -eq "$(file_rows "$b")" ]
	[ "$(rcli hget 'bpftune:{host-a}:host' pending)" -eq 0 ]
	# a second pass ships nothing again
	"$SHIP" --redis "$REDIS_URL" --dir "$RUNS/b" --state "$BATS_TEST_TMPDIR/sb" --once
	[ "$(stream_entries host-b)" -eq "$(file_rows "$b")" ]
}

@test "a table the shipper never heard of, and every storage class, ship unchanged" {
	local f
	f="$(make_run "$RUNS" host-t 10)"
	sqlite3 "$f" "CREATE TABLE plugin_listen (run_id TEXT NOT NULL, host_id TEXT NOT NULL,
		seq INTEGER NOT NULL, ts_uptime_us INTEGER NOT NULL, backlog INTEGER, ratio REAL,
		raw BLOB, note TEXT, anything);
		CREATE INDEX plugin_listen_ts ON plugin_listen (ts_uptime_us);
		INSERT INTO plugin_listen SELECT run_id, host_id, 1, 5, 4096, 0.1, x'00ff10', 'ok', NULL FROM runs;
		INSERT INTO plugin_listen SELECT run_id, host_id, 2, 6, -9223372036854775808, -1e-300,
			x'', '', 1.5 FROM runs;
		INSERT INTO plugin_listen SELECT run_id, host_id, 4, 7, NULL, 2.0, NULL,
			CAST(x'ff41e282ac' AS TEXT), '12' FROM runs;
		INSERT INTO plugin_listen SELECT 'not-the-run', host_id || 'x', 5, 8, 9223372036854775807,
			1e308, zeroblob(3), 'tab	and
newline', x'41' FROM runs;"
	run "$SHIP" --redis "$REDIS_URL" --dir "$RUNS" --state "$BATS_TEST_TMPDIR/s" --once
	echo "$output"
	[ "$status" -eq 0 ]
	run fleet dump --redis "$REDIS_URL" --host host-t --out "$OUT"
	echo "$output"
	[ "$status" -eq 0 ]
	same_run "$f" "$OUT"
	[ "$(sqlite3 "$OUT/$(basename "$f")" "SELECT typeof(anything) || typeof(note) FROM plugin_listen ORDER BY seq" | tr '\n' ,)" = "nulltext,realtext,texttext,blobtext," ]
	# the seq gap (3) is reported as rows the daemon dropped, not as lost
	[[ "$output" == *"plugin_listen: 1 seq gaps"* ]]
	[[ "$output" != *"not in Redis"* ]]
}

@test "a row updated after it was shipped (the runs row at exit) reaches the dump" {
	local f
	f="$(make_run "$RUNS" host-u 200)"
	sqlite3 "$f" "UPDATE runs SET end_ts_uptime_us = NULL, exit_status = NULL"
	# another process has the file open, as the daemon does while it runs
	$PY - "$f" "$BATS_TEST_TMPDIR/go" <<'EOF' &
import os, sqlite3, sys, time
db = sqlite3.connect(sys.argv[1])
db.execute("SELECT count(*) FROM meta").fetchall()
open(sys.argv[2] + ".open", "w").close()
while not os.path.exists(sys.argv[2]):
    time.sleep(0.05)
db.execute("UPDATE runs SET end_ts_uptime_us = ts_uptime_us + 5000000, exit_status = 0")
db.commit()
db.close()
EOF
	local holder=$!
	wait_until 30 'test -f "$BATS_TEST_TMPDIR/go.open"'
	"$SHIP" --redis "$REDIS_URL" --dir "$RUNS" --state "$BATS_TEST_TMPDIR/s" --once
	# shipped, but not final: the run is not done
	[ "$(rcli hget "bpftune:{host-u}:run:$(sqlite3 "$f" 'SELECT run_id FROM runs')" done)" = "" ]
	touch "$BATS_TEST_TMPDIR/go"
	wait "$holder"
	run "$SHIP" --redis "$REDIS_URL" --dir "$RUNS" --state "$BATS_TEST_TMPDIR/s" --once
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"runs rows changed after they were shipped: shipping the table again"* ]]
	[[ "$output" == *"shipped completely"* ]]
	run fleet dump --redis "$REDIS_URL" --out "$OUT"
	echo "$output"
	same_run "$f" "$OUT"
	[ "$(sqlite3 "$OUT/$(basename "$f")" "SELECT exit_status FROM runs")" = 0 ]
	[[ "$output" == *"1 duplicates removed"* ]]
}

@test "Redis killed mid-ship and restarted: nothing lost, the dump is exact" {
	local f
	f="$(make_run "$RUNS" host-k 150000)"
	start_shipper k "$RUNS" --batch 200
	# some batches acknowledged, most rows still to go
	wait_until 60 '[ "$(acked_rows host-k)" -gt 2000 ]'
	! grep -q "shipped completely" "$BATS_TEST_TMPDIR/ship-k.log"
	kill_redis KILL
	wait_in "$BATS_TEST_TMPDIR/ship-k.log" "cannot connect|connection lost|Connection reset|Server closed"
	kill -0 "$SHIP_PID_k"
	start_redis
	wait_in "$BATS_TEST_TMPDIR/ship-k.log" "shipped completely" 300
	run fleet dump --redis "$REDIS_URL" --out "$OUT"
	echo "$output"
	[ "$status" -eq 0 ]
	same_run "$f" "$OUT"
	[ "$(stream_entries host-k)" -ge "$(file_rows "$f")" ]
}

@test "Redis restarted from an older AOF (acknowledged rows lost): they are shipped again" {
	local f acked
	f="$(make_run "$RUNS" host-o 150000)"
	start_shipper o "$RUNS" --batch 200
	wait_until 60 '[ "$(acked_rows host-o)" -gt 2000 ]'
	# what Redis will come back with: its AOF as it is now
	cp -a "$REDIS_DIR/appendonlydir" "$BATS_TEST_TMPDIR/aof-then"
	acked="$(acked_rows host-o)"
	wait_until 60 '[ "$(acked_rows host-o)" -gt $((acked + 5000)) ]'
	! grep -q "shipped completely" "$BATS_TEST_TMPDIR/ship-o.log"
	kill_redis KILL
	rm -rf "$REDIS_DIR/appendonlydir"
	cp -a "$BATS_TEST_TMPDIR/aof-then" "$REDIS_DIR/appendonlydir"
	start_redis
	wait_in "$BATS_TEST_TMPDIR/ship-o.log" "Redis holds [a-z_]+ rows up to [0-9]+, not [0-9]+ .*shipping them again" 60
	wait_in "$BATS_TEST_TMPDIR/ship-o.log" "shipped completely" 300
	run fleet dump --redis "$REDIS_URL" --out "$OUT"
	echo "$output"
	same_run "$f" "$OUT"
	[[ "$output" != *"not in Redis"* ]]
}

@test "shipper SIGKILLed mid-batch and restarted: the duplicates are removed, the dump is exact" {
	local f dups big total n i
	f="$(make_run "$RUNS" host-d 40000)"
	rcli acl setuser ship on '>s3cret' resetkeys '~bpftune:*' -@all +ping +xadd +eval \
		+hset +hsetnx +hget +hmget +hincrby +zadd >/dev/null
	# the largest table: the shipper is caught in the middle of it
	big="$(for t in $(sqlite3 "$f" "SELECT name FROM sqlite_master WHERE type = 'table'"); do
		echo "$(sqlite3 "$f" "SELECT count(*) FROM \"$t\"") $t"; done | sort -n | tail -1)"
	total="${big% *}" big="${big#* }"
	[ "$total" -ge 8000 ]
	SHIP_URL="redis://ship:s3cret@127.0.0.1:$REDIS_PORT" start_shipper d "$RUNS" --batch 500
	# stopped with batches of it acknowledged and several to go (so the
	# unacknowledged ones follow the run's first entry of it: the dump reads them)
	for ((i = 0; i < 3000; i++)); do
		kill -STOP "$SHIP_PID_d"
		n="$(rcli hget 'bpftune:{host-d}:host' "rows.$big")"
		[ "${n:-0}" -ge 1000 ] && [ "${n:-0}" -le $((total - 3000)) ] && break
		kill -CONT "$SHIP_PID_d"
		sleep 0.02
	done
	[ "${n:-0}" -ge 1000 ] && [ "${n:-0}" -le $((total - 3000)) ]
	# from now on a batch's XADDs are applied but never acknowledged
	rcli acl setuser ship -eval >/dev/null
	kill -CONT "$SHIP_PID_d"
	wait_in "$BATS_TEST_TMPDIR/ship-d.log" "recording a batch \(EVAL\): NOPERM"
	kill -KILL "$SHIP_PID_d"
	wait "$SHIP_PID_d" || true
	rcli acl setuser ship +eval >/dev/null
	run "$SHIP" --redis "redis://ship:s3cret@127.0.0.1:$REDIS_PORT" --dir "$RUNS" \
		--state "$BATS_TEST_TMPDIR/state-d" --once --batch 500
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(stream_entries host-d)" -gt "$(file_rows "$f")" ]
	[ "$(acked_rows host-d)" -eq "$(file_rows "$f")" ]
	run fleet dump --redis "$REDIS_URL" --out "$OUT"
	echo "$output"
	same_run "$f" "$OUT"
	dups="$(echo "$output" | sed -n 's/.* \([0-9]*\) duplicates removed, in .*/\1/p')"
	[ "$dups" -eq $(($(stream_entries host-d) - $(file_rows "$f"))) ]
	[ "$dups" -ge 500 ]
	# counted once however often shipped
	run fleet summary --redis "$REDIS_URL" --json
	[ "$(echo "$output" | $PY -c 'import json, sys; print(sum(c["changes"] for c in json.load(sys.stdin)["changes"].values()))')" \
	  -eq "$(sqlite3 "$f" 'SELECT count(*) FROM changes')" ]
}

@test "Redis emptied behind the shipper's back: the next shipper ships everything again" {
	local f
	f="$(make_run "$RUNS" host-e 2000)"
	"$SHIP" --redis "$REDIS_URL" --dir "$RUNS" --state "$BATS_TEST_TMPDIR/s" --once
	rcli flushall >/dev/null
	run "$SHIP" --redis "$REDIS_URL" --dir "$RUNS" --state "$BATS_TEST_TMPDIR/s" --once
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"Redis holds events rows up to 0, not "*"shipping them again"* ]]
	fleet dump --redis "$REDIS_URL" --out "$OUT"
	same_run "$f" "$OUT"
}

@test "wrong password: a clear error, the shipper keeps trying and ships once the user exists" {
	local f
	f="$(make_run "$RUNS" host-w 500)"
	run "$SHIP" --redis "redis://ship:nope@127.0.0.1:$REDIS_PORT" --dir "$RUNS" \
		--state "$BATS_TEST_TMPDIR/s1" --once
	echo "$output"
	[ "$status" -eq 2 ]
	[[ "$output" == *"authentication as ship failed: WRONGPASS"* ]]
	[[ "$output" == *"refused our credentials"* ]]
	[[ "$output" != *nope* ]]
	SHIP_URL="redis://ship:nope@127.0.0.1:$REDIS_PORT" start_shipper w "$RUNS"
	wait_in "$BATS_TEST_TMPDIR/ship-w.log" "authentication as ship failed"
	# the password is not shown by ps either
	! tr '\0' ' ' < "/proc/$SHIP_PID_w/cmdline" | grep -q nope
	rcli acl setuser ship on '>nope' '~bpftune:*' +@all >/dev/null
	wait_in "$BATS_TEST_TMPDIR/ship-w.log" "shipped completely" 60
	kill -0 "$SHIP_PID_w"
	fleet dump --redis "$REDIS_URL" --out "$OUT"
	same_run "$f" "$OUT"
}

@test "unreachable Redis: --once gives up with status 2; a running shipper waits, then ships" {
	local f port="$REDIS_PORT"
	f="$(make_run "$RUNS" host-n 500)"
	kill_redis
	run "$SHIP" --redis "redis://127.0.0.1:$port" --dir "$RUNS" --state "$BATS_TEST_TMPDIR/s" \
		--once --give-up 1
	echo "$output"
	[ "$status" -eq 2 ]
	[[ "$output" == *"redis://127.0.0.1:$port/0: cannot connect: Connection refused"* ]]
	[[ "$output" == *"Redis unavailable for 1 s: giving up"* ]]
	start_shipper n "$RUNS"
	wait_in "$BATS_TEST_TMPDIR/ship-n.log" "cannot connect"
	start_redis
	wait_in "$BATS_TEST_TMPDIR/ship-n.log" "shipped completely" 60
	fleet dump --redis "$REDIS_URL" --out "$OUT"
	same_run "$f" "$OUT"
	# bad URLs are refused before anything starts
	run "$SHIP" --redis "http://x" --once
	[ "$status" -eq 1 ]
	[[ "$output" == *"must start with redis://"* ]]
	run "$SHIP" --redis "redis://h:99999" --once
	[ "$status" -eq 1 ]
	[[ "$output" == *"port must be 1 to 65535"* ]]
	# ... and by every fleet command, in the same words where they apply
	local u
	for u in http://x redis://h:99999 'redis://u:%zz@h' unix://relative redis://h/x rediss://h; do
		run fleet hosts --redis "$u"
		echo "$u: $output"
		[ "$status" -eq 1 ]
		[[ "$output" == "bpftune-telemetry: --redis: "* ]]
	done
	kill_redis
	run fleet summary --redis "redis://127.0.0.1:$port"
	[ "$status" -eq 1 ]
	[[ "$output" == "bpftune-telemetry: redis: cannot connect: "*"Connection refused"* ]]
}

@test "corrupt, empty and foreign SQLite files: refused with a reason, the rest shipped" {
	local a b
	a="$(make_run "$RUNS" host-c1 300)"
	b="$(make_run "$RUNS" host-c2 300)"
	head -c 65536 /dev/urandom > "$RUNS/20250101T000001Z-garbage.db"
	: > "$RUNS/20250101T000002Z-empty.db"
	sqlite3 "$RUNS/20250101T000003Z-foreign.db" "CREATE TABLE t (x); INSERT INTO t VALUES (1)"
	# a run file cut short in the middle
	head -c 8192 "$a" > "$RUNS/20250101T000004Z-truncated.db"
	ln -s "$a" "$RUNS/20250101T000005Z-symlink.db"
	run "$SHIP" --redis "$REDIS_URL" --dir "$RUNS" --state "$BATS_TEST_TMPDIR/s" --once
	echo "$output"
	[ "$status" -eq 3 ]
	[[ "$output" == *"garbage.db: not shipped: not a readable SQLite file: file is not a database (the other files are)"* ]]
	[[ "$output" == *"empty.db: not shipped: not a bpftune run file: no meta table with run_id and host_id"* ]]
	[[ "$output" == *"foreign.db: not shipped: not a bpftune run file"* ]]
	[[ "$output" == *"truncated.db: not shipped: "* ]]
	[[ "$output" != *symlink* ]]
	[ "$(echo "$output" | grep -c "shipped completely")" -eq 2 ]
	fleet dump --redis "$REDIS_URL" --out "$OUT"
	same_run "$a" "$OUT"
	same_run "$b" "$OUT"
	[ "$(ls "$OUT"/*.db | wc -l)" -eq 2 ]
	run fleet hosts --redis "$REDIS_URL"
	echo "$output"
	[[ "$output" == *"refused: "*"garbage.db: not a readable SQLite file"* ]]
	# the files were not touched
	[ "$(stat -c %s "$RUNS/20250101T000002Z-empty.db")" -eq 0 ]
}

@test "fleet: Redis gone during a dump, a foreign stream entry: a clear error, no half-built file" {
	local a b pid st f
	a="$(make_run "$RUNS" host-g 20000)"
	b="$(make_run "$RUNS" host-g 20000)"
	"$SHIP" --redis "$REDIS_URL" --dir "$RUNS" --state "$BATS_TEST_TMPDIR/s" --once
	# stop the dump while it builds its first file, take Redis away, go on
	fleet dump --redis "$REDIS_URL" --out "$OUT" >"$BATS_TEST_TMPDIR/dump.log" 2>&1 &
	pid=$!
	wait_until 60 'compgen -G "$OUT/*.db.tmp" >/dev/null'
	kill -STOP "$pid"
	kill_redis KILL
	kill -CONT "$pid"
	st=0
	wait "$pid" || st=$?
	cat "$BATS_TEST_TMPDIR/dump.log"
	[ "$st" -eq 1 ]
	grep -q "^bpftune-telemetry: redis: connection lost: " "$BATS_TEST_TMPDIR/dump.log"
	! grep -q Traceback "$BATS_TEST_TMPDIR/dump.log"
	! compgen -G "$OUT/*.tmp*" >/dev/null
	# a file that is there is whole
	for f in "$OUT"/*.db; do
		[ -e "$f" ] || continue
		same_run "$RUNS/$(basename "$f")" "$OUT"
	done
	# every fleet command says the same, not a traceback
	run fleet hosts --redis "$REDIS_URL"
	[ "$status" -eq 1 ]
	[[ "$output" == "bpftune-telemetry: redis: cannot connect: "*"Connection refused"* ]]
	# an entry in a row stream that no shipper wrote
	start_redis
	"$SHIP" --redis "$REDIS_URL" --dir "$RUNS" --state "$BATS_TEST_TMPDIR/s2" --once
	rcli xadd 'bpftune:{host-g}:rows:samples_tcp' '*' _r "$(sqlite3 "$a" 'SELECT run_id FROM runs')" \
		_i 5 seq '?garbage' >/dev/null
	rcli hset "bpftune:{host-g}:run:$(sqlite3 "$a" 'SELECT run_id FROM runs')" last.samples_tcp \
		"$(rcli xinfo stream 'bpftune:{host-g}:rows:samples_tcp' | sed -n '/^last-generated-id$/{n;p}')" >/dev/null
	rm -rf "$OUT"
	run fleet dump --redis "$REDIS_URL" --out "$OUT"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"dump: samples_tcp of host host-g, entry "*": not a bpftune-ship value"* ]]
	[[ "$output" != *Traceback* ]]
	! compgen -G "$OUT/*.tmp*" >/dev/null
	# the other run is still dumped whole on its own
	fleet dump --redis "$REDIS_URL" --run "$(sqlite3 "$b" 'SELECT run_id FROM runs')" --out "$OUT"
	same_run "$b" "$OUT"
}

@test "job create/list/remove; a job's dump holds exactly its runs; collect --job labels" {
	local f
	make_run "$RUNS" host-j1 50 J1/iperf3 >/dev/null
	make_run "$RUNS" host-j2 50 J1/qperf >/dev/null
	make_run "$RUNS" host-j2 50 J2/iperf3 >/dev/null
	make_run "$RUNS" host-j3 50 J10/x >/dev/null
	make_run "$RUNS" host-j3 50 unlabelled >/dev/null
	"$SHIP" --redis "$REDIS_URL" --dir "$RUNS" --state "$BATS_TEST_TMPDIR/s" --once
	run fleet job create J1 --redis "$REDIS_URL" --info "tcp buffers, two workloads"
	[ "$status" -eq 0 ]
	run fleet job create J1 --redis "$REDIS_URL" --info again
	[ "$status" -eq 1 ]
	[[ "$output" == *"job J1 exists already"* ]]
	run fleet job create 'bad id' --redis "$REDIS_URL"
	[ "$status" -eq 1 ]
	fleet job create J2 --redis "$REDIS_URL"
	run fleet job list --redis "$REDIS_URL"
	echo "$output"
	[[ "$output" == *"J1  tcp buffers, two workloads  created "*": 2 host(s), 2 run(s)"* ]]
	[[ "$output" == *"J2    created "*": 1 host(s), 1 run(s)"* ]]
	[[ "$output" != *J10* ]]
	[ "$(rcli scard 'bpftune:job:{J1}:runs')" -eq 2 ]
	run fleet dump --redis "$REDIS_URL" --job J1 --out "$OUT"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(ls "$OUT"/*.db | wc -l)" -eq 2 ]
	for f in "$OUT"/*.db; do
		[[ "$(sqlite3 "$f" 'SELECT label FROM runs')" == J1/* ]]
		same_run "$RUNS/$(basename "$f")" "$OUT"
	done
	run fleet job remove J1 --redis "$REDIS_URL"
	[ "$status" -eq 0 ]
	run fleet job list --redis "$REDIS_URL" --json
	[ "$(echo "$output" | $PY -c 'import json, sys; print(",".join(j["id"] for j in json.load(sys.stdin)))')" = J2 ]
	run fleet job remove J1 --redis "$REDIS_URL"
	[ "$status" -eq 1 ]
	[[ "$output" == *"no job J1"* ]]
	run fleet dump --redis "$REDIS_URL" --job J1 --out "$OUT"
	[ "$status" -eq 1 ]
	# the rows of a removed job's runs stay
	[ "$(fleet hosts --redis "$REDIS_URL" --json | $PY -c 'import json, sys; print(sum(h["runs"] for h in json.load(sys.stdin)))')" -eq 5 ]
	# collect --job: checked before anything runs
	run $PY "$TOOL" collect --job 'no/slash' --workload listen-backlog
	[ "$status" -eq 1 ]
	[[ "$output" == *"--job takes 1-64 of"* ]]
}

@test "fleet hosts and summary: kernel, runs, lag, rows per table, counts across hosts" {
	local a b
	a="$(make_run "$RUNS/a" host-s1 400)"
	b="$(make_run "$RUNS/b" host-s2 400)"
	sqlite3 "$b" "INSERT INTO states SELECT run_id, host_id, 2, ts_uptime_us + 1, tuner_id, tuner,
		4096, 'netns x', 'MANUAL', 'admin wrote 1024' FROM states LIMIT 1;
		UPDATE health SET rows_dropped = 7, ringbuf_lost = 3 WHERE seq = (SELECT max(seq) FROM health)"
	"$SHIP" --redis "$REDIS_URL" --dir "$RUNS/a" --state "$BATS_TEST_TMPDIR/sa" --once
	"$SHIP" --redis "$REDIS_URL" --dir "$RUNS/b" --state "$BATS_TEST_TMPDIR/sb" --once
	run fleet hosts --redis "$REDIS_URL"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"host-s1 "*"6.1.0-test "*" 1  20"*"  0"* ]]
	[[ "$output" == *"rows: changes $(sqlite3 "$a" 'SELECT count(*) FROM changes'), decisions "* ]]
	run fleet summary --redis "$REDIS_URL" --json
	echo "$output"
	local changes
	changes=$(($(sqlite3 "$a" 'SELECT count(*) FROM changes') + $(sqlite3 "$b" 'SELECT count(*) FROM changes')))
	[ "$(echo "$output" | $PY -c 'import json, sys; t = json.load(sys.stdin); print(t["hosts"], t["runs"], t["changes"]["sample|net.core.somaxconn"]["changes"], t["overrides"]["sample"], t["lost"]["rows_dropped"], t["lost"]["ringbuf_lost"])')" = "2 2 $changes 1 7 3" ]
	# counts accumulate: new rows are added, old ones not counted again
	sqlite3 "$a" "INSERT INTO changes SELECT run_id, host_id, (SELECT max(seq) + 1 FROM changes), ts_uptime_us,
		decision_seq, event_seq, tuner_id, tuner, scenario_id, scenario, tunable_index, tunable,
		netns_cookie, netns, num_values, old_values, new_values, old_0, old_1, old_2, new_0, new_1,
		new_2, reason, errno, applied, rollback FROM changes LIMIT 1"
	"$SHIP" --redis "$REDIS_URL" --dir "$RUNS/a" --state "$BATS_TEST_TMPDIR/sa" --once
	run fleet summary --redis "$REDIS_URL"
	echo "$output"
	[[ "$output" == *"net.core.somaxconn"*"sample"*" $((changes + 1)) "* ]]
	[[ "$output" == *"7 rows dropped by the writer"* ]]
	[[ "$output" == *"(1 new entries counted now)"* ]]
}

@test "trimming: --maxlen keeps about N entries per stream, --max-age drops old ones" {
	make_run "$RUNS" host-m 3000 >/dev/null
	run "$SHIP" --redis "$REDIS_URL" --dir "$RUNS" --state "$BATS_TEST_TMPDIR/s" --once --maxlen 100
	[ "$status" -eq 0 ]
	local k n
	k="$(rcli --scan --pattern 'bpftune:{host-m}:rows:samples_tcp')"
	n="$(rcli xlen "$k")"
	# approximate trimming: whole stream nodes of up to 100 entries
	[ "$n" -ge 100 ] && [ "$n" -lt 300 ]
	run "$SHIP" --redis "$REDIS_URL" --maxlen 1 --max-age 1 --once
	[ "$status" -eq 1 ]
	[[ "$output" == *"exclude each other"* ]]

	# --max-age: a later run's XADDs drop the entries older than that
	local a b t0
	a="$(make_run "$RUNS/age" host-age 3000)"
	"$SHIP" --redis "$REDIS_URL" --dir "$RUNS/age" --state "$BATS_TEST_TMPDIR/sage" --once
	k='bpftune:{host-age}:rows:samples_tcp'
	n="$(rcli xlen "$k")"
	[ "$n" -eq "$(sqlite3 "$a" 'SELECT count(*) FROM samples_tcp')" ]
	t0="$(date +%s%N)"
	wait_until 10 '[ $(( ($(date +%s%N) - t0) / 1000000 )) -gt 1500 ]'
	b="$(make_run "$RUNS/age" host-age 3000)"
	"$SHIP" --redis "$REDIS_URL" --dir "$RUNS/age" --state "$BATS_TEST_TMPDIR/sage" --once --max-age 1
	[ "$(rcli xlen "$k")" -lt "$((n + $(sqlite3 "$b" 'SELECT count(*) FROM samples_tcp')))" ]
	# the new run is whole
	fleet dump --redis "$REDIS_URL" --run "$(sqlite3 "$b" 'SELECT run_id FROM runs')" --out "$OUT"
	same_run "$b" "$OUT"
	# the old one has lost rows, and the dump says how many
	run fleet dump --redis "$REDIS_URL" --run "$(sqlite3 "$a" 'SELECT run_id FROM runs')" --out "$OUT"
	echo "$output"
	[[ "$output" == *"samples_tcp: "*" acknowledged rows not in Redis (trimmed or lost)"* ]]
}

@test "the installed bpftune-ship unit passes systemd-analyze verify, hardened" {
	command -v systemd-analyze >/dev/null || skip "systemd-analyze not installed"
	local unit="$SUITE_PREFIX/lib/systemd/system/bpftune-ship.service" score
	[ -f "$unit" ]
	grep -q "^ExecStart=$SUITE_PREFIX/sbin/bpftune-ship " "$unit"
	[ -x "$SUITE_PREFIX/sbin/bpftune-ship" ]
	# Documentation=man:bpftune-ship(8): the page make install put in the prefix
	[ -f "$SUITE_PREFIX/share/man/man8/bpftune-ship.8" ]
	# (--man=no: the page is checked above; man-db looking it up from a
	# 0700 temporary prefix failed once with code 16 on a busy host)
	run systemd-analyze verify --man=no "$unit"
	echo "$output"
	[ "$status" -eq 0 ]
	# no capability, read-only but for its state, network only to Redis
	grep -q '^CapabilityBoundingSet=$' "$unit"
	grep -q '^ProtectSystem=strict$' "$unit"
	grep -q '^StateDirectory=bpftune-ship$' "$unit"
	grep -q '^RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6$' "$unit"
	run systemd-analyze security --offline=true "$unit"
	echo "$output" | tail -1
	score="$(echo "$output" | sed -n 's/.*Overall exposure level for .*: \([0-9.]*\) .*/\1/p')"
	[ -n "$score" ]
	# "OK" or better (systemd rates 0-10, lower is safer)
	awk -v s="$score" 'BEGIN { exit !(s < 2.5) }'
}

@test "Redis Cluster: each host's keys on one shard, the shipper follows MOVED, fleet works" {
	local h f files=() port n nodes
	start_cluster 3
	for h in host-x host-y host-z; do
		files+=("$(make_run "$RUNS/$h" "$h" 500 "JC/$h")")
		# every shipper is given the same node: two of three are redirected
		"$SHIP" --redis "redis://127.0.0.1:${CLUSTER_PORTS[0]}" --dir "$RUNS/$h" \
			--state "$BATS_TEST_TMPDIR/s-$h" --once
	done
	for h in host-x host-y host-z; do
		nodes=0
		for port in "${CLUSTER_PORTS[@]}"; do
			n="$(redis-cli -p "$port" --scan --pattern "bpftune:{$h}:*" | wc -l)"
			[ "$n" -gt 0 ] && nodes=$((nodes + 1))
		done
		[ "$nodes" -eq 1 ]
	done
	# the central side, given any node
	run fleet dump --redis "redis://127.0.0.1:${CLUSTER_PORTS[2]}" --out "$OUT"
	echo "$output"
	[ "$status" -eq 0 ]
	for f in "${files[@]}"; do
		same_run "$f" "$OUT"
	done
	fleet job create JC --redis "redis://127.0.0.1:${CLUSTER_PORTS[1]}"
	run fleet job list --redis "redis://127.0.0.1:${CLUSTER_PORTS[1]}"
	[[ "$output" == *"JC    created "*": 3 host(s), 3 run(s)"* ]]
	run fleet summary --redis "redis://127.0.0.1:${CLUSTER_PORTS[1]}" --json
	echo "$output"
	[ "$(echo "$output" | $PY -c 'import json, sys; t = json.load(sys.stdin); print(t["hosts"], t["runs"], sum(c["changes"] for c in t["changes"].values()))')" = \
	  "3 3 $(( $(sqlite3 "${files[0]}" 'SELECT count(*) FROM changes') * 3 ))" ]
}
