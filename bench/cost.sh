#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# What the daemon costs a workload, as CPU time per unit of work.  Each
# workload does a fixed amount of work (bytes through iperf3, transactions
# of qperf tcp_lat, stress-ng socket connections and context switches; see
# bench/workloads.sh) inside a cgroup of its own, pinned to one CPU at
# real-time priority; its cost is the cgroup's CPU time (cpu.stat
# usage_usec) divided by the work it counted.  Configurations (no daemon,
# the daemon with all tuners, one tuner alone, another build for an A/B)
# alternate in blocks: every block runs each configuration once, in an
# order rotated per block, RUNS runs of every case each; the daemon starts
# and stops per block.  bench/cost_report.py pairs the configurations of
# the same block and gives the ratio of their costs with a 95 % confidence
# interval.
#
# Then, per daemon configuration, one pass with kernel.bpf_stats_enabled=1
# (restored after; the statistics cost two clock reads per program run, so
# that pass is not used for the ratios): every BPF program the daemon holds,
# its runs and run time during each case, per unit of work - ns of BPF per
# packet, per transaction, per context switch, per program and per plugin
# (tuner or collector: whatever is loaded; see bench/bpf_progs.py).
#
# The daemon runs with --observe and -c <the workload's cgroup> (see
# overhead.sh), in a cgroup of its own: its CPU time, wake-ups and memory
# are recorded per block.  Not a test: it prints numbers, never fails on
# them.
#
# Usage (root, from the top of the tree, after make; on a shared host under
# the host-kernel lock):
#   bench/cost.sh
# Knobs (environment):
#   BLOCKS=12 RUNS=3         blocks, runs per case and block
#   CASES="iperf qperf sock switch"   also "syscall" (getppid calls: what
#                            the daemon adds to every system call)
#   CONFIGS="baseline all"   also tuner names (-a TUNER), AB_NAME, and
#                            "frozen": all tuners, the daemon stopped
#                            (SIGSTOP) while the block's runs go on: its
#                            BPF programs without its threads; "notel":
#                            all tuners, --no-telemetry
#   CASE_ORDER=rotate        each block starts one case further on, so that
#                            every case follows the daemon's start and each
#                            other case equally often; "fixed": as listed
#   STATS_RUNS=3             runs per case in the BPF statistics pass (0: none)
#   IPI_PAIRS=10             pairs of build/bench/ipi_cost after the blocks:
#                            what one IPI costs the workload's CPU, for the
#                            report's interrupts line (0: none; the default
#                            in a test/vm guest)
#   COST_DEADLINE=SECS       start no block after SECS seconds (default: none;
#                            for a guest with a timeout: whole blocks only)
#   AB_BPFTUNE=PATH AB_PLUGINS=DIR [AB_NAME=other]
#                            another daemon binary and its plugin directory:
#                            the configuration AB_NAME (added to CONFIGS)
#   AB_CMD="CMD ARGS..." [AB_PLUGINS=DIR] [AB_READY=ERE]
#                            instead: another daemon's whole command line,
#                            e.g. AB_CMD="/opt/bpftune/bpftune -s -c {cgroup}"
#                            (placeholders and limits: bench/lib.sh, A/B)
#   OBSERVE=1                BENCH_DAEMON_FLAGS="-L"
#   COST_OUT=PATH            results prefix (default bench/results/cost-<time>)
#   and the workload knobs of bench/workloads.sh (WL_CPU, WL_RT, sizes)
# Results: OUT.csv (block,config,case,run,metric,unit,value), OUT.md,
# OUT-summary.csv, OUT.png, OUT-bpf.png, the daemon logs OUT-CONFIG.log,
# OUT-ipi.txt (ipi_cost's output).
set -eu
cd "$(dirname "$0")/.."
. bench/lib.sh
. bench/workloads.sh

