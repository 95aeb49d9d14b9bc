#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Reaction time: from the onset of pressure on a limit approached from
# calm to the first change the daemon makes for it.
#
# Each scenario brings one limit near with the fixture of its hooks test
# (test/pressure.bash, shared with test/*.bats): the limit is set low
# before the daemon starts, the daemon is started from calm (all tuners,
# default flags, a telemetry directory of its own per start), its log's
# "bpftune running" is waited for, then SETTLE_SECS of calm (the gates'
# steady closed state) plus a random 0 to JITTER_MS, then the pressure
# starts.  The jitter spreads the onset over the gates' check period
# (2 s idle): with a fixed calm the onset would fall at the same phase
# of it in every start, and one part of the range of reaction times only.  The onset is stamped by
# this script (CLOCK_REALTIME, date +%s.%N) just before the pressure's
# first packet or netlink request; the change is the first log line of the
# scenario's pattern, whose time stamp is the daemon's (CLOCK_REALTIME,
# ms): reaction_ms = change - onset.  The first "hook ... attached" line of
# the scenario's tuner after the onset gives gate_ms (none for a hook
# without a gate, or a build without gates).
#
# Scenarios (SCENARIOS, all by default):
#   tcp_rmem     tcp_buffer: a netns's tcp_rmem max 256 KB, iperf3 into it
#   tcp_wmem     tcp_buffer: a netns's tcp_wmem max 256 KB, iperf3 out of it
#   net_backlog  net_buffer: netdev_max_backlog 16, UDP into a slowed CPU
#   net_budget   net_buffer: netdev_budget 8, the same traffic
#   udp_buffer   udp_buffer: rmem_default and rmem_max 16 KB, iperf3 -u
#   ip_frag      ip_frag: a netns's ipfrag_high_thresh 8 KB, 30 KB datagrams
#   neigh_table  neigh_table: gc_thresh1-3 32/64/128, 300 neighbours
#   route_table  route_table: a netns's IPv6 route max_size 128, 400 routes
# (somaxconn has no tuner among the daemon's own: the sample tuner's
# listen() report is out of tree and not started by default.)
#
# Repetitions interleave the builds: rep 1 runs this build first, rep 2
# the A/B build (AB_BPFTUNE/AB_PLUGINS/AB_NAME, e.g. the landed build)
# first, and so on, scenario by scenario.  Namespaces are reaction-*;
# namespaced limits are set there, global ones (net.core.*, gc_thresh*)
# are put back after every start and at exit (bench/lib.sh).
#
# Usage (root, from the top of the tree, after make all fixtures; on a
# shared host under the host-kernel lock):
#   bench/reaction.sh
# Knobs: REPS=5 SCENARIOS="..." SETTLE_SECS=3 JITTER_MS=2000
#   TIMEOUT_SECS=60 REACTION_OUT=PATH; AB_BPFTUNE/AB_PLUGINS/AB_NAME
#   (AB_CMD is left out, with a line saying so: the change is read from
#   our daemon's log lines)
# Results: OUT.csv (rep,config,case,metric,unit,value), OUT.info,
# OUT-logs/ (each start's log), OUT.md and OUT-summary.csv
# (bench/reaction_report.py).
set -eu
cd "$(dirname "$0")/.."
. bench/lib.sh
. test/pressure.bash

REPS="${REPS:-5}"
ALL_SCENARIOS="tcp_rmem tcp_wmem net_backlog net_budget udp_buffer ip_frag neigh_table route_table"
SCENARIOS="${SCENARIOS:-$ALL_SCENARIOS}"
SETTLE_SECS="${SETTLE_SECS:-3}"
JITTER_MS="${JITTER_MS:-2000}"
TIMEOUT_SECS="${TIMEOUT_SECS:-60}"
SLOW_OBJ=build/test/bpf/slow_rx.bpf.o
# global limits that bench/lib.sh's snapshot does not cover
NEIGH_GLOBALS="net.ipv4.neigh.default.gc_thresh1 net.ipv4.neigh.default.gc_thresh2
	net.ipv4.neigh.default.gc_thresh3"

