#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# bats file_tags=kernel
# The neigh_table tuner on this machine's kernel.  Neighbour entries are
# added by hand (nud stale: counted by the garbage collector) on a veth in
# a test netns.  The neighbour tables and their gc_thresh1-3 are global
# (one ARP table for every netns): the tests set low thresholds before the
# daemon starts and put back the host's values in teardown.

load helpers
load operate_helpers

THRESH="net.ipv4.neigh.default.gc_thresh1 net.ipv4.neigh.default.gc_thresh2 net.ipv4.neigh.default.gc_thresh3
	net.ipv6.neigh.default.gc_thresh1 net.ipv6.neigh.default.gc_thresh2 net.ipv6.neigh.default.gc_thresh3"

setup() {
	make_plugin_dir admin_override neigh_table
	SAVED_THRESH=()
	local s
	for s in $THRESH; do
		SAVED_THRESH+=("$s=$(sysctl -n "$s")")
	done
}

teardown() {
	if [ -z "${BATS_TEST_COMPLETED:-}" ] && [ -n "${LOG:-}" ] && [ -f "$LOG" ]; then
		grep -E "neigh_table|error|warning" "$LOG" | tail -40 | sed 's/^/# log: /' >&3
	fi
	common_teardown
	[ -n "${RUN_DIR:-}" ] && rm -rf "$RUN_DIR"
	RUN_DIR=
	local kv
	for kv in "${SAVED_THRESH[@]}"; do
		[ "$(sysctl -n "${kv%%=*}")" = "${kv#*=}" ] && continue
		sysctl -qw "$kv" || true
	done
}

thresh() {
	sysctl -n "net.ipv4.neigh.default.gc_thresh$1"
}

set_thresh() {
	sysctl -qw net.ipv4.neigh.default.gc_thresh1="$1" \
		net.ipv4.neigh.default.gc_thresh2="$2" \
		net.ipv4.neigh.default.gc_thresh3="$3"
}

# make_lan PREFIX/LEN: $NS with veth nt0 (PREFIX.0.1/LEN) whose peer is in
# a second netns without addresses
make_lan() {
	NS="$(make_netns)"
	PEER="$(make_netns)"
	ip link add nt0 netns "$NS" type veth peer name nt1 netns "$PEER"
	ip -n "$NS" addr add "$1" dev nt0
	ip -n "$NS" link set nt0 up
	ip -n "$PEER" link set nt1 up
}

# IPv6 (ndisc_cache): the same
thresh6() {
	sysctl -n "net.ipv6.neigh.default.gc_thresh$1"
}

set_thresh6() {
	sysctl -qw net.ipv6.neigh.default.gc_thresh1="$1" \
		net.ipv6.neigh.default.gc_thresh2="$2" \
		net.ipv6.neigh.default.gc_thresh3="$3"
}

# add_neigh6 NET FROM COUNT TRIES: stale entries NET::x on nt0 in $NS,
# added again while the full table refuses some, until COUNT are there
add_neigh6() {
	local net="$1" from="$2" n="$3" tries="$4" i j
	for ((i = 0; i < tries; i++)); do
		for ((j = from; j < from + n; j++)); do
			printf 'neigh replace %s::%x lladdr 02:00:00:01:%02x:%02x dev nt0 nud stale\n' \
				"$net" $((j + 2)) $((j / 256)) $((j % 256))
		done > "$BATS_TEST_TMPDIR/neigh6.batch"
		ip -n "$NS" -6 -force -batch "$BATS_TEST_TMPDIR/neigh6.batch" 2>/dev/null || true
		[ "$(ip -n "$NS" -6 neigh show dev nt0 | grep -c "^$net::")" -ge "$n" ] && return 0
		sleep 0.2
	done
	return 1
}

# neigh_batch NET FROM COUNT: stale entries NET.x.y on nt0 in $NS
neigh_batch() {
	pressure_neigh_batch "$NS" nt0 "$1" "$2" "$3" "$BATS_TEST_TMPDIR/neigh.batch"
}

entries_in_ns() {
	ip -n "$NS" -4 neigh show dev nt0 | grep -c . || true
}

# add_neigh NET FROM COUNT TRIES: add again what the table refused (the
# tuner grows it meanwhile) until COUNT entries of NET are there
add_neigh() {
	local net="$1" from="$2" n="$3" tries="$4" i
	for ((i = 0; i < tries; i++)); do
		neigh_batch "$net" "$from" "$n"
		[ "$(ip -n "$NS" -4 neigh show dev nt0 | grep -c "^$net\.")" -ge "$n" ] && return 0
		sleep 0.2
	done
	return 1
}