BLOCKS="${BLOCKS:-12}"
RUNS="${RUNS:-3}"
CASES="${CASES:-iperf qperf sock switch}"
CONFIGS="${CONFIGS:-baseline all}"
STATS_RUNS="${STATS_RUNS:-3}"
CASE_ORDER="${CASE_ORDER:-rotate}"
wl_order 1 >/dev/null
# in a TCG guest the probe's fixed work would take minutes: none there
IPI_PAIRS="${IPI_PAIRS:-$([ -n "${BPFTUNE_VM_KERNEL:-}" ] && echo 0 || echo 10)}"
IPI_COST=build/bench/ipi_cost
[[ "$IPI_PAIRS" =~ ^[0-9]+$ ]] || bench_die "IPI_PAIRS must be a number of pairs, not '$IPI_PAIRS'"
if [ "$IPI_PAIRS" -gt 0 ] && [ "$(nproc)" -gt 1 ]; then
	[ -x "$IPI_COST" ] || bench_die "$IPI_COST missing: make bench"
else
	IPI_PAIRS=0
fi
OBSERVE="${OBSERVE:-1}"
bench_ab_init
if bench_ab; then
	[[ " $CONFIGS " == *" $AB_NAME "* ]] || CONFIGS="$CONFIGS $AB_NAME"
fi

bench_need iperf3 qperf stress-ng python3 taskset chrt numfmt
[ "$STATS_RUNS" -gt 0 ] && bench_need bpftool
bench_init
bench_cgroup
bench_cgroup_daemon
wl_setup

OUT="${COST_OUT:-$RESULTS/cost-$STAMP}"
CSV="$OUT.csv"
echo "block,config,case,run,metric,unit,value" >"$CSV"
SOFTIRQD="$(pgrep -x "ksoftirqd/$WL_CPU" || true)"

row() {
	echo "$1,$2,$3,$4,$5,$6,$7" >>"$CSV"
}

# ns of CPU ksoftirqd of the workload's CPU has used: softirq work it takes
# over is outside the workload's cgroup (a leak of the method, recorded)
softirqd_ns() {
	if [ -n "$SOFTIRQD" ]; then
		awk '{print $1}' "/proc/$SOFTIRQD/schedstat"
	else
		echo 0
	fi
}

# one run of a case: the workload's CPU time, its work, the wall time
# (the counters are read by command substitution, not < <(...): a
# 150-block run hung in bash 5.2's wait4 on the command substitution
# that followed such a process substitution, after 1,600 runs)
measure_run() {
	local blk="$1" cfg="$2" c="$3" r="$4" u0 u1 k0 k1 t0 t1 kv i0 i1

	read -ra i0 <<<"$(wl_cpu_irqs)"
	u0="$(bench_cg_usage_us "$BENCH_CG")"
	k0="$(softirqd_ns)"
	t0="$(date +%s%N)"
	if ! wl_run "$c"; then
		row "$blk" "$cfg" "$c" "$r" failed count 1
		return 0
	fi
	t1="$(date +%s%N)"
	k1="$(softirqd_ns)"
	u1="$(bench_cg_usage_us "$BENCH_CG")"
	read -ra i1 <<<"$(wl_cpu_irqs)"
	row "$blk" "$cfg" "$c" "$r" cpu us $((u1 - u0))
	row "$blk" "$cfg" "$c" "$r" work "$WL_UNIT" "$WL_UNITS"
	row "$blk" "$cfg" "$c" "$r" wall ms $(((t1 - t0) / 1000000))
	row "$blk" "$cfg" "$c" "$r" softirqd us $(((k1 - k0) / 1000))
	row "$blk" "$cfg" "$c" "$r" ipi count $((i1[0] - i0[0]))
	row "$blk" "$cfg" "$c" "$r" devirq count $((i1[1] - i0[1]))
	for kv in $WL_EXTRA; do
		row "$blk" "$cfg" "$c" "$r" "${kv%%=*}" - "${kv#*=}"
	done
}

