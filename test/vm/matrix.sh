#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# matrix.sh: the kernel matrix (make test-matrix).  For each kernel, one
# guest each for:
#   support  bpftune -S must exit 0 and say "support level: full"
#   full     bats test/ with BPFTUNE_TEST_MODE=full
#   legacy   bats test/ with BPFTUNE_TEST_MODE=legacy (the suite passes -L)
# Run from the top of the tree after "make all".  Every step runs even if an
# earlier one failed; the exit status is non-zero if any step failed or did
# not run.  See test/vm/README.md.
#
# Usage: test/vm/matrix.sh [KERNEL...]        (default: 6.1 6.12)
#
# Environment: VM_MODES (default "full legacy"), VM_BATS=0 (skip the bats
# steps, which otherwise fail when test/ has no *.bats), VM_BATS_ARGS
# (default "--timing test/"), VM_SUPPORT_TIMEOUT (default 300 s), VM_BATS_TIMEOUT
# (default 900 s per bats run), VM_MATRIX_DEADLINE (default 3000 s for the
# whole matrix: steps get at most what is left, and steps that would start
# with less than a minute left are not run and count as failures),
# VM_LOGDIR (default test/vm/cache/logs/matrix).

set -u -o pipefail

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
RUNNER=$VM_DIR/run-in-vm.sh
KERNELS=("$@")
[ ${#KERNELS[@]} -gt 0 ] || KERNELS=(6.1 6.12)
MODES=${VM_MODES-full legacy}
BATS=${VM_BATS:-1}
read -r -a BATS_ARGS <<<"${VM_BATS_ARGS:---timing test/}"
SUPPORT_TIMEOUT=${VM_SUPPORT_TIMEOUT:-300}
BATS_TIMEOUT=${VM_BATS_TIMEOUT:-900}
DEADLINE=$((SECONDS + ${VM_MATRIX_DEADLINE:-3000}))
LOGDIR=${VM_LOGDIR:-$VM_DIR/cache/logs/matrix}
BPFTUNE=build/bin/bpftune
PLUGINS=build/lib/bpftune

mkdir -p "$LOGDIR" || exit 1
[ -x "$BPFTUNE" ] || { echo "matrix: $BPFTUNE missing: run make all first" >&2; exit 1; }

RESULTS=()
FAILED=0

# step NAME TIMEOUT RUNNER-ARGS...: run one guest, log to $LOGDIR/NAME.log,
# leave the runner's exit status in $rc (or 125 when the deadline is near).
step() {
	local name=$1 timeout=$2 left t0
	shift 2
	left=$((DEADLINE - SECONDS))
	if [ "$left" -lt 60 ]; then
		echo "matrix: $name: not run, the matrix deadline is reached" >&2
		rc=125 took=0
		return
	fi
	[ "$timeout" -le "$left" ] || timeout=$left
	echo
	echo "=== matrix: $name (timeout ${timeout}s) ==="
	t0=$SECONDS
	"$RUNNER" -t "$timeout" "$@" 2>&1 | tee "$LOGDIR/$name.log"
	rc=${PIPESTATUS[0]}
	took=$((SECONDS - t0))
}

record() {	# record NAME OK|FAIL DETAIL
	RESULTS+=("$(printf '%-22s %-5s %5ss  %s' "$1" "$2" "$took" "$3")")
	[ "$2" = ok ] || FAILED=1
}

have_bats_suite() {
	local f
	for f in test/*.bats; do
		[ -e "$f" ] && return 0
	done
	return 1
}

for k in "${KERNELS[@]}"; do
	name="$k-support"
	step "$name" "$SUPPORT_TIMEOUT" "$k" -- \
		sh -c 'echo "guest kernel: $(uname -r)"; exec "$0" -S -l "$1"' \
		"$BPFTUNE" "$PLUGINS"
	if [ "$rc" != 0 ]; then
		record "$name" FAIL "bpftune -S exit status $rc (want 0: full support)"
	elif ! grep -q 'support level: full' "$LOGDIR/$name.log"; then
		record "$name" FAIL 'no "support level: full" in the output'
	else
		record "$name" ok "$(grep -m1 '^guest kernel:' "$LOGDIR/$name.log")"
	fi

	[ "$BATS" = 1 ] || continue
	for mode in $MODES; do
		name="$k-bats-$mode"
		if ! have_bats_suite; then
			took=0
			record "$name" FAIL "no test/*.bats (VM_BATS=0 skips the bats steps)"
			continue
		fi
		step "$name" "$BATS_TIMEOUT" -e "BPFTUNE_TEST_MODE=$mode" "$k" -- \
			bats "${BATS_ARGS[@]}"
		if [ "$rc" = 0 ]; then
			record "$name" ok "$(grep -cE '^ok ' "$LOGDIR/$name.log") ok"
		else
			record "$name" FAIL "exit status $rc, $(grep -cE '^not ok ' "$LOGDIR/$name.log") not ok"
		fi
	done
done

echo
echo "=== matrix summary (logs in $LOGDIR) ==="
printf '%s\n' "${RESULTS[@]}"
[ "$BATS" = 1 ] || echo "(bats steps skipped: VM_BATS=0)"
if [ "$FAILED" != 0 ]; then
	echo "matrix: FAILED"
	exit 1
fi
echo "matrix: passed"
