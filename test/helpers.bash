# SPDX-License-Identifier: GPL-2.0-only
# Helpers for the bats suite: run the real daemon on the real kernel.
#
# BPFTUNE_TEST_MODE: host (default: this machine's kernel, whatever it
# supports), full (a kernel with fentry, e.g. the qemu guests), legacy
# (same guests, daemon started with -L).

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# the build under test: build/, or build/asan for make test-asan
BUILD="$REPO/${BPFTUNE_BUILD:-build}"
BPFTUNE="$BUILD/bin/bpftune"
# 1 under make test-asan: memory figures include the sanitizer's quarantine
SANITIZED="${BPFTUNE_SAN:-0}"
BUILD_PLUGINS="$BUILD/lib/bpftune"
FIXTURE_PLUGINS="$BUILD/test/plugins"
MODE="${BPFTUNE_TEST_MODE:-host}"
# where setup_suite installs bpftune and the out-of-tree sample tuner
SUITE_PREFIX="${BPFTUNE_SUITE_PREFIX:-/run/bpftune-suite}"
SAMPLE_SO="$SUITE_PREFIX/lib/bpftune/sample_tuner.so"

# A test that hangs fails after this long and the suite goes on (its
# teardown still runs): the longest test takes about 90 s on the host, a
# few times that under the sanitizers or in an emulated guest
if [ "$MODE" = host ] && [ "$SANITIZED" = 0 ]; then
	: "${BATS_TEST_TIMEOUT:=600}"
else
	: "${BATS_TEST_TIMEOUT:=1800}"
fi
# A wait for a state (wait_for_log, wait_count, wait_events, ...) gives up
# after its timeout times this: 1 on the host, 4 in an emulated guest or
# under the sanitizers, where the same work takes several times longer
# (up to 2x more again when the machine is busy).  A wait whose state
# comes costs nothing more; only a failing one takes longer to say so.
if [ "$MODE" = host ] && [ "$SANITIZED" = 0 ]; then
	: "${WAIT_SCALE:=1}"
else
	: "${WAIT_SCALE:=4}"
fi
export WAIT_SCALE

# every test starts from the global tunables the suite started with
. "$REPO/test/globals_guard.bash"
globals_guard
# the fixtures that bring a limit near (shared with bench/reaction.sh)
. "$REPO/test/pressure.bash"

mode_flags() {
	[ "$MODE" = legacy ] && echo "-L"
	return 0
}

# The BPF objects the daemon runs here: "legacy" with -L, and on a kernel
# where fentry does not load (the legacy objects' raw_tp needs no kernel
# BTF to attach); "full" otherwise.
objects_kind() {
	if [ "$MODE" = legacy ] || ! "$BPFTUNE" -S -l /nonexistent 2>/dev/null |
		grep -qE '^ +fentry +yes'; then
		echo legacy
	else
		echo full
	fi
}

