#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# Injected faults, and the promises the daemon keeps through them:
# - tuning goes on when telemetry cannot be written (one log line, the
#   losses counted in health once it can write again);
# - no change is applied whose original could not be journalled;
# - a write the kernel refuses is recorded as not applied and not retried
#   in a loop;
# - losses (ring buffer, writer queue) are counted and logged, never silent.
# Faults are real where the system can make them (a full tmpfs, a
# read-only /proc/sys in a mount namespace, a netns deleted under the
# daemon, a database locked by another process) and otherwise injected
# with test/fixtures/fault_inject.c (LD_PRELOAD, tests only).

load helpers
load operate_helpers
load telemetry_helpers

setup() {
	operate_setup
	FAULT_SO="$BUILD/test/fault_inject.so"
	[ -f "$FAULT_SO" ] || skip "make fixtures builds $FAULT_SO"
	FAULT_ON="$RUN_DIR/fault-on"
	FAULT_LOG="$RUN_DIR/fault.log"
	TEL="$BATS_TEST_TMPDIR/telemetry"
	MOUNTS=()
}

teardown() {
	[ -n "${BATS_TEST_COMPLETED:-}" ] || [ -z "${LOG:-}" ] || tail -30 "$LOG" >&3
	stop_daemon
	[ -n "${LOCKER:-}" ] && kill "$LOCKER" 2>/dev/null
	local m
	for m in "${MOUNTS[@]}"; do
		umount "$m" 2>/dev/null
	done
	operate_teardown
}

# small_fs DIR SIZE: a tmpfs of its own at DIR (unmounted in teardown)
small_fs() {
	mkdir -p "$1"
	mount -t tmpfs -o "size=$2,mode=0700" tmpfs "$1"
	MOUNTS+=("$1")
}

# fill DIR: no byte left on its file system
fill() {
	dd if=/dev/zero of="$1/fill" bs=4k 2>/dev/null || true
}

# the daemon with the fault injector: FAULT="PATH=ERRNO;..." on while
# $FAULT_ON exists
start_faulty() {
	LD_PRELOAD="$FAULT_SO" BPFTUNE_FAULT="$FAULT" BPFTUNE_FAULT_WHEN="$FAULT_ON" \
		BPFTUNE_FAULT_LOG="$FAULT_LOG" start_daemon "$@"
}

# events the strategy tuner has had, from the control socket (the log
# collapses identical lines)
strategy_events() {
	bq tuners --json | python3 -c 'import json, sys
print([t["events"] for t in json.load(sys.stdin)["tuners"] if t["name"] == "strategy"][0])'
}

# events N NS: N test connections close in NS, and the daemon has handled them
events() {
	local before i
	before="$(strategy_events)"
	for i in $(seq 1 "$1"); do
		close_conn "$2"
	done
	for i in $(seq 1 600); do
		[ "$(strategy_events)" -ge $((before + $1)) ] && return 0
		sleep 0.1
	done
	echo "only $(( $(strategy_events) - before )) of $1 events handled" >&3
	return 1
}

# backed_off PATTERN: the daemon's log lines matching PATTERN (attempts)
# are at least 10 s, 20 s, 40 s... apart, from their timestamps
backed_off() {
	python3 - "$LOG" "$1" <<'EOF'
import re, sys
t = [float(m.group(1)) for l in open(sys.argv[1])
     if re.search(sys.argv[2], l) and (m := re.match(r"bpftune\[([0-9.]+)\]", l))]
assert t, "no line matches"
for i, (a, b) in enumerate(zip(t, t[1:])):
    assert b - a >= 10 * 2 ** i - 0.05, ("attempt", i + 2, "after", b - a, "s")
print(len(t), "attempts")
EOF
}

