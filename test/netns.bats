#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# bats file_tags=kernel
# netns tracking (the core mechanism "netns", always on): namespaces coming
# and going.  When one is destroyed the
# per-netns state of every tuner there goes GONE and is freed, and the
# daemon keeps no fd that would keep a deleted namespace alive.
#
# The daemon's cgroup programs (admin-override detection's) are attached to a
# cgroup of the test's own (-c), so that other tests' sysctl writes on
# this host make no state here.  The netns hooks see every namespace.

load helpers

setup() {
	SAVED_SOMAXCONN="$(cat /proc/sys/net/core/somaxconn)"
	make_plugin_dir sample
	CG="$(make_cgroup)" || skip "no cgroup2 hierarchy"
}

teardown() {
	local ns
	[ -z "${POLLER:-}" ] || kill "$POLLER" 2>/dev/null || true
	[ -z "${TRACER:-}" ] || kill -KILL "$TRACER" 2>/dev/null || true
	[ -z "${INSIDE:-}" ] || kill "$INSIDE" 2>/dev/null || true
	for ns in $(ip netns list | awk '{print $1}' | grep "^btc$$-"); do
		ip netns del "$ns" 2>/dev/null || true
	done
	common_teardown
}

# the daemon's open fds and resident memory (kB)
fds_of() { ls /proc/"$1"/fd | wc -l; }
rss_of() { awk '/^VmRSS:/ {print $2}' /proc/"$1"/status; }

# cookie of the netns a command runs in (SO_NETNS_COOKIE)
COOKIE_PY='import socket, struct; s = socket.socket(); print(struct.unpack("Q", s.getsockopt(socket.SOL_SOCKET, 71, 8))[0])'
netns_cookie() { ip netns exec "$1" python3 -c "$COOKIE_PY"; }

# churn N: N namespaces, each created, given per-netns state (an admin
# write that makes admin-override detection stop the sample tuner there),
# deleted.  Run inside $CG so that admin-override detection sees the writes.
churn() {
	(
		echo "$BASHPID" > "$CG/cgroup.procs"
		local i ns
		for i in $(seq 1 "$1"); do
			ns="btc$$-$i-$RANDOM"
			ip netns add "$ns"
			ip netns exec "$ns" sysctl -qw net.core.somaxconn=4096
			ip netns del "$ns"
		done
	)
}

@test "ip netns del of a netns the admin took over: its state goes gone" {
	local ns
	ns="$(make_netns)"
	ip netns exec "$ns" sysctl -qw net.core.somaxconn=128
	start_daemon -d -c "$CG"
	in_cgroup "$CG" ip netns exec "$ns" sysctl -qw net.core.somaxconn=300
	wait_for_log "tuner sample stopped in netns $ns"
	ip netns del "$ns"
	# its name is gone by the time the kernel has dismantled it, or not yet
	wait_for_log "tuner sample: netns (cookie [0-9]+ \(was $ns\)|$ns \(cookie [0-9]+\)): state manual -> gone \(netns destroyed\)"
	wait_for_log "netns: netns .*$ns.* destroyed \(seen by [_a-z]+\): [1-9][0-9]* per-netns states"
	stop_daemon
	grep -q "per-netns tuner states: 0," "$LOG"
}