@test "neigh_table starts on this kernel with its caps logged" {
	start_daemon
	grep -q "tuner neigh_table started" "$LOG"
	grep -q "tuner neigh_table: caps: gc_thresh1-3 at most 65536, and no more than the configured prefixes can hold; applied with RTM_SETNEIGHTBL" "$LOG"
}

# slow in a TCG guest and not kernel-dependent beyond the rest of the
# file: make test-matrix runs it, the CI subset skips it
# bats test_tags=slow
@test "low thresholds grow with a few hundred neighbours, stop at what the prefix holds, shrink back when the table empties" {
	local t3 t2 t1
	make_lan 10.77.0.1/23
	set_thresh 32 64 128
	start_daemon
	# phase 1: 300 neighbours inside the /23
	add_neigh 10.77 0 300 100
	wait_for_log "neighbour table (near )?full: net.ipv4.neigh.default.gc_thresh3 128 -> 160 in global netns: "
	grep -qE "net.ipv4.neigh.default.gc_thresh2 64 -> 80 in global netns" "$LOG"
	grep -qE "net.ipv4.neigh.default.gc_thresh1 32 -> 40 in global netns" "$LOG"
	t3="$(thresh 3)"
	[ "$t3" -ge 300 ]
	# gc_thresh1/2 keep their proportion to gc_thresh3 (1/4, 1/2)
	t2="$(thresh 2)"
	t1="$(thresh 1)"
	[ "$t2" -le $((t3 / 2)) ] && [ "$t2" -ge $((t3 / 2 - 2)) ]
	[ "$t1" -le $((t3 / 4)) ] && [ "$t1" -ge $((t3 / 4 - 2)) ]
	# phase 2: 700 more, outside any prefix of the netns: the /23 holds
	# at most 512 neighbours, so growth stops there and says so
	add_neigh 10.78 0 700 25 || true
	wait_for_log "tuner neigh_table: IPv4 neighbour table: gc_thresh3 stays at [0-9]+: (the prefixes of netns $NS \(cookie [0-9]+\) can hold 512 neighbours|netns $NS \(cookie [0-9]+\) holds [0-9]+ IPv4 entries, at least the 512 neighbours its prefixes can hold)"
	# every raise for this netns stayed within what its prefix can hold
	# plus what other namespaces (other tests on this host) held then
	grep -E "gc_thresh3 [0-9]+ -> [0-9]+ in global netns: .* on nt0 in netns $NS " "$LOG" |
		sed -n 's/.*gc_thresh3 [0-9]* -> \([0-9]*\) in .*room for at most \([0-9]*\) entries: \([0-9]*\) elsewhere + 512 its prefixes can hold.*/\1 \2 \3/p' \
		> "$BATS_TEST_TMPDIR/raises"
	[ "$(grep -c . "$BATS_TEST_TMPDIR/raises")" -ge 6 ]
	while read -r new bound elsewhere; do
		[ "$new" -le "$bound" ]
		[ "$bound" -eq $((elsewhere + 512)) ]
	done < "$BATS_TEST_TMPDIR/raises"
	# phase 3: the table empties, the thresholds go back step by step
	ip -n "$NS" neigh flush dev nt0
	wait_for_log "neighbour table emptied: net.ipv4.neigh.default.gc_thresh3 [0-9]+ -> [0-9]+ in global netns: the arp_cache table holds [0-9]+ entries, at most a quarter of gc_thresh3 [0-9]+: back towards 32,64,128" 10
	# all the way back, unless other tests' neighbours fill a quarter of it
	if ! wait_for_log "neighbour table emptied: net.ipv4.neigh.default.gc_thresh3 [0-9]+ -> 128 in global netns" 30; then
		[ "$(printf '%d' "0x$(awk 'NR == 2 {print $1}' /proc/net/stat/arp_cache)")" -gt $(($(thresh 3) / 4)) ]
	else
		[ "$(thresh 3)" -eq 128 ]
		[ "$(thresh 2)" -eq 64 ]
		[ "$(thresh 1)" -eq 32 ]
		grep -qE "neighbour table emptied: net.ipv4.neigh.default.gc_thresh1 [0-9]+ -> 32 in global netns" "$LOG"
	fi
	# every value written stayed within the hard cap, none was a no-op
	stop_daemon
	! grep -E "gc_thresh[123] ([0-9]+) -> \1 " "$LOG"
	sed -n 's/.*gc_thresh[123] [0-9]* -> \([0-9]*\) in.*/\1/p' "$LOG" |
		while read -r v; do [ "$v" -le 65536 ]; done
}

