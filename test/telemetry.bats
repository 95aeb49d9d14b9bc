#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# Telemetry tables: the daemon records what it saw, decided and changed in
# one SQLite file per run; checked with python3's sqlite3, as a user would.

load helpers

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

# The run's file, from the daemon's log line.
tel_db() {
	sed -n 's/.*telemetry: writing to \([^ ]*\)$/\1/p' "$LOG" | tail -1
}

# sql QUERY [DB]: one line per row, columns separated by '|'.
sql() {
	python3 - "${2:-$(tel_db)}" "$1" <<'EOF'
import sqlite3, sys
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
for row in db.execute(sys.argv[2]):
    print("|".join("" if v is None else str(v) for v in row))
EOF
}

# Every table: seq runs 1..N without a gap, ts_uptime_us never goes back
# (in seq order) and lies within the run; prints what is wrong.
check_clock_and_seq() {
	python3 - "$(tel_db)" <<'EOF'
import sqlite3, sys
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
start, end = db.execute("SELECT ts_uptime_us, end_ts_uptime_us FROM runs").fetchone()
tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
bad = 0
for t in tables:
    if t == "meta":
        continue
    rows = db.execute("SELECT seq, ts_uptime_us FROM %s ORDER BY seq" % t).fetchall()
    if [r[0] for r in rows] != list(range(1, len(rows) + 1)):
        print("%s: seq is not 1..%d" % (t, len(rows))); bad += 1
    for (s1, t1), (s2, t2) in zip(rows, rows[1:]):
        if t2 < t1:
            print("%s: ts goes back at seq %d" % (t, s2)); bad += 1
    for s, ts in rows:
        if ts < start or (end is not None and ts > end):
            print("%s: seq %d ts %d outside the run [%d, %s]" % (t, s, ts, start, end)); bad += 1
sys.exit(1 if bad else 0)
EOF
}