# A refused write: recorded as not applied, not retried before its back-off
# (attempts at least 10 s, then 20 s apart, whatever the events), restored
# as nothing to do.  usage: refused_write ERRNO "strerror text"
refused_write() {
	local ns attempts
	ns="$(make_netns)"
	set_qlen "$ns" 1024
	FAULT="/proc/sys/net/unix/max_dgram_qlen=$1"
	touch "$FAULT_ON"
	make_plugin_dir strategy
	start_faulty --socket "$SOCK" --journal "$JOURNAL" -R --telemetry-dir "$TEL" \
		--sample-interval 100
	events 1 "$ns"
	wait_for_log "tuner strategy: could not set net.unix.max_dgram_qlen to 1280 in netns $ns .*: $2; not tried again there for 10 s"
	# a burst of events asking for the same change: held back
	events 20 "$ns"
	[ "$(qlen_in "$ns")" -eq 1024 ]
	attempts="$(grep -c "max_dgram_qlen" "$FAULT_LOG")"
	echo "$attempts attempts for 21 events" >&3
	# each attempt after the first waited for its back-off, however slow
	# the machine made the events
	python3 - "$FAULT_LOG" <<'EOF'
import sys
t = [int(l.split()[0]) for l in open(sys.argv[1]) if "max_dgram_qlen" in l]
for i, (a, b) in enumerate(zip(t, t[1:])):
    assert b - a >= 10000 * 2 ** i - 50, ("attempt", i + 2, "after", b - a, "ms")
EOF
	[ "$(count_log "could not set net.unix.max_dgram_qlen")" -eq "$attempts" ]
	# the kernel takes it again: the next event sets it once the back-off is over
	rm -f "$FAULT_ON"
	stop_daemon
	[ "$DAEMON_STATUS" -eq 0 ]
	# recorded as not applied, with the kernel's errno, once per attempt
	[ "$(sql "SELECT count(*) FROM changes WHERE tunable = 'net.unix.max_dgram_qlen' AND applied = 0 AND errno = $3 AND new_0 = 1280")" -eq "$attempts" ]
	[ "$(sql "SELECT count(*) FROM changes WHERE tunable = 'net.unix.max_dgram_qlen' AND applied = 1")" -eq 0 ]
	# the journal knew it as not made: nothing to restore, nothing left
	grep -q "rollback: net.unix.max_dgram_qlen in netns $ns (cookie [0-9]*) is 1024 already" "$LOG"
	[ ! -s "$JOURNAL" ]
	[ "$(qlen_in "$ns")" -eq 1024 ]
}

@test "a sysctl write the kernel refuses with EINVAL: recorded as not applied, backed off" {
	refused_write EINVAL "Invalid argument" 22
}

@test "a sysctl write the kernel refuses with EPERM: recorded as not applied, backed off" {
	refused_write EPERM "Operation not permitted" 1
}

@test "a sysctl write the kernel refuses with EBUSY: recorded as not applied, backed off" {
	refused_write EBUSY "Device or resource busy" 16
}

@test "a read-only /proc/sys (a container's): EROFS, not applied, backed off; other tunables go on" {
	local ns wrapper
	ns="$(make_netns)"
	set_qlen "$ns" 1024
	# the daemon in a mount namespace of its own whose /proc/sys is read-only
	wrapper="$BATS_TEST_TMPDIR/ro-proc-sys"
	cat > "$wrapper" <<EOF
#!/bin/sh
exec unshare -m --propagation private sh -c 'mount --bind /proc/sys /proc/sys && mount -o remount,bind,ro /proc/sys && exec "\$0" "\$@"' "$BPFTUNE" "\$@"
EOF
	chmod +x "$wrapper"
	make_plugin_dir strategy
	BPFTUNE="$wrapper" start_daemon --socket "$SOCK" --journal "$JOURNAL" -R \
		--telemetry-dir "$TEL"
	events 5 "$ns"
	wait_for_log "could not set net.unix.max_dgram_qlen to 1280 in netns $ns .*: Read-only file system; not tried again there for 10 s"
	backed_off "could not set net.unix.max_dgram_qlen"
	[ "$(qlen_in "$ns")" -eq 1024 ]
	stop_daemon
	[ "$(sql "SELECT count(*) FROM changes WHERE tunable = 'net.unix.max_dgram_qlen' AND (applied = 1 OR errno != 30)")" -eq 0 ]
	[ "$(sql "SELECT count(*) FROM changes WHERE tunable = 'net.unix.max_dgram_qlen'")" -eq "$(count_log "could not set net.unix.max_dgram_qlen")" ]
	[ "$(qlen_in "$ns")" -eq 1024 ]
	[ ! -s "$JOURNAL" ]
}

