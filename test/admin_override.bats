#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# bats file_tags=kernel
# Admin-override detection (the core mechanism admin_override, always on): an
# admin's write to a managed sysctl stops the tuner that manages it, in
# that netns, or everywhere for the global netns.

load helpers

setup() {
	SAVED_SOMAXCONN="$(cat /proc/sys/net/core/somaxconn)"
	make_plugin_dir sample
}

teardown() {
	common_teardown
}



# bats test_tags=hooks
@test "an admin write inside a netns stops the tuner there and only there" {
	local ns1 ns2 ns3
	ns1="$(make_netns)"
	ns2="$(make_netns)"
	ns3="$(make_netns)"
	ip netns exec "$ns1" sysctl -qw net.core.somaxconn=128
	ip netns exec "$ns3" sysctl -qw net.core.somaxconn=128
	start_daemon
	ip netns exec "$ns1" sysctl -qw net.core.somaxconn=300
	ip netns exec "$ns2" sysctl -qw net.core.somaxconn=300
	wait_for_log "tuner sample stopped in netns $ns1"
	wait_for_log "tuner sample stopped in netns $ns2"
	grep -q "net.core.somaxconn was set to '300' by pid [0-9]* (sysctl) in netns $ns1 (cookie [0-9]*); the admin owns it now" "$LOG"
	# a netns the admin has not touched is still tuned
	listen_backlog "$ns3" 3000
	wait_for_log "somaxconn 128 -> 3000 in netns $ns3"
	# the stopped one is not: its event is seen and ignored
	listen_backlog "$ns1" 3000
	wait_events sample 1 30 events_ignored
	[ "$(somaxconn_in "$ns1")" -eq 300 ]
	stop_daemon
	grep -q "summary: tuner sample: [0-9]* events, 1 ignored" "$LOG"
}

@test "an admin write in the global netns stops the tuner everywhere and detaches it" {
	local ns
	ns="$(make_netns)"
	ip netns exec "$ns" sysctl -qw net.core.somaxconn=128
	start_daemon
	sysctl -qw net.core.somaxconn="$SAVED_SOMAXCONN"
	wait_for_log "tuner sample stopped in every netns"
	grep -q "net.core.somaxconn was set to '$SAVED_SOMAXCONN' by pid [0-9]* (sysctl) in global netns" "$LOG"
	listen_backlog "$ns" 3000
	# whatever the listen() sent has been handled
	barrier
	[ "$(somaxconn_in "$ns")" -eq 128 ]
	# the sample tuner's program is no longer attached
	! grep -q "called listen" "$LOG"
	[ "$(tuner_events sample)" -eq 0 ]
	grep -q "core admin_override started" "$LOG"
}

@test "writes to sysctls no tuner manages change nothing" {
	start_daemon -d
	local old
	old="$(cat /proc/sys/net/ipv4/tcp_fin_timeout)"
	sysctl -qw net.ipv4.tcp_fin_timeout="$old"
	wait_for_log "sysctl net.ipv4.tcp_fin_timeout written by pid [0-9]* \(sysctl\) in global netns: not managed"
	! grep -q "stopped" "$LOG"
}

@test "reads are not writes" {
	start_daemon -d
	cat /proc/sys/net/core/somaxconn >/dev/null
	sysctl net.core.somaxconn >/dev/null
	barrier
	! grep -qE "somaxconn (was set to|written by)" "$LOG"
	! grep -q "stopped" "$LOG"
}