if [ -n "${AB_CMD:-}" ]; then
	echo "reaction: AB_CMD left out (the change is read from this daemon's log lines): this build alone" >&2
	unset AB_CMD
fi
bench_ab_init
for s in $SCENARIOS; do
	[[ " $ALL_SCENARIOS " == *" $s "* ]] || bench_die "unknown scenario $s (one of: $ALL_SCENARIOS)"
	case "$s" in
	net_*)
		[ -f "$SLOW_OBJ" ] || bench_die "$SLOW_OBJ missing: run make fixtures"
		[ "$(nproc)" -ge 2 ] || bench_die "$s needs two CPUs"
		;;
	tcp_* | udp_*) bench_need iperf3 ;;
	esac
done
bench_need python3 taskset
bench_init
OUT="${REACTION_OUT:-$RESULTS/reaction-$STAMP}"
CSV="$OUT.csv"
mkdir -p "$OUT-logs"
echo "rep,config,case,metric,unit,value" >"$CSV"
for s in $NEIGH_GLOBALS; do
	echo "$s=$(sysctl -n "$s")"
done >"$BENCH_TMP/saved-neigh"
pressure_blast_tool "$BENCH_TMP"

row() {
	echo "$1,$2,$3,$4,$5,$6" >>"$CSV"
}

# ---- the scenarios: setup (before the daemon), pressure (after it is up),
# the tuner, the pattern of the first change -------------------------------

