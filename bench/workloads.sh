# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# shellcheck disable=SC2034
# (WL_* results are read by the scripts that source this)
#
# Fixed-work workloads for the cost benchmarks (sourced after bench/lib.sh):
# each runs one amount of work inside the benchmark's cgroup ($BENCH_CG),
# pinned to one CPU ($WL_CPU) with real-time priority ($WL_RT, 0: none), and
# sets WL_UNITS (the work done, counted), WL_UNIT (its name) and WL_EXTRA
# ("name=value ..." more counts).  The caller reads the cgroup's CPU time
# around the call: CPU time per unit of work is the cost.
#
# Why pinned and real-time: on a shared 2-CPU machine the workload's CPU time
# per byte moves by 10 - 15 % between runs when other processes share its
# CPU (their cache footprint is paid by whoever runs next).  With SCHED_FIFO
# on one CPU nothing else runs there while the workload runs (but for the
# kernel's RT throttling, 5 % of each second); the rest of the machine,
# the daemon included, runs on the other CPUs.  Servers get one priority
# step above their clients so a woken receiver runs at once (equal FIFO
# priorities let a sender starve it).
#
#   wl_setup		namespaces, servers; once
#   wl_order BLOCK	the cases of a block, in their order
#   wl_cpu_irqs		interrupts the workload's CPU has taken
#   wl_run CASE		one run: iperf (bytes), qperf (transactions),
#			sock (connections), switch (context switches),
#			syscall (getppid calls: what every system call of
#			every task pays)
#
# Nothing near a limit: the cost targets (issue 23) are for a calm machine,
# and with the namespaces' default tcp_wmem max (4 MB) iperf3's sender
# reaches it: tcp_buffer reports a limit near in every block and holds its
# send sample open through the cases after it.  The workload namespaces'
# tcp_rmem / tcp_wmem max are raised to WL_BUFMAX (per namespace: nothing
# of the host's changes; the namespaces go at exit).
#
# Knobs: WL_CPU (default: the last CPU), WL_RT (50; 0 for no RT),
# WL_IPERF_BYTES (512M), WL_QPERF_SECS (1), WL_QPERF_SIZE (64),
# WL_SOCK_OPS (300), WL_SWITCH_OPS (100000), WL_SYSCALL_OPS (2000000),
# WL_BUFMAX (67108864 bytes; 0: the namespaces' defaults, a limit near).

WL_CPU="${WL_CPU:-$(($(nproc) - 1))}"
WL_RT="${WL_RT:-50}"
WL_IPERF_BYTES="${WL_IPERF_BYTES:-512M}"
WL_QPERF_SECS="${WL_QPERF_SECS:-1}"
WL_QPERF_SIZE="${WL_QPERF_SIZE:-64}"
WL_SOCK_OPS="${WL_SOCK_OPS:-300}"
WL_SWITCH_OPS="${WL_SWITCH_OPS:-100000}"
WL_SYSCALL_OPS="${WL_SYSCALL_OPS:-2000000}"
WL_BUFMAX="${WL_BUFMAX:-67108864}"
WL_SYSCALL_LOOP=build/bench/syscall_loop
WL_UNITS=0
WL_UNIT=""
WL_EXTRA=""

# wl_exec PRIO_STEP POLICY CMD...: CMD in the cgroup, pinned, at RT priority
# WL_RT + PRIO_STEP (POLICY f or r); plain when WL_RT is 0
wl_exec() {
	local step="$1" pol="$2" pre=(taskset -c "$WL_CPU")
	shift 2

	[ "$WL_RT" -gt 0 ] && pre+=(chrt "-$pol" $((WL_RT + step)))
	bench_in_cg "${pre[@]}" "$@"
}

# veth packets both ways as the server's end counts them (data and ACKs)
wl_veth_packets() {
	ip netns exec "$SRV" awk '{n += $1} END {print n}' \
		"/sys/class/net/b${WL_TAG}s/statistics/rx_packets" \
		"/sys/class/net/b${WL_TAG}s/statistics/tx_packets"
}

wl_setup() {
	WL_TAG=w
	bench_netns_pair "$WL_TAG" 192.168.95
	if [ "$WL_BUFMAX" != 0 ]; then
		bench_tcp_sysctls_set "$CLI" "4096 131072 $WL_BUFMAX 4096 16384 $WL_BUFMAX"
		bench_tcp_sysctls_set "$SRV" "4096 131072 $WL_BUFMAX 4096 16384 $WL_BUFMAX"
	fi
	WL_IPORT=$((5300 + $$ % 500))
	WL_QPORT=$((19500 + $$ % 400))
	wl_exec 1 f ip netns exec "$SRV" iperf3 -s -B "$SRV4" -p "$WL_IPORT" >/dev/null 2>&1 &
	BENCH_PIDS+=($!)
	wl_exec 1 f ip netns exec "$SRV" qperf -lp "$WL_QPORT" >/dev/null 2>&1 &
	BENCH_PIDS+=($!)
	bench_wait_listen "$SRV" "$WL_IPORT" || bench_die "iperf3 server did not start"
	bench_wait_listen "$SRV" "$WL_QPORT" || bench_die "qperf server did not start"
}

