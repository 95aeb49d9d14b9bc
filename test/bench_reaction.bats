#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# bats file_tags=kernel
# bench/reaction.sh at a tiny size: one repetition of two scenarios (a
# namespaced limit, route_table's max_size; a global one, net_buffer's
# netdev_budget), this build against itself as the A/B build.  Every start
# reacts, the table has both builds, the ratio and the bound, and nothing
# is left behind: no reaction-* namespace, no daemon, no scratch
# directory, the global limit back, also when it is stopped half-way.
# Starts the daemon: under the host-kernel lock.

load helpers

# what a run may leave behind, one per line
leftovers() {
	ip netns list | awk '$1 ~ /^reaction-/ {print $1}'
	ls -d /run/bpftune-bench.* 2>/dev/null || true
	sysctl -n net.core.netdev_budget
}

setup() {
	[ "$(id -u)" -eq 0 ] || skip "needs root"
	[ "$(nproc)" -ge 2 ] || skip "net_budget needs two CPUs"
	[ -f "$REPO/build/test/bpf/slow_rx.bpf.o" ] || skip "run make fixtures first"
	BEFORE="$(leftovers)"
}

teardown() {
	bench_script_teardown reaction
}

@test "bench_reaction: a tiny A/B run prints its table and cleans up" {
	local out="$BATS_TEST_TMPDIR/r" s cfg
	cd "$REPO"
	run env REPS=1 SCENARIOS="route_table net_budget" TIMEOUT_SECS=30 \
		AB_BPFTUNE="$BPFTUNE" AB_PLUGINS="$BUILD_PLUGINS" AB_NAME=same \
		REACTION_OUT="$out" bench/reaction.sh
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(leftovers)" = "$BEFORE" ]
	[[ "$output" == *"| scenario | tuner | this p50 [95 % CI] | this p95 | this gate p50 | this missed | same p50 [95 % CI] |"* ]]
	[[ "$output" =~ \|\ route_table\ \|\ route_table\ \|\ [0-9]+\ ms\ \|\ [0-9]+\ ms\ \| ]]
	[[ "$output" =~ \|\ net_budget\ \|\ net_buffer\ \|\ [0-9]+\ ms\ \|\ [0-9]+\ ms\ \|\ ([0-9]+\ ms|-)\ \|\ 0\ of\ 1\ \| ]]
	[[ "$output" =~ \|\ [0-9.]+\ \|\ (holds|\*\*fails\*\*)\ \(p50 ]]
	[[ "$output" == *"Bound (issue 23): this's p50 within 1 s of same's or 2x it"* ]]
	head -n 1 "$out.csv" | grep -qx "rep,config,case,metric,unit,value"
	for s in route_table net_budget; do
		for cfg in this same; do
			grep -qE "^1,$cfg,$s,reaction_ms,ms,[0-9]+$" "$out.csv"
			[ -s "$out-logs/$s-$cfg-1.log" ]
		done
	done
	# the change's time is the log's own: it is in the saved log
	grep -q "net.core.netdev_budget 8 -> " "$out-logs/net_budget-this-1.log"
	tr -d '\r' <"$out-summary.csv" | grep -qE "^net_budget,bound_holds,this/same,[01],"
}

@test "bench_reaction: stopped half-way, it removes its namespaces and puts the limit back" {
	local out="$BATS_TEST_TMPDIR/r"
	cd "$REPO"
	REPS=3 SCENARIOS="net_budget" SETTLE_SECS=30 REACTION_OUT="$out" bench/reaction.sh \
		2>"$BATS_TEST_TMPDIR/err" >/dev/null &
	BENCH=$!
	# the namespaces and the low budget are there once the daemon runs
	for _ in $(seq 1 300); do
		[ -s "$BATS_TEST_TMPDIR/err" ] && [ "$(sysctl -n net.core.netdev_budget)" = 8 ] &&
			ip netns list | grep -q "^reaction-nbs-$BENCH" && break
		sleep 0.1
	done
	ip netns list | grep -q "^reaction-nbs-$BENCH"
	kill -TERM "$BENCH"
	wait "$BENCH" || true
	BENCH=""
	cat "$BATS_TEST_TMPDIR/err"
	[ "$(leftovers)" = "$BEFORE" ]
}