# bats test_tags=hooks
@test "thresholds changed through netlink by someone else stop the tuner" {
	make_lan 10.79.0.1/22
	set_thresh 32 64 128
	start_daemon
	add_neigh 10.79 0 110 50
	wait_for_log "gc_thresh3 128 -> 160 in global netns"
	# not a sysctl write: only the tuner's own check can see this one
	ip ntable change name arp_cache thresh3 500
	add_neigh 10.79 110 300 25 || true
	wait_for_log "tuner neigh_table stopped in every netns: net.ipv4.neigh.default.gc_thresh3 is 500, bpftune last set [0-9]+: someone else has changed it"
	[ "$(thresh 3)" -eq 500 ]
	! grep -q "gc_thresh3 500 -> " "$LOG"
}

@test "-R puts the thresholds applied through netlink back through /proc/sys" {
	make_lan 10.81.0.1/22
	set_thresh 32 64 128
	make_run_dir
	start_daemon --socket "$SOCK" --journal "$JOURNAL" -R
	add_neigh 10.81 0 110 50
	wait_for_log "gc_thresh3 128 -> 160 in global netns"
	stop_daemon
	grep -q "rollback: restored net.ipv4.neigh.default.gc_thresh3 to 128 in global netns" "$LOG"
	grep -q "rollback: restored net.ipv4.neigh.default.gc_thresh1 to 32 in global netns" "$LOG"
	[ "$(thresh 3)" -eq 128 ]
	[ "$(thresh 2)" -eq 64 ]
	[ "$(thresh 1)" -eq 32 ]
}

# bats test_tags=hooks
@test "low IPv6 thresholds (ndisc_cache) grow with a few hundred IPv6 neighbours and shrink back when they are flushed" {
	make_lan 10.82.0.1/24
	ip -n "$NS" addr add fd00:82::1/64 dev nt0 nodad
	set_thresh6 32 64 128
	start_daemon -a admin_override -a neigh_table
	add_neigh6 fd00:82 0 300 100
	wait_for_log "neighbour table (near )?full: net.ipv6.neigh.default.gc_thresh3 128 -> 160 in global netns: "
	grep -qE "net.ipv6.neigh.default.gc_thresh2 64 -> 80 in global netns" "$LOG"
	grep -qE "net.ipv6.neigh.default.gc_thresh1 32 -> 40 in global netns" "$LOG"
	grep -qE "neighbour table (near )?full: net.ipv6.neigh.default.gc_thresh3 [0-9]+ -> [0-9]+ in global netns: .*(ndisc_cache table|on nt0 in netns $NS )" "$LOG"
	[ "$(thresh6 3)" -ge 300 ]
	[ "$(thresh6 2)" -ge 150 ]
	[ "$(thresh6 1)" -ge 75 ]
	# the IPv4 thresholds were not touched
	! grep -q "net.ipv4.neigh.default.gc_thresh" "$LOG"
	# the table empties: back step by step to where they were
	ip -n "$NS" -6 neigh flush dev nt0
	wait_for_log "neighbour table emptied: net.ipv6.neigh.default.gc_thresh3 [0-9]+ -> [0-9]+ in global netns: the ndisc_cache table holds [0-9]+ entries, at most a quarter of gc_thresh3 [0-9]+: back towards 32,64,128" 30
	# all the way, unless other tests' IPv6 neighbours fill a quarter of it
	if ! wait_for_log "neighbour table emptied: net.ipv6.neigh.default.gc_thresh3 [0-9]+ -> 128 in global netns" 60; then
		[ "$(printf '%d' "0x$(awk 'NR == 2 {print $1}' /proc/net/stat/ndisc_cache)")" -gt $(($(thresh6 3) / 4)) ]
	else
		wait_for_log "neighbour table emptied: net.ipv6.neigh.default.gc_thresh1 [0-9]+ -> 32 in global netns" 10
		[ "$(thresh6 3)" -eq 128 ]
		[ "$(thresh6 2)" -eq 64 ]
		[ "$(thresh6 1)" -eq 32 ]
	fi
	stop_daemon
	! grep -E "gc_thresh[123] ([0-9]+) -> \1 " "$LOG"
}
