#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# bats file_tags=kernel
# The daemon on the real kernel: shared ring buffer, capabilities, hook
# selection, idle behaviour, shutdown.

load helpers

setup() {
	SAVED_SOMAXCONN="$(cat /proc/sys/net/core/somaxconn)"
}

teardown() {
	common_teardown
	[ -n "${TEST_CGROUP:-}" ] && rmdir "$TEST_CGROUP" 2>/dev/null || true
}

# bats test_tags=hooks
@test "all loaded objects share one ring buffer" {
	make_plugin_dir admin_override sample alt
	start_daemon
	local progs rbs p maps shared=0
	progs="$(prog_ids_of "$DAEMON_PID")"
	rbs="$(ringbuf_map_ids_of "$DAEMON_PID")"
	echo "progs: $progs ringbufs: $rbs"
	# one ring buffer map, however many fds refer to it
	[ "$(wc -w <<<"$rbs")" -eq 1 ]
	[ "$(wc -w <<<"$progs")" -ge 3 ]
	for p in $progs; do
		maps="$(bpftool prog show id "$p" -j | python3 -c 'import json,sys; print(" ".join(map(str, json.load(sys.stdin).get("map_ids", []))))')"
		[[ " $maps " == *" $rbs "* ]] && shared=$((shared + 1))
	done
	# each of the three objects has a program writing into that same ring
	# buffer (a program that sends no events, like alt's opt_sendmsg in
	# full mode, references no ring buffer at all)
	[ "$shared" -ge 3 ]
	bpftool map show id "$rbs" | grep -q "ringbuf  name bpftune_ringbuf"
}

@test "after start-up the daemon keeps only the capabilities it needs, none effective" {
	make_plugin_dir admin_override sample
	local ns
	ns="$(make_netns)"
	ip netns exec "$ns" sysctl -qw net.core.somaxconn=256
	start_daemon
	local eff prm t
	# CAP_NET_ADMIN 12, SYS_PTRACE 19, SYS_ADMIN 21, PERFMON 38, BPF 39,
	# and SYS_RESOURCE 24 and SYSLOG 34 only where we were given them
	local want=$(( (1<<12) | (1<<19) | (1<<21) | (1<<38) | (1<<39) ))
	# capabilities are per thread: the leader's (/proc/PID/status) and
	# the event loop's
	[ "$(main_threads "$DAEMON_PID" | wc -l)" -eq 2 ]
	for t in $(main_threads "$DAEMON_PID"); do
		eff="$(awk '/^CapEff:/ {print $2}' "$t/status")"
		prm="$(awk '/^CapPrm:/ {print $2}' "$t/status")"
		echo "$t: CapEff=$eff CapPrm=$prm"
		[ "$eff" = 0000000000000000 ]
		[ $(( 16#$prm & ~((1<<24) | (1<<34)) )) -eq "$want" ]
	done
	# still able to tune: the capabilities come back when needed
	listen_backlog "$ns" 1000
	wait_for_log "somaxconn 256 -> 1000"
	for t in $(main_threads "$DAEMON_PID"); do
		[ "$(awk '/^CapEff:/ {print $2}' "$t/status")" = 0000000000000000 ]
	done
}

# bats test_tags=hooks
@test "each hook uses the best alternative the kernel supports" {
	make_plugin_dir alt
	start_daemon -d
	python3 - <<'PY'
import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 47999)); s.listen(1)
c = socket.create_connection(("127.0.0.1", 47999)); a, _ = s.accept()
c.close(); a.close(); s.close()
PY
	case "$MODE" in
	host)	want=raw_tp ;;	# no fentry here: the legacy objects
	full)	want=fentry ;;
	legacy)	want=kprobe ;;
	esac
	wait_for_log "alt: event via $want"
	! grep -E "alt: event via" "$LOG" | grep -vq "via $want"
	if [ "$MODE" = host ]; then
		grep -q "optional hook opt_sendmsg unavailable: needs kprobe" "$LOG"
		grep -q "hook state: using raw_tp program state__tp" "$LOG"
	fi
}