# A trusted plugin dir (root-owned, 0755, under /run) with the given plugins.
# usage: make_plugin_dir sample alt ...
# admin_override (admin-override detection; its old name sysctl works too)
# and netns (netns tracking) are core mechanisms built into the daemon,
# always on: naming them adds no file.
make_plugin_dir() {
	PLUGIN_DIR="$(mktemp -d /run/bpftune-test.XXXXXX)"
	chmod 0755 "$PLUGIN_DIR"
	local t
	for t in "$@"; do
		if [ "$t" = admin_override ] || [ "$t" = sysctl ] || [ "$t" = netns ]; then
			continue
		elif [ "$t" = sample ]; then
			cp "$SAMPLE_SO" "$PLUGIN_DIR/"
		elif [ -f "$BUILD_PLUGINS/${t}_tuner.so" ]; then
			cp "$BUILD_PLUGINS/${t}_tuner.so" "$PLUGIN_DIR/"
		elif [ -f "$BUILD_PLUGINS/${t}_collector.so" ]; then
			cp "$BUILD_PLUGINS/${t}_collector.so" "$PLUGIN_DIR/"
		elif [ -f "$FIXTURE_PLUGINS/${t}_collector.so" ]; then
			cp "$FIXTURE_PLUGINS/${t}_collector.so" "$PLUGIN_DIR/"
		else
			cp "$FIXTURE_PLUGINS/${t}_tuner.so" "$PLUGIN_DIR/"
		fi
	done
	chmod 0755 "$PLUGIN_DIR"/*.so 2>/dev/null || true
}

# Start the daemon in the background, logging to $LOG; waits until it runs.
# usage: start_daemon [extra args]
start_daemon() {
	LOG="$BATS_TEST_TMPDIR/daemon.log"
	: > "$LOG"
	# telemetry files go to the test's directory unless the test chooses
	local tel=(--telemetry-dir "$BATS_TEST_TMPDIR/telemetry")
	[[ " $* " == *" --telemetry-dir "* || " $* " == *" --no-telemetry "* ]] && tel=()
	# so does the control socket ($CTL_SOCK; tuner_events asks it)
	local ctl=(--socket "$BATS_TEST_TMPDIR/ctl/bpftune.sock")
	CTL_SOCK="$BATS_TEST_TMPDIR/ctl/bpftune.sock"
	if [[ " $* " == *" --socket "* ]]; then
		ctl=()
		CTL_SOCK="$(sed -n 's/.*--socket \([^ ]*\).*/\1/p' <<<"$*")"
	fi
	"$BPFTUNE" -s $(mode_flags) -l "$PLUGIN_DIR" "${tel[@]}" "${ctl[@]}" "$@" >>"$LOG" 2>&1 &
	DAEMON_PID=$!
	wait_for_log "bpftune running" 30 || {
		cat "$LOG" >&3
		if kill -0 "$DAEMON_PID" 2>/dev/null; then
			echo "# the daemon ($DAEMON_PID) does not run $((30 * WAIT_SCALE)) s after its start:" >&3
			show_threads "$DAEMON_PID" >&3
		fi
		return 1
	}
}

# Stop the daemon with SIGTERM and wait; DAEMON_STATUS holds its exit code.
# A daemon still there 30 s (x WAIT_SCALE) later is shown and killed, so
# that a hang at exit fails its test instead of stopping the suite.
stop_daemon() {
	[ -n "${DAEMON_PID:-}" ] || return 0
	kill -TERM "$DAEMON_PID" 2>/dev/null || true
	if ! gone_within "$DAEMON_PID" 30; then
		echo "# the daemon ($DAEMON_PID) is still there $((30 * WAIT_SCALE)) s after SIGTERM:" >&3
		show_threads "$DAEMON_PID" >&3
		kill -KILL "$DAEMON_PID" 2>/dev/null || true
	fi
	DAEMON_STATUS=0
	wait "$DAEMON_PID" || DAEMON_STATUS=$?
	DAEMON_PID=
}

# gone_within PID SECONDS: until PID is gone (a zombie counts as gone)
gone_within() {
	local i state
	for i in $(seq 1 $(($2 * 10 * WAIT_SCALE))); do
		state="$(awk '/^State:/ {print $2}' /proc/"$1"/status 2>/dev/null)"
		[ -z "$state" ] || [ "$state" = Z ] && return 0
		sleep 0.1
	done
	return 1
}

# show_threads PID: each thread's name, state, wait channel and kernel stack
show_threads() {
	local t
	for t in /proc/"$1"/task/*; do
		echo "#   ${t##*/} $(cat "$t/comm" 2>/dev/null) $(awk '/^State:/ {print $2}' "$t/status" 2>/dev/null) wchan=$(cat "$t/wchan" 2>/dev/null)"
		sed 's/^/#     /' "$t/stack" 2>/dev/null | head -8
	done
	# where in userspace, unless a tracer (strace) holds it already
	if command -v gdb >/dev/null &&
		[ "$(awk '/^TracerPid:/ {print $2}' /proc/"$1"/status 2>/dev/null)" = 0 ]; then
		timeout 60 gdb -q -batch -p "$1" -ex "thread apply all bt 12" 2>/dev/null |
			grep -E '^(Thread|#)' | sed 's/^/#   /'
	fi
}

# wait_for_log PATTERN [seconds]: grep -E PATTERN in $LOG until it appears.
wait_for_log() {
	local pattern="$1" timeout="${2:-30}" i
	for i in $(seq 1 $((timeout * 10 * WAIT_SCALE))); do
		grep -qE -- "$pattern" "$LOG" && return 0
		if [ -n "${DAEMON_PID:-}" ] && ! kill -0 "$DAEMON_PID" 2>/dev/null; then
			grep -qE -- "$pattern" "$LOG" && return 0
			return 1
		fi
		sleep 0.1
	done
	return 1
}