@test "a full journal directory: nothing changed until the original is saved, one line each way" {
	local ns
	small_fs "$RUN_DIR/jdir" 64k
	JOURNAL="$RUN_DIR/jdir/journal"
	ns="$(make_netns)"
	set_qlen "$ns" 1024
	make_plugin_dir strategy
	start_daemon --socket "$SOCK" --journal "$JOURNAL" -R --no-telemetry
	fill "$RUN_DIR/jdir"
	events 10 "$ns"
	[ "$(qlen_in "$ns")" -eq 1024 ]
	[ "$(count_log "journal: cannot save the original value of net.unix.max_dgram_qlen to $JOURNAL: No space left on device")" -eq 1 ]
	[ "$(count_log "tuner strategy: not setting net.unix.max_dgram_qlen to 1280 in netns $ns .*: No space left on device")" -eq 1 ]
	! grep -q "max_dgram_qlen 1024 -> " "$LOG"
	# room again: the next event is journalled and made
	rm -f "$RUN_DIR/jdir/fill"
	events 1 "$ns"
	wait_for_log "journal: $JOURNAL takes records again \(10 changes held back meanwhile\)"
	wait_for_log "max_dgram_qlen 1024 -> 1280 in netns $ns"
	grep -q "^O .* $ns .* net.unix.max_dgram_qlen 1 1024 #" "$JOURNAL"
	grep -q "^W .* $ns .* net.unix.max_dgram_qlen 1 1280 #" "$JOURNAL"
	stop_daemon
	[ "$(qlen_in "$ns")" -eq 1024 ]
}

@test "a journal that turns read-only, then fails with EIO: no change made without its record" {
	local ns
	ns="$(make_netns)"
	set_qlen "$ns" 1024
	FAULT="$JOURNAL=EROFS"
	make_plugin_dir strategy
	start_faulty --socket "$SOCK" --journal "$JOURNAL" -R --no-telemetry
	# a first change while the journal works
	events 1 "$ns"
	wait_for_log "max_dgram_qlen 1024 -> 1280 in netns $ns"
	touch "$FAULT_ON"
	events 5 "$ns"
	[ "$(qlen_in "$ns")" -eq 1280 ]
	[ "$(count_log "journal: cannot save the value about to be written of net.unix.max_dgram_qlen to $JOURNAL: Read-only file system")" -eq 1 ]
	rm -f "$FAULT_ON"
	events 1 "$ns"
	wait_for_log "max_dgram_qlen 1280 -> 1600 in netns $ns"
	grep -q "journal: $JOURNAL takes records again (5 changes held back meanwhile)" "$LOG"
	# a crash now: what the journal holds restores the original
	kill_daemon
	run "$BPFTUNE" --restore --journal "$JOURNAL"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(qlen_in "$ns")" -eq 1024 ]
}

@test "-R with a read-only journal directory: the daemon refuses to start" {
	small_fs "$RUN_DIR/jdir" 64k
	mount -o remount,ro "$RUN_DIR/jdir"
	make_plugin_dir strategy
	run "$BPFTUNE" -s -l "$PLUGIN_DIR" --socket "$SOCK" --journal "$RUN_DIR/jdir/journal" -R --no-telemetry
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"journal: cannot open $RUN_DIR/jdir/journal: Read-only file system"* ]]
	[[ "$output" == *"-R needs the rollback journal; exiting"* ]]
}

