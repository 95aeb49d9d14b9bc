#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Cost as the work grows: the daemon's CPU and memory with 10, 100 and
# 1,000 live network namespaces, a TCP connection churning in each.
#
# Per step (N namespaces): N namespaces named netnsscale-PID-I, one driver
# (bench/netns_churn.py) that brings lo up and listens in each, then REPS
# repetitions of two windows of WINDOW seconds of churn (one connection
# per netns in turn: connect, 64 bytes, close, again), in alternating
# order: with no daemon (the driver's own rate: the baseline) and with the
# default daemon (all tuners, telemetry on, -R so that whatever it changes
# is put back on exit), started for the window and settled first: up
# ("bpftune running") and two telemetry samples written, the last one
# knowing at least N namespaces (health.netns_known) or as many as the
# one before (the sampler's list is bounded).  Over the window:
# the daemon's CPU, utime + stime of /proc/PID/stat (10 ms ticks) and the
# sum of its threads' run time from /proc/PID/task/*/schedstat (ns), its
# VmRSS before and after, the connections done.  tcp_conn's sockops runs
# on every connection, in the driver's context: that cost is in the
# driver's CPU per connection and rate, next to the baseline's.
#
# Usage (root, from the top of the tree, after make; on a shared host
# under the host-kernel lock):
#   bench/netns_scale.sh
# Knobs: STEPS="10 100 1000" REPS=3 WINDOW=10 SETTLE_TIMEOUT=120
#   NETNS_SCALE_OUT=PATH BENCH_DAEMON_FLAGS
# Results: OUT.csv (step,rep,config,metric,unit,value), OUT.info, OUT.md
# and OUT-summary.csv (bench/netns_scale_report.py).
set -eu
cd "$(dirname "$0")/.."
. bench/lib.sh

STEPS="${STEPS:-10 100 1000}"
REPS="${REPS:-3}"
WINDOW="${WINDOW:-10}"
SETTLE_TIMEOUT="${SETTLE_TIMEOUT:-120}"
PREFIX="netnsscale-$$"

bench_need python3 sqlite3
bench_init
OUT="${NETNS_SCALE_OUT:-$RESULTS/netns-scale-$STAMP}"
CSV="$OUT.csv"
echo "step,rep,config,metric,unit,value" >"$CSV"
CHURN_PID=""
NS_MADE=()

row() {
	echo "$1,$2,$3,$4,$5,$6" >>"$CSV"
}

# the step's namespaces, in one ip batch (1,000 ip processes take long)
netns_make() {
	local i

	NS_MADE=()
	for i in $(seq 1 "$1"); do
		NS_MADE+=("$PREFIX-$i")
	done
	printf 'netns add %s\n' "${NS_MADE[@]}" | ip -batch -
}

