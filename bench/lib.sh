# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# shellcheck disable=SC2034,SC2119,SC2120
# (globals set here are read by the scripts that source it; functions
# with optional arguments)
#
# Shared shell for the benchmarks (sourced, not run): a client/server pair
# of network namespaces over veth, the daemon started like the bats suite
# starts it, a cgroup for the traffic, /proc readings of the daemon and
# small statistics helpers.  Benchmarks print numbers and never fail on
# them.
#
# A script sources this from the top of the tree:
#   . bench/lib.sh
#   bench_init		# root, built tree, bench/results/, the exit trap
# and registers its own clean-up with bench_on_exit "command".

BPFTUNE=build/bin/bpftune
BUILD_PLUGINS=build/lib/bpftune
RESULTS=bench/results
STAMP="$(date -u +%Y%m%dT%H%M%SZ)"

BENCH_CLEANUPS=()
BENCH_NETNS=()
# the namespaces below are named PREFIX-...-PID (a script may set its own)
BENCH_NS_PREFIX="${BENCH_NS_PREFIX:-bench}"
BENCH_PIDS=()
BENCH_TMP=""
DAEMON_PID=""
DAEMON_LOG=""
PLUGIN_DIR=""
BENCH_CG=""
# the daemon binary and the plugins it loads: this build unless an A/B
# comparison points them at another build (bench/cost.sh AB_BPFTUNE=...)
DAEMON_BIN="$BPFTUNE"
PLUGIN_SRC="$BUILD_PLUGINS"
# a whole command line for another daemon (AB_CMD), empty for ours
DAEMON_CMD=()
# when the daemon was seen up (epoch seconds), set by bench_daemon_start
DAEMON_READY_AT=""
AB_NAME="${AB_NAME:-other}"
# a cgroup for the daemon itself (bench_cgroup_daemon): its CPU time in us
DAEMON_CG=""

bench_die() {
	echo "$(basename "$0"): $*" >&2
	exit 1
}

bench_need() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null ||
			bench_die "$c is not installed (scripts/install-deps.sh --bench)"
	done
}

bench_on_exit() {
	BENCH_CLEANUPS+=("$1")
}

# bench_netns_kill NS: every process in NS, TERM then KILL
bench_netns_kill() {
	local pids i

	for i in 1 2 3 4 5 6 7 8 9 10; do
		pids="$(ip netns pids "$1" 2>/dev/null)"
		[ -n "$pids" ] || return 0
		# shellcheck disable=SC2086
		kill -TERM $pids 2>/dev/null
		sleep 0.2
	done
	# shellcheck disable=SC2086
	kill -KILL $(ip netns pids "$1" 2>/dev/null) 2>/dev/null
}

# bench_stop PID: TERM, then KILL if it is still there 2 s later, and
# reaped if it is our child.  A bare TERM and wait can hang the script:
# an iperf3 client was seen stuck for 15 minutes in its SIGTERM handler.
# (bench_daemon_stop never KILLs: the daemon's exit path is measured.)
bench_stop() {
	local i

	kill -TERM "$1" 2>/dev/null || return 0
	for i in $(seq 1 20); do
		# bash reaps its children as they exit: no zombie lingers here
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	# under set -e: a process already gone is no error
	kill -KILL "$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
}