@test "a tuner's change is recorded: run, events, decisions (no-ops too), changes, samples" {
	local ns db global c
	ns="$(make_netns)"
	make_plugin_dir sysctl sample
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
	[ "$(sql "SELECT count(*) FROM samples_tcp")" -ge 1 ]
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

	# periodic samples of every domain, and health, real values
	local t
	for t in samples_tcp samples_udp samples_neigh samples_netdev samples_frag samples_system health; do
		[ "$(sql "SELECT count(*) FROM $t")" -ge 2 ]
	done
	[ "$(sql "SELECT count(*) FROM samples_system WHERE mem_total_kb > 0 AND threads > 0 AND cpu_idle > 0")" -ge 2 ]
	[ "$(sql "SELECT count(*) FROM samples_tcp WHERE in_segs IS NULL OR sock_inuse IS NULL")" -eq 0 ]
	# the daemon's own netns is the row with netns_cookie 0, every interval
	[ "$(sql "SELECT count(*) FROM samples_tcp WHERE netns_cookie = 0")" -eq "$(sql "SELECT count(*) FROM samples_system")" ]
	# no tuner feeding the BPF gauges was loaded: NULL, not 0
	[ "$(sql "SELECT count(*) FROM samples_tcp WHERE srtt_n IS NOT NULL OR rcvbuf_near_max IS NOT NULL")" -eq 0 ]
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
	make_plugin_dir sysctl sample
	ip netns exec "$ns" sysctl -qw net.core.somaxconn=128
	start_daemon --telemetry-dir "$TEL" --sample-interval 50
	listen_backlog "$ns" 4096
	wait_for_log "somaxconn 128 -> 4096"
	local i
	for i in $(seq 1 50); do
		[ "$(sql "SELECT count(*) FROM changes WHERE netns LIKE 'netns $ns (cookie %'")" -eq 1 ] && break
		sleep 0.1
	done
	kill -KILL "$DAEMON_PID"
	wait "$DAEMON_PID" || true
	DAEMON_PID=
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
	make_plugin_dir sysctl sample
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

# voluntary context switches of the daemon's main thread: its wake-ups
main_wakeups() {
	awk '/^voluntary_ctxt_switches/ {print $2}' /proc/"$DAEMON_PID"/task/"$DAEMON_PID"/status
}

@test "--no-telemetry: no file, no writer thread, no periodic wake-up; with it, the sample timer" {
	local a b
	# the flood fixture sees nothing unless asked: an idle daemon
	make_plugin_dir flood
	start_daemon --telemetry-dir "$TEL" --no-telemetry
	! grep -q "telemetry" "$LOG"
	! grep -qx bpftune-writer /proc/"$DAEMON_PID"/task/*/comm
	a="$(main_wakeups)"
	sleep 1.5
	b="$(main_wakeups)"
	echo "idle wake-ups without telemetry: $((b - a))"
	[ $((b - a)) -le 2 ]
	stop_daemon
	[ -z "$(ls "$TEL" 2>/dev/null)" ]

	start_daemon --telemetry-dir "$TEL" --sample-interval 100
	grep -qx bpftune-writer /proc/"$DAEMON_PID"/task/*/comm
	# the sample timer wakes it: 7 times (1.5 s when it is not starved)
	local i
	a="$(main_wakeups)"
	for i in $(seq 1 100); do
		b="$(main_wakeups)"
		[ $((b - a)) -ge 7 ] && break
		sleep 0.1
	done
	echo "idle wake-ups with 100 ms samples: $((b - a)) in $((i / 10)).$((i % 10)) s"
	[ $((b - a)) -ge 7 ]
	stop_daemon
	[ "$(ls "$TEL"/*.db | wc -l)" -eq 1 ]
}

@test "a flood of events: every loss is counted, memory stays bounded, the daemon keeps up" {
	local n=1000000 rss0 rss1
	[ -x "$FLOOD" ] || skip "make fixtures builds $FLOOD"
	# qemu TCG guests (the kernel matrix) run syscalls far slower
	[ "$MODE" = host ] || n=200000
	make_plugin_dir flood
	start_daemon --telemetry-dir "$TEL" --sample-interval 200
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
	stop_daemon
	[ "$DAEMON_STATUS" -eq 0 ]
	sql "SELECT * FROM health ORDER BY seq DESC LIMIT 1"
	# every getpgid() is an event delivered, or one the BPF side counted lost
	[ "$(sql "SELECT ringbuf_lost + events_seen FROM health ORDER BY seq DESC LIMIT 1")" -eq $((n + markers)) ]
	# every delivered event is a row, or a row counted as dropped
	[ "$(sql "SELECT events_seen - events_dropped FROM health ORDER BY seq DESC LIMIT 1")" -eq "$(sql "SELECT count(*) FROM events")" ]
	[ "$(sql "SELECT max(seq) FROM events")" -le "$(sql "SELECT events_seen FROM health ORDER BY seq DESC LIMIT 1")" ]
	# the fixture decides once per event: what the queue refused is
	# exactly what is missing from the two tables
	[ "$(sql "SELECT rows_dropped FROM health ORDER BY seq DESC LIMIT 1")" -eq \
	  "$(sql "SELECT 2 * (SELECT events_seen FROM health ORDER BY seq DESC LIMIT 1) - (SELECT count(*) FROM events) - (SELECT count(*) FROM decisions)")" ]
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
	make_plugin_dir sysctl sample
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

# pair NAME: two namespaces joined by a veth pair, $1-s 10.78.N.1 and $1-c .2
make_veth_pair() {
	SRV="$(make_netns)"
	CLI="$(make_netns)"
	ip link add tlc netns "$CLI" type veth peer name tls netns "$SRV"
	ip -n "$SRV" addr add 10.78.0.1/24 dev tls
	ip -n "$CLI" addr add 10.78.0.2/24 dev tlc
	ip -n "$SRV" link set tls up
	ip -n "$CLI" link set tlc up
}

# cookie of a netns as the daemon logs it ("netns NAME (cookie N)")
netns_cookie_of() {
	ip netns exec "$1" python3 -c 'import socket; s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); print(int.from_bytes(s.getsockopt(socket.SOL_SOCKET, 71, 8), "little"))'
}

@test "per-netns samples with the tcp_buffer tuner's BPF gauges: iperf3 across a netns pair" {
	local srv_c cli_c
	command -v iperf3 >/dev/null || skip "iperf3 is not installed"
	make_veth_pair
	srv_c="$(netns_cookie_of "$SRV")"
	cli_c="$(netns_cookie_of "$CLI")"
	make_plugin_dir tcp_buffer netns
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

@test "--sample-netns: at most N namespaces per interval, each in turn; 0: only the daemon's" {
	local a b c ca cb cc i
	a="$(make_netns)"; b="$(make_netns)"; c="$(make_netns)"
	ca="$(netns_cookie_of "$a")"; cb="$(netns_cookie_of "$b")"; cc="$(netns_cookie_of "$c")"
	make_plugin_dir sample
	start_daemon --telemetry-dir "$TEL" --sample-interval 50 --sample-netns 1
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

	start_daemon --telemetry-dir "$TEL" --sample-interval 50 --sample-netns 0
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