wl_iperf() {
	local p0 p1

	p0="$(wl_veth_packets)"
	wl_exec 0 f timeout 120 ip netns exec "$CLI" iperf3 -c "$SRV4" -p "$WL_IPORT" \
		-n "$WL_IPERF_BYTES" -i 0 >/dev/null 2>&1 || return 1
	p1="$(wl_veth_packets)"
	WL_UNITS=$((p1 - p0))
	WL_UNIT=packet
	WL_EXTRA="bytes=$(numfmt --from=iec "$WL_IPERF_BYTES")"
}

wl_qperf() {
	local out

	out="$(wl_exec 0 f timeout 60 ip netns exec "$CLI" qperf -lp "$WL_QPORT" \
		-t "$WL_QPERF_SECS" -m "$WL_QPERF_SIZE" -vvs "$SRV4" tcp_lat 2>/dev/null)" ||
		return 1
	WL_UNITS="$(awk '$1 == "loc_send_msgs" {gsub(/,/, "", $3); print $3}' <<<"$out")"
	[ -n "$WL_UNITS" ] || return 1
	WL_UNIT=transaction
	WL_EXTRA="latency_us=$(awk '$1 == "latency" {print ($4 == "ms") ? $3 * 1000 : $3}' <<<"$out")"
}

# stress-ng's bogo-ops from its YAML report
wl_stress_ops() {
	awk -v s="$2" '$1 == "-" && $2 == "stressor:" {cur = $3}
		cur == s && $1 == "bogo-ops:" {print $2; exit}' "$1"
}

wl_sock() {
	local y="$BENCH_TMP/sock.yaml"

	rm -f "$y"
	wl_exec 0 r timeout 120 ip netns exec "$CLI" stress-ng --sock 1 \
		--sock-ops "$WL_SOCK_OPS" --sock-port $((WL_IPORT + 700)) \
		--metrics --yaml "$y" >/dev/null 2>&1 || return 1
	WL_UNITS="$(wl_stress_ops "$y" sock)"
	[ -n "$WL_UNITS" ] || return 1
	WL_UNIT=connection
	WL_EXTRA=""
}

wl_switch() {
	local c0 c1

	c0="$(awk '$1 == "ctxt" {print $2}' /proc/stat)"
	wl_exec 0 r timeout 120 stress-ng --switch 1 --switch-ops "$WL_SWITCH_OPS" \
		>/dev/null 2>&1 || return 1
	c1="$(awk '$1 == "ctxt" {print $2}' /proc/stat)"
	# every context switch of the machine meanwhile: BPF programs on the
	# scheduler's hooks run for all of them too
	WL_UNITS=$((c1 - c0))
	WL_UNIT=context_switch
	WL_EXTRA="ops=$WL_SWITCH_OPS"
}

# a syscall tracepoint with a program attached puts every thread of the
# machine on the slow syscall path, whatever syscall the program is for
wl_syscall() {
	[ -x "$WL_SYSCALL_LOOP" ] || bench_die "$WL_SYSCALL_LOOP missing: make bench"
	WL_UNITS="$(wl_exec 0 r "$WL_SYSCALL_LOOP" "$WL_SYSCALL_OPS")" || return 1
	WL_UNIT=syscall
	WL_EXTRA=""
}

# wl_order BLOCK: the cases ($CASES) of that block in their order: started
# one case further on each block (CASE_ORDER=rotate), so that every case
# follows the daemon's start and each other case equally often, or as
# listed (fixed)
wl_order() {
	local -a cs out=()
	local n i

	read -ra cs <<<"$CASES"
	n=${#cs[@]}
	case "${CASE_ORDER:-rotate}" in
	fixed)
		echo "${cs[*]}"
		return 0
		;;
	rotate) ;;
	*) bench_die "CASE_ORDER must be rotate or fixed, not '$CASE_ORDER'" ;;
	esac
	for i in $(seq 0 $((n - 1))); do
		out+=("${cs[$((($1 - 1 + i) % n))]}")
	done
	echo "${out[*]}"
}

# wl_cpu_irqs: "IPI DEV", the interrupts $WL_CPU has taken since boot:
# inter-processor ones (function calls, TLB shootdowns, reschedules, IRQ
# work) and device ones (the numbered lines of /proc/interrupts).  Without
# IRQ time accounting their handlers' time is charged to the task they
# interrupt: the workload.
wl_cpu_irqs() {
	awk -v col=$((WL_CPU + 2)) '
		$1 ~ /^(CAL|TLB|RES|IWI):$/ { ipi += $col }
		$1 ~ /^[0-9]+:$/ { dev += $col }
		END { print ipi + 0, dev + 0 }' /proc/interrupts
}

# wl_run CASE: one run; returns non-zero if the workload failed
wl_run() {
	case "$1" in
	iperf) wl_iperf ;;
	qperf) wl_qperf ;;
	sock) wl_sock ;;
	switch) wl_switch ;;
	syscall) wl_syscall ;;
	*) bench_die "unknown case $1 (iperf qperf sock switch syscall)" ;;
	esac
}
