#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# Rollback: the journal of original values, restored at exit with -R, at
# the next start after a crash, and by bpftune --restore; damaged records,
# namespaces that are gone, and values someone else set since.

load helpers
load operate_helpers

setup() {
	operate_setup
}

teardown() {
	stop_daemon
	[ -n "${HOLDER:-}" ] && kill "$HOLDER" 2>/dev/null
	[ -n "${SMALL_FS:-}" ] && umount "$SMALL_FS" 2>/dev/null
	operate_teardown
}

# Changes in two namespaces and in the global netns, by the strategy
# fixture (net.unix.max_dgram_qlen, one 25 % step per test connection):
# no other test's daemon tunes that sysctl.
make_changes() {
	NS1="$(make_netns)"
	NS2="$(make_netns)"
	set_qlen "$NS1" 300
	set_qlen "$NS2" 400
	set_qlen - 1024
	make_plugin_dir strategy
	start_daemon --socket "$SOCK" --journal "$JOURNAL" -R "$@"
	close_conn "$NS1"
	close_conn "$NS2"
	close_conn -
	wait_for_log "max_dgram_qlen 300 -> 375 in netns $NS1" || { grep -vE "libbpf|hook " "$LOG" >&3; false; }
	wait_for_log "max_dgram_qlen 400 -> 500 in netns $NS2"
	wait_for_log "max_dgram_qlen 1024 -> 1280 in global netns"
	[ "$(qlen_in "$NS1")" -eq 375 ]
	[ "$(qlen_in "$NS2")" -eq 500 ]
	[ "$(qlen_in -)" -eq 1280 ]
}

assert_restored() {
	[ "$(qlen_in "$NS1")" -eq 300 ]
	[ "$(qlen_in "$NS2")" -eq 400 ]
	[ "$(qlen_in -)" -eq 1024 ]
}

@test "-R: SIGTERM restores every change, globally and in each netns, and clears the journal" {
	make_changes
	# the originals are on disk before the changes are made
	[ "$(grep -c '^O ' "$JOURNAL")" -eq 3 ]
	grep -q "^O [0-9a-f-]* 0 $NS1 [0-9]* [0-9]* [0-9]* net.unix.max_dgram_qlen 1 300 #" "$JOURNAL"
	grep -q "^O [0-9a-f-]* 1 - [0-9]* [0-9]* [0-9]* net.unix.max_dgram_qlen 1 1024 #" "$JOURNAL"
	[ "$(stat -c %a "$JOURNAL")" = 600 ]
	stop_daemon
	[ "$DAEMON_STATUS" -eq 0 ]
	assert_restored
	grep -q "rollback: restored net.unix.max_dgram_qlen to 300 in netns $NS1" "$LOG"
	grep -q "rollback: restored net.unix.max_dgram_qlen to 400 in netns $NS2" "$LOG"
	grep -q "rollback: restored net.unix.max_dgram_qlen to 1024 in global netns" "$LOG"
	[ ! -s "$JOURNAL" ]
}

@test "-R: after SIGKILL the next start with -R restores what the journal holds" {
	make_changes
	kill_daemon
	[ "$(qlen_in "$NS1")" -eq 375 ]
	[ -s "$JOURNAL" ]
	start_daemon --socket "$SOCK" --journal "$JOURNAL" -R
	grep -q "journal: $JOURNAL holds 3 values to restore" "$LOG"
	grep -q "rollback: restored net.unix.max_dgram_qlen to 300 in netns $NS1" "$LOG"
	assert_restored
	[ ! -s "$JOURNAL" ]
	# and it journals its own changes again
	close_conn "$NS1"
	wait_for_log "max_dgram_qlen 300 -> 375 in netns $NS1"
	stop_daemon
	[ "$(qlen_in "$NS1")" -eq 300 ]
}

