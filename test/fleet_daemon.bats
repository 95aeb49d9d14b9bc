#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# bpftune-ship with the real daemon's run files: three hosts (--host-id)
# shipped at once and dumped back identical, and a run shipped while the
# daemon writes it.  Runs the daemon: under the host-kernel lock.

load helpers
load fleet_helpers

setup() {
	SHIPPERS=()
	command -v redis-server >/dev/null || skip "redis-server is not installed"
	SAVED_SOMAXCONN="$(cat /proc/sys/net/core/somaxconn)"
	OUT="$BATS_TEST_TMPDIR/dump"
}

teardown() {
	[ -n "${BATS_TEST_COMPLETED:-}" ] || [ -z "${LOG:-}" ] || tail -40 "$LOG" >&3
	fleet_teardown
	common_teardown
}

# one short run of the real daemon as host @1: the sample tuner raises
# somaxconn in a netns (a change), samples every 100 ms
daemon_run() {
	local host="$1" ns="$2" tel="$BATS_TEST_TMPDIR/$1" db
	ip netns exec "$ns" sysctl -qw net.core.somaxconn=128
	start_daemon --telemetry-dir "$tel" --host-id "$host" --label "JF/$host" \
		--sample-interval 100
	listen_backlog "$ns" 4096
	wait_for_log "somaxconn 128 -> [0-9]+ in netns $ns"
	db="$(ls "$tel"/*.db)"
	wait_until 30 '[ "$(sqlite3 -readonly "$db" "SELECT count(*) FROM changes")" -ge 1 ] &&
		[ "$(sqlite3 -readonly "$db" "SELECT count(*) FROM samples_system")" -ge 5 ]'
	stop_daemon
	[ "$DAEMON_STATUS" -eq 0 ]
}

@test "three hosts' real run files, shipped at once, dump back identical; a job holds them" {
	local ns h f p pids=() changes=0
	ns="$(make_netns)"
	make_plugin_dir admin_override sample
	for h in fleet-a fleet-b fleet-c; do
		daemon_run "$h" "$ns"
	done
	start_redis
	for h in fleet-a fleet-b fleet-c; do
		"$SHIP" --redis "$REDIS_URL" --dir "$BATS_TEST_TMPDIR/$h" \
			--state "$BATS_TEST_TMPDIR/state-$h" --once --batch 50 &
		pids+=("$!")
	done
	for p in "${pids[@]}"; do
		wait "$p"
	done
	run fleet dump --redis "$REDIS_URL" --out "$OUT"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"3 run(s)"*"0 duplicates removed"* ]]
	for h in fleet-a fleet-b fleet-c; do
		f="$(ls "$BATS_TEST_TMPDIR/$h"/*.db)"
		[ "$(sqlite3 -readonly "$f" "SELECT DISTINCT host_id FROM samples_system")" = "$h" ]
		[ "$(sqlite3 -readonly "$f" "SELECT value FROM meta WHERE key = 'host_id'")" = "$h" ]
		same_run "$f" "$OUT"
		changes=$((changes + $(sqlite3 -readonly "$f" "SELECT count(*) FROM changes")))
	done
	run fleet hosts --redis "$REDIS_URL"
	echo "$output"
	for h in fleet-a fleet-b fleet-c; do
		[[ "$output" == *"$h "*"$(uname -r) "*" 1  20"* ]]
	done
	# seed 002's controller over the real runs: the job holds exactly them
	fleet job create JF --redis "$REDIS_URL" --info "three hosts"
	run fleet job list --redis "$REDIS_URL"
	echo "$output"
	[[ "$output" == *"JF  three hosts  created "*": 3 host(s), 3 run(s)"* ]]
	rm -rf "$OUT"
	fleet dump --redis "$REDIS_URL" --job JF --out "$OUT"
	[ "$(ls "$OUT"/*.db | wc -l)" -eq 3 ]
	run fleet summary --redis "$REDIS_URL" --json
	[ "$(echo "$output" | $PY -c 'import json, sys; t = json.load(sys.stdin); print(t["hosts"], sum(c["changes"] for c in t["changes"].values()))')" = "3 $changes" ]
	# the local tools work on the fleet's files unchanged
	run $PY "$TOOL" export --csv "$BATS_TEST_TMPDIR/csv" "$OUT"
	[ "$status" -eq 0 ]
	[ "$(($(wc -l < "$BATS_TEST_TMPDIR/csv/runs.csv") - 1))" -eq 3 ]
}