# the daemon of a configuration, up; nothing for baseline
daemon_up() {
	local cfg="$1" args=(-c "$BENCH_CG")

	bench_use_build "$cfg"
	[ "$OBSERVE" = 1 ] && args+=(--observe)
	case "$cfg" in
	all | frozen | "$AB_NAME") ;;
	notel) args+=(--no-telemetry) ;;
	*) args+=(-a "$cfg") ;;
	esac
	bench_plugin_dir
	bench_daemon_start "${args[@]}"
}

# /proc/PID/status memory fields in kB: "VmHWM VmRSS RssAnon RssFile RssShmem"
daemon_mem() {
	awk '$1 ~ /^(VmHWM|VmRSS|RssAnon|RssFile|RssShmem):$/ {v[$1] = $2}
	     END {print v["VmHWM:"], v["VmRSS:"], v["RssAnon:"], v["RssFile:"], v["RssShmem:"]}' \
		"/proc/$1/status"
}

# what the daemon did during a block
daemon_rows() {
	local blk="$1" cfg="$2" du0="$3" dc0="$4" t0="$5" m i ev
	local names=(vm_hwm vm_rss rss_anon rss_file rss_shmem)

	row "$blk" "$cfg" daemon - startup ms "$DAEMON_STARTUP_MS"
	[ -z "$DAEMON_LOADED_MS" ] || row "$blk" "$cfg" daemon - loaded ms "$DAEMON_LOADED_MS"
	row "$blk" "$cfg" daemon - cpu us $(($(bench_cg_usage_us "$DAEMON_CG") - du0))
	row "$blk" "$cfg" daemon - wall ms $((($(date +%s%N) - t0) / 1000000))
	row "$blk" "$cfg" daemon - wakeups count $(($(bench_ctxt "$DAEMON_PID") - dc0))
	read -ra m <<<"$(daemon_mem "$DAEMON_PID")"
	for i in "${!names[@]}"; do
		row "$blk" "$cfg" daemon - "${names[$i]}" kB "${m[$i]:-0}"
	done
	ev="$(bench_events_total)"
	[ "$ev" = - ] || row "$blk" "$cfg" daemon - events count "$ev"
}

run_block() {
	local blk="$1" cfg="$2" c r du0 dc0 t0 pos=0

	if [ "$cfg" != baseline ]; then
		daemon_up "$cfg"
		du0="$(bench_cg_usage_us "$DAEMON_CG")"
		dc0="$(bench_ctxt "$DAEMON_PID")"
		t0="$(date +%s%N)"
	fi
	# frozen: continued before its figures are read and before it stops
	[ "$cfg" = frozen ] && kill -STOP "$DAEMON_PID"
	for c in $(wl_order "$blk"); do
		pos=$((pos + 1))
		for r in $(seq 1 "$RUNS"); do
			measure_run "$blk" "$cfg" "$c" "$r"
			row "$blk" "$cfg" "$c" "$r" position - "$pos"
		done
	done
	[ "$cfg" = frozen ] && kill -CONT "$DAEMON_PID"
	if [ "$cfg" != baseline ]; then
		daemon_rows "$blk" "$cfg" "$du0" "$dc0" "$t0"
		bench_daemon_stop "$OUT-$cfg.log"
	fi
}

# plugin names of a configuration's plugin directory (for bpf_progs.py)
plugin_names() {
	local f

	for f in "$PLUGIN_DIR"/*.so; do
		f="${f##*/}"
		f="${f%.so}"
		echo "${f%_tuner}"
	done
}

bpf_snapshot() {
	# shellcheck disable=SC2046
	python3 bench/bpf_progs.py "$DAEMON_PID" $(plugin_names)
}