@test "--restore after SIGKILL restores, clears the journal and exits" {
	make_changes
	kill_daemon
	run "$BPFTUNE" --restore --journal "$JOURNAL"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"rollback: restored net.unix.max_dgram_qlen to 300 in netns $NS1"* ]]
	[[ "$output" == *"rollback: restored net.unix.max_dgram_qlen to 1024 in global netns"* ]]
	assert_restored
	[ ! -s "$JOURNAL" ]
	# nothing left: a second run has nothing to do
	run "$BPFTUNE" --restore --journal "$JOURNAL"
	[ "$status" -eq 0 ]
	[[ "$output" != *"rollback:"* ]]
}

@test "--restore refuses to run while a daemon holds the journal" {
	make_changes
	run "$BPFTUNE" --restore --journal "$JOURNAL"
	[ "$status" -eq 1 ]
	[[ "$output" == *"journal: $JOURNAL is in use by another bpftune"* ]]
	[ "$(qlen_in "$NS1")" -eq 375 ]
}

@test "a damaged or truncated journal: the damage is reported, the valid records are restored" {
	make_changes
	kill_daemon
	# damage NS2's original, and leave a torn record at the end
	sed -i "/^O .* $NS2 .*max_dgram_qlen 1 400 #/ s/ 400 #/ 401 #/" "$JOURNAL"
	printf 'O 0f6f1c4e-8a8a-4b39-9e0f-2f3d1f1e2a10 1 - 1 2 3 net.core.soma' >> "$JOURNAL"
	run "$BPFTUNE" --restore --journal "$JOURNAL"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" =~ journal:\ $JOURNAL\ line\ [0-9]+:\ damaged\ record\ \(checksum\ mismatch\):\ ignored ]]
	[[ "$output" =~ line\ [0-9]+:\ truncated\ record\ \([0-9]+\ bytes,\ no\ end\ of\ line\):\ ignored ]]
	[[ "$output" == *"net.unix.max_dgram_qlen in netns $NS2 (cookie "*"): its original value was lost with a damaged record"* ]]
	# what was intact is back
	[ "$(qlen_in "$NS1")" -eq 300 ]
	[ "$(qlen_in -)" -eq 1024 ]
	# what was not is left as it is, never "restored" to a damaged value
	[ "$(qlen_in "$NS2")" -eq 500 ]
}

@test "a netns that is gone, or replaced by a new one of the same name, is not written" {
	make_changes
	kill_daemon
	ip netns del "$NS1"
	ip netns del "$NS2"
	ip netns add "$NS2"	# same name, another netns
	set_qlen "$NS2" 500
	run "$BPFTUNE" --restore --journal "$JOURNAL"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"rollback: net.unix.max_dgram_qlen: netns $NS1 (cookie "*") is gone"* ]]
	[[ "$output" == *"rollback: net.unix.max_dgram_qlen: netns $NS2 (cookie "*") is gone"* ]]
	[ "$(qlen_in "$NS2")" -eq 500 ]
	[ "$(qlen_in -)" -eq 1024 ]
	[ ! -s "$JOURNAL" ]
}

@test "a netns without a name is found again by inode and cookie" {
	local pid i
	set_qlen - 1024
	# an unnamed netns, kept alive by a process in it
	unshare --net sh -c "echo 2048 > /proc/sys/net/unix/max_dgram_qlen; echo \$\$ > $RUN_DIR/pid; exec sleep 120" >/dev/null 2>&1 &
	HOLDER=$!
	for i in $(seq 1 50); do
		[ -s "$RUN_DIR/pid" ] && break
		sleep 0.1
	done
	pid="$(cat "$RUN_DIR/pid")"
	[ "$(nsenter --net=/proc/"$pid"/ns/net cat /proc/sys/net/unix/max_dgram_qlen)" -eq 2048 ]
	make_plugin_dir strategy
	start_daemon --socket "$SOCK" --journal "$JOURNAL" -R
	nsenter --net=/proc/"$pid"/ns/net sh -c "ip link set lo up; python3 -c \"
import socket
s = socket.socket(); s.bind(('127.0.0.1', $STRATEGY_PORT)); s.listen(1)
c = socket.create_connection(('127.0.0.1', $STRATEGY_PORT)); a, _ = s.accept()
c.close(); a.close(); s.close()
import time; time.sleep(0.5)	# the daemon finds the netns through this pid\""
	# (needs the daemon to find an unnamed netns from the event's pid)
	wait_for_log "max_dgram_qlen 2048 -> 2560 in netns cookie [0-9]+" ||
		{ grep -E "strategy: cannot|netns" "$LOG" >&3; false; }
	kill_daemon
	[ "$(nsenter --net=/proc/"$pid"/ns/net cat /proc/sys/net/unix/max_dgram_qlen)" -eq 2560 ]
	grep -q "^O [0-9a-f-]* 0 - [0-9]* [0-9]* [0-9]* net.unix.max_dgram_qlen 1 2048 #" "$JOURNAL"
	run "$BPFTUNE" --restore --journal "$JOURNAL"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"rollback: restored net.unix.max_dgram_qlen to 2048 in netns cookie "* ]]
	[ "$(nsenter --net=/proc/"$pid"/ns/net cat /proc/sys/net/unix/max_dgram_qlen)" -eq 2048 ]
	[ "$(qlen_in -)" -eq 1024 ]
}

