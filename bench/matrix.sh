#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The overhead benchmark inside the qemu guests of test/vm (Debian's stock
# kernels, TCG): one guest per kernel runs bench/overhead.sh in full mode
# and again in legacy mode (-L), with a reduced case list and N.  TCG
# distorts timings, so only same-run ratios (daemon/baseline within one
# guest run) are reported, plus the counts that do not depend on the clock
# (peak RSS, idle wake-ups).
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
#   MATRIX_WAIT=1800 (longest wait for other guests, s)
# Results: bench/results/matrix-<kernel>-<time>.md (the guest's output).
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
		"$k" -- bench/matrix.sh --guest 2>&1 | tee "$out"
	st=${PIPESTATUS[0]}
	set -e
	[ "$st" -eq 0 ] || { echo "bench-matrix: kernel $k: exit status $st" >&2; rc=1; }
done
exit $rc
