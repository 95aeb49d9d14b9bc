#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# Plugins' own telemetry tables (bpftune/telemetry.h): declared by the
# plugin, checked by the daemon, created in the run's file with their
# declarations, and filled per event, from BPF gauges and by sample
# callbacks -- for tuners and for collectors (plugins that tune nothing).

load helpers
load telemetry_helpers

setup() {
	SAVED_SOMAXCONN="$(cat /proc/sys/net/core/somaxconn)"
	TEL="$BATS_TEST_TMPDIR/telemetry"
}

teardown() {
	[ -n "${BATS_TEST_COMPLETED:-}" ] || [ -z "${LOG:-}" ] || tail -40 "$LOG" >&3
	common_teardown
}

# calls NETNS K...: getpgid(COLLECTOR_MAGIC + k) for each k, from NETNS
rows_calls() {
	local ns="$1"
	shift
	in_ns "$ns" python3 -c '
import os, sys
for k in sys.argv[1:]:
    try:
        os.getpgid(1999998000 + int(k))
    except OSError:
        pass' "$@"
}

@test "a plugin declaring a column of a bad type is refused, naming the table and column; the daemon runs on" {
	local ns
	ns="$(make_netns)"
	ip netns exec "$ns" sysctl -qw net.core.somaxconn=128
	make_plugin_dir admin_override sample badtable
	start_daemon --telemetry-dir "$TEL"
	grep -q "tuner badtable refused: telemetry: table 'bad_rows' column 1 'weird': unknown type 99 (INTEGER, REAL or TEXT)" "$LOG"
	grep -q "bpftune running with 1 tuner$" "$LOG"
	# the others work, and the file has nothing of the refused plugin
	listen_backlog "$ns" 2048
	wait_for_log "somaxconn 128 -> 2048 in netns $ns"
	stop_daemon
	[ "$DAEMON_STATUS" -eq 0 ]
	[ "$(sql "SELECT count(*) FROM sqlite_master WHERE name = 'bad_rows'")" -eq 0 ]
	[ "$(sql "SELECT count(*) FROM tuners WHERE tuner = 'badtable'")" -eq 0 ]
	# refused the same way with telemetry off
	start_daemon --no-telemetry
	grep -q "tuner badtable refused: telemetry: table 'bad_rows' column 1 'weird'" "$LOG"
	grep -q "bpftune running with 1 tuner$" "$LOG"
	stop_daemon
}