bench_cleanup() {
	local i p
	set +e
	for ((i = ${#BENCH_CLEANUPS[@]} - 1; i >= 0; i--)); do
		eval "${BENCH_CLEANUPS[$i]}"
	done
	bench_daemon_stop
	for p in "${BENCH_PIDS[@]}"; do
		bench_stop "$p"
	done
	# a server started through a wrapper (cgroup, taskset, chrt) outlives
	# the wrapper's pid: whatever still runs in a bench netns goes too
	bench_netns_del_from 0
	[ -n "$DAEMON_CG" ] && rmdir "$DAEMON_CG" 2>/dev/null
	[ -n "$BENCH_CG" ] && rmdir "$BENCH_CG" 2>/dev/null
	[ -n "$PLUGIN_DIR" ] && rm -rf "$PLUGIN_DIR"
	bench_globals_restore
	[ -n "$BENCH_TMP" ] && rm -rf "$BENCH_TMP"
}

# a daemon measured while it tunes (without --observe, or another
# daemon's command line) may change the global netns's tunables: the
# operator's values come back at exit, and the log says which moved
bench_globals_restore() {
	local changed

	[ -n "$BENCH_TMP" ] && [ -f "$BENCH_TMP/saved" ] || return 0
	changed="$(globals_changed "$BENCH_TMP")"
	[ -n "$changed" ] || return 0
	echo "# bench: global tunables put back as they were:" >&2
	echo "$changed" | sed 's/^/#   /' >&2
	globals_restore "$BENCH_TMP/saved"
}

bench_init() {
	[ "$(id -u)" -eq 0 ] || bench_die "run as root"
	if [ ! -x "$BPFTUNE" ] || [ ! -d "$BUILD_PLUGINS" ]; then
		bench_die "run make first"
	fi
	mkdir -p "$RESULTS"
	BENCH_TMP="$(mktemp -d /run/bpftune-bench.XXXXXX)"
	chmod 0755 "$BENCH_TMP"
	. test/globals_guard.bash
	globals_snapshot > "$BENCH_TMP/saved"
	trap bench_cleanup EXIT
	trap 'exit 130' INT TERM
}

# ---- network namespaces ------------------------------------------------

# bench_netns_del_from N: the namespaces of BENCH_NETNS from index N on
# go (their processes first) and leave the list: a script's per-run ones
bench_netns_del_from() {
	local i

	for ((i = $1; i < ${#BENCH_NETNS[@]}; i++)); do
		bench_netns_kill "${BENCH_NETNS[$i]}"
		ip netns del "${BENCH_NETNS[$i]}" 2>/dev/null || true
	done
	BENCH_NETNS=("${BENCH_NETNS[@]:0:$1}")
}

# bench_netns_pair TAG NET: namespaces $CLI and $SRV joined by a veth pair,
# IPv4 $NET.1 and $NET.2 (/24), IPv6 fd00:b7:X::1 and ::2 (/64) where X is
# the last number of NET (e.g. 192.168.96).  Sets CLI SRV CLI4 SRV4 CLI6 SRV6.
bench_netns_pair() {
	local tag="$1" net="$2"

	CLI="$BENCH_NS_PREFIX-${tag}c-$$"
	SRV="$BENCH_NS_PREFIX-${tag}s-$$"
	CLI4="$net.1"
	SRV4="$net.2"
	CLI6="fd00:b7:${net##*.}::1"
	SRV6="fd00:b7:${net##*.}::2"
	ip netns add "$CLI"
	BENCH_NETNS+=("$CLI")
	ip netns add "$SRV"
	BENCH_NETNS+=("$SRV")
	ip -n "$CLI" link set lo up
	ip -n "$SRV" link set lo up
	ip link add "b${tag}c" netns "$CLI" type veth peer name "b${tag}s" netns "$SRV"
	ip -n "$CLI" addr add "$CLI4/24" dev "b${tag}c"
	ip -n "$SRV" addr add "$SRV4/24" dev "b${tag}s"
	ip -n "$CLI" addr add "$CLI6/64" dev "b${tag}c" nodad
	ip -n "$SRV" addr add "$SRV6/64" dev "b${tag}s" nodad
	ip -n "$CLI" link set "b${tag}c" up
	ip -n "$SRV" link set "b${tag}s" up
}

# bench_netns_one NAME: one namespace with lo up, its name in $NS (not
# from a $(...) subshell: the clean-up list must know it)
bench_netns_one() {
	NS="$BENCH_NS_PREFIX-$1-$$"
	ip netns add "$NS"
	BENCH_NETNS+=("$NS")
	ip -n "$NS" link set lo up
}

# TCP buffer sysctls of a namespace, one line; a daemon elsewhere on the
# host (another user's) that changes them shows up as a difference
bench_tcp_sysctls() {
	ip netns exec "$1" sysctl -n net.ipv4.tcp_rmem net.ipv4.tcp_wmem | tr '\t\n' '  '
}

# bench_tcp_sysctls_set NS "RMEM WMEM" (6 numbers, as bench_tcp_sysctls
# printed them): put them back
bench_tcp_sysctls_set() {
	local v

	read -ra v <<<"$2"
	ip netns exec "$1" sysctl -qw net.ipv4.tcp_rmem="${v[0]} ${v[1]} ${v[2]}" \
		net.ipv4.tcp_wmem="${v[3]} ${v[4]} ${v[5]}" >/dev/null
}

# wait until something listens on TCP port $2 in netns $1 (10 s at most)
bench_wait_listen() {
	local i
	for i in $(seq 1 100); do
		ip netns exec "$1" ss -Hltn "sport = :$2" | grep -q . && return 0
		sleep 0.1
	done
	return 1
}

# ---- the traffic's cgroup ----------------------------------------------

# A cgroup v2 leaf for the traffic: the daemon's cgroup programs (-c) see
# only the benchmark's own connections, not other users' on the host.
bench_cgroup() {
	local root

	root="$(awk '$3 == "cgroup2" {print $2; exit}' /proc/self/mounts)"
	[ -n "$root" ] || bench_die "no cgroup2 mount"
	BENCH_CG="$root/bpftune-bench-$$"
	mkdir "$BENCH_CG"
}

# A second leaf for the daemon: its CPU time (all threads, ns-precise in
# cpu.stat) apart from the workload's
bench_cgroup_daemon() {
	[ -n "$BENCH_CG" ] || bench_cgroup
	DAEMON_CG="${BENCH_CG}-daemon"
	mkdir "$DAEMON_CG"
}

# CPU time of a cgroup v2 in us (cpu.stat usage_usec)
bench_cg_usage_us() {
	awk '$1 == "usage_usec" {print $2}' "$1/cpu.stat"
}

# bench_in_cg CMD...: run CMD in the benchmark's cgroup (if there is one)
bench_in_cg() {
	if [ -n "$BENCH_CG" ]; then
		(echo "$BASHPID" >"$BENCH_CG/cgroup.procs" && exec "$@")
	else
		"$@"
	fi
}

# ---- A/B: another daemon ------------------------------------------------
#
# One more configuration, AB_NAME (default "other"), runs another daemon in
# the same blocks as this build:
#   AB_BPFTUNE=PATH AB_PLUGINS=DIR  another build of this daemon, started
#                                   exactly like this one (same flags)
#   AB_CMD="COMMAND ARGS..."        another daemon's whole command line, for
#       one whose flags differ (e.g. Oracle's bpftune: no --socket,
#       --journal, --telemetry-dir, --observe).  Parsed like a shell
#       command line (quotes work); in it {cgroup} is the workload's
#       cgroup (one of its own, empty, in a part that has none, e.g.
#       footprint.sh), {plugins} a trusted (root-owned 0755) copy of AB_PLUGINS
#       (set it if the command needs one) and {tmp} the run's scratch
#       directory.  Nothing is added: not our -s -l --socket --journal
#       --telemetry-dir, not BENCH_DAEMON_FLAGS, not the script's own
#       -c/--observe/-a/--no-telemetry; the command line is the same in
#       every setting of the script.  It must log to stdout or stderr.
#   AB_READY=ERE                    what AB_CMD's log prints once it is up
#                                   (default "bpftune running"); start-up
#                                   time is when the line is seen
#   AB_SETTLE=SECS                  then wait until the number of BPF
#                                   programs it holds has not changed for
#                                   SECS (default 0: no wait): for a daemon
#                                   whose last start-up line comes before
#                                   its tuners are loaded
# An AB_CMD daemon is never queried (bpftune -q): its events, sampler and
# telemetry figures are missing from the results, not zero.

# bench_ab_init: check the A/B settings; AB_ARGV is AB_CMD's words
bench_ab_init() {
	AB_ARGV=()
	if [ -n "${AB_CMD:-}" ]; then
		[ -z "${AB_BPFTUNE:-}" ] || bench_die "AB_CMD and AB_BPFTUNE: set one or the other"
		eval "AB_ARGV=($AB_CMD)" || bench_die "AB_CMD=$AB_CMD does not parse as a command line"
		[ ${#AB_ARGV[@]} -gt 0 ] || bench_die "AB_CMD is empty"
		command -v "${AB_ARGV[0]}" >/dev/null ||
			bench_die "AB_CMD: ${AB_ARGV[0]} is not an executable"
		if [[ "$AB_CMD" == *"{plugins}"* ]] && [ ! -d "${AB_PLUGINS:-}" ]; then
			bench_die "AB_CMD uses {plugins}: AB_PLUGINS must name the plugin directory"
		fi
	elif [ -n "${AB_BPFTUNE:-}" ]; then
		[ -x "$AB_BPFTUNE" ] || bench_die "AB_BPFTUNE=$AB_BPFTUNE is not an executable"
		[ -d "${AB_PLUGINS:-}" ] ||
			bench_die "AB_PLUGINS=${AB_PLUGINS:-} must name the other build's plugin directory"
	fi
	return 0
}

# true when an A/B configuration is asked for
bench_ab() {
	[ -n "${AB_BPFTUNE:-}${AB_CMD:-}" ]
}

# the A/B configuration in words, for the results' headers ("" without)
bench_ab_desc() {
	if [ -n "${AB_CMD:-}" ]; then
		echo "; $AB_NAME: $AB_CMD"
	elif [ -n "${AB_BPFTUNE:-}" ]; then
		echo "; $AB_NAME: $AB_BPFTUNE with $AB_PLUGINS"
	fi
}

# bench_use_build CFG: the daemon of configuration CFG (DAEMON_BIN,
# PLUGIN_SRC, DAEMON_CMD): AB_NAME's if CFG is it, this build's otherwise
bench_use_build() {
	DAEMON_BIN="$BPFTUNE"
	PLUGIN_SRC="$BUILD_PLUGINS"
	DAEMON_CMD=()
	if [ "$1" != "$AB_NAME" ] || ! bench_ab; then
		return 0
	elif [ -n "${AB_CMD:-}" ]; then
		DAEMON_CMD=("${AB_ARGV[@]}")
		DAEMON_BIN="${AB_ARGV[0]}"
		PLUGIN_SRC="${AB_PLUGINS:-}"
	else
		DAEMON_BIN="$AB_BPFTUNE"
		PLUGIN_SRC="$AB_PLUGINS"
	fi
}

# bench_daemon_argv [ARGS...]: the daemon's command line in BENCH_ARGV.
# Ours: -s, BENCH_DAEMON_FLAGS, -l $PLUGIN_DIR, its own socket and journal,
# then ARGS; an AB_CMD's: its words with {cgroup} {plugins} {tmp} replaced.
bench_daemon_argv() {
	local w

	BENCH_ARGV=()
	if [ ${#DAEMON_CMD[@]} -gt 0 ]; then
		if [[ "${DAEMON_CMD[*]}" == *"{cgroup}"* ]] && [ -z "$BENCH_CG" ]; then
			bench_cgroup
		fi
		for w in "${DAEMON_CMD[@]}"; do
			w="${w//\{cgroup\}/$BENCH_CG}"
			w="${w//\{plugins\}/$PLUGIN_DIR}"
			BENCH_ARGV+=("${w//\{tmp\}/$BENCH_TMP}")
		done
		return 0
	fi
	# shellcheck disable=SC2206
	BENCH_ARGV=("$DAEMON_BIN" -s ${BENCH_DAEMON_FLAGS:-} -l "$PLUGIN_DIR"
		--socket "$BENCH_TMP/bpftune.sock" --journal "$BENCH_TMP/journal" "$@")
}

# what the daemon's log prints once it is up (an ERE)
bench_ready_re() {
	if [ ${#DAEMON_CMD[@]} -gt 0 ]; then
		echo "${AB_READY:-bpftune running}"
	else
		echo "bpftune running"
	fi
}

# ---- the daemon ----------------------------------------------------------

# bench_plugin_dir [TUNER|FILE...]: a trusted plugin directory (root-owned,
# 0755, under /run) with the given built tuners (or plugin files, e.g. a
# fixture), all built tuners without arguments
bench_plugin_dir() {
	local t

	PLUGIN_DIR="$BENCH_TMP/plugins"
	rm -rf "$PLUGIN_DIR"
	mkdir -m 0755 "$PLUGIN_DIR"
	if [ -z "$PLUGIN_SRC" ]; then
		:	# an AB_CMD daemon without AB_PLUGINS: it finds its own
	elif [ $# -eq 0 ]; then
		cp "$PLUGIN_SRC"/*_tuner.so "$PLUGIN_DIR/"
	else
		for t in "$@"; do
			# admin_override (old name: sysctl) and netns are core mechanisms, always on: no file
			if [ "$t" = admin_override ] || [ "$t" = sysctl ] || [ "$t" = netns ]; then
				continue
			elif [[ "$t" == */* ]]; then
				cp "$t" "$PLUGIN_DIR/"
			else
				cp "$PLUGIN_SRC/${t}_tuner.so" "$PLUGIN_DIR/"
			fi
		done
	fi
	chmod 0755 "$PLUGIN_DIR"/*.so 2>/dev/null || [ -z "$PLUGIN_SRC" ]
}

# tuner names in the build, one per line
bench_tuners() {
	local f

	for f in "$BUILD_PLUGINS"/*_tuner.so; do
		f="${f##*/}"
		echo "${f%_tuner.so}"
	done
}

# bench_daemon_start [ARGS...]: start the daemon on $PLUGIN_DIR with its own
# control socket, journal and telemetry directory (unless ARGS choose) and
# wait until it logs "bpftune running" (all tuners loaded).  Sets
# DAEMON_PID, DAEMON_LOG, DAEMON_SOCK, DAEMON_READY_AT and
# DAEMON_STARTUP_MS (from the fork to the time stamp of that log line),
# and with a settle (below) DAEMON_LOADED_MS: from the fork to the last
# change of the number of BPF programs it holds, looked at from the fork
# every 0.5 s, the same measure for two daemons whose "up" lines
# differ in meaning (ours: all loaded; the reference's: before its tuners).
# BENCH_DAEMON_FLAGS (e.g. -L) are added.  An AB_CMD daemon (DAEMON_CMD)
# runs its own command line instead, ARGS left out, up when its log
# matches AB_READY (start-up: when that was seen).  Then, with
# BENCH_SETTLE=SECS (any daemon; AB_SETTLE for an AB_CMD one, the larger
# wins), until its BPF programs have not changed for SECS: two daemons
# compared get the same calm time after their last program is loaded.
bench_daemon_start() {
	local t0 t1 i ready settle fork_ns telargs=(--telemetry-dir "$BENCH_TMP/telemetry")

	[[ " $* " == *" --telemetry-dir "* || " $* " == *" --no-telemetry "* ]] && telargs=()
	bench_daemon_argv "${telargs[@]}" "$@"
	ready="$(bench_ready_re)"
	DAEMON_LOG="$BENCH_TMP/daemon.log"
	DAEMON_SOCK="$BENCH_TMP/bpftune.sock"
	: >"$DAEMON_LOG"
	t0="$(date +%s.%N)"
	fork_ns="${t0/./}"
	DAEMON_LOADED_MS=""
	PROGS_LAST=0
	PROGS_CHANGED_NS="$fork_ns"
	(
		[ -z "$DAEMON_CG" ] || echo "$BASHPID" >"$DAEMON_CG/cgroup.procs"
		exec "${BENCH_ARGV[@]}" >>"$DAEMON_LOG" 2>&1
	) &
	DAEMON_PID=$!
	# BENCH_START_TIMEOUT: qemu TCG guests load BPF objects slowly
	for i in $(seq 1 $((${BENCH_START_TIMEOUT:-120} * 20))); do
		# every 0.5 s, as the settle's looks: each is a process, which
		# in an emulated guest costs the daemon's start-up its CPU
		[ $((i % 10)) -ne 1 ] || bench_progs_watch "$DAEMON_PID"
		grep -qE -- "$ready" "$DAEMON_LOG" && break
		if ! kill -0 "$DAEMON_PID" 2>/dev/null; then
			cat "$DAEMON_LOG" >&2
			DAEMON_PID=""
			bench_die "the daemon exited during start-up: ${BENCH_ARGV[*]}"
		fi
		sleep 0.05
	done
	if [ ${#DAEMON_CMD[@]} -gt 0 ]; then
		grep -qE -- "$ready" "$DAEMON_LOG" && t1="$(date +%s.%N)" || t1=""
	else
		t1="$(sed -n 's/^bpftune\[\([0-9.]*\)\] info: bpftune running.*/\1/p' "$DAEMON_LOG")"
	fi
	[ -n "$t1" ] || { cat "$DAEMON_LOG" >&2; bench_die "the daemon did not start in time (no '$ready' in its log)"; }
	DAEMON_READY_AT="$t1"
	DAEMON_STARTUP_MS="$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.0f", (b - a) * 1000}')"
	settle="${BENCH_SETTLE:-0}"
	[ ${#DAEMON_CMD[@]} -eq 0 ] || [ "${AB_SETTLE:-0}" -le "$settle" ] || settle="$AB_SETTLE"
	if [ "$settle" -gt 0 ]; then
		bench_settle "$DAEMON_PID" "$settle" "${BENCH_START_TIMEOUT:-120}" ||
			bench_die "the daemon's BPF programs did not settle: ${BENCH_ARGV[*]}"
		DAEMON_LOADED_MS=$(((PROGS_CHANGED_NS - fork_ns) / 1000000))
	fi
}

# how many BPF programs process $1 holds, in BPF_PROGS (its descriptors).
# find fails on a descriptor closed while it looks (a daemon starting up
# opens and closes many), and on a process gone: neither stops the caller
bench_bpf_progs() {
	local x

	x="$(find "/proc/$1/fd" -lname anon_inode:bpf-prog -printf . 2>/dev/null)" || true
	BPF_PROGS=${#x}
}

# bench_progs_watch PID: one look at the BPF programs PID holds; a change
# of their number since the last look is timed (PROGS_CHANGED_NS)
bench_progs_watch() {
	bench_bpf_progs "$1"
	[ "$BPF_PROGS" = "$PROGS_LAST" ] && return 0
	PROGS_LAST="$BPF_PROGS"
	PROGS_CHANGED_NS="$(date +%s%N)"
}

# bench_settle PID SECS MAX: wait until PID has held the same number of BPF
# programs for SECS seconds (and is alive); fails after MAX seconds.  The
# looks go on from bench_daemon_start's (PROGS_LAST, PROGS_CHANGED_NS:
# the time of the last change, its programs all loaded)
bench_settle() {
	local pid="$1" secs="$2" max="$3" t0=$SECONDS

	# called alone: the calm time starts with its first look
	[ -n "${PROGS_CHANGED_NS:-}" ] || PROGS_LAST=-1
	while [ $((SECONDS - t0)) -lt "$max" ]; do
		kill -0 "$pid" 2>/dev/null || return 1
		bench_progs_watch "$pid"
		[ $(($(date +%s%N) - PROGS_CHANGED_NS)) -lt $((secs * 1000000000)) ] || return 0
		sleep 0.5
	done
	return 1
}

# bench_daemon_stop [SAVE]: SIGTERM, wait; the log is copied to SAVE
bench_daemon_stop() {
	local i

	[ -n "$DAEMON_PID" ] || return 0
	kill -TERM "$DAEMON_PID" 2>/dev/null
	for i in $(seq 1 100); do
		kill -0 "$DAEMON_PID" 2>/dev/null || break
		sleep 0.1
	done
	# its exit status is not ours: another daemon (AB_CMD) may die of the
	# SIGTERM (143), which set -e would take for the benchmark's failure
	wait "$DAEMON_PID" 2>/dev/null || true
	DAEMON_PID=""
	[ -n "${1:-}" ] && cp "$DAEMON_LOG" "$1"
	return 0
}

# ask the running daemon (fails for an AB_CMD daemon: not ours to ask)
bench_query() {
	[ ${#DAEMON_CMD[@]} -eq 0 ] || return 1
	"$DAEMON_BIN" --socket "$DAEMON_SOCK" -q "$@"
}

# ---- /proc readings --------------------------------------------------------

# CPU time (user + system, all threads) of a process in ms
bench_cpu_ms() {
	local tck

	tck="$(getconf CLK_TCK)"
	awk -v tck="$tck" '{sub(/^.*\) /, ""); printf "%.0f\n", ($12 + $13) * 1000 / tck}' \
		"/proc/$1/stat"
}

# peak resident set size of a process in kB
bench_hwm_kb() {
	awk '$1 == "VmHWM:" {print $2}' "/proc/$1/status"
}

# resident set size of a process now, in kB
bench_rss_kb() {
	awk '$1 == "VmRSS:" {print $2}' "/proc/$1/status"
}

# context switches (voluntary + involuntary) of every thread of a process;
# a sleeping thread switches once per wake-up
bench_ctxt() {
	cat /proc/"$1"/task/*/status 2>/dev/null |
		awk '/^(non)?voluntary_ctxt_switches:/ {n += $2} END {print n + 0}'
}

# per thread: "tid comm voluntary involuntary", one line each (threads
# may share a name: the daemon's leader and its loop thread).  A thread
# that sleeps switches voluntarily once per wake-up; an involuntary switch
# is a preemption (another task took the CPU), not a wake-up
bench_ctxt_threads() {
	local t

	for t in /proc/"$1"/task/*; do
		printf '%s %s %s\n' "${t##*/}" "$(tr ' ' _ <"$t/comm")" \
			"$(awk '/^voluntary_ctxt_switches:/ {v = $2}
				/^nonvoluntary_ctxt_switches:/ {n = $2}
				END {print v + 0, n + 0}' "$t/status")"
	done
}

# ---- idle wake-ups (footprint.sh, overhead.sh) ---------------------------------

# events the daemon handled so far (all tuners); "-" if it cannot be asked
bench_events_total() {
	local m

	m="$(bench_query metrics 2>/dev/null)" || { echo -; return 0; }
	awk '/^bpftune_events_total/ {n += $2} END {print n + 0}' <<<"$m"
}

# bench_wait_asleep SECONDS: until the daemon's gates sleep (its steady
# idle state: calm for their calm period, gate.h); at once for a daemon
# whose metrics have no such gauge (no gates, or another daemon)
bench_wait_asleep() {
	local i m

	for i in $(seq 1 $(($1 * 5))); do
		m="$(bench_query metrics 2>/dev/null)" || return 0
		grep -q '^bpftune_gates_asleep ' <<<"$m" || return 0
		grep -q '^bpftune_gates_asleep 1$' <<<"$m" && return 0
		sleep 0.2
	done
	return 1
}

# bench_idle ROWFN LABEL [DAEMON ARGS...]: start the daemon on $PLUGIN_DIR,
# let it settle (its gates asleep, if it has gates: at most 60 s), count
# its threads' switches over IDLE_SECS with no traffic of ours, stop it.
# Rows through "ROWFN idle LABEL CASE METRIC UNIT VALUE": case idle:
# wakeups_per_s (voluntary switches: wake-ups), preemptions_per_s
# (involuntary), events_per_s (events handled meanwhile: other users'
# traffic wakes the daemon legitimately), settled_s (from the start until
# the gates slept, or 60 if they did not), vm_rss (at the end, settled);
# case idle:THREAD: wakeups_per_s.
bench_idle() {
	local rowfn="$1" label="$2" e0 e1 c0 c1 t v n t0
	shift 2

	bench_daemon_start "$@"
	t0=$SECONDS
	sleep 2
	bench_wait_asleep 60 || true
	"$rowfn" idle "$label" idle settled_s s "$((SECONDS - t0))"
	e0="$(bench_events_total)"
	sleep 1
	c0="$(bench_ctxt_threads "$DAEMON_PID" | sort)"
	sleep "$IDLE_SECS"
	c1="$(bench_ctxt_threads "$DAEMON_PID" | sort)"
	e1="$(bench_events_total)"
	# "comm vol0 nonvol0 vol1 nonvol1" per thread alive at both readings,
	# joined by tid; a name that several threads share gets #2, #3 ...
	join <(echo "$c0") <(echo "$c1") |
		awk '{k = $2; if (seen[$2]++) k = $2 "#" seen[$2]
		      print k, $3, $4, $6, $7}' >"$BENCH_TMP/idle.dat"
	"$rowfn" idle "$label" idle wakeups_per_s 1/s "$(awk -v s="$IDLE_SECS" \
		'{n += $4 - $2} END {printf "%.2f", n / s}' "$BENCH_TMP/idle.dat")"
	"$rowfn" idle "$label" idle preemptions_per_s 1/s "$(awk -v s="$IDLE_SECS" \
		'{n += $5 - $3} END {printf "%.2f", n / s}' "$BENCH_TMP/idle.dat")"
	while read -r t v _ n _; do
		"$rowfn" idle "$label" "idle:$t" wakeups_per_s 1/s \
			"$(awk -v a="$v" -v b="$n" -v s="$IDLE_SECS" 'BEGIN {printf "%.2f", (b - a) / s}')"
	done <"$BENCH_TMP/idle.dat"
	[ "$e0" = - ] || [ "$e1" = - ] || "$rowfn" idle "$label" idle events_per_s 1/s \
		"$(awk -v a="$e0" -v b="$e1" -v s="$IDLE_SECS" 'BEGIN {printf "%.2f", (b - a) / (s + 1)}')"
	"$rowfn" idle "$label" idle vm_rss kB "$(bench_rss_kb "$DAEMON_PID")"
	bench_daemon_stop
}

# bench_idle_sleep ROWFN: a process that only sleeps, the floor of the method
bench_idle_sleep() {
	local p c0 c1

	sleep $((IDLE_SECS + 2)) &
	p=$!
	sleep 1
	c0="$(bench_ctxt "$p")"
	sleep "$IDLE_SECS"
	c1="$(bench_ctxt "$p")"
	wait "$p" || true
	"$1" idle sleep idle wakeups_per_s 1/s "$(awk -v a="$c0" -v b="$c1" -v s="$IDLE_SECS" \
		'BEGIN {printf "%.2f", (b - a) / s}')"
}

# ---- statistics --------------------------------------------------------------

# numbers on stdin, one per line: "median min max n" (median of an even
# count is the mean of the middle two); "- - - 0" without numbers
bench_stats() {
	sort -g | awk '
		{ v[NR] = $1 }
		END {
			if (!NR) { print "- - - 0"; exit }
			m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "%.6g %.6g %.6g %d\n", m, v[1], v[NR], NR
		}'
}

# a / b with 3 decimals, "-" if either is missing or b is 0
bench_ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		if (a == "-" || b == "-" || b + 0 == 0) print "-"
		else printf "%.3f\n", a / b }'
}

# spread of "median min max" as a percentage of the median: (max-min)/median
bench_spread() {
	awk -v m="$1" -v lo="$2" -v hi="$3" 'BEGIN {
		if (m == "-" || m + 0 == 0) print "-"
		else printf "%.1f%%\n", (hi - lo) * 100 / m }'
}

# machine description for result files
bench_machine() {
	printf '%s, kernel %s, %s CPUs (%s), %s MB RAM, load %s\n' \
		"$(hostname)" "$(uname -r)" "$(nproc)" \
		"$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)" \
		"$(awk '/^MemTotal/ {printf "%d", $2 / 1024}' /proc/meminfo)" \
		"$(cut -d' ' -f1-3 /proc/loadavg)"
}
