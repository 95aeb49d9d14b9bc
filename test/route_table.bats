#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# bats file_tags=kernel
# The route_table tuner on this machine's kernel: net.ipv6.route.max_size
# is per netns, so everything happens in test namespaces, with IPv6 routes
# through a gateway on a veth (adding one looks the gateway up in the
# FIB, which is what the tuner watches) and lookups with ip route get.

load helpers

setup() {
	[ -r /proc/sys/net/ipv6/route/max_size ] || skip "no IPv6 on this kernel"
	make_plugin_dir admin_override route_table
}

teardown() {
	if [ -z "${BATS_TEST_COMPLETED:-}" ] && [ -n "${LOG:-}" ] && [ -f "$LOG" ]; then
		grep -E "route_table|error|warning" "$LOG" | tail -40 | sed 's/^/# log: /' >&3
	fi
	common_teardown
}

max_size_in() {
	ip netns exec "$1" cat /proc/sys/net/ipv6/route/max_size
}

# make_routed NS: link rt0 with 2001:db8:ff::1/64 in NS (pressure_routed)
make_routed() {
	pressure_routed "$1"
}

# routes NS OP FROM COUNT: add or del /64 routes 2001:db8:N:: via the gateway
routes() {
	pressure_routes "$1" "$2" "$3" "$4" "$BATS_TEST_TMPDIR/routes.batch"
}

# lookups NS: until PATTERN is in the log, look routes up in NS
lookups_until() {
	local ns="$1" pattern="$2" tries="${3:-300}" i
	for ((i = 0; i < tries; i++)); do
		grep -qE -- "$pattern" "$LOG" && return 0
		ip -n "$ns" -6 route get 2001:db8:ff::2 >/dev/null
		sleep 0.1
	done
	return 1
}

@test "route_table starts on this kernel with its caps logged" {
	start_daemon
	grep -q "tuner route_table started" "$LOG"
	grep -qE "tuner route_table: caps: net.ipv6.route.max_size at most 1048576; (this kernel drops IPv6 packets past it|this kernel \(6.3\+\) no longer enforces it)" "$LOG"
}

# bats test_tags=hooks
@test "a small max_size grows in its netns as IPv6 routes are added, not elsewhere, and shrinks back when they are gone" {
	local ns other global
	ns="$(make_netns)"
	other="$(make_netns)"
	make_routed "$ns"
	make_routed "$other"
	ip netns exec "$ns" sysctl -qw net.ipv6.route.max_size=128
	ip netns exec "$other" sysctl -qw net.ipv6.route.max_size=128
	global="$(cat /proc/sys/net/ipv6/route/max_size)"
	start_daemon
	routes "$ns" add 1 400
	# the first step is 160, or more when the routes the event counted
	# are already past 128 (a slow guest sees the batch half added)
	lookups_until "$ns" "IPv6 route table near max_size: net.ipv6.route.max_size 128 -> (1[6-9][0-9]|[2-9][0-9]{2}|[0-9]{4,}) in netns $ns \(cookie [0-9]+\): [0-9]+ IPv6 routes and [0-9]+ dst cache entries, within 32 of max_size 128"
	# grown past what is in use (400 routes and the link's own)
	lookups_until "$ns" "net.ipv6.route.max_size [0-9]+ -> ([4-9][0-9][0-9]|[0-9]{4,}) in netns $ns "
	[ "$(max_size_in "$ns")" -gt 400 ]
	# the other netns has a few routes only: not near its max_size
	ip -n "$other" -6 route get 2001:db8:ff::2 >/dev/null
	[ "$(max_size_in "$other")" -eq 128 ]
	[ "$(cat /proc/sys/net/ipv6/route/max_size)" = "$global" ]
	! grep -q "max_size .* in netns $other " "$LOG"
	# the routes go: max_size steps back to where it was
	routes "$ns" del 1 400
	lookups_until "$ns" "IPv6 route table emptied: net.ipv6.route.max_size [0-9]+ -> 128 in netns $ns \(cookie [0-9]+\): [0-9]+ of max_size [0-9]+ in use: back towards 128"
	[ "$(max_size_in "$ns")" -eq 128 ]
}

@test "max_size jumps past what is in use by twice its delta, no further, and never past its cap" {
	local ns in_use v
	ns="$(make_netns)"
	make_routed "$ns"
	ip netns exec "$ns" sysctl -qw net.ipv6.route.max_size=64
	# far more routes than max_size before the daemon runs: one report
	# must cover them, but not overshoot
	routes "$ns" add 1 1000
	start_daemon
	lookups_until "$ns" "net.ipv6.route.max_size 64 -> [0-9]+ in netns $ns "
	in_use="$(sed -n "s/.*max_size 64 -> [0-9]* in netns $ns .*: \([0-9]*\) IPv6 routes and \([0-9]*\) dst cache entries.*/\1 \2/p" "$LOG" | awk '{print ($1 > $2) ? $1 : $2}')"
	v="$(sed -n "s/.*max_size 64 -> \([0-9]*\) in netns $ns .*/\1/p" "$LOG")"
	[ "$in_use" -ge 1000 ]
	# delta is a quarter (learning rate 4) of what is in use
	[ "$v" -eq $((in_use + 2 * (in_use / 4))) ]
	stop_daemon
	sed -n 's/.*net.ipv6.route.max_size [0-9]* -> \([0-9]*\) in.*/\1/p' "$LOG" |
		while read -r v; do [ "$v" -le 1048576 ]; done
}

@test "an admin write to max_size in a netns stops the tuner there" {
	local ns
	ns="$(make_netns)"
	make_routed "$ns"
	ip netns exec "$ns" sysctl -qw net.ipv6.route.max_size=128
	start_daemon
	ip netns exec "$ns" sysctl -qw net.ipv6.route.max_size=100
	wait_for_log "tuner route_table stopped in netns $ns"
	routes "$ns" add 1 300
	# lookups until the tuner has had (and ignored) an event from there
	local i
	for i in $(seq 1 100); do
		ip -n "$ns" -6 route get 2001:db8:ff::2 >/dev/null
		[ "$(tuner_events route_table events_ignored)" -ge 1 ] && break
		sleep 0.1
	done
	[ "$(tuner_events route_table events_ignored)" -ge 1 ]
	[ "$(max_size_in "$ns")" -eq 100 ]
	! grep -q "net.ipv6.route.max_size 100 -> " "$LOG"
}