PPIDS=()
# every namespace is a run's own (reaction-*-PID), gone after the run
BENCH_NS_PREFIX=reaction
RNS_FROM=${#BENCH_NETNS[@]}

# bg CMD...: a pressure process in the background, stopped after the run
bg() {
	"$@" &
	PPIDS+=("$!")
}

setup_tcp_rmem() {
	bench_netns_pair tr 192.168.101
	ip netns exec "$SRV" sysctl -qw net.ipv4.tcp_rmem="4096 131072 262144"
	TUNER=tcp_buffer
	PATTERN="net.ipv4.tcp_rmem 4096 131072 262144 -> [0-9 ]+ in netns $SRV "
}

setup_tcp_wmem() {
	bench_netns_pair tw 192.168.102
	ip netns exec "$CLI" sysctl -qw net.ipv4.tcp_wmem="4096 16384 262144"
	TUNER=tcp_buffer
	PATTERN="net.ipv4.tcp_wmem 4096 16384 262144 -> [0-9 ]+ in netns $CLI "
}

# iperf3 from $CLI to $SRV4 until stopped; CLIENT_ARGS for the client
iperf_pressure() {
	local port=$((5300 + RANDOM % 500))
	pressure_iperf_server "$SRV" "$SRV4" "$port" || bench_die "iperf3 server not listening"
	PPIDS+=("$PRESSURE_PID")
	onset
	# shellcheck disable=SC2086
	bg ip netns exec "$CLI" iperf3 -c "$SRV4" -p "$port" -t "$TIMEOUT_SECS" \
		${CLIENT_ARGS:-} >/dev/null 2>&1
}

pressure_tcp_rmem() {
	CLIENT_ARGS="" iperf_pressure
}

pressure_tcp_wmem() {
	CLIENT_ARGS="" iperf_pressure
}

# $CLI -- veth -- $SRV with every packet steered to the last CPU and held
# there (pressure_slow_rx), the sender on CPU 0
net_setup() {
	bench_netns_pair "$1" "$2"
	pressure_slow_rx "$SRV" "b$1s" $(($(nproc) - 1)) "$SLOW_OBJ"
	TUNER=net_buffer
}

setup_net_backlog() {
	net_setup nk 192.168.103
	sysctl -qw net.core.netdev_max_backlog=16
	PATTERN="net.core.netdev_max_backlog 16 -> [0-9]+ in global netns"
}

setup_net_budget() {
	net_setup nb 192.168.104
	sysctl -qw net.core.netdev_budget=8
	PATTERN="net.core.netdev_budget 8 -> [0-9]+ in global netns"
}

blast_pressure() {
	onset
	bg ip netns exec "$CLI" taskset -c 0 python3 "$BENCH_TMP/blast.py" "$SRV4" 9 \
		"$TIMEOUT_SECS" 1 64
}

pressure_net_backlog() {
	blast_pressure
}

pressure_net_budget() {
	blast_pressure
}

setup_udp_buffer() {
	bench_netns_pair ub 192.168.105
	sysctl -qw net.core.rmem_max=16384 net.core.rmem_default=16384
	TUNER=udp_buffer
	PATTERN="net.core.rmem_(max|default) 16384 -> [0-9]+ in global netns"
}

pressure_udp_buffer() {
	CLIENT_ARGS="-u -b 0 -l 1400" iperf_pressure
}

setup_ip_frag() {
	bench_netns_pair if 192.168.106
	ip netns exec "$SRV" sysctl -qw net.ipv4.ipfrag_low_thresh=4096 net.ipv6.ip6frag_low_thresh=4096
	ip netns exec "$SRV" sysctl -qw net.ipv4.ipfrag_high_thresh=8192 net.ipv6.ip6frag_high_thresh=8192
	TUNER=ip_frag
	PATTERN="net.ipv4.ipfrag_high_thresh 8192 -> [0-9]+ in netns $SRV "
}

pressure_ip_frag() {
	onset
	bg bash -c ". test/pressure.bash; while :; do pressure_frags $CLI $SRV4; done"
}

# $NT with veth nt0 (10.77.0.1/23) whose peer is in a netns without
# addresses; the entries are counted in the host's one ARP table
setup_neigh_table() {
	bench_netns_one np
	bench_netns_one nt
	NT="$NS"
	ip link add nt0 netns "$NT" type veth peer name nt1 netns "reaction-np-$$"
	ip -n "$NT" addr add 10.77.0.1/23 dev nt0
	ip -n "$NT" link set nt0 up
	ip -n "reaction-np-$$" link set nt1 up
	sysctl -qw net.ipv4.neigh.default.gc_thresh1=32 net.ipv4.neigh.default.gc_thresh2=64 \
		net.ipv4.neigh.default.gc_thresh3=128
	TUNER=neigh_table
	PATTERN="net.ipv4.neigh.default.gc_thresh[123] [0-9]+ -> [0-9]+ in global netns"
}

pressure_neigh_table() {
	onset
	bg bash -c ". test/pressure.bash; while :; do
		pressure_neigh_batch $NT nt0 10.77 0 300 $BENCH_TMP/neigh.batch; sleep 0.2; done"
}

setup_route_table() {
	bench_netns_one rt
	pressure_routed "$NS"
	ip netns exec "$NS" sysctl -qw net.ipv6.route.max_size=128
	TUNER=route_table
	PATTERN="net.ipv6.route.max_size 128 -> [0-9]+ in netns $NS "
}

pressure_route_table() {
	onset
	pressure_routes "$NS" add 1 400 "$BENCH_TMP/routes.batch"
	# the tuner looks when a lookup walks the table
	bg bash -c "while :; do ip -n $NS -6 route get 2001:db8:ff::2 >/dev/null; sleep 0.1; done"
}

# ---- one start ----------------------------------------------------------------

onset() {
	ONSET="$(date +%s.%N)"
}

# log_ms PATTERN: ms from the onset to the first log line matching
# PATTERN (the log's own time stamp), empty if none
log_ms() {
	grep -E -- "$1" "$DAEMON_LOG" | head -1 |
		sed -n 's/^bpftune\[\([0-9.]*\)\].*/\1/p' |
		awk -v t0="$ONSET" '{printf "%.0f\n", ($1 - t0) * 1000}'
}

# the run's pressure and namespaces go, the global limits come back
run_cleanup() {
	local p

	for p in "${PPIDS[@]}"; do
		bench_stop "$p"
	done
	PPIDS=()
	bench_netns_del_from "$RNS_FROM"
	globals_restore "$BENCH_TMP/saved"
	globals_restore "$BENCH_TMP/saved-neigh"
}
bench_on_exit run_cleanup

# run SCENARIO CONFIG REP: one start from calm, one reaction
run() {
	local scen="$1" cfg="$2" rep="$3" i ms gate calm seen=0

	bench_use_build "$cfg"
	bench_plugin_dir
	"setup_$scen"
	bench_daemon_start --telemetry-dir "$BENCH_TMP/telemetry-$cfg"
	# calm (a signal stops the wait: the exit trap cleans up at once)
	calm=$((SETTLE_SECS * 1000 + (JITTER_MS > 0 ? RANDOM % JITTER_MS : 0)))
	sleep "$((calm / 1000)).$(printf %03d $((calm % 1000)))" &
	wait $!
	"pressure_$scen"
	for i in $(seq 1 $((TIMEOUT_SECS * 20))); do
		grep -qE -- "$PATTERN" "$DAEMON_LOG" && { seen=1; break; }
		kill -0 "$DAEMON_PID" 2>/dev/null || break
		sleep 0.05
	done
	ms="$(log_ms "$PATTERN")"
	gate="$(log_ms "tuner $TUNER: hook .* attached: ")"
	bench_daemon_stop "$OUT-logs/$scen-$cfg-$rep.log"
	run_cleanup
	rm -rf "$BENCH_TMP/telemetry-$cfg"
	if [ "$seen" = 1 ] && [ -n "$ms" ]; then
		row "$rep" "$cfg" "$scen" reaction_ms ms "$ms"
		echo "  $scen $cfg: ${ms} ms${gate:+ (gate ${gate} ms)}" >&2
	else
		row "$rep" "$cfg" "$scen" missed - 1
		echo "  $scen $cfg: no change in ${TIMEOUT_SECS} s" >&2
	fi
	[ -z "$gate" ] || row "$rep" "$cfg" "$scen" gate_ms ms "$gate"
	row "$rep" "$cfg" "$scen" calm_ms ms "$calm"
}

BUILDS=(this)
bench_ab && BUILDS+=("$AB_NAME")
{
	echo "# reaction: scenarios $SCENARIOS; $REPS repetitions, builds interleaved; all tuners, defaults; ${SETTLE_SECS}s + 0-${JITTER_MS}ms calm after 'bpftune running'; timeout ${TIMEOUT_SECS}s$(bench_ab_desc)"
	echo "# machine: $(bench_machine)"
	echo "# support: $("$BPFTUNE" -S -l "$BUILD_PLUGINS" 2>/dev/null | sed -n 's/.*support level: *//p' | head -1)"
	echo "# commit: $(git rev-parse --short HEAD 2>/dev/null || echo -)$(git diff --quiet HEAD 2>/dev/null || echo ' (modified)')"
	echo "# date: $(date -u '+%Y-%m-%d %H:%M UTC')"
} | tee "$OUT.info" >&2

start=$SECONDS
for rep in $(seq 1 "$REPS"); do
	order=("${BUILDS[@]}")
	if [ $((rep % 2)) -eq 0 ] && [ ${#BUILDS[@]} -eq 2 ]; then
		order=("${BUILDS[1]}" "${BUILDS[0]}")
	fi
	echo "rep $rep of $REPS ($((SECONDS - start)) s)" >&2
	for scen in $SCENARIOS; do
		for cfg in "${order[@]}"; do
			run "$scen" "$cfg" "$rep"
		done
	done
done
echo "done in $((SECONDS - start)) s" >&2
python3 bench/reaction_report.py "$CSV" "$OUT"