@test "a tuner that cannot observe anything is skipped with one line; the rest run" {
	[ "$MODE" = host ] || skip "fentry works on this kernel"
	make_plugin_dir sample fentry_only
	start_daemon
	[ "$(grep -c 'tuner fentry_only skipped' "$LOG")" -eq 1 ]
	# no fentry: the legacy objects, whose function hook is a kprobe
	grep -q "tuner fentry_only skipped: hook sendmsg needs kprobe (kernel has no kprobes" "$LOG"
	grep -q "bpftune running with 1 tuner" "$LOG"
}

@test "-a loads only the allowed tuners; the core mechanisms always run" {
	make_plugin_dir sample alt
	# admin_override's old name, sysctl, is still accepted
	start_daemon -a sample_tuner.so -a admin_override -a sysctl
	grep -q "tuner sample started" "$LOG"
	grep -q -- "-a admin_override: a core mechanism, always on" "$LOG"
	grep -q -- "-a sysctl: a core mechanism, always on" "$LOG"
	grep -q "plugin alt_tuner.so not loaded: not in the -a allow-list" "$LOG"
	! grep -q "tuner alt started" "$LOG"
	# admin-override detection and netns tracking, though -a names neither
	grep -q "core admin_override started" "$LOG"
	grep -q "core netns started" "$LOG"
}

@test "no wake-ups while nothing happens" {
	make_plugin_dir admin_override sample
	# telemetry's sample timer is the one periodic wake-up it has
	start_daemon -d --no-telemetry
	# after start-up (a second without a switch: a slow machine, a
	# sanitizer build, take longer to get there), no wake-up
	idle_window "$DAEMON_PID"
}

# the count before WHAT (an ERE) in the window gate's line: "N attaches"
gate_count() {
	gate_status rcvbuf | grep -oE "[0-9]+ $1" | head -1 | cut -d' ' -f1
}

# bats test_tags=hooks
@test "gated hooks while nothing happens: asleep, not one wake-up; a packet wakes them at once" {
	make_plugin_dir admin_override net_buffer ip_frag tcp_buffer
	# telemetry's sample timer is its own wake-up (the writer thread's)
	start_daemon --no-telemetry
	grep -q "tuner net_buffer: hook rx_entry rx_poll gated by" "$LOG"
	"$BPFTUNE" -S -l "$PLUGIN_DIR" $(mode_flags) |
		grep -q "hook rcvbuf: gated by a 200 ms window every 2 s, and TcpExt PruneCalled+TCPRcvQDrop+TCPMemoryPressures of the global netns (window gate); on an idle machine asleep until netif_receive_skb fires"
	local try before after sleeps attaches
	# asleep once calm for the calm period (10 s; under emulation, where
	# the alarm is dear, longer: -q status says how long).  Other tests' packets
	# on a shared host wake the gates legitimately: the sleep count says
	# so, and the window is tried again
	for try in 1 2 3 4 5 6; do
		wait_gate_status rcvbuf "asleep now" 120
		sleeps="$(gate_count 'sleeps?')"
		before="$(ctxt_switches "$DAEMON_PID")"
		sleep 5
		after="$(ctxt_switches "$DAEMON_PID")"
		echo "try $try: context switches $before -> $after, asleep $sleeps times" >&3
		[ "$after" -eq "$before" ] && break
		# still in the same sleep: something else woke a thread
		gate_status rcvbuf | grep -q "asleep now" &&
			[ "$(gate_count 'sleeps?')" -eq "$sleeps" ] && return 1
	done
	[ "$after" -eq "$before" ]
	"$BPFTUNE" --socket "$CTL_SOCK" -q metrics | grep -q '^bpftune_gates_asleep 1$'
	# a packet: the gates wake, and the window gate opens a window at once
	# (attaches its hook, or opens its flag where the link is kept)
	attaches="$(gate_count '(attach(es)?|openings?)')"
	python3 -c "import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'x', ('127.0.0.1', 9))"
	wait_gate_status rcvbuf "may sleep after [0-9]+ s calm, woken on netif_receive_skb" 10
	for try in $(seq 1 50); do
		[ "$(gate_count '(attach(es)?|openings?)')" -gt "$attaches" ] && break
		sleep 0.2
	done
	[ "$(gate_count '(attach(es)?|openings?)')" -gt "$attaches" ]
	"$BPFTUNE" --socket "$CTL_SOCK" -q metrics | grep -qE '^bpftune_gates_asleep_seconds_total [1-9]'
}

