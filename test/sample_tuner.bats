#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# bats file_tags=kernel
# The out-of-tree sample tuner: built against the installed bpftune, it
# raises somaxconn when listen() asks for more than somaxconn allows.

load helpers

setup() {
	SAVED_SOMAXCONN="$(cat /proc/sys/net/core/somaxconn)"
	make_plugin_dir admin_override sample
}

teardown() {
	common_teardown
}

@test "the sample tuner builds out of tree against the installed headers and library" {
	[ -f "$SAMPLE_SO" ]
	# compiled with the installed headers, not the source tree's
	grep -q -- "-I$SUITE_PREFIX/include" "$SUITE_PREFIX/sample-build.log" ||
		{ echo "# no -I$SUITE_PREFIX/include in its build log:" >&3
		  sed 's/^/#   /' "$SUITE_PREFIX/sample-build.log" >&3; false; }
	! grep -q -- "-I$REPO/include" "$SUITE_PREFIX/sample-build.log"
	PKG_CONFIG_PATH="$SUITE_PREFIX/lib/pkgconfig" run pkg-config --variable=plugindir bpftune
	[ "$output" = "$SUITE_PREFIX/lib/bpftune" ]
	readelf -d "$SAMPLE_SO" | grep -q 'NEEDED.*libbpftune.so.0'
	[ -f "$SUITE_PREFIX/include/bpftune/libbpftune.h" ]
	[ -f "$SUITE_PREFIX/include/bpftune/vmlinux.h" ]
	# the installed daemon loads it from its own plugin directory
	run "$SUITE_PREFIX/sbin/bpftune" -S $(mode_flags) -l "$SUITE_PREFIX/lib/bpftune"
	[[ "$output" =~ sample\ +will\ run ]]
}

# bats test_tags=hooks
@test "a listen() beyond somaxconn in a netns raises somaxconn there only" {
	local ns global
	ns="$(make_netns)"
	global="$(somaxconn_in -)"
	ip netns exec "$ns" sysctl -qw net.core.somaxconn=128
	start_daemon -d
	# __sys_listen() where a function hook works: not the syscall
	# tracepoint, which slows every system call of the machine
	case "$MODE" in
	full)	grep -q "hook listen: using fentry program listen__fn" "$LOG" ;;
	legacy)	grep -q "hook listen: using kprobe program listen__fn" "$LOG" ;;
	host)	grep -qE "hook listen: using (fentry program listen__fn|tracepoint program listen__tp)" "$LOG" ;;
	esac
	listen_backlog "$ns" 2048
	wait_for_log "somaxconn 128 -> 2048 in netns $ns"
	grep -q "sample: pid [0-9]* (python3) called listen() with backlog 2048, somaxconn is 128" "$LOG"
	grep -q "listen() by pid [0-9]* asked for backlog 2048, which somaxconn 128 silently truncated" "$LOG"
	[ "$(somaxconn_in "$ns")" -eq 2048 ]
	[ "$(somaxconn_in -)" -eq "$global" ]
}

@test "the global netns is tuned the same way" {
	echo 256 > /proc/sys/net/core/somaxconn
	start_daemon
	listen_backlog - 1024
	wait_for_log "somaxconn 256 -> 1024 in global netns"
	[ "$(somaxconn_in -)" -eq 1024 ]
}

@test "the tunable's cap holds" {
	local ns
	ns="$(make_netns)"
	ip netns exec "$ns" sysctl -qw net.core.somaxconn=1000
	start_daemon
	listen_backlog "$ns" 1000000
	wait_for_log "somaxconn 1000 -> 65535 in netns $ns"
	grep -q "(held at the tunable's cap)" "$LOG"
	[ "$(somaxconn_in "$ns")" -eq 65535 ]
}

@test "a change that changes nothing is not written, logged or counted" {
	local ns
	ns="$(make_netns)"
	ip netns exec "$ns" sysctl -qw net.core.somaxconn=1000
	start_daemon
	listen_backlog "$ns" 1000000
	wait_for_log "somaxconn 1000 -> 65535"
	# asks for more again: already at the cap, nothing to do
	listen_backlog "$ns" 2000000
	wait_for_log "called listen\(\) with backlog 2000000"
	# the handler logs that line before it decides: stop waits for it
	stop_daemon
	[ "$(grep -c 'tuner sample: listen backlog truncated: net.core.somaxconn' "$LOG")" -eq 1 ]
	grep -q "net.core.somaxconn changed 1 time in netns $ns" "$LOG"
	# the daemon's own writes are not mistaken for an admin's
	! grep -q "was set to" "$LOG"
}