@test "the daemon holds no fd of a netns: a deleted netns is destroyed" {
	local ns pid own f l
	ns="$(make_netns)"
	# a task inside lets the daemon resolve the netns through the event's pid
	ip netns exec "$ns" sleep 30 &
	pid=$!
	start_daemon -d -c "$CG"
	in_cgroup "$CG" ip netns exec "$ns" sysctl -qw net.core.somaxconn=300
	wait_for_log "tuner sample stopped in netns $ns"
	ip netns del "$ns"
	kill "$pid"
	wait "$pid" || true
	wait_for_log "netns: netns .*$ns.* destroyed"
	# no fd of the daemon refers to a netns other than its own
	own="$(readlink /proc/"$DAEMON_PID"/ns/net)"
	for f in /proc/"$DAEMON_PID"/fd/*; do
		l="$(readlink "$f" || true)"
		case "$l" in
		net:*) [ "$l" = "$own" ] ;;
		esac
	done
}

# slow in a TCG guest and not kernel-dependent beyond the rest of the
# file: make test-matrix runs it, the CI subset skips it
# bats test_tags=slow
@test "500 namespaces created and destroyed: no fd or memory growth, per-netns state freed" {
	# telemetry off: its periodic samples would grow the heap on their own
	start_daemon -d -c "$CG" --no-telemetry
	# warm up caches and the allocator first
	churn 20
	wait_count "state manual -> gone" 20
	local fds0 rss0 fds1 rss1
	fds0="$(fds_of "$DAEMON_PID")"
	rss0="$(rss_of "$DAEMON_PID")"
	churn 500
	wait_count "state manual -> gone" 520 180
	fds1="$(fds_of "$DAEMON_PID")"
	rss1="$(rss_of "$DAEMON_PID")"
	echo "# fds $fds0 -> $fds1, VmRSS $rss0 -> $rss1 kB" >&3
	[ "$fds1" -eq "$fds0" ]
	# 2 MB of slack for malloc arenas and stdio; per-netns leaks would be
	# more (a sanitizer build keeps freed memory in quarantine: there
	# LeakSanitizer judges at exit)
	[ "$SANITIZED" = 1 ] || [ "$rss1" -le $((rss0 + 2048)) ]
	stop_daemon
	[ "$(grep -c "tuner sample stopped in netns" "$LOG")" -eq 520 ]
	grep -q "per-netns tuner states: 0," "$LOG"
}

# Tracking a netns takes no hook on the system call path (unshare, setns):
# it is seen when a task execs in it, when a task is created in it
# (clone), or when the daemon enters it.

# bats test_tags=hooks
@test "ip netns add, then ip netns exec NS true: seen with exec, then destroyed" {
	local ns cookie
	start_daemon -d -c "$CG"
	ns="$(make_netns)"
	ip netns exec "$ns" true
	# the cookie comes from a later exec there, which finds it tracked
	cookie="$(netns_cookie "$ns")"
	wait_for_log "netns: cookie $cookie seen by pid [0-9]+ \(true\) with exec"
	[ "$(grep -cE "netns: cookie $cookie (seen|created|entered)" "$LOG")" -eq 1 ]
	[ "$(grep -cE "\(?cookie $cookie\)? .*destroyed" "$LOG")" -eq 0 ]
	ip netns del "$ns"
	# the daemon never looked it up: it may not know its name
	wait_for_log "netns: netns cookie $cookie( \(was $ns\))? destroyed|netns: netns $ns \(cookie $cookie\) destroyed"
}

# bats test_tags=hooks
@test "unshare -n python3: seen with exec, then destroyed when python3 exits" {
	local unshared
	start_daemon -d -c "$CG"
	unshared="$(unshare -n python3 -c "$COOKIE_PY")"
	wait_for_log "netns: cookie $unshared seen by pid [0-9]+ \(python3[^)]*\) with exec"
	wait_for_log "netns: netns cookie $unshared destroyed"
	# with tracepoints only, cleanup_net()'s work is known by its function
	# (root reads /proc/kallsyms), not by a queueing the daemon may miss
	! grep -q "cleanup_net not in /proc/kallsyms" "$LOG"
}

# A netns made before the daemon, whose tasks were born there: their execs
# track it without an event (nothing woken: a shell's "sleep" in a
# namespace that was there first); its destruction is still seen.
# bats test_tags=hooks
@test "execs of tasks born in their netns track it without an event" {
	local cookie d="$BATS_TEST_TMPDIR"
	unshare -n bash -c 'python3 -c "$1" > "$2/cookie"
		while [ ! -e "$2/go" ]; do sleep 0.05; done
		/bin/true; touch "$2/done"; exec sleep 600' sh "$COOKIE_PY" "$d" \
		</dev/null >/dev/null 2>&1 &
	INSIDE=$!
	start_daemon -d -c "$CG"
	for _ in $(seq 1 100); do [ -s "$d/cookie" ] && break; sleep 0.1; done
	cookie="$(cat "$d/cookie")"
	[ -n "$cookie" ]
	touch "$d/go"
	for _ in $(seq 1 100); do [ -e "$d/done" ] && break; sleep 0.1; done
	[ -e "$d/done" ]
	barrier
	[ "$(grep -cE "netns: cookie $cookie (seen|created|entered)" "$LOG")" -eq 0 ]
	kill "$INSIDE"
	wait "$INSIDE" || true
	INSIDE=
	# with tracepoints only, seen because the execs tracked it
	wait_for_log "netns: netns cookie $cookie destroyed"
}

# A netns the daemon did not see made, with a task in it that exec'd
# before the daemon started: the daemon enters it to raise somaxconn there
# (with tracepoints only, it also enters every named netns at start).
# bats test_tags=hooks
@test "a netns the daemon enters is tracked from then on, then destroyed" {
	local ns cookie pid go="$BATS_TEST_TMPDIR/go"
	ns="$(make_netns)"
	cookie="$(netns_cookie "$ns")"
	ip netns exec "$ns" sysctl -qw net.core.somaxconn=256
	ip netns exec "$ns" python3 -c '
import os, socket, sys, time
while not os.path.exists(sys.argv[1]):
    time.sleep(0.05)
l = socket.socket(); l.bind(("127.0.0.1", 0)); l.listen(1000)
time.sleep(600)
' "$go" </dev/null >/dev/null 2>"$BATS_TEST_TMPDIR/inside.err" &
	pid=$!
	INSIDE=$pid
	start_daemon -d -c "$CG"
	touch "$go"
	wait_for_log "somaxconn 256 -> 1000"
	wait_for_log "netns: cookie $cookie entered by the daemon"
	[ "$(grep -cE "netns: cookie $cookie (seen|created) by" "$LOG")" -eq 0 ]
	kill "$pid"
	wait "$pid" || true
	INSIDE=
	[ "$(grep -cE "\(?cookie $cookie\)? .*destroyed" "$LOG")" -eq 0 ]
	ip netns del "$ns"
	wait_for_log "netns: netns cookie $cookie \(was $ns\) destroyed|netns: netns $ns \(cookie $cookie\) destroyed"
}

# bats test_tags=hooks
@test "an unnamed netns is found through the event's pid; its change is marked gone when it dies" {
	local out cookie
	start_daemon -d -c "$CG"
	# listen() beyond somaxconn in a netns with no name: only the pid finds it
	out="$(unshare -n python3 -c '
import socket, struct, time
s = socket.socket()
print(struct.unpack("Q", s.getsockopt(socket.SOL_SOCKET, 71, 8))[0])
print(open("/proc/sys/net/core/somaxconn").read().strip(), flush=True)
l = socket.socket(); l.bind(("127.0.0.1", 0)); l.listen(60000)
time.sleep(1)
')"
	cookie="$(sed -n 1p <<<"$out")"
	[ "$(sed -n 2p <<<"$out")" -lt 60000 ]
	wait_for_log "tuner sample: listen backlog truncated: net.core.somaxconn [0-9]+ -> 60000 in netns cookie $cookie:"
	wait_for_log "netns: netns cookie $cookie destroyed \(seen by [_a-z]+\): 1 per-netns states and change records released"
	stop_daemon
	grep -q "summary: tuner sample, scenario 'listen backlog truncated': net.core.somaxconn changed 1 time in netns cookie $cookie (destroyed since): [0-9]* -> 60000" "$LOG"
	# no replay line for a netns that is gone
	! grep -A1 "in netns cookie $cookie (destroyed since)" "$LOG" | grep -q "replay with"
}

# The thread-group leader's netns is what /proc/PID/ns/net shows, so what
# `ip netns pids` and `ip netns identify` go by: were the leader ever in
# another netns, `ip netns pids NS | xargs kill` would kill the daemon.
# `ip netns pids` is polled all the time the daemon runs, and every setns()
# call once it runs is traced: those that tune in NS are there, and none
# is the leader's (TID == PID).  strace attaches to the running daemon:
# started under strace -f --seccomp-bpf, a daemon once printed nothing in
# 30 s, strace waiting in wait4() for good (make test-asan, 6.18).
@test "the daemon enters a netns to tune there, never on its main thread: ip netns pids never lists it" {
	command -v strace >/dev/null || skip "no strace (scripts/install-deps.sh installs it)"
	local ns ino pid polls into threads tasks trace="$BATS_TEST_TMPDIR/setns.trace"
	local seen="$BATS_TEST_TMPDIR/netns-pids"
	make_plugin_dir sample
	ns="$(make_netns netnsthread-)"
	ino="$(stat -L -c %i /run/netns/"$ns")"
	ip netns exec "$ns" sysctl -qw net.core.somaxconn=256
	# what ip netns pids lists, all the time the daemon runs
	(while :; do ip netns pids "$ns"; echo poll; done > "$seen" 2>/dev/null) &
	POLLER=$!
	# LeakSanitizer cannot work under ptrace: ASan alone in a sanitizer build
	if [ "$SANITIZED" = 1 ]; then
		export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
	fi
	start_daemon -c "$CG"
	pid="$DAEMON_PID"
	# -y: each fd with what it is, net:[inode] for a netns
	tasks="$(ls /proc/"$pid"/task | paste -sd,)"
	strace -f -qq -y -e trace=setns -o "$trace" -p "$tasks" &
	TRACER=$!
	traced "$pid" "$TRACER"
	listen_backlog "$ns" 1000
	wait_for_log "somaxconn 256 -> 1000"
	listen_backlog "$ns" 2000
	wait_for_log "somaxconn 1000 -> 2000"
	[ "$(somaxconn_in "$ns")" -eq 2000 ]
	stop_daemon
	[ "$DAEMON_STATUS" -eq 0 ]
	gone_within "$TRACER" 30 || kill -KILL "$TRACER"
	wait "$TRACER" || true
	TRACER=
	kill "$POLLER"
	wait "$POLLER" || true
	POLLER=
	polls="$(grep -cx poll "$seen")"
	into="$(grep -c "setns([0-9]*<net:\[$ino\]>, CLONE_NEWNET" "$trace" || true)"
	threads="$(awk '/setns\(/ {n[$1]++} END {for (t in n) printf "%s: %d, ", t, n[t]}' "$trace")"
	echo "# setns calls: $(grep -c 'setns(' "$trace"), $into into NS; by thread: ${threads}leader $pid; $polls polls of ip netns pids" >&3
	# two writes in NS, each entering it, and no call but by a thread
	# other than the leader
	[ "$into" -ge 2 ]
	[ -z "$(awk -v pid="$pid" '$1 == pid && /setns/' "$trace")" ]
	[ "$polls" -ge 1 ]
	[ "$(grep -cx "$pid" "$seen")" -eq 0 ]
}

# traced PID TRACER: until every thread of PID has TRACER as its tracer
traced() {
	local i t all
	for i in $(seq 1 300); do
		all=1
		for t in /proc/"$1"/task/*; do
			[ "$(awk '/^TracerPid:/ {print $2}' "$t/status" 2>/dev/null)" = "$2" ] || all=0
		done
		[ "$all" = 1 ] && return 0
		sleep 0.1
	done
	echo "# strace did not attach to every thread of $1 in 30 s" >&3
	return 1
}
