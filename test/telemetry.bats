#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# Telemetry tables: the daemon records what it saw, decided and changed in
# one SQLite file per run; checked with python3's sqlite3, as a user would.

load helpers
load telemetry_helpers

setup() {
	SAVED_SOMAXCONN="$(cat /proc/sys/net/core/somaxconn)"
	TEL="$BATS_TEST_TMPDIR/telemetry"
	FLOOD="$BUILD/test/flood"
}

teardown() {
	# a failed test shows the daemon's log
	[ -n "${BATS_TEST_COMPLETED:-}" ] || [ -z "${LOG:-}" ] || tail -40 "$LOG" >&3
	common_teardown
	[ -z "${JDIR:-}" ] || rm -rf "$JDIR"
}

@test "a tuner's change is recorded: run, events, decisions (no-ops too), changes, samples" {
	local ns db global c
	ns="$(make_netns)"
	make_plugin_dir admin_override sample
	ip netns exec "$ns" sysctl -qw net.core.somaxconn=128
	global="$(somaxconn_in -)"
	start_daemon --telemetry-dir "$TEL" --label bats-change --sample-interval 100
	listen_backlog "$ns" 1000000
	wait_for_log "somaxconn 128 -> 65535 in netns $ns"
	# at the cap already: the tuner decides, nothing changes
	listen_backlog "$ns" 2000000
	wait_for_log "called listen\(\) with backlog 2000000"
	[ "$(somaxconn_in "$ns")" -eq 65535 ]
	db="$(tel_db)"
	[ -f "$db" ]
	[[ "$db" == "$TEL"/*.db ]]

	# readable while the daemon runs: flushed within a few sample intervals
	local i
	for i in $(seq 1 50); do
		[ "$(sql "SELECT count(*) FROM decisions WHERE tuner = 'sample'")" -ge 2 ] && break
		sleep 0.1
	done
	[ "$(sql "SELECT count(*) FROM decisions WHERE tuner = 'sample'")" -ge 2 ]
	[ "$(sql "SELECT count(*) FROM samples_system")" -ge 1 ]
	stop_daemon
	[ "$DAEMON_STATUS" -eq 0 ]

	# the run
	[ "$(sql "SELECT label, exit_status, observe_only, learning_rate FROM runs")" = "bats-change|0|0|4" ]
	[ "$(sql "SELECT count(*) FROM runs WHERE end_ts_uptime_us > ts_uptime_us AND kernel_release = '$(uname -r)' AND tuners LIKE '%sample%' AND host_id != '' AND boot_id = '$(cat /proc/sys/kernel/random/boot_id)'")" -eq 1 ]
	[ "$(sql "PRAGMA user_version")" -eq "$("$BUILD/bin/telemetry-schema" --version)" ]
	[ "$(sql "SELECT value FROM meta WHERE key = 'schema_version'")" -eq "$(sql "PRAGMA user_version")" ]
	[ "$(sql "SELECT count(DISTINCT run_id) FROM events")" -eq 1 ]
	[ "$(sql "SELECT count(*) FROM events e JOIN runs r USING (run_id, host_id)")" -eq "$(sql "SELECT count(*) FROM events")" ]
	# tuners, tunables with their caps and initial value, states
	[ "$(sql "SELECT min, max, namespaced FROM tunables WHERE tunable = 'net.core.somaxconn'")" = "128|65535|1" ]
	[ "$(sql "SELECT initial_0 FROM tunables WHERE tunable = 'net.core.somaxconn'")" -eq "$global" ]
	[ "$(sql "SELECT count(*) FROM states WHERE tuner = 'sample' AND state = 'ACTIVE' AND cause = 'started'")" -eq 1 ]

	# the daemon sees the whole machine (other tests too): look at our netns
	[ "$(sql "SELECT count(*) FROM changes WHERE netns LIKE 'netns $ns (cookie %'")" -eq 1 ]
	c="$(sql "SELECT netns_cookie FROM changes WHERE netns LIKE 'netns $ns (cookie %'")"
	[ "$(sql "SELECT netns FROM changes WHERE netns_cookie = $c")" = "netns $ns (cookie $c)" ]

	# the events: who, where, and the payload (s32 backlog, s32 somaxconn)
	[ "$(sql "SELECT count(*) FROM events WHERE tuner = 'sample' AND netns_cookie = $c AND comm = 'python3' AND pid > 0")" -eq 2 ]
	[ "$(sql "SELECT payload_hex FROM events WHERE tuner = 'sample' AND netns_cookie = $c ORDER BY seq LIMIT 1")" = "40420f0080000000" ]

	# the change matches the sysctl before and after
	[ "$(sql "SELECT tunable, old_0, new_0, old_values, new_values, errno, applied, rollback FROM changes WHERE netns_cookie = $c")" = "net.core.somaxconn|128|65535|128|65535|0|1|0" ]
	[[ "$(sql "SELECT reason FROM changes WHERE netns_cookie = $c")" == *"asked for backlog 1000000"* ]]

	# every decision points at its event; the change at its decision; the
	# second decision changed nothing (no changes row refers to it)
	[ "$(sql "SELECT count(*) FROM decisions d JOIN events e ON e.seq = d.event_seq AND e.tuner = d.tuner AND e.netns_cookie = d.netns_cookie WHERE d.tuner = 'sample' AND d.netns_cookie = $c")" -eq 2 ]
	[ "$(sql "SELECT d.policy, d.action, d.tunable, d.netns_cookie FROM changes c JOIN decisions d ON d.seq = c.decision_seq WHERE c.netns_cookie = $c")" = "raise-to-request|raise|net.core.somaxconn|$c" ]
	[ "$(sql "SELECT count(*) FROM decisions d WHERE tuner = 'sample' AND netns_cookie = $c AND NOT EXISTS (SELECT 1 FROM changes c WHERE c.decision_seq = d.seq)")" -eq 1 ]
	[[ "$(sql "SELECT inputs FROM decisions WHERE tuner = 'sample' AND netns_cookie = $c ORDER BY seq DESC LIMIT 1")" == *"backlog=2000000 somaxconn=65535"* ]]
	[ "$(sql "SELECT count(*) FROM decisions WHERE epsilon IS NOT NULL OR explored IS NOT NULL")" -eq 0 ]

	# the inputs typed: a row per decision in its policy's own table, one
	# column per declared input (types and units declared in the file)
	[ "$(sql "SELECT count(*) FROM decisions_sample_raise_to_request p JOIN decisions d ON d.seq = p.decision_seq AND d.event_seq = p.event_seq WHERE p.netns_cookie = $c AND d.netns_cookie = $c AND d.policy = 'raise-to-request' AND d.action = p.decided")" -eq 2 ]
	[ "$(sql "SELECT typeof(backlog), typeof(somaxconn), backlog, somaxconn, decided, tunable, scenario FROM decisions_sample_raise_to_request WHERE netns_cookie = $c ORDER BY seq")" = "integer|integer|1000000|128|raise|net.core.somaxconn|listen backlog truncated
integer|integer|2000000|65535|raise|net.core.somaxconn|listen backlog truncated" ]
	[ "$(sql "SELECT type, unit FROM telemetry_columns WHERE table_name = 'decisions_sample_raise_to_request' AND column_name = 'somaxconn'")" = "INTEGER|connections" ]
	# the core's admin-policy table is there too, empty (no config file)
	[ "$(sql "SELECT count(*) FROM decisions_sample_admin_policy")" -eq 0 ]
	! grep -q "typed inputs not recorded" "$LOG"
	# export: a decision row is a training example, one column per input
	"$REPO/tools/bpftune-telemetry" export --csv "$BATS_TEST_TMPDIR/csv" "$db" >/dev/null
	python3 - "$BATS_TEST_TMPDIR/csv/decisions_sample_raise_to_request.csv" "$c" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["netns_cookie"] == sys.argv[2]]
assert [(r["backlog"], r["somaxconn"], r["decided"]) for r in rows] == \
    [("1000000", "128", "raise"), ("2000000", "65535", "raise")], rows
assert all(r["label"] == "bats-change" and r["trace_id"] for r in rows), rows
PY

	# the core's periodic samples and health, real values; the domain
	# tables are their plugins': none of those ran, none is in the file
	local t
	for t in samples_system health; do
		[ "$(sql "SELECT count(*) FROM $t")" -ge 2 ]
	done
	[ "$(sql "SELECT count(*) FROM samples_system WHERE mem_total_kb > 0 AND threads > 0 AND cpu_idle > 0")" -ge 2 ]
	[ "$(sql "SELECT count(*) FROM sqlite_master WHERE name LIKE 'samples_%' AND name != 'samples_system'")" -eq 0 ]
	# the sample tuner's own table: a row for each truncated listen() here
	[ "$(sql "SELECT pid > 0, comm, backlog, somaxconn FROM sample_listen WHERE netns_cookie = $c ORDER BY seq")" = \
	  "1|python3|1000000|128"$'\n'"1|python3|2000000|65535" ]
	# every table but meta is declared in the file, with its owner
	[ "$(sql "SELECT owner FROM telemetry_tables WHERE table_name = 'sample_listen'")" = sample ]
	[ "$(sql "SELECT owner FROM telemetry_tables WHERE table_name = 'events'")" = core ]
	[ "$(sql "SELECT count(*) FROM telemetry_tables")" -eq "$(sql "SELECT count(*) - 1 FROM sqlite_master WHERE type = 'table'")" ]
	[ "$(sql "SELECT group_concat(column_name || ':' || coalesce(draw, '-'), ' ') FROM telemetry_columns WHERE table_name = 'sample_listen' AND position >= 4")" = \
	  "netns_cookie:- pid:- comm:- backlog:cdf somaxconn:value" ]
	[ "$(sql "SELECT rows_dropped, events_dropped, queue_capacity FROM health ORDER BY seq DESC LIMIT 1")" = "0|0|4096" ]
	[ "$(sql "SELECT events_seen FROM health ORDER BY seq DESC LIMIT 1")" -eq "$(sql "SELECT count(*) FROM events")" ]
	[ "$(sql "SELECT count(*) FROM health WHERE rss_kb > 0 AND cpu_user_us + cpu_system_us > 0 AND db_bytes > 0")" -ge 2 ]

	# one clock, per-table seq without gaps, everything inside the run
	run check_clock_and_seq
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "after SIGKILL the file passes integrity_check and keeps what was flushed" {
	local ns
	ns="$(make_netns)"
	make_plugin_dir admin_override sample
	ip netns exec "$ns" sysctl -qw net.core.somaxconn=128
	start_daemon --telemetry-dir "$TEL" --sample-interval 50
	listen_backlog "$ns" 4096
	wait_for_log "somaxconn 128 -> 4096"
	local i
	for i in $(seq 1 50); do
		[ "$(sql "SELECT count(*) FROM changes WHERE netns LIKE 'netns $ns (cookie %'")" -eq 1 ] && break
		sleep 0.1
	done
	kill_daemon
	[ "$(sql "PRAGMA integrity_check")" = "ok" ]
	[ "$(sql "SELECT old_0, new_0 FROM changes WHERE netns LIKE 'netns $ns (cookie %'")" = "128|4096" ]
	# the run never ended cleanly, and says so
	[ "$(sql "SELECT count(*) FROM runs WHERE end_ts_uptime_us IS NULL AND exit_status IS NULL")" -eq 1 ]
	run check_clock_and_seq
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "--observe: decisions and would-be changes are recorded, the sysctl is untouched" {
	local ns c
	ns="$(make_netns)"
	make_plugin_dir admin_override sample
	ip netns exec "$ns" sysctl -qw net.core.somaxconn=128
	start_daemon --telemetry-dir "$TEL" --observe --label observe
	grep -q "observe-only (--observe)" "$LOG"
	listen_backlog "$ns" 2048
	wait_for_log "observe-only, not setting net.core.somaxconn 128 -> 2048 in netns $ns"
	[ "$(somaxconn_in "$ns")" -eq 128 ]
	# asked again: decided again, still nothing written
	listen_backlog "$ns" 2048
	local i
	for i in $(seq 1 100); do
		[ "$(grep -c "observe-only, not setting" "$LOG")" -ge 2 ] && break
		sleep 0.1
	done
	stop_daemon
	[ "$(somaxconn_in "$ns")" -eq 128 ]
	grep -q "summary: no sysctl was changed" "$LOG"
	[ "$(sql "SELECT observe_only FROM runs")" -eq 1 ]
	c="$(sql "SELECT DISTINCT netns_cookie FROM changes WHERE netns LIKE 'netns $ns (cookie %'")"
	[ "$(sql "SELECT count(*) FROM decisions WHERE tuner = 'sample' AND netns_cookie = $c")" -eq 2 ]
	[ "$(sql "SELECT count(*) FROM changes WHERE netns_cookie = $c AND old_0 = 128 AND new_0 = 2048 AND applied = 0 AND errno = 0")" -eq 2 ]
	# observe-only: no change anywhere was applied, whatever else ran
	[ "$(sql "SELECT count(*) FROM changes WHERE applied = 1")" -eq 0 ]
}

# voluntary context switches (wake-ups) of the daemon's thread named $1
# (bpftune: the main thread, bpftune-writer), or of all its threads
wakeups() {
	local t n=0
	for t in /proc/"$DAEMON_PID"/task/*; do
		[ -z "${1:-}" ] || [ "$(cat "$t/comm")" = "$1" ] || continue
		n=$((n + $(awk '/^voluntary_ctxt_switches/ {print $2}' "$t/status")))
	done
	echo "$n"
}

@test "--no-telemetry: no file, no writer thread, no periodic wake-up; with it, one per sample interval" {
	local a b m0 m1
	# the flood fixture sees nothing unless asked: an idle daemon
	make_plugin_dir flood
	start_daemon --telemetry-dir "$TEL" --no-telemetry
	! grep -q "telemetry" "$LOG"
	! grep -qx bpftune-writer /proc/"$DAEMON_PID"/task/*/comm
	a="$(wakeups)"
	sleep 1.5
	b="$(wakeups)"
	echo "idle wake-ups without telemetry: $((b - a))"
	[ $((b - a)) -le 2 ]
	stop_daemon
	[ -z "$(ls "$TEL" 2>/dev/null)" ]

	# the sample timer is the writer's: the main thread does not wake for it
	start_daemon --telemetry-dir "$TEL" --sample-interval 100
	grep -qx bpftune-writer /proc/"$DAEMON_PID"/task/*/comm
	a="$(wakeups bpftune-writer)"
	m0="$(wakeups bpftune)"
	# the sample timer wakes it: 7 times (1.5 s when it is not starved)
	local i
	for i in $(seq 1 100); do
		b="$(wakeups bpftune-writer)"
		[ $((b - a)) -ge 7 ] && break
		sleep 0.1
	done
	m1="$(wakeups bpftune)"
	echo "idle wake-ups with 100 ms samples: writer $((b - a)) in $((i / 10)).$((i % 10)) s, main thread $((m1 - m0))"
	[ $((b - a)) -ge 7 ]
	[ $((b - a)) -le 20 ]
	[ $((m1 - m0)) -le 2 ]
	stop_daemon
	[ "$(ls "$TEL"/*.db | wc -l)" -eq 1 ]
}

@test "a flood of events: every loss is counted, memory stays bounded, the daemon keeps up" {
	local n=1000000 rss0 rss1
	[ -x "$FLOOD" ] || skip "make fixtures builds $FLOOD"
	# qemu TCG guests (the kernel matrix) run syscalls far slower
	[ "$MODE" = host ] || n=200000
	make_plugin_dir flood
	start_daemon --telemetry-dir "$TEL" --sample-interval 200 --socket "$BATS_TEST_TMPDIR/s"
	rss0="$(awk '/^VmRSS/ {print $2}' /proc/"$DAEMON_PID"/status)"
	"$FLOOD" "$n"
	# a marker after the flood (again while the ring buffer is still full
	# and loses it): once it is handled, the daemon has caught up
	local markers=0 i
	for i in $(seq 1 60); do
		"$FLOOD" --marker
		markers=$((markers + 1))
		wait_for_log "flood: marker from pid" 1 && break
	done
	wait_for_log "flood: marker from pid" 1
	rss1="$(awk '/^VmRSS/ {print $2}' /proc/"$DAEMON_PID"/status)"
	echo "RSS ${rss0} kB -> ${rss1} kB"
	# every getpgid() is an event the fixture was handed, or one its BPF
	# side counted lost (the fixture's own counts: the core mechanisms see
	# every sysctl write and netns of this shared machine, anyone's)
	local seen lost
	seen="$("$BPFTUNE" --socket "$BATS_TEST_TMPDIR/s" -q tuners | sed -n 's/^flood: .*, \([0-9]*\) events (.*/\1/p')"
	lost="$("$BPFTUNE" --socket "$BATS_TEST_TMPDIR/s" -q metrics | sed -n 's/^bpftune_ringbuf_lost_total{tuner="flood"} //p')"
	echo "flood: $seen events handed over, $lost lost"
	[ $((seen + lost)) -eq $((n + markers)) ]
	stop_daemon
	[ "$DAEMON_STATUS" -eq 0 ]
	sql "SELECT * FROM health ORDER BY seq DESC LIMIT 1"
	# the health rows count them too, with the core mechanisms' events
	[ "$(sql "SELECT ringbuf_lost + events_seen FROM health ORDER BY seq DESC LIMIT 1")" -ge $((n + markers)) ]
	# every delivered event is a row, or a row counted as dropped
	[ "$(sql "SELECT events_seen - events_dropped FROM health ORDER BY seq DESC LIMIT 1")" -eq "$(sql "SELECT count(*) FROM events")" ]
	[ "$(sql "SELECT max(seq) FROM events")" -le "$(sql "SELECT events_seen FROM health ORDER BY seq DESC LIMIT 1")" ]
	# the fixture decides once per event (the core mechanisms decide
	# nothing): what the queue refused is exactly what is missing from the
	# two tables
	[ "$(sql "SELECT rows_dropped FROM health ORDER BY seq DESC LIMIT 1")" -eq \
	  "$(sql "SELECT (SELECT events_seen FROM health ORDER BY seq DESC LIMIT 1) + $seen - (SELECT count(*) FROM events) - (SELECT count(*) FROM decisions)")" ]
	# this many events in so little time outrun the daemon: something was
	# lost, and counted (the equalities above)
	[ "$(sql "SELECT ringbuf_lost + rows_dropped FROM health ORDER BY seq DESC LIMIT 1")" -gt 0 ]
	[ "$(sql "SELECT max(queue_max_depth) <= 4096 FROM health")" -eq 1 ]
	# the queue is preallocated: RSS does not grow with the flood (a
	# sanitizer build keeps freed memory in quarantine: not a measure)
	[ "$SANITIZED" = 1 ] || [ $((rss1 - rss0)) -lt 32768 ]
	[ "$(sql "PRAGMA integrity_check")" = "ok" ]
}

@test "-R: the restore of an original value on exit is a rollback row" {
	local ns c
	ns="$(make_netns)"
	make_plugin_dir admin_override sample
	ip netns exec "$ns" sysctl -qw net.core.somaxconn=128
	# the journal wants a directory only root can write to
	JDIR="$(mktemp -d /run/bpftune-tel-journal.XXXXXX)"
	chmod 0755 "$JDIR"
	start_daemon --telemetry-dir "$TEL" -R --journal "$JDIR/journal"
	listen_backlog "$ns" 1024
	wait_for_log "somaxconn 128 -> 1024 in netns $ns"
	stop_daemon
	[ "$(somaxconn_in "$ns")" -eq 128 ]
	c="$(sql "SELECT DISTINCT netns_cookie FROM changes WHERE netns LIKE 'netns $ns (cookie %'")"
	[ "$(sql "SELECT rollback, old_0, new_0, applied FROM changes WHERE netns_cookie = $c ORDER BY seq")" = \
	  "0|128|1024|1"$'\n'"1||128|1" ]
	[ "$(sql "SELECT tuner, tunable, decision_seq IS NULL FROM changes WHERE netns_cookie = $c AND rollback = 1")" = \
	  "sample|net.core.somaxconn|1" ]
}

@test "per-netns samples with the tcp_buffer tuner's BPF gauges: iperf3 across a netns pair" {
	local srv_c cli_c
	command -v iperf3 >/dev/null || skip "iperf3 is not installed"
	make_veth_pair
	srv_c="$(netns_cookie_of "$SRV")"
	cli_c="$(netns_cookie_of "$CLI")"
	make_plugin_dir tcp_buffer net_buffer
	# observe-only: the test looks, never tunes (tcp_mem is global)
	start_daemon --telemetry-dir "$TEL" --observe --sample-interval 200
	ip netns exec "$SRV" iperf3 -s -1 -D -I "$BATS_TEST_TMPDIR/iperf3.pid"
	local i
	for i in $(seq 1 50); do
		ip netns exec "$SRV" ss -Hltn 'sport = :5201' | grep -q . && break
		sleep 0.1
	done
	ip netns exec "$CLI" iperf3 -c 10.78.0.1 -t 2 >/dev/null
	# samples of both namespaces since the transfer (flushed as they go)
	for i in $(seq 1 100); do
		[ "$(sql "SELECT count(*) FROM samples_tcp WHERE netns_cookie = $srv_c")" -ge 3 ] &&
			[ "$(sql "SELECT count(*) FROM samples_tcp WHERE netns_cookie = $cli_c")" -ge 3 ] &&
			[ "$(sql "SELECT max(in_segs) FROM samples_tcp WHERE netns_cookie = $srv_c")" -gt 1000 ] && break
		sleep 0.2
	done
	stop_daemon
	[ "$DAEMON_STATUS" -eq 0 ]
	sql "SELECT netns_cookie, count(*), max(in_segs), sum(srtt_n), max(srtt_max_us), sum(rcv_rtt_n), max(rcvbuf_max), sum(sndbuf_n) FROM samples_tcp WHERE netns_cookie IN (0, $srv_c, $cli_c) GROUP BY 1"
	# both namespaces of the pair were sampled, each row with its cookie,
	# and saw the transfer in their own counters
	[ "$(sql "SELECT count(*) FROM samples_tcp WHERE netns_cookie = $srv_c")" -ge 3 ]
	[ "$(sql "SELECT count(*) FROM samples_tcp WHERE netns_cookie = $cli_c")" -ge 3 ]
	[ "$(sql "SELECT max(in_segs) FROM samples_tcp WHERE netns_cookie = $srv_c")" -gt 1000 ]
	[ "$(sql "SELECT max(rx_bytes) FROM samples_netdev WHERE netns_cookie = $srv_c")" -gt 10000000 ]
	# machine-wide columns only in the daemon's row
	[ "$(sql "SELECT count(*) FROM samples_tcp WHERE netns_cookie = $srv_c AND mem_pages IS NOT NULL")" -eq 0 ]
	[ "$(sql "SELECT count(*) FROM samples_netdev WHERE netns_cookie = $srv_c AND softnet_processed IS NOT NULL")" -eq 0 ]
	[ "$(sql "SELECT count(*) FROM samples_tcp WHERE netns_cookie = 0 AND mem_pages IS NULL")" -eq 0 ]
	# the BPF side's gauges: the sender's srtt in the client's netns, the
	# receiver's RTT estimate and autotuned buffer in the server's
	[ "$(sql "SELECT sum(srtt_n) FROM samples_tcp WHERE netns_cookie = $cli_c")" -gt 0 ]
	[ "$(sql "SELECT count(*) FROM samples_tcp WHERE netns_cookie = $cli_c AND srtt_n > 0 AND srtt_mean_us > 0 AND srtt_max_us >= srtt_mean_us")" -gt 0 ]
	[ "$(sql "SELECT sum(sndbuf_n) FROM samples_tcp WHERE netns_cookie = $cli_c")" -gt 0 ]
	[ "$(sql "SELECT sum(rcvbuf_n) FROM samples_tcp WHERE netns_cookie = $srv_c")" -gt 0 ]
	[ "$(sql "SELECT max(rcvbuf_max) FROM samples_tcp WHERE netns_cookie = $srv_c")" -gt 65536 ]
	# no observation means a count of 0 and no mean or max, never a fake 0
	[ "$(sql "SELECT count(*) FROM samples_tcp WHERE srtt_n = 0 AND (srtt_mean_us IS NOT NULL OR srtt_max_us IS NOT NULL)")" -eq 0 ]
	[ "$(sql "SELECT count(*) FROM samples_tcp WHERE srtt_n IS NULL")" -eq 0 ]
	# near-max counts are a part of their total
	[ "$(sql "SELECT count(*) FROM samples_tcp WHERE rcvbuf_near_max > rcvbuf_n OR sndbuf_near_max > sndbuf_n")" -eq 0 ]
	# the namespaces were counted in health; nothing failed to be entered
	# but namespaces other tests deleted meanwhile
	[ "$(sql "SELECT max(netns_sampled) FROM health")" -ge 2 ]
	[ "$(sql "SELECT count(*) FROM health WHERE netns_sampled > netns_known")" -eq 0 ]
	run check_clock_and_seq
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(sql "PRAGMA integrity_check")" = "ok" ]
}

@test "the domain tables are their plugins': declared in the file, a row per interval and netns" {
	local ns c t i
	ns="$(make_netns)"
	c="$(netns_cookie_of "$ns")"
	make_plugin_dir tcp_buffer udp_buffer neigh_table net_buffer ip_frag route_table
	# observe-only: the test looks, never tunes
	start_daemon --telemetry-dir "$TEL" --observe --sample-interval 100
	for i in $(seq 1 100); do
		[ "$(sql "SELECT count(*) FROM samples_frag WHERE netns_cookie = $c")" -ge 3 ] 2>/dev/null && break
		sleep 0.1
	done
	stop_daemon
	[ "$DAEMON_STATUS" -eq 0 ]
	# each table declared by the plugin that owns its domain, its columns
	# declared in their order
	for t in samples_tcp:tcp_buffer samples_udp:udp_buffer samples_neigh:neigh_table \
		 samples_netdev:net_buffer samples_frag:ip_frag samples_route:route_table; do
		[ "$(sql "SELECT owner, sampled FROM telemetry_tables WHERE table_name = '${t%%:*}'")" = "${t#*:}|1" ]
		[ "$(sql "SELECT group_concat(column_name) FROM (SELECT column_name FROM telemetry_columns WHERE table_name = '${t%%:*}' ORDER BY position)")" = \
		  "$(sql "SELECT group_concat(name) FROM pragma_table_info('${t%%:*}')")" ]
		[ "$(sql "SELECT count(*) FROM ${t%%:*}")" -ge 3 ]
	done
	# per netns: the daemon's row every interval, and ours
	for t in samples_tcp samples_udp samples_netdev samples_frag samples_route; do
		[ "$(sql "SELECT count(*) FROM $t WHERE netns_cookie = 0")" -eq "$(sql "SELECT count(*) FROM samples_system")" ]
		[ "$(sql "SELECT count(*) FROM $t WHERE netns_cookie = $c")" -ge 3 ]
	done
	# the neighbour tables are machine-wide: no netns_cookie
	[ "$(sql "SELECT count(*) FROM pragma_table_info('samples_neigh') WHERE name = 'netns_cookie'")" -eq 0 ]
	[ "$(sql "SELECT count(*) FROM samples_neigh")" -eq "$(sql "SELECT count(*) FROM samples_system")" ]
	# machine-wide columns in the daemon's row only; our netns' own counters
	[ "$(sql "SELECT count(*) FROM samples_udp WHERE netns_cookie = $c AND mem_pages IS NOT NULL")" -eq 0 ]
	[ "$(sql "SELECT count(*) FROM samples_udp WHERE netns_cookie = 0 AND mem_pages IS NULL")" -eq 0 ]
	[ "$(sql "SELECT count(*) FROM samples_tcp WHERE netns_cookie = $c AND in_segs IS NULL")" -eq 0 ]
	# rt6_stats of each netns, read in it, never NULL
	[ "$(sql "SELECT count(*) FROM samples_route WHERE fib_rt_entries IS NULL OR dst_entries IS NULL")" -eq 0 ]
	# tcp_buffer's gauges: nothing seen in the idle netns is a count of 0
	# and no mean, never a fake 0 or a NULL count
	[ "$(sql "SELECT count(*) FROM samples_tcp WHERE netns_cookie = $c AND (srtt_n != 0 OR srtt_mean_us IS NOT NULL)")" -eq 0 ]
	[ "$(sql "SELECT count(*) FROM samples_tcp WHERE srtt_n IS NULL")" -eq 0 ]
	run check_clock_and_seq
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "--sample-netns: at most N namespaces per interval, each in turn; 0: only the daemon's" {
	local a b c ca cb cc i
	a="$(make_netns)"; b="$(make_netns)"; c="$(make_netns)"
	ca="$(netns_cookie_of "$a")"; cb="$(netns_cookie_of "$b")"; cc="$(netns_cookie_of "$c")"
	# per-netns sampled tables: tcp_buffer's and udp_buffer's (looking only)
	make_plugin_dir tcp_buffer udp_buffer
	start_daemon --telemetry-dir "$TEL" --observe --sample-interval 50 --sample-netns 1
	# in turns: each of ours is sampled, and again (other tests' namespaces
	# take turns too); while that goes on, no netns fd is held between
	# samples (the writer's lives for a few microseconds: seen rarely)
	# (the daemon keeps its own netns open: the way back after a setns)
	local held=0 seen own
	own="$(readlink /proc/self/ns/net)"
	for i in $(seq 1 200); do
		ls -l /proc/"$DAEMON_PID"/fd 2>/dev/null | grep "net:\[" | grep -vqF "$own" &&
			held=$((held + 1))
		seen="$(sql "SELECT count(DISTINCT netns_cookie) FROM samples_tcp WHERE netns_cookie IN ($ca, $cb, $cc) GROUP BY netns_cookie HAVING count(*) >= 2" | wc -l)"
		[ "$seen" -eq 3 ] && break
		sleep 0.1
	done
	stop_daemon
	echo "netns fds seen open: $held of $i looks"
	[ "$seen" -eq 3 ]
	[ "$held" -le 1 ]
	# one netns besides the daemon's per interval, never more
	[ "$(sql "SELECT max(netns_sampled) FROM health")" -eq 1 ]
	[ "$(sql "SELECT count(*) FROM samples_udp WHERE netns_cookie != 0")" -le \
	  "$(sql "SELECT count(*) FROM samples_udp WHERE netns_cookie = 0")" ]
	[ "$(sql "SELECT min(netns_known) FROM health")" -ge 3 ]

	start_daemon --telemetry-dir "$TEL" --observe --sample-interval 50 --sample-netns 0
	for i in $(seq 1 100); do
		[ "$(sql "SELECT count(*) FROM samples_tcp WHERE netns_cookie = 0")" -ge 3 ] && break
		sleep 0.1
	done
	stop_daemon
	[ "$(sql "SELECT count(*) FROM samples_tcp WHERE netns_cookie != 0")" -eq 0 ]
	[ "$(sql "SELECT count(*) FROM samples_tcp WHERE netns_cookie = 0")" -ge 3 ]
	[ "$(sql "SELECT max(netns_sampled) FROM health")" -eq 0 ]
}

# old_run STAMP BYTES: an earlier run's file in $TEL, STAMP e.g. 20200101T000000Z
old_run() {
	local f="$TEL/$1-$(cat /proc/sys/kernel/random/uuid).db"
	head -c "$2" /dev/zero > "$f"
	echo "$f"
}

@test "--telemetry-keep and --telemetry-max-mb remove the oldest runs' files at start, and nothing else" {
	local r1 r2 r3 r4 r5 inuse notours other link i
	mkdir -p "$TEL"
	r1="$(old_run 20200101T000000Z 1000)"
	touch "$r1-wal" "$r1-shm"
	r2="$(old_run 20200102T000000Z 1000)"
	r3="$(old_run 20200103T000000Z 1000)"
	r4="$(old_run 20200104T000000Z 1000)"
	r5="$(old_run 20200105T000000Z 1000)"
	# not ours: other names, another user's file, a symlink to a file of ours
	notours="$TEL/19990101T000000Z-notes.db"
	: > "$notours"
	: > "$TEL/keep-me.txt"
	other="$(old_run 19990101T000000Z 10)"
	chown 65534 "$other"
	link="$TEL/19990102T000000Z-$(cat /proc/sys/kernel/random/uuid).db"
	ln -s "$r2" "$link"
	# an old run some reader has open (WAL, as the daemon writes them)
	inuse="$TEL/19980101T000000Z-$(cat /proc/sys/kernel/random/uuid).db"
	python3 -c '
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1]); db.execute("PRAGMA journal_mode = WAL")
db.execute("CREATE TABLE t (x)"); db.commit(); db.execute("SELECT * FROM t").fetchall()
open(sys.argv[2], "w").close(); time.sleep(60)' "$inuse" "$BATS_TEST_TMPDIR/reader-ready" &
	local reader=$!
	for i in $(seq 1 50); do [ -f "$BATS_TEST_TMPDIR/reader-ready" ] && break; sleep 0.1; done
	[ -f "$inuse-shm" ]
	make_plugin_dir sample

	# keep 4: the in-use file and r1..r5 are 6 runs of ours; with the new
	# one only 3 old may stay: r1, r2, r3 go (the in-use one cannot)
	start_daemon --telemetry-dir "$TEL" --telemetry-keep 4
	stop_daemon
	kill "$reader"; wait "$reader" || true
	grep -q "telemetry: removed 3 earlier run(s)" "$LOG"
	[ ! -e "$r1" ] && [ ! -e "$r1-wal" ] && [ ! -e "$r1-shm" ]
	[ ! -e "$r2" ] && [ ! -e "$r3" ]
	[ -f "$r4" ] && [ -f "$r5" ] && [ -f "$inuse" ]
	[ -f "$notours" ] && [ -f "$TEL/keep-me.txt" ] && [ -f "$other" ] && [ -L "$link" ]
	# the run just made is there, with its runs row
	[ "$(ls "$TEL"/2*.db | wc -l)" -eq 3 ]
	[ "$(sql "SELECT count(*) FROM runs")" -eq 1 ]

	# a size budget: 1 MB; a 2 MB old run goes, the newer small ones stay;
	# the reader is gone: that run is no longer in use, and the oldest
	local big
	big="$(old_run 20000101T000000Z 2100000)"
	start_daemon --telemetry-dir "$TEL" --telemetry-keep 0 --telemetry-max-mb 1
	stop_daemon
	grep -q "telemetry: removed 2 earlier run(s)" "$LOG"
	[ ! -e "$big" ] && [ ! -e "$inuse" ] && [ ! -e "$inuse-shm" ] && [ ! -e "$inuse-wal" ]
	[ -f "$r4" ] && [ -f "$r5" ]
	[ -f "$notours" ] && [ -f "$other" ] && [ -L "$link" ]
	# 0 and 0: keep everything
	start_daemon --telemetry-dir "$TEL" --telemetry-keep 0 --telemetry-max-mb 0
	stop_daemon
	[ -f "$r4" ] && [ -f "$r5" ]
	! grep -q "removed" "$LOG"
	# bad values are refused before anything is touched
	run "$BPFTUNE" --telemetry-keep -1
	[ "$status" -ne 0 ]
	[[ "$output" == *"--telemetry-keep takes 0 to"* ]]
	run "$BPFTUNE" --telemetry-max-mb lots
	[ "$status" -ne 0 ]
	[ -f "$r4" ]
}