# the BPF statistics pass of one daemon configuration: the programs'
# counters around every run (per run: the spread between runs is the
# interval of the figure)
stats_pass() {
	local cfg="$1" c r s0 s1

	daemon_up "$cfg"
	for c in $CASES; do
		for r in $(seq 1 "$STATS_RUNS"); do
			s0="$(bpf_snapshot)"
			measure_run stats "$cfg" "$c" "$r"
			s1="$(bpf_snapshot)"
			# "id plugin name cnt ns" before and after, joined on the id
			LC_ALL=C join <(LC_ALL=C sort <<<"$s0") <(LC_ALL=C sort <<<"$s1") |
				while read -r _ plugin name cnt0 ns0 _ _ cnt1 ns1; do
					row stats "$cfg" "$c" "$r" "bpf:$plugin/$name" run_cnt $((cnt1 - cnt0))
					row stats "$cfg" "$c" "$r" "bpf:$plugin/$name" run_time_ns $((ns1 - ns0))
				done
		done
	done
	bench_daemon_stop "$OUT-$cfg-stats.log"
}

read -ra CFG <<<"$CONFIGS"
{
	echo "# cost: $BLOCKS blocks of ${CFG[*]}, $RUNS runs per case and block; cases: $CASES (order: $CASE_ORDER)"
	echo "# workload: CPU $WL_CPU, $( [ "$WL_RT" -gt 0 ] && echo "SCHED_FIFO/RR $WL_RT" || echo "no RT priority");" \
		"iperf3 -n $WL_IPERF_BYTES, qperf tcp_lat ${WL_QPERF_SECS}s ${WL_QPERF_SIZE} B," \
		"stress-ng sock $WL_SOCK_OPS ops, switch $WL_SWITCH_OPS ops;" \
		"namespaces' tcp_rmem/tcp_wmem max $( [ "$WL_BUFMAX" != 0 ] && echo "$WL_BUFMAX" || echo "the defaults")"
	echo "# daemon: $( [ "$OBSERVE" = 1 ] && echo "--observe, ")-c <workload cgroup> ${BENCH_DAEMON_FLAGS:-}" \
		"$(bench_ab_desc)"
	echo "# machine: $(bench_machine)"
	echo "# commit: $(git rev-parse --short HEAD 2>/dev/null || echo -)$(git diff --quiet HEAD 2>/dev/null || echo ' (modified)')"
	echo "# date: $(date -u '+%Y-%m-%d %H:%M UTC')"
} | tee "$OUT.info" >&2

start=$SECONDS
k=${#CFG[@]}
for blk in $(seq 1 "$BLOCKS"); do
	if [ -n "${COST_DEADLINE:-}" ] && [ $((SECONDS - start)) -ge "$COST_DEADLINE" ]; then
		echo "deadline: $((blk - 1)) of $BLOCKS blocks done in $((SECONDS - start)) s" >&2
		break
	fi
	for i in $(seq 0 $((k - 1))); do
		cfg="${CFG[$(((i + blk - 1) % k))]}"
		echo "block $blk/$BLOCKS: $cfg ($((SECONDS - start)) s)" >&2
		run_block "$blk" "$cfg"
	done
done
if [ "$IPI_PAIRS" -gt 0 ]; then
	echo "IPI cost on CPU $WL_CPU ($((SECONDS - start)) s)" >&2
	"$IPI_COST" "$IPI_PAIRS" "$WL_CPU" $((WL_CPU == 0 ? 1 : 0)) >"$OUT-ipi.txt" ||
		echo "$IPI_COST failed: the report leaves the IPIs' cost out" >&2
fi
if [ "$STATS_RUNS" -gt 0 ]; then
	old_stats="$(sysctl -n kernel.bpf_stats_enabled)"
	bench_on_exit "sysctl -qw kernel.bpf_stats_enabled=$old_stats"
	sysctl -qw kernel.bpf_stats_enabled=1
	for cfg in "${CFG[@]}"; do
		[ "$cfg" = baseline ] && continue
		echo "BPF statistics: $cfg ($((SECONDS - start)) s)" >&2
		stats_pass "$cfg"
	done
	sysctl -qw kernel.bpf_stats_enabled="$old_stats"
fi
echo "done in $((SECONDS - start)) s" >&2

python3 bench/cost_report.py "$CSV" "$OUT"