@test "the sample tuner's sample_listen table gets a row per truncated listen()" {
	local ns c
	ns="$(make_netns)"
	c="$(netns_cookie_of "$ns")"
	# --observe: somaxconn stays 128, so every listen() above it is truncated
	ip netns exec "$ns" sysctl -qw net.core.somaxconn=128
	make_plugin_dir sample
	start_daemon --telemetry-dir "$TEL" --observe --sample-interval 100
	# five listen()s: four truncated (backlog above 128), one not
	in_ns "$ns" python3 -c '
import socket
socks = []
for backlog in (200, 4096, 100, 65535, 129):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(backlog)
    socks.append(s)'
	wait_for_log "called listen\(\) with backlog 129, somaxconn is 128"
	stop_daemon
	[ "$DAEMON_STATUS" -eq 0 ]
	sql "SELECT * FROM sample_listen WHERE netns_cookie = $c"
	[ "$(sql "SELECT group_concat(backlog, ' ') FROM (SELECT backlog FROM sample_listen WHERE netns_cookie = $c ORDER BY seq)")" = \
	  "200 4096 65535 129" ]
	[ "$(sql "SELECT count(DISTINCT pid), min(comm), max(comm), min(somaxconn), max(somaxconn) FROM sample_listen WHERE netns_cookie = $c")" = \
	  "1|python3|python3|128|128" ]
	# each row is its event's: same time, same task, same netns
	[ "$(sql "SELECT count(*) FROM sample_listen s JOIN events e ON e.ts_uptime_us = s.ts_uptime_us AND e.pid = s.pid AND e.netns_cookie = s.netns_cookie WHERE s.netns_cookie = $c AND e.tuner = 'sample'")" -eq 4 ]
	run check_clock_and_seq
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "a collector's tables: rows per event, its BPF gauge and its sample callback, in each netns" {
	local ns c k i
	ns="$(make_netns)"
	c="$(netns_cookie_of "$ns")"
	make_plugin_dir rows
	start_daemon --telemetry-dir "$TEL" --sample-interval 100 --collectors rows
	grep -q "collector rows started" "$LOG"
	# 1..20, then the marker (999)
	rows_calls "$ns" $(seq 1 20) 999
	wait_for_log "rows collector: marker from pid"
	# a few intervals after the calls: the gauge's interval is in a row
	for i in $(seq 1 100); do
		[ "$(sql "SELECT count(*) FROM rows_ticks WHERE netns_cookie = $c AND handled >= 21")" -ge 2 ] && break
		sleep 0.1
	done
	stop_daemon
	[ "$DAEMON_STATUS" -eq 0 ]
	# per event: a row per call, with its k, in the caller's netns
	[ "$(sql "SELECT count(*), sum(k), min(comm) FROM rows_calls WHERE netns_cookie = $c")" = "21|1209|python3" ]
	# the gauge: every call counted in the interval it fell in, in that netns
	[ "$(sql "SELECT sum(k_n), max(k_max) FROM rows_gauge WHERE netns_cookie = $c")" = "21|999" ]
	[ "$(sql "SELECT round(sum(k_mean * k_n)) FROM rows_gauge WHERE netns_cookie = $c AND k_n > 0")" = "1209.0" ]
	[ "$(sql "SELECT count(*) FROM rows_gauge WHERE k_n = 0 AND (k_mean IS NOT NULL OR k_max IS NOT NULL)")" -eq 0 ]
	# the callback ran inside each netns it sampled: a socket it opened
	# there has that netns' cookie (the daemon's own: 0 is its row's)
	[ "$(sql "SELECT count(*) FROM rows_ticks WHERE netns_cookie = $c")" -ge 2 ]
	[ "$(sql "SELECT count(*) FROM rows_ticks WHERE netns_cookie != 0 AND cookie_inside != netns_cookie")" -eq 0 ]
	[ "$(sql "SELECT count(*) FROM rows_ticks WHERE netns_cookie = 0 AND cookie_inside IS NULL")" -eq 0 ]
	[ "$(sql "SELECT max(handled) FROM rows_ticks")" -eq 21 ]
	[ "$(sql "SELECT count(*) FROM rows_ticks WHERE in_segs IS NULL")" -eq 0 ]
	# a collector manages nothing; its tables are declared in the file
	[ "$(sql "SELECT num_tunables FROM tuners WHERE tuner = 'rows'")" -eq 0 ]
	[ "$(sql "SELECT group_concat(table_name || ':' || sampled || per_netns, ' ') FROM telemetry_tables WHERE owner = 'rows'")" = \
	  "rows_calls:01 rows_gauge:11 rows_ticks:11" ]
	[ "$(sql "SELECT source FROM telemetry_columns WHERE table_name = 'rows_gauge' AND column_name = 'k_mean'")" = "BPF gauge k, mean" ]
	run check_clock_and_seq
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "hot plug: a plugin unloaded leaves its table in the file; loaded again, it writes on" {
	local ns c i
	ns="$(make_netns)"
	c="$(netns_cookie_of "$ns")"
	make_plugin_dir sample
	# a collector hot-plugged is loaded when named, like one found at start
	start_daemon --telemetry-dir "$TEL" --sample-interval 100 --collectors rows
	cp "$FIXTURE_PLUGINS/rows_collector.so" "$PLUGIN_DIR/"
	wait_for_log "hot plug: tuner rows loaded"
	rows_calls "$ns" 1 2 999
	wait_for_log "rows collector: marker from pid"
	rm "$PLUGIN_DIR/rows_collector.so"
	wait_for_log "rows_collector.so was removed: tuner rows unloaded"
	cp "$FIXTURE_PLUGINS/rows_collector.so" "$PLUGIN_DIR/"
	for i in $(seq 1 100); do
		[ "$(grep -c "hot plug: tuner rows loaded" "$LOG")" -eq 2 ] && break
		sleep 0.1
	done
	[ "$(grep -c "hot plug: tuner rows loaded" "$LOG")" -eq 2 ]
	rows_calls "$ns" 3 998 999
	for i in $(seq 1 100); do
		[ "$(grep -c "rows collector: marker from pid" "$LOG")" -eq 2 ] && break
		sleep 0.1
	done
	stop_daemon
	[ "$DAEMON_STATUS" -eq 0 ]
	# one table, its rows from both loads, seq without a gap
	[ "$(sql "SELECT group_concat(k, ' ') FROM (SELECT k FROM rows_calls WHERE netns_cookie = $c ORDER BY seq)")" = "1 2 999 3 998 999" ]
	[ "$(sql "SELECT count(*) FROM telemetry_tables WHERE table_name = 'rows_calls'")" -eq 1 ]
	[ "$(sql "SELECT count(*) FROM tuners WHERE tuner = 'rows'")" -eq 2 ]
	run check_clock_and_seq
	echo "$output"
	[ "$status" -eq 0 ]
}