# wait_count PATTERN N [seconds]: until PATTERN is in $LOG N times
wait_count() {
	local i
	for i in $(seq 1 $((${3:-30} * 10 * WAIT_SCALE))); do
		[ "$(grep -cE -- "$1" "$LOG")" -ge "$2" ] && return 0
		sleep 0.1
	done
	echo "only $(grep -cE -- "$1" "$LOG") of $2 lines matching '$1'" >&3
	return 1
}

# The daemon's main threads (named bpftune, the others have names of their
# own): the thread-group leader, which only waits for the daemon's thread,
# and that thread, which runs the event loop.
main_threads() {
	local t
	for t in /proc/"$1"/task/*; do
		[ "$(cat "$t/comm" 2>/dev/null)" = bpftune ] && echo "$t"
	done
	return 0
}

# gate_status HOOK: the line of -q status of that pressure-gated hook
# ("rx_entry rx_poll", "rcv__tp", "rcvbuf")
gate_status() {
	"$BPFTUNE" --socket "$CTL_SOCK" -q status | grep "hook $1: gated by"
}

# wait_gate_status HOOK ERE SECONDS: until that line matches ERE; shown
# if it never does
wait_gate_status() {
	local i
	for i in $(seq 1 $(($3 * 5 * WAIT_SCALE))); do
		gate_status "$1" | grep -qE "$2" && return 0
		sleep 0.2
	done
	gate_status "$1" >&3
	return 1
}

# Context switches of a process's main threads, voluntary and not.
ctxt_switches() {
	local t
	for t in $(main_threads "$1"); do
		cat "$t/status"
	done | awk '/ctxt_switches/ {s += $2} END {print s + 0}'
}

# wait_for_quiet PID [seconds]: until PID's main threads have had a whole
# second without a context switch and one sleeps in its loop's epoll_wait
# (start-up work done: on a loaded machine a thread starved of CPU in the
# middle of its start-up makes no switch either, but it is not asleep there)
wait_for_quiet() {
	local pid="$1" timeout="${2:-30}" i prev now t
	prev="$(ctxt_switches "$pid")"
	for i in $(seq 1 $((timeout * WAIT_SCALE))); do
		sleep 1
		now="$(ctxt_switches "$pid")"
		[ "$now" = "$prev" ] && for t in $(main_threads "$pid"); do
			cat "$t/wchan" 2>/dev/null
			echo
		done | grep -qx do_epoll_wait && return 0
		prev="$now"
	done
	return 1
}

# idle_window PID: PID's main threads make no context switch for 3 s.  The
# daemon watches the whole machine, so a namespace another test deleted
# (its clean-up runs late under load) or a process of another run may wake
# it for good reason: a window with a switch and a new line in $LOG (start
# the daemon with -d to have its events logged) is tried again, up to five
# times; a switch with nothing logged (a timer) fails at once.
idle_window() {
	local try before after lines
	for try in 1 2 3 4 5; do
		wait_for_quiet "$1" 30 || return 1
		lines="$(wc -l < "$LOG")"
		before="$(ctxt_switches "$1")"
		sleep 3
		after="$(ctxt_switches "$1")"
		echo "try $try: context switches $before -> $after"
		[ "$after" -eq "$before" ] && return 0
		if [ "$(wc -l < "$LOG")" -eq "$lines" ]; then
			echo "woken with nothing logged"
			return 1
		fi
		echo "woken by:"
		tail -n +"$((lines + 1))" "$LOG" | head -5
	done
	return 1
}

# tuner_events TUNER [events|events_ignored]: events the daemon has
# dispatched to TUNER so far (handled or ignored; or only those ignored
# because the tuner is stopped in their netns), from its control socket
tuner_events() {
	"$BPFTUNE" --socket "$CTL_SOCK" -q tuners --json | python3 -c 'import json, sys
t = [t for t in json.load(sys.stdin)["tuners"] if t["name"] == sys.argv[1]]
print(t[0][sys.argv[2]] if t else -1)' "$1" "${2:-events}"
}

# barrier: the daemon has handled every event the kernel reported so far
# (each query first delivers what is queued): a test that did something
# that must not change anything can look now
barrier() {
	"$BPFTUNE" --socket "$CTL_SOCK" -q tuners >/dev/null
}

# wait_events TUNER N [seconds [events_ignored]]: until TUNER has had N
# events in all (or N ignored): a barrier after which what a test did has
# been seen (or ignored) for sure
wait_events() {
	local i field="${4:-events}"
	for i in $(seq 1 $((${3:-30} * 10 * WAIT_SCALE))); do
		[ "$(tuner_events "$1" "$field")" -ge "$2" ] && return 0
		sleep 0.1
	done
	echo "tuner $1: $(tuner_events "$1" "$field") $field, not $2" >&3
	return 1
}

# BPF program ids and map ids held by a process, from /proc/PID/fdinfo.
prog_ids_of() {
	grep -h '^prog_id:' /proc/"$1"/fdinfo/* 2>/dev/null | awk '{print $2}' | sort -un
}
ringbuf_map_ids_of() {
	# map_type 27 is BPF_MAP_TYPE_RINGBUF
	local f
	for f in /proc/"$1"/fdinfo/*; do
		grep -q '^map_type:[[:space:]]*27$' "$f" 2>/dev/null &&
			awk '/^map_id:/ {print $2}' "$f"
	done | sort -un
}

# Test network namespaces, removed in teardown.
# make_netns runs in a $(...) subshell: the list lives in a file too
# usage: make_netns [name prefix, default bt]
NETNS_LIST=()
make_netns() {
	local ns="${1:-bt}$$-${#NETNS_LIST[@]}-$RANDOM"
	ip netns add "$ns"
	ip -n "$ns" link set lo up
	NETNS_LIST+=("$ns")
	echo "$ns" >> "${BATS_TEST_TMPDIR:-/tmp}/.bt-netns"
	echo "$ns"
}

# netns_pids NS: the processes in NS (never the daemon: the thread that
# enters a netns to read or write there is not its thread-group leader,
# whose netns is what /proc, and so ip netns pids, shows)
netns_pids() {
	ip netns pids "$1" 2>/dev/null || true
}

cleanup_netns() {
	local ns list="${BATS_TEST_TMPDIR:-/tmp}/.bt-netns"
	# what a test left running there (traffic generators) goes too, in
	# every netns before any link goes: a sender whose peer's netns is
	# gone first lingers as an orphan, its send queue held against
	# tcp_mem for minutes (the next tests' TCP memory)
	local pids i
	pids="$(for ns in "${NETNS_LIST[@]}" $(cat "$list" 2>/dev/null); do
		netns_pids "$ns"
	done)"
	if [ -n "$pids" ]; then
		kill $pids 2>/dev/null || true
		# their sockets close when they have exited (zombies have)
		for i in $(seq 1 100); do
			ps -o stat= -p "$(echo $pids | tr ' ' ,)" | grep -qv '^Z' || break
			sleep 0.1
		done
	fi
	for ns in "${NETNS_LIST[@]}" $(cat "$list" 2>/dev/null); do
		ip netns del "$ns" 2>/dev/null || true
	done
	rm -f "$list"
	NETNS_LIST=()
}

# in_ns NS CMD...: run CMD in netns NS, or in the global one for "-"
in_ns() {
	local ns="$1"
	shift
	if [ "$ns" = - ]; then
		"$@"
	else
		ip netns exec "$ns" "$@"
	fi
}

# wait_listen NS|- PORT: until a TCP socket listens on PORT there
wait_listen() {
	local i
	for i in $(seq 1 300); do
		in_ns "$1" ss -Hltn "sport = :$2" | grep -q . && return 0
		sleep 0.1
	done
	echo "nothing listens on port $2 in $1" >&3
	return 1
}

# listen() with a backlog in a netns (or globally with ns "-").
listen_backlog() {
	in_ns "$1" python3 -c "import socket,time; s=socket.socket(); s.bind(('127.0.0.1',0)); s.listen($2); time.sleep(0.3)"
}

somaxconn_in() {
	in_ns "$1" cat /proc/sys/net/core/somaxconn
}

# A cgroup v2 child for the daemon's cgroup programs (-c), so that a test
# sees only what its own commands do, not the other tests on the host.
# Removed by common_teardown.
make_cgroup() {
	local root cg
	root="$(awk '$3 == "cgroup2" {print $2; exit}' /proc/self/mounts)"
	[ -n "$root" ] || return 1
	cg="$root/bt$$-$RANDOM"
	mkdir "$cg" || return 1
	echo "$cg" >> "${BATS_TEST_TMPDIR:-/tmp}/.bt-cgroups"
	echo "$cg"
}

# in_cgroup CGROUP CMD...: run CMD inside CGROUP
in_cgroup() {
	local cg="$1"
	shift
	(echo "$BASHPID" > "$cg/cgroup.procs" && exec "$@")
}

cleanup_cgroups() {
	local cg list="${BATS_TEST_TMPDIR:-/tmp}/.bt-cgroups"
	for cg in $(cat "$list" 2>/dev/null); do
		rmdir "$cg" 2>/dev/null || true
	done
	rm -f "$list"
}

common_teardown() {
	local rc=0
	stop_daemon
	kill_leftover_daemons || rc=1
	cleanup_netns
	cleanup_cgroups
	[ -n "${PLUGIN_DIR:-}" ] && rm -rf "$PLUGIN_DIR"
	PLUGIN_DIR=
	if [ -n "${SAVED_SOMAXCONN:-}" ]; then
		echo "$SAVED_SOMAXCONN" > /proc/sys/net/core/somaxconn
	fi
	# a decision whose typed inputs do not match its policy's declaration
	# keeps only its text: an in-tree tuner never does that
	if [ -n "${LOG:-}" ] && grep -q "typed inputs not recorded" "$LOG" 2>/dev/null; then
		grep "typed inputs not recorded" "$LOG" >&3
		rc=1
	fi
	return "$rc"
}

# No daemon outlives its test: one the test lost track of would hold the
# suite's output open, and bats would wait for it for good (a CI run
# hung so).  One still running with the test's plugin directory is named,
# killed, and fails the test.
kill_leftover_daemons() {
	local pid left=0
	[ -n "${PLUGIN_DIR:-}" ] || return 0
	for pid in $(pgrep -f -- "-l $PLUGIN_DIR( |$)"); do
		echo "# a daemon of this test outlived it: $(tr '\0' ' ' < /proc/"$pid"/cmdline 2>/dev/null) (pid $pid): killed" >&3
		kill -KILL "$pid" 2>/dev/null || true
		left=1
	done
	return "$left"
}

# save_globals SYSCTL...: remember global values to put back in teardown
# (a sysctl this kernel lacks, e.g. flow_limit_cpu_bitmap without
# CONFIG_NET_FLOW_LIMIT, has nothing to put back)
save_globals() {
	local s
	SAVED_GLOBALS=()
	for s in "$@"; do
		[ -e "/proc/sys/${s//.//}" ] || continue
		SAVED_GLOBALS+=("$s=$(sysctl -n "$s")")
	done
}

# restore_globals: put back what save_globals saw, writing only what
# changed (a write is an admin's to other daemons); values are
# tab-separated and sysctl -w takes them as one word
restore_globals() {
	local kv
	for kv in "${SAVED_GLOBALS[@]}"; do
		[ "$(sysctl -n "${kv%%=*}")" = "${kv#*=}" ] && continue
		sysctl -qw "${kv%%=*}=${kv#*=}" || true
	done
}

# log_on_failure REGEX [LINES]: a failed test shows what the tuner did
# (the qemu guests keep nothing)
log_on_failure() {
	[ -z "${BATS_TEST_COMPLETED:-}" ] && [ -n "${LOG:-}" ] && [ -f "$LOG" ] || return 0
	grep -E "$1" "$LOG" | tail -"${2:-40}" | sed 's/^/# log: /' >&3
}

# kill_daemon: a crash (SIGKILL), nothing of the daemon's exit path runs
kill_daemon() {
	kill -KILL "$DAEMON_PID"
	wait "$DAEMON_PID" 2>/dev/null || true
	DAEMON_PID=
}

# bench_script_teardown PREFIX: a benchmark script a test started ($BENCH,
# if set) is stopped, and the PREFIX-* namespaces that were not there when
# the test began ($BEFORE) are deleted
bench_script_teardown() {
	local ns
	[ -z "${BENCH:-}" ] || kill -TERM "$BENCH" 2>/dev/null || true
	for ns in $(ip netns list | awk -v p="^$1-" '$1 ~ p {print $1}'); do
		grep -qx "$ns" <<<"$BEFORE" || ip netns del "$ns" 2>/dev/null || true
	done
}