@test "a full telemetry directory: tuning goes on, one line each way, the losses counted" {
	local ns dropped
	small_fs "$TEL" 1m
	ns="$(make_netns)"
	set_qlen "$ns" 300
	make_plugin_dir strategy
	start_daemon --socket "$SOCK" --journal "$JOURNAL" -R --telemetry-dir "$TEL" \
		--sample-interval 50
	fill "$TEL"
	wait_for_log "telemetry: cannot write to $(tel_db): database or disk is full; tuning goes on, rows are dropped and counted until it can" 60
	events 3 "$ns"
	wait_for_log "max_dgram_qlen 468 -> 585 in netns $ns"
	[ "$(qlen_in "$ns")" -eq 585 ]
	rm -f "$TEL/fill"
	wait_for_log "telemetry: writing to $(tel_db) again; [1-9][0-9]* rows dropped meanwhile" 60
	[ "$(count_log "telemetry: cannot write to")" -eq 1 ]
	dropped="$(sed -n 's/.* again; \([0-9]*\) rows dropped meanwhile.*/\1/p' "$LOG")"
	stop_daemon
	[ "$DAEMON_STATUS" -eq 0 ]
	[ "$(sql "PRAGMA integrity_check")" = "ok" ]
	# counted: the last health row has at least what the line said
	[ "$(sql "SELECT rows_dropped >= $dropped FROM health ORDER BY seq DESC LIMIT 1")" -eq 1 ]
	# the tuning went on: the journal put every change back
	[ "$(qlen_in "$ns")" -eq 300 ]
}

@test "a telemetry file that turns read-only mid-run: one line each way, tuning goes on" {
	local ns
	ns="$(make_netns)"
	set_qlen "$ns" 300
	FAULT="$TEL/=EROFS"
	make_plugin_dir strategy
	start_faulty --socket "$SOCK" --telemetry-dir "$TEL" --sample-interval 50
	touch "$FAULT_ON"
	wait_for_log "telemetry: cannot write to $(tel_db): .*; tuning goes on" 30
	events 2 "$ns"
	wait_for_log "max_dgram_qlen 375 -> 468 in netns $ns"
	rm -f "$FAULT_ON"
	wait_for_log "telemetry: writing to $(tel_db) again" 30
	[ "$(count_log "telemetry: cannot write to")" -eq 1 ]
	stop_daemon
	[ "$DAEMON_STATUS" -eq 0 ]
	[ "$(sql "PRAGMA integrity_check")" = "ok" ]
	[ "$(sql "SELECT rows_dropped > 0 FROM health ORDER BY seq DESC LIMIT 1")" -eq 1 ]
}

@test "a read-only telemetry directory at start: telemetry off in one line, tuning goes on" {
	local ns
	small_fs "$TEL" 64k
	mount -o remount,ro "$TEL"
	ns="$(make_netns)"
	set_qlen "$ns" 300
	make_plugin_dir strategy
	start_daemon --socket "$SOCK" --telemetry-dir "$TEL"
	[ "$(count_log "telemetry")" -eq 1 ]
	grep -q "telemetry off: cannot create $TEL/.*\.db" "$LOG"
	events 1 "$ns"
	wait_for_log "max_dgram_qlen 300 -> 375 in netns $ns"
	stop_daemon
	[ "$DAEMON_STATUS" -eq 0 ]
	[ -z "$(ls "$TEL")" ]
}