@test "a run file the daemon is still writing is shipped as it grows, and whole at the end" {
	local tel="$BATS_TEST_TMPDIR/live" n run_id f
	make_plugin_dir sample
	start_redis
	start_daemon --telemetry-dir "$tel" --host-id fleet-live --sample-interval 100
	start_shipper live "$tel" --interval 200
	wait_until 60 '[ "$(rcli hget "bpftune:{fleet-live}:host" rows.samples_system)" -ge 3 ]'
	n="$(rcli hget "bpftune:{fleet-live}:host" rows.samples_system)"
	kill -0 "$DAEMON_PID"
	f="$(ls "$tel"/*.db)"
	run_id="$(sqlite3 -readonly "$f" "SELECT value FROM meta WHERE key = 'run_id'")"
	# open in the daemon: shipped so far, not final
	[ "$(rcli hget "bpftune:{fleet-live}:run:$run_id" done)" = "" ]
	# more rows arrive while the daemon runs
	wait_until 60 '[ "$(rcli hget "bpftune:{fleet-live}:host" rows.samples_system)" -ge $((n + 5)) ]'
	kill -0 "$DAEMON_PID"
	run fleet hosts --redis "$REDIS_URL"
	echo "$output"
	[[ "$output" == *"fleet-live "*"$(uname -r) "* ]]
	stop_daemon
	[ "$DAEMON_STATUS" -eq 0 ]
	# the end of the run is an UPDATE of a row shipped at the start
	wait_in "$BATS_TEST_TMPDIR/ship-live.log" "runs rows changed after they were shipped" 60
	wait_in "$BATS_TEST_TMPDIR/ship-live.log" "run $run_id of host fleet-live shipped completely" 60
	[ "$(rcli hget "bpftune:{fleet-live}:run:$run_id" done)" = 1 ]
	[ "$(rcli hget "bpftune:{fleet-live}:host" pending)" -eq 0 ]
	run fleet dump --redis "$REDIS_URL" --out "$OUT"
	echo "$output"
	same_run "$f" "$OUT"
	[ -n "$(sqlite3 "$OUT/$(basename "$f")" "SELECT end_ts_uptime_us FROM runs")" ]
	[ "$(sqlite3 "$OUT/$(basename "$f")" "SELECT exit_status FROM runs")" = 0 ]
}

@test "collect --job: the runs it makes belong to the job, shipped and dumped as they are" {
	local o="$BATS_TEST_TMPDIR/collect" f
	[ "$MODE" = host ] || skip "runs the daemon itself"
	make_plugin_dir sample
	run $PY "$TOOL" collect --job JK --workload cpu_bound_4p --runs 2 --duration 1 \
		--settle 0.2 --bpftune "$BPFTUNE" --libdir "$PLUGIN_DIR" --sample-interval 200 --out "$o"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(ls "$o"/*.db | wc -l)" -eq 2 ]
	start_redis
	"$SHIP" --redis "$REDIS_URL" --dir "$o" --state "$BATS_TEST_TMPDIR/state-k" --once
	fleet job create JK --redis "$REDIS_URL" --info "collect --job"
	run fleet job list --redis "$REDIS_URL"
	echo "$output"
	[[ "$output" == *"JK  collect --job  created "*": 1 host(s), 2 run(s)"* ]]
	fleet dump --redis "$REDIS_URL" --job JK --out "$OUT"
	[ "$(ls "$OUT"/*.db | wc -l)" -eq 2 ]
	for f in "$o"/*.db; do
		[[ "$(sqlite3 -readonly "$f" 'SELECT label FROM runs')" == JK/cpu_bound_4p* ]]
		same_run "$f" "$OUT"
	done
}
