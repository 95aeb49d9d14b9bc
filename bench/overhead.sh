#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# What the daemon costs a workload: iperf3 TCP (IPv4 and IPv6, both
# directions) and qperf tcp_bw/tcp_lat over a message-size sweep between two
# network namespaces over veth, without the daemon (baseline), with all
# tuners and with each tuner alone (-a), interleaved: every repetition runs
# each configuration once, in an order rotated per repetition.  Reported:
# median and spread per case and configuration, the ratio daemon/baseline
# (of the medians, and the range of the per-repetition ratios), the daemon's
# CPU time and peak RSS per run, its start-up time to "bpftune running"
# (all tuners loaded), and its wake-ups per second while idle with the
# default telemetry and with --no-telemetry.
#
# The daemon runs with --observe by default: the question is what watching
# costs, so a tuner must not change the buffers of the namespaces under
# test between a baseline and a daemon run (and on a shared host must not
# write other users' namespaces either); OBSERVE=0 lets it write.  Its
# cgroup programs (-c) are attached to a cgroup of the traffic only.
#
# Not a test: it prints numbers and never fails on them.  Timings on a busy
# machine are noisy; read the spread before the ratio.
#
# Usage (root, from the top of the tree, after make):
#   bench/overhead.sh
# Knobs (environment):
#   N=5                      repetitions
#   CASES="iperf-v4-up iperf-v4-down iperf-v6-up iperf-v6-down qperf-64 ..."
#                            (default: the four iperf3 cases and qperf-SIZE
#                            for each of QPERF_SIZES)
#   QPERF_SIZES="64 1024 16384 65536"
#   CONFIGS="baseline all netns admin_override tcp_buffer tcp_conn" (default:
#                            baseline, all and every built tuner)
#   IPERF_SECS=2 QPERF_SECS=1 IDLE_SECS=10 (0: no idle measurement)
#   OBSERVE=1                BENCH_DAEMON_FLAGS="-L" (legacy objects)
# Results: bench/results/overhead-<time>.{csv,md,png} and the summary
# (overhead-<time>-summary.csv); the daemon's log of the last run of each
# configuration next to them.
set -eu
cd "$(dirname "$0")/.."
. bench/lib.sh

N="${N:-5}"
IPERF_SECS="${IPERF_SECS:-2}"
QPERF_SECS="${QPERF_SECS:-1}"
QPERF_SIZES="${QPERF_SIZES:-64 1024 16384 65536}"
IDLE_SECS="${IDLE_SECS:-10}"
OBSERVE="${OBSERVE:-1}"
if [ -z "${CASES:-}" ]; then
	CASES="iperf-v4-up iperf-v4-down iperf-v6-up iperf-v6-down"
	for s in $QPERF_SIZES; do
		CASES="$CASES qperf-$s"
	done
fi
[ -n "${CONFIGS:-}" ] || CONFIGS="baseline all $(bench_tuners | tr '\n' ' ')"

bench_need iperf3 qperf python3
bench_init
bench_cgroup
bench_netns_pair o 192.168.96

OUT="$RESULTS/overhead-$STAMP"
CSV="$OUT.csv"
echo "rep,config,case,metric,unit,value" >"$CSV"
QPORT=$((19000 + $$ % 500))

row() {
	echo "$1,$2,$3,$4,$5,$6" >>"$CSV"
}

# iperf3 CASE: prints Mbit/s received, or "-"
run_iperf() {
	local fam="${1#iperf-}" dir srv_addr port srv out extra=()

	dir="${fam#*-}"
	fam="${fam%-*}"
	srv_addr="$SRV4"
	[ "$fam" = v6 ] && srv_addr="$SRV6" && extra+=(-6)
	[ "$dir" = down ] && extra+=(-R)
	port=$((5200 + RANDOM % 700))
	bench_in_cg ip netns exec "$SRV" iperf3 -s -1 -B "$srv_addr" -p "$port" >/dev/null 2>&1 &
	srv=$!
	if bench_wait_listen "$SRV" "$port"; then
		out="$(bench_in_cg ip netns exec "$CLI" iperf3 -c "$srv_addr" -p "$port" \
			-t "$IPERF_SECS" -J "${extra[@]}" 2>/dev/null)" || out=""
	fi
	kill "$srv" 2>/dev/null || true
	wait "$srv" 2>/dev/null || true
	python3 -c 'import json,sys
try:
    print("%.1f" % (json.loads(sys.argv[1])["end"]["sum_received"]["bits_per_second"] / 1e6))
except Exception:
    print("-")' "${out:-x}"
}

# qperf SIZE: prints "bytes_per_s latency_ns" ("-" where it failed)
run_qperf() {
	local out

	out="$(bench_in_cg ip netns exec "$CLI" qperf -lp "$QPORT" -t "$QPERF_SECS" -uu \
		-m "$1" "$SRV4" tcp_bw tcp_lat 2>/dev/null)" || true
	awk '/bw *=/ {bw = $3} /latency *=/ {lat = $3}
	     END {print (bw == "" ? "-" : bw), (lat == "" ? "-" : lat)}' <<<"$out"
}