# bats test_tags=hooks
@test "SIGTERM: summary of every change with a replay line, no BPF program left" {
	make_plugin_dir admin_override sample
	local ns progs p
	ns="$(make_netns)"
	ip netns exec "$ns" sysctl -qw net.core.somaxconn=200
	start_daemon
	listen_backlog "$ns" 700
	wait_for_log "somaxconn 200 -> 700"
	listen_backlog "$ns" 900
	wait_for_log "somaxconn 700 -> 900"
	progs="$(prog_ids_of "$DAEMON_PID")"
	[ -n "$progs" ]
	stop_daemon
	[ "$DAEMON_STATUS" -eq 0 ]
	grep -q "summary: tuner sample, scenario 'listen backlog truncated': net.core.somaxconn changed 2 times in netns $ns (cookie [0-9]*): 200 -> 900" "$LOG"
	grep -q "summary:   replay with: ip netns exec $ns sysctl -w net.core.somaxconn=\"900\"" "$LOG"
	for p in $progs; do
		! bpftool prog show id "$p" >/dev/null 2>&1
	done
	# nothing attached to the cgroup either
	! bpftool cgroup tree 2>/dev/null | grep -q sysctl_write
}

@test "SIGINT shuts down the same way" {
	make_plugin_dir sample
	start_daemon
	local progs p
	progs="$(prog_ids_of "$DAEMON_PID")"
	kill -INT "$DAEMON_PID"
	stop_daemon
	[ "$DAEMON_STATUS" -eq 0 ]
	grep -q "Interrupt received: shutting down" "$LOG"
	grep -q "summary: no sysctl was changed" "$LOG"
	for p in $progs; do
		! bpftool prog show id "$p" >/dev/null 2>&1
	done
}

@test "-R puts back every sysctl it changed, in every netns" {
	make_plugin_dir admin_override sample
	local ns1 ns2
	ns1="$(make_netns)"
	ns2="$(make_netns)"
	ip netns exec "$ns1" sysctl -qw net.core.somaxconn=300
	ip netns exec "$ns2" sysctl -qw net.core.somaxconn=400
	echo 500 > /proc/sys/net/core/somaxconn
	start_daemon -R
	listen_backlog "$ns1" 3000
	listen_backlog "$ns2" 4000
	listen_backlog - 5000
	wait_for_log "somaxconn 300 -> 3000"
	wait_for_log "somaxconn 400 -> 4000"
	# in the global netns another process may have listened in between
	wait_for_log "somaxconn [0-9]+ -> 5000( |$)"
	[ "$(somaxconn_in "$ns1")" -eq 3000 ]
	stop_daemon
	[ "$(somaxconn_in "$ns1")" -eq 300 ]
	[ "$(somaxconn_in "$ns2")" -eq 400 ]
	[ "$(somaxconn_in -)" -eq 500 ]
	grep -q "rollback: restored net.core.somaxconn to 300 in netns $ns1" "$LOG"
}

# bats test_tags=hooks
@test "-c attaches cgroup programs to the given cgroup only" {
	local root
	root="$(awk '$3 == "cgroup2" {print $2; exit}' /proc/self/mounts)"
	[ -n "$root" ] || skip "no cgroup2 mount"
	TEST_CGROUP="$root/bpftune-test-$$"
	mkdir "$TEST_CGROUP"
	make_plugin_dir admin_override sample
	start_daemon -d -c "$TEST_CGROUP"
	# a write from outside the cgroup is not seen
	sysctl -qw net.core.somaxconn="$SAVED_SOMAXCONN"
	# a write from inside it is
	sh -c "echo \$\$ > $TEST_CGROUP/cgroup.procs; exec sysctl -qw net.core.somaxconn=$SAVED_SOMAXCONN"
	wait_for_log "tuner sample stopped in every netns"
	[ "$(grep -c 'was set to' "$LOG")" -eq 1 ]
}