@test "a value someone else set since is left alone: by the journal's record and by the admin rule" {
	# a write from outside the daemon's cgroup (-c) is not seen by its
	# admin-override detection: the live value tells
	CG="$(make_cgroup)" || skip "no cgroup2 hierarchy"
	make_changes -c "$CG"
	set_qlen "$NS1" 555
	stop_daemon
	grep -q "rollback: net.unix.max_dgram_qlen in netns $NS1 (cookie [0-9]*) left at 555: bpftune last set 375, so someone else has changed it" "$LOG"
	[ "$(qlen_in "$NS1")" -eq 555 ]
	[ "$(qlen_in "$NS2")" -eq 400 ]
	[ "$(qlen_in -)" -eq 1024 ]
}

@test "an admin take-over seen by admin-override detection is journalled and survives a crash" {
	local ns
	ns="$(make_netns)"
	set_qlen "$ns" 1024
	make_plugin_dir strategy
	start_daemon --socket "$SOCK" --journal "$JOURNAL" -R
	close_conn "$ns"
	wait_for_log "max_dgram_qlen 1024 -> 1280 in netns $ns"
	# the admin sets it to what it is: only the take-over tells
	ip netns exec "$ns" sysctl -qw net.unix.max_dgram_qlen=1280
	wait_for_log "tuner strategy stopped in netns $ns"
	grep -q "^M [0-9a-f-]* 0 $ns .* net.unix.max_dgram_qlen 0 #" "$JOURNAL"
	kill_daemon
	run "$BPFTUNE" --restore --journal "$JOURNAL"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"rollback: net.unix.max_dgram_qlen in netns $ns (cookie "*") left as the admin set it"* ]]
	[ "$(qlen_in "$ns")" -eq 1280 ]
}

@test "records of an earlier boot are not restored" {
	make_changes
	kill_daemon
	# the same records as if written before a reboot
	local other="00000000-1111-2222-3333-444444444444"
	python3 - "$JOURNAL" "$other" <<'PY'
import sys, zlib
path, boot = sys.argv[1], sys.argv[2]
out = []
for line in open(path).read().splitlines():
    body = line.rsplit(" #", 1)[0].split(" ")
    body[1] = boot
    body = " ".join(body)
    out.append("%s #%08x\n" % (body, zlib.crc32(body.encode())))
open(path, "w").write("".join(out))
PY
	run "$BPFTUNE" --restore --journal "$JOURNAL"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"records from an earlier boot ignored: the reboot reset those values"* ]]
	[ "$(qlen_in "$NS1")" -eq 375 ]
	[ ! -s "$JOURNAL" ]
}