run_cases() {
	local rep="$1" cfg="$2" c v bw lat

	for c in $CASES; do
		case "$c" in
		iperf-v[46]-up | iperf-v[46]-down)
			v="$(run_iperf "$c")"
			row "$rep" "$cfg" "$c" throughput Mbit/s "$v"
			;;
		qperf-[0-9]*)
			read -r bw lat < <(run_qperf "${c#qperf-}")
			[ "$bw" = - ] || bw="$(awk -v b="$bw" 'BEGIN {printf "%.2f", b / 1e6}')"
			[ "$lat" = - ] || lat="$(awk -v l="$lat" 'BEGIN {printf "%.2f", l / 1e3}')"
			row "$rep" "$cfg" "$c" bw MB/s "$bw"
			row "$rep" "$cfg" "$c" latency us "$lat"
			;;
		*)
			bench_die "unknown case $c"
			;;
		esac
	done
}

daemon_args() {
	local a=(-c "$BENCH_CG")
	[ "$OBSERVE" = 1 ] && a+=(--observe)
	echo "${a[@]}"
}

# one configuration in one repetition
run_config() {
	local rep="$1" cfg="$2" cpu0 t0 cpu1 t1 wall before after

	before="$(bench_tcp_sysctls "$CLI")|$(bench_tcp_sysctls "$SRV")"
	if [ "$cfg" != baseline ]; then
		# every plugin in the directory; one tuner: the allow-list
		bench_plugin_dir
		if [ "$cfg" = all ]; then
			# shellcheck disable=SC2046
			bench_daemon_start $(daemon_args)
		else
			# shellcheck disable=SC2046
			bench_daemon_start $(daemon_args) -a "$cfg"
		fi
		row "$rep" "$cfg" daemon startup ms "$DAEMON_STARTUP_MS"
		cpu0="$(bench_cpu_ms "$DAEMON_PID")"
		t0="$(date +%s.%N)"
	fi
	run_cases "$rep" "$cfg"
	if [ "$cfg" != baseline ]; then
		cpu1="$(bench_cpu_ms "$DAEMON_PID")"
		t1="$(date +%s.%N)"
		wall="$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}')"
		row "$rep" "$cfg" daemon cpu ms $((cpu1 - cpu0))
		row "$rep" "$cfg" daemon cpu_share % \
			"$(awk -v c=$((cpu1 - cpu0)) -v w="$wall" 'BEGIN {printf "%.3f", c / 10 / w}')"
		row "$rep" "$cfg" daemon rss_peak MB \
			"$(awk -v k="$(bench_hwm_kb "$DAEMON_PID")" 'BEGIN {printf "%.1f", k / 1024}')"
		row "$rep" "$cfg" daemon rss_end MB \
			"$(awk -v k="$(bench_rss_kb "$DAEMON_PID")" 'BEGIN {printf "%.1f", k / 1024}')"
		row "$rep" "$cfg" daemon events count \
			"$(bench_query metrics | awk '/^bpftune_events_total/ {n += $2} END {print n + 0}')"
		bench_daemon_stop "$OUT-$cfg.log"
	fi
	after="$(bench_tcp_sysctls "$CLI")|$(bench_tcp_sysctls "$SRV")"
	if [ "$after" != "$before" ]; then
		# someone else's daemon tuned our namespaces: say so, put them back
		echo "  note: TCP buffer sysctls of the test namespaces changed during $cfg (rep $rep): $before -> $after" >&2
		row "$rep" "$cfg" note sysctl_changed count 1
		bench_tcp_sysctls_set "$CLI" "${before%%|*}" || true
		bench_tcp_sysctls_set "$SRV" "${before##*|}" || true
	fi
}

# idle: daemon with all tuners, no traffic of ours (bench_idle)
run_idle() {
	local label="$1"
	shift

	bench_plugin_dir
	# shellcheck disable=SC2046
	bench_idle row "$label" $(daemon_args) "$@"
}

read -ra CFG <<<"$CONFIGS"
{
	echo "# overhead: $N repetitions, configurations: ${CFG[*]}"
	echo "# cases: $CASES (iperf3 ${IPERF_SECS}s, qperf ${QPERF_SECS}s per test)"
	echo "# daemon: $( [ "$OBSERVE" = 1 ] && echo "--observe, ")-c <traffic cgroup> ${BENCH_DAEMON_FLAGS:-}"
	echo "# machine: $(bench_machine)"
	echo "# date: $(date -u '+%Y-%m-%d %H:%M UTC')"
} | tee "$OUT.info" >&2

bench_in_cg ip netns exec "$SRV" qperf -lp "$QPORT" >/dev/null 2>&1 &
BENCH_PIDS+=($!)
bench_wait_listen "$SRV" "$QPORT" || bench_die "qperf server did not start"

start=$SECONDS
for rep in $(seq 1 "$N"); do
	k=${#CFG[@]}
	for i in $(seq 0 $((k - 1))); do
		cfg="${CFG[$(((i + rep - 1) % k))]}"
		echo "rep $rep/$N: $cfg ($((SECONDS - start)) s)" >&2
		run_config "$rep" "$cfg"
	done
done
if [ "$IDLE_SECS" -gt 0 ]; then
	echo "idle: ${IDLE_SECS}s each: sleep(1), all tuners, all tuners --no-telemetry" >&2
	bench_idle_sleep row
	run_idle all
	run_idle all-no-telemetry --no-telemetry
fi
echo "done in $((SECONDS - start)) s" >&2

python3 bench/report.py overhead "$CSV" "$OUT"
echo "results: $OUT.md $CSV $OUT-summary.csv $OUT.png" >&2