netns_remove() {
	[ ${#NS_MADE[@]} -gt 0 ] || return 0
	printf 'netns del %s\n' "${NS_MADE[@]}" | ip -force -batch - 2>/dev/null
	NS_MADE=()
}

driver_start() {
	coproc DRIVER { exec python3 bench/netns_churn.py "${NS_MADE[@]}"; }
	CHURN_PID=$DRIVER_PID
	read -r -t 300 line <&"${DRIVER[0]}" || bench_die "the churn driver did not start"
	[ "$line" = "ready $1" ] || bench_die "the churn driver: $line"
}

driver_stop() {
	[ -n "$CHURN_PID" ] || return 0
	# the coprocess's descriptors are gone if it exited already
	if [ -n "${DRIVER[1]:-}" ]; then
		{ echo quit >&"${DRIVER[1]}"; } 2>/dev/null || kill -TERM "$CHURN_PID" 2>/dev/null
	fi
	wait "$CHURN_PID" 2>/dev/null || true
	CHURN_PID=""
}

bench_on_exit netns_remove
bench_on_exit driver_stop

# churn WINDOW seconds; the driver's answer in CHURN ("churn conns=...")
churn() {
	echo "churn $WINDOW" >&"${DRIVER[1]}"
	read -r -t $((WINDOW * 3 + 60)) CHURN <&"${DRIVER[0]}" ||
		bench_die "the churn driver did not answer"
	[[ "$CHURN" == "churn conns="* ]] || bench_die "the churn driver: $CHURN"
}

# the driver's answer as rows (conns secs min max errors cpu_ms)
churn_rows() {
	local kv

	for kv in ${CHURN#churn }; do
		row "$1" "$2" "$3" "driver_${kv%%=*}" - "${kv#*=}"
	done
}

# run time of all the daemon's threads in ns (schedstat's first field)
daemon_run_ns() {
	cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{n += $1} END {printf "%.0f\n", n}'
}

# "rows netns_known previous" of the daemon's telemetry health table so
# far: the rows written, netns_known of the last row and of the one before
health_now() {
	local db=("$BENCH_TMP"/telemetry/*.db)

	[ -e "${db[0]}" ] || { echo "0 0 0"; return 0; }
	sqlite3 -separator ' ' "${db[0]}" \
		"SELECT (SELECT count(*) FROM health),
			coalesce((SELECT netns_known FROM health ORDER BY seq DESC LIMIT 1), 0),
			coalesce((SELECT netns_known FROM health ORDER BY seq DESC LIMIT 1 OFFSET 1), -1)" \
		2>/dev/null || echo "0 0 0"
}

# settled: two health rows written, the last one knowing the step's
# namespaces, or as many as the row before (the sampler keeps a bounded
# list: more namespaces than it holds are never known); netns_known of
# the last row in KNOWN
daemon_settle() {
	local n="$1" t0=$SECONDS h

	while :; do
		read -ra h <<<"$(health_now)"
		KNOWN="${h[1]}"
		if [ "${h[0]}" -ge 2 ] && { [ "${h[1]}" -ge "$n" ] || [ "${h[1]}" -eq "${h[2]}" ]; }; then
			return 0
		fi
		[ $((SECONDS - t0)) -lt "$SETTLE_TIMEOUT" ] ||
			bench_die "the daemon did not settle in ${SETTLE_TIMEOUT}s: health rows ${h[0]}, netns_known ${h[1]} < $n"
		kill -0 "$DAEMON_PID" || bench_die "the daemon exited"
		sleep 0.2
	done
}

window_none() {
	churn
	churn_rows "$1" "$2" none
}

window_daemon() {
	local n="$1" rep="$2" t0 c0 r0 rss0

	rm -rf "$BENCH_TMP/telemetry"
	bench_plugin_dir
	t0=$SECONDS
	bench_daemon_start -R
	daemon_settle "$n"
	row "$n" "$rep" daemon settle_s s $((SECONDS - t0))
	row "$n" "$rep" daemon netns_known - "$KNOWN"
	rss0="$(bench_rss_kb "$DAEMON_PID")"
	c0="$(bench_cpu_ms "$DAEMON_PID")"
	r0="$(daemon_run_ns "$DAEMON_PID")"
	churn
	row "$n" "$rep" daemon daemon_cpu_ns ns $(($(daemon_run_ns "$DAEMON_PID") - r0))
	row "$n" "$rep" daemon daemon_stat_cpu_ms ms $(($(bench_cpu_ms "$DAEMON_PID") - c0))
	row "$n" "$rep" daemon daemon_rss_kb_before kB "$rss0"
	row "$n" "$rep" daemon daemon_rss_kb kB "$(bench_rss_kb "$DAEMON_PID")"
	row "$n" "$rep" daemon daemon_hwm_kb kB "$(bench_hwm_kb "$DAEMON_PID")"
	churn_rows "$n" "$rep" daemon
	bench_daemon_stop "$OUT-daemon-$n-$rep.log"
}

{
	echo "# netns scale: steps $STEPS, $REPS repetitions of ${WINDOW}s windows (none, daemon; alternating order); daemon: all tuners, telemetry on, -R ${BENCH_DAEMON_FLAGS:-}"
	echo "# machine: $(bench_machine)"
	echo "# commit: $(git rev-parse --short HEAD 2>/dev/null || echo -)$(git diff --quiet HEAD 2>/dev/null || echo ' (modified)')"
	echo "# date: $(date -u '+%Y-%m-%d %H:%M UTC')"
} | tee "$OUT.info" >&2

start=$SECONDS
for n in $STEPS; do
	echo "step $n: namespaces ($((SECONDS - start)) s)" >&2
	netns_make "$n"
	driver_start "$n"
	for rep in $(seq 1 "$REPS"); do
		echo "step $n rep $rep ($((SECONDS - start)) s)" >&2
		if [ $((rep % 2)) -eq 1 ]; then
			window_none "$n" "$rep"
			window_daemon "$n" "$rep"
		else
			window_daemon "$n" "$rep"
			window_none "$n" "$rep"
		fi
	done
	driver_stop
	netns_remove
done
echo "done in $((SECONDS - start)) s" >&2
python3 bench/netns_scale_report.py "$CSV" "$OUT"