@test "when the original cannot be journalled, the change is not made" {
	SMALL_FS="$RUN_DIR/small"
	mkdir -m 0700 "$SMALL_FS"
	mount -t tmpfs -o size=64k,mode=0700 tmpfs "$SMALL_FS"
	JOURNAL="$SMALL_FS/journal"
	local ns
	ns="$(make_netns)"
	set_qlen "$ns" 1024
	make_plugin_dir strategy
	start_daemon --socket "$SOCK" --journal "$JOURNAL" -R
	# fill the file system the journal is on
	dd if=/dev/zero of="$SMALL_FS/fill" bs=4k 2>/dev/null || true
	close_conn "$ns"
	wait_for_log "tuner strategy: not setting net.unix.max_dgram_qlen to 1280 in netns $ns .*: No space left on device"
	grep -q "journal: cannot save the original value of net.unix.max_dgram_qlen to $JOURNAL: No space left on device" "$LOG"
	[ "$(qlen_in "$ns")" -eq 1024 ]
	# room again: the next change is journalled and made
	rm -f "$SMALL_FS/fill"
	close_conn "$ns"
	wait_for_log "max_dgram_qlen 1024 -> 1280 in netns $ns"
	stop_daemon
	[ "$(qlen_in "$ns")" -eq 1024 ]
}

@test "-R refuses to start without a usable journal" {
	make_plugin_dir strategy
	LOG="$BATS_TEST_TMPDIR/daemon.log"
	chmod 0777 "$RUN_DIR"
	run "$BPFTUNE" -s -l "$PLUGIN_DIR" --socket "$SOCK" --journal "$RUN_DIR/journal" -R
	[ "$status" -eq 1 ]
	[[ "$output" == *"journal: directory refused: directory $RUN_DIR is writable by others"* ]]
	[[ "$output" == *"-R needs the rollback journal; exiting"* ]]
	chmod 0700 "$RUN_DIR"
}

@test "the records of namespaces that are gone are dropped from the journal; the rest is restored" {
	local keep i ns
	keep="$(make_netns)"
	set_qlen "$keep" 300
	make_plugin_dir strategy netns
	start_daemon --socket "$SOCK" --journal "$JOURNAL" -R
	close_conn "$keep"
	wait_for_log "max_dgram_qlen 300 -> 375 in netns $keep"
	# 70 namespaces changed, then destroyed: more than a compaction's worth
	local try foreign=0 mine="$BATS_TEST_TMPDIR/mine"
	: > "$mine"
	for i in $(seq 1 70); do
		ns="$(make_netns)"
		echo "(was $ns)" >> "$mine"
		# connections close in ns until the daemon has changed it there:
		# on a loaded machine an event may be handled after its process
		# has gone, before the daemon knew the new netns (it is ignored)
		for try in $(seq 1 30); do
			close_conn "$ns"
			wait_for_log "max_dgram_qlen [0-9]+ -> [0-9]+ in netns $ns " 2 && break
		done
		grep -qE "max_dgram_qlen [0-9]+ -> [0-9]+ in netns $ns " "$LOG" || {
			echo "# namespace $i ($ns): no change after $try tries; the log ends:" >&3
			tail -n 20 "$LOG" | sed 's/^/#   /' >&3
			return 1
		}
		ip netns del "$ns"
	done
	# once the daemon has seen 64 of them go, their records are gone;
	# namespaces of earlier tests that the kernel destroys meanwhile (its
	# cleanup is deferred) take some of those 64 slots: one more record
	# of ours stays for each
	for i in $(seq 1 600); do
		foreign="$(grep "destroyed (seen by" "$LOG" | grep -vcFf "$mine" || :)"
		[ "$(grep -c '^O ' "$JOURNAL")" -le $((7 + foreign)) ] && break
		sleep 0.1
	done
	echo "# originals left in the journal: $(grep -c '^O ' "$JOURNAL") ($foreign other namespaces seen going)" >&3
	[ "$(grep -c '^O ' "$JOURNAL")" -le $((7 + foreign)) ]
	grep -q "^O .* $keep .* net.unix.max_dgram_qlen 1 300 #" "$JOURNAL"
	kill_daemon
	run "$BPFTUNE" --restore --journal "$JOURNAL"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(qlen_in "$keep")" -eq 300 ]
	# nothing damaged, and at most the few not compacted yet reported gone
	[[ "$output" != *"damaged"* ]]
	[ "$(grep -c "is gone" <<<"$output")" -le $((6 + foreign)) ]
}