@test "a telemetry file locked by another process for a while: the queue fills, tuning goes on, every loss counted" {
	local ns n=200000 db secs="${FAULT_LOCK_SECS:-20}"
	[ -x "$BUILD/test/flood" ] || skip "make fixtures builds $BUILD/test/flood"
	ns="$(make_netns)"
	set_qlen "$ns" 300
	make_plugin_dir strategy flood
	start_daemon --socket "$SOCK" --telemetry-dir "$TEL" --sample-interval 100
	db="$(tel_db)"
	# another writer holds the file's write lock
	python3 - "$db" "$RUN_DIR/locked" "$secs" <<'EOF' &
import sqlite3, sys, time, pathlib
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN IMMEDIATE")
pathlib.Path(sys.argv[2]).touch()
time.sleep(int(sys.argv[3]))
db.execute("COMMIT")
EOF
	LOCKER=$!
	for i in $(seq 1 100); do [ -e "$RUN_DIR/locked" ] && break; sleep 0.1; done
	wait_for_log "telemetry: cannot write to $db: database is locked; tuning goes on" 30
	# far more rows than the queue holds, and changes meanwhile
	"$BUILD/test/flood" "$n"
	events 2 "$ns"
	wait_for_log "max_dgram_qlen 375 -> 468 in netns $ns"
	wait "$LOCKER"
	LOCKER=
	wait_for_log "telemetry: writing to $db again; [1-9][0-9]* rows dropped meanwhile" 60
	[ "$(count_log "telemetry: cannot write to")" -eq 1 ]
	stop_daemon
	[ "$DAEMON_STATUS" -eq 0 ]
	sql "SELECT * FROM health ORDER BY seq DESC LIMIT 1"
	# every event was delivered or counted lost in the ring buffer; every
	# delivered one is a row or counted dropped (the queue was full)
	[ "$(sql "SELECT events_dropped > 0 AND queue_max_depth = 4096 FROM health ORDER BY seq DESC LIMIT 1")" -eq 1 ]
	[ "$(sql "SELECT events_seen - events_dropped FROM health ORDER BY seq DESC LIMIT 1")" -eq "$(sql "SELECT count(*) FROM events")" ]
	# and the gaps in seq are exactly what was dropped
	[ "$(sql "SELECT max(seq) - count(*) FROM events")" -le "$(sql "SELECT events_dropped FROM health ORDER BY seq DESC LIMIT 1")" ]
	[ "$(sql "PRAGMA integrity_check")" = "ok" ]
}

@test "a ring buffer overrun: the losses are logged while running and at exit, and counted" {
	local lost
	[ -x "$BUILD/test/flood" ] || skip "make fixtures builds $BUILD/test/flood"
	make_plugin_dir flood
	start_daemon --telemetry-dir "$TEL" --sample-interval 100
	# a stopped daemon reads nothing: the ring buffer overflows for sure
	kill -STOP "$DAEMON_PID"
	"$BUILD/test/flood" 100000
	kill -CONT "$DAEMON_PID"
	wait_for_log "ring buffer full: [1-9][0-9]* events lost so far" 30
	stop_daemon
	lost="$(sed -n 's/.*summary: \([0-9]*\) events lost: the ring buffer was full.*/\1/p' "$LOG")"
	[ -n "$lost" ] && [ "$lost" -gt 0 ]
	[ "$(sql "SELECT ringbuf_lost FROM health ORDER BY seq DESC LIMIT 1")" -eq "$lost" ]
	# once in a minute at most, however long the overrun
	[ "$(count_log "ring buffer full: ")" -eq 1 ]
	# without telemetry the exit summary still says it
	start_daemon --no-telemetry
	kill -STOP "$DAEMON_PID"
	"$BUILD/test/flood" 100000
	kill -CONT "$DAEMON_PID"
	stop_daemon
	grep -qE "summary: [1-9][0-9]* events lost: the ring buffer was full" "$LOG"
}

@test "a netns deleted between the event and the write: nothing written anywhere, the daemon goes on" {
	local ns other global
	ns="$(make_netns)"
	other="$(make_netns)"
	set_qlen "$ns" 300
	set_qlen "$other" 300
	global="$(qlen_in -)"
	make_plugin_dir strategy
	start_daemon --socket "$SOCK" --journal "$JOURNAL" -R --telemetry-dir "$TEL"
	# the event is queued while the daemon is stopped; its netns goes
	kill -STOP "$DAEMON_PID"
	close_conn "$ns"
	ip netns del "$ns"
	kill -CONT "$DAEMON_PID"
	wait_for_log "strategy: event via strategy"
	wait_for_log "strategy: cannot read net.unix.max_dgram_qlen in the event's netns: No such process"
	! grep -q "max_dgram_qlen 300 -> 375" "$LOG"
	[ "$(qlen_in -)" -eq "$global" ]
	[ "$(qlen_in "$other")" -eq 300 ]
	! grep -q "^O " "$JOURNAL"
	# and it goes on
	events 1 "$other"
	wait_for_log "max_dgram_qlen 300 -> 375 in netns $other"
	stop_daemon
	[ "$DAEMON_STATUS" -eq 0 ]
	[ "$(qlen_in "$other")" -eq 300 ]
}
