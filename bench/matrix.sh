#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The overhead benchmark inside the qemu guests of test/vm (Debian's stock
# kernels, TCG): one guest per kernel runs bench/overhead.sh in full mode
# and again in legacy mode (-L), with a reduced case list and N.  TCG
# distorts timings, so only same-run ratios (daemon/baseline within one
# guest run) are reported, plus the counts that do not depend on the clock
# (peak RSS, idle wake-ups).  Then, in the same guest, the netem path
# (bench/netem_effect.sh, MATRIX_NETEM=1): tcp_buffer's effectiveness on a
# 20 ms RTT path, which this host cannot shape; its raw CSV comes back on
# the guest's output and is reported on the host.
#
# Guests are not run concurrently with anyone else's: before each boot this
# waits while any qemu-system process runs on the host (other users of
# test/vm, whose lock is per cache directory).
#
# Usage (root, from the top of the tree, after make):
#   bench/matrix.sh [KERNEL...]        (default: 6.1 6.12, as make test-matrix)
# Knobs (environment): MATRIX_N=3, MATRIX_CASES="iperf-v4-up iperf-v4-down
#   qperf-1024", MATRIX_CONFIGS="baseline all", MATRIX_IDLE_SECS=5,
#   MATRIX_MODES="full legacy", MATRIX_TIMEOUT=900 (per guest),
#   MATRIX_WAIT=1800 (longest wait for other guests, s; 0: do not wait),
#   MATRIX_NETEM=1
#   (0: no netem scenario), MATRIX_NETEM_N=1, MATRIX_NETEM_SECS=30; the
#   netem scenario's A/B build: AB_BPFTUNE and AB_PLUGINS (paths the guest
#   sees: the host's root is its lower layer)
# Results: bench/results/matrix-<kernel>-<time>.md (the guest's output),
# bench/results/netem-<kernel>-<time>.{csv,md,png}.
set -eu
cd "$(dirname "$0")/.."

# ---- inside the guest ---------------------------------------------------
if [ "${1:-}" = --guest ]; then
	rc=0
	for mode in ${MATRIX_MODES:-full legacy}; do
		flags=""
		[ "$mode" = legacy ] && flags="-L"
		echo
		echo "# kernel $(uname -r), $mode mode"
		echo
		BENCH_DAEMON_FLAGS="$flags" BENCH_RATIOS_ONLY=1 N="${MATRIX_N:-3}" \
			CASES="${MATRIX_CASES:-iperf-v4-up iperf-v4-down qperf-1024}" \
			CONFIGS="${MATRIX_CONFIGS:-baseline all}" \
			IDLE_SECS="${MATRIX_IDLE_SECS:-5}" IPERF_SECS=2 QPERF_SECS=1 \
			bench/overhead.sh || rc=1
	done
	if [ "${MATRIX_NETEM:-1}" = 1 ]; then
		echo
		echo "# kernel $(uname -r), netem path"
		echo
		N="${MATRIX_NETEM_N:-1}" PHASE_SECS="${MATRIX_NETEM_SECS:-30}" \
			NETEM_PRINT_CSV=1 bench/netem_effect.sh || rc=1
	fi
	exit $rc
fi

# ---- on the host ------------------------------------------------------------
[ "$(id -u)" -eq 0 ] || { echo "run as root" >&2; exit 1; }
[ -x build/bin/bpftune ] || { echo "run make first" >&2; exit 1; }
KERNELS=("$@")
[ ${#KERNELS[@]} -gt 0 ] || KERNELS=(6.1 6.12)
STAMP="$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p bench/results

wait_for_qemu() {
	local waited=0 max="${MATRIX_WAIT:-1800}"

	# 0: run alongside other guests (their load skews TCG timings; the
	# netem path's same-run ratios care less)
	[ "$max" -gt 0 ] || return 0

	while pgrep -f '^qemu-system' >/dev/null; do
		[ $waited -eq 0 ] && echo "bench-matrix: another qemu guest runs; waiting (at most ${max}s)" >&2
		if [ $waited -ge "$max" ]; then
			echo "bench-matrix: gave up waiting for the other guest" >&2
			return 1
		fi
		sleep 10
		waited=$((waited + 10))
	done
	[ $waited -gt 0 ] && echo "bench-matrix: waited ${waited}s" >&2
	return 0
}

COMMIT_DIR="$(bench/commit_dir.sh)"

# the netem scenario's CSV from the guest's output (log $1): reported as
# $2.* and as netem-<kernel $3>.* in the commit's results directory
netem_from_guest() {
	local log="$1" out="$2"

	grep -q '^=== netem csv begin ===' "$log" || return 1
	sed -n '/^=== netem csv begin ===/,/^=== netem csv end ===/p' "$log" |
		sed '1d;$d' | tr -d '\r' >"$out.raw"
	grep '^# ' "$out.raw" >"$out.info" || true
	grep -v '^# ' "$out.raw" >"$out.csv"
	rm -f "$out.raw"
	python3 bench/netem_report.py "$out.csv" "$out" >/dev/null &&
		echo "bench-matrix: netem report $out.md" >&2
	# and in the commit's results, where make bench-report picks it up
	mkdir -p "$COMMIT_DIR"
	cp "$out.csv" "$COMMIT_DIR/netem-$3.csv"
	cp "$out.info" "$COMMIT_DIR/netem-$3.info"
	python3 bench/netem_report.py "$COMMIT_DIR/netem-$3.csv" "$COMMIT_DIR/netem-$3" >/dev/null
}

rc=0
for k in "${KERNELS[@]}"; do
	out="bench/results/matrix-$k-$STAMP.md"
	wait_for_qemu || { rc=1; continue; }
	echo "== bench-matrix: kernel $k -> $out" >&2
	# the guest's overlay is thrown away: its report comes back on stdout
	set +e
	test/vm/run-in-vm.sh -t "${MATRIX_TIMEOUT:-900}" \
		-e "MATRIX_MODES=${MATRIX_MODES:-full legacy}" -e "MATRIX_N=${MATRIX_N:-3}" \
		-e "MATRIX_CASES=${MATRIX_CASES:-iperf-v4-up iperf-v4-down qperf-1024}" \
		-e "MATRIX_CONFIGS=${MATRIX_CONFIGS:-baseline all}" \
		-e "MATRIX_IDLE_SECS=${MATRIX_IDLE_SECS:-5}" \
		-e "MATRIX_NETEM=${MATRIX_NETEM:-1}" -e "MATRIX_NETEM_N=${MATRIX_NETEM_N:-1}" \
		-e "MATRIX_NETEM_SECS=${MATRIX_NETEM_SECS:-30}" \
		-e "AB_BPFTUNE=${AB_BPFTUNE:-}" -e "AB_PLUGINS=${AB_PLUGINS:-}" \
		-e "AB_CMD=${AB_CMD:-}" -e "AB_READY=${AB_READY:-}" -e "AB_SETTLE=${AB_SETTLE:-}" \
		"$k" -- bench/matrix.sh --guest 2>&1 | tee "$out"
	st=${PIPESTATUS[0]}
	set -e
	[ "$st" -eq 0 ] || { echo "bench-matrix: kernel $k: exit status $st" >&2; rc=1; }
	netem_from_guest "$out" "bench/results/netem-$k-$STAMP" "$k" || true
done
exit $rc