@test "-D runs in the background" {
	make_plugin_dir sample
	LOG="$BATS_TEST_TMPDIR/daemon.log"
	run "$BPFTUNE" -D -l "$PLUGIN_DIR"
	[ "$status" -eq 0 ]
	local pid i
	for i in $(seq 1 50); do
		pid="$(pgrep -f "bpftune -D -l $PLUGIN_DIR" || true)"
		[ -n "$pid" ] && [ -n "$(prog_ids_of "$pid")" ] && break
		sleep 0.1
	done
	[ -n "$pid" ]
	[ "$(awk '/^PPid:/ {print $2}' /proc/"$pid"/status)" -eq 1 ] ||
		[ "$(awk '/^PPid:/ {print $2}' /proc/"$pid"/status)" -ne $$ ]
	DAEMON_PID="$pid"
	kill -TERM "$pid"
	for i in $(seq 1 50); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	! kill -0 "$pid" 2>/dev/null
	DAEMON_PID=
}

@test "identical consecutive log lines are collapsed into a count" {
	make_plugin_dir alt
	start_daemon
	python3 - <<'PY'
import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 47999)); s.listen(8)
for _ in range(3):
    c = socket.create_connection(("127.0.0.1", 47999)); a, _ = s.accept()
    c.close(); a.close()
s.close()
PY
	wait_events alt 3
	stop_daemon
	cat "$LOG"
	[ "$(grep -c 'alt: event via' "$LOG")" -eq 1 ]
	grep -q "last message repeated 2 times" "$LOG"
}

# bats test_tags=hooks
@test "tracefs the daemon mounts at start is unmounted at exit" {
	make_plugin_dir sample
	LOG="$BATS_TEST_TMPDIR/daemon.log"
	# a mount namespace of its own, where tracefs (and debugfs, whose
	# tracing directory mounts it on access) is not mounted
	run unshare -m --propagation private bash -c '
		set -u
		for m in /sys/kernel/debug/tracing /sys/kernel/tracing /sys/kernel/debug; do
			while umount "$m" 2>/dev/null; do :; done
		done
		if grep -qE " tracefs |/sys/kernel/debug " /proc/self/mounts; then
			echo "tracefs still mounted"; exit 90
		fi
		"$0" -s -l "$1" --no-telemetry > "$2" 2>&1 & pid=$!
		for i in $(seq 1 300); do
			grep -q "bpftune running" "$2" && break
			kill -0 $pid 2>/dev/null || break
			sleep 0.1
		done
		grep -q "bpftune running" "$2" || { echo "did not start"; exit 91; }
		grep " tracefs " /proc/self/mounts || { echo "not mounted by the daemon"; exit 92; }
		kill -TERM $pid
		wait $pid
		echo "exit status $?"
		if grep " tracefs " /proc/self/mounts; then echo "left mounted"; exit 93; fi
		echo "tracefs gone"
	' "$BPFTUNE" "$PLUGIN_DIR" "$LOG"
	echo "$output"
	cat "$LOG"
	[ "$status" -eq 0 ]
	[[ "$output" == *"tracefs /sys/kernel/tracing tracefs"* ]]
	[[ "$output" == *"exit status 0"* ]]
	[[ "$output" == *"tracefs gone"* ]]
	grep -q "mounted tracefs on /sys/kernel/tracing (unmounted at exit)" "$LOG"
	grep -q "unmounted tracefs from /sys/kernel/tracing" "$LOG"
	# this (the test's own) namespace still has its tracefs
	grep -q " tracefs " /proc/self/mounts
}
