#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# bats file_tags=kernel
# bench/netns_scale.sh at a tiny size: 2 and 4 namespaces, 1 s windows.
# It prints its tables, its raw CSV has both configurations in every step,
# every namespace churned, and it leaves nothing behind: no netnsscale-*
# namespace, no daemon, no driver, no scratch directory, also when it is
# stopped half-way.  Starts the daemon: under the host-kernel lock.

load helpers

# what a run may leave behind, one per line
leftovers() {
	ip netns list | awk '$1 ~ /^netnsscale-/ {print $1}'
	ls -d /run/bpftune-bench.* 2>/dev/null || true
	pgrep -f 'bench/netns_churn.py' || true
}

setup() {
	[ "$(id -u)" -eq 0 ] || skip "needs root"
	command -v sqlite3 >/dev/null || skip "no sqlite3"
	BEFORE="$(leftovers)"
}

teardown() {
	bench_script_teardown netnsscale
}

@test "bench_netns_scale: a tiny run prints its tables and cleans up" {
	local out="$BATS_TEST_TMPDIR/ns"
	cd "$REPO"
	run env STEPS="2 4" REPS=2 WINDOW=1 NETNS_SCALE_OUT="$out" bench/netns_scale.sh
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(leftovers)" = "$BEFORE" ]
	[[ "$output" == *"## Rate (mean [95 % t interval] over the repetitions)"* ]]
	[[ "$output" =~ \|\ 2\ \|\ 2\ \|\ [0-9.]+\ \[ ]]
	[[ "$output" =~ \|\ 4\ \|\ 2\ \|\ [0-9.]+\ \[ ]]
	[[ "$output" =~ \|\ daemon\ CPU\ per\ connection\ \|\ -?[0-9.e+-]+\ ns\ per\ netns ]]
	[[ "$output" =~ \|\ daemon\ VmRSS\ \|\ -?[0-9.e+-]+\ kB\ per\ netns ]]
	[[ "$output" == *"- daemon VmRSS: "*" kB per 1,000 namespaces"* ]]
	head -n 1 "$out.csv" | grep -qx "step,rep,config,metric,unit,value"
	# each window of each step: connections done, every netns at least one
	local n rep cfg
	for n in 2 4; do
		for rep in 1 2; do
			for cfg in none daemon; do
				grep -q "^$n,$rep,$cfg,driver_conns,-,[1-9][0-9]*$" "$out.csv"
				grep -q "^$n,$rep,$cfg,driver_min,-,[1-9][0-9]*$" "$out.csv"
			done
			grep -q "^$n,$rep,daemon,daemon_cpu_ns,ns,[0-9]*$" "$out.csv"
			grep -q "^$n,$rep,daemon,daemon_rss_kb,kB,[1-9][0-9]*$" "$out.csv"
		done
	done
	tr -d '\r' <"$out-summary.csv" | grep -q "^fit,rss_kb_slope,daemon,"
}

@test "bench_netns_scale: stopped half-way, it removes its namespaces" {
	local out="$BATS_TEST_TMPDIR/ns"
	cd "$REPO"
	STEPS="3" REPS=3 WINDOW=2 NETNS_SCALE_OUT="$out" bench/netns_scale.sh \
		2>"$BATS_TEST_TMPDIR/err" >/dev/null &
	BENCH=$!
	# the namespaces are there once the driver's first window runs
	for _ in $(seq 1 300); do
		grep -q "step 3 rep 1" "$BATS_TEST_TMPDIR/err" && break
		sleep 0.1
	done
	ip netns list | grep -q "^netnsscale-$BENCH-3"
	kill -TERM "$BENCH"
	wait "$BENCH" || true
	BENCH=""
	cat "$BATS_TEST_TMPDIR/err"
	[ "$(leftovers)" = "$BEFORE" ]
}
