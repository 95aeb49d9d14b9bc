#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# matrix.sh: the kernel matrix (make test-matrix).  For each kernel, one
# guest each for:
#   support  bpftune -S must exit 0 and say "support level: full"
#   full     the kernel-dependent bats files (tag "kernel") with
#            BPFTUNE_TEST_MODE=full
#   legacy   the same with BPFTUNE_TEST_MODE=legacy (the suite passes -L)
#   full-asan, legacy-asan   the same against the ASan/UBSan build
#            (build/asan: make SAN=1 all fixtures), through
#            test/run-tests.sh, which runs the unit tests too and fails on
#            any sanitizer report (make test-asan in a guest)
#   systemd  the packages of make deb (build/deb) under systemd as PID 1:
#            test/vm/systemd.bats in a guest booted with --systemd
# Run from the top of the tree after "make all".  Every step runs even if an
# earlier one failed; the exit status is non-zero if any step failed or did
# not run.  See test/vm/README.md.
#
# Usage: test/vm/matrix.sh [KERNEL[:MODE,...]...]   (default: 6.1 6.12)
#   A kernel alone runs the bats steps in every mode of VM_MODES;
#   "6.1:legacy 6.12:full" picks the modes per kernel (the CI subset).
#
# Environment:
#   VM_MODES            bats modes (default "full legacy systemd")
#   VM_BATS=0           skip the bats steps (which otherwise fail when test/
#                       has no *.bats)
#   VM_BATS_ARGS        bats arguments (default "--timing --filter-tags
#                       kernel test/": the files tagged "kernel", those
#                       whose outcome depends on the kernel's BPF support;
#                       "--timing test/" runs all of them);
#                       VM_BATS_ARGS_FULL / VM_BATS_ARGS_LEGACY override it
#                       for one mode (e.g. a subset of files for legacy)
#   VM_MATRIX_DEADLINE  seconds for the whole matrix (default 3000).  Every
#                       bats step gets its share of what is left: (left -
#                       60 s per support step to come) x its weight / the
#                       weights of the bats steps to come, at most
#                       VM_BATS_TIMEOUT (default 3600); time a step does
#                       not use goes to the later ones.  Weights, from
#                       their measured times: systemd 1 (ten tests on the
#                       packages, 250-520 s), a bats mode 3 (850-1700 s),
#                       under the sanitizers 4.
#                       A step that would get less than a minute is not run
#                       and counts as failed.  A step (support or bats)
#                       whose guest kernel crashed runs once more if a
#                       minute is left (the crash's log kept as
#                       NAME.crash.log).
#   VM_SUPPORT_TIMEOUT  timeout of a support step (default 300)
#   VM_LOGDIR           logs (default test/vm/cache/logs/matrix)
#   VM_SNAPSHOT=1       run the guests on a copy of the tree and its build
#                       taken at the start (in test/vm/cache, removed at
#                       the end), so that host work running meanwhile
#                       (make test relinks the daemon for its install) does
#                       not change what the guests run (.ci/run)

set -u -o pipefail

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
RUNNER=$VM_DIR/run-in-vm.sh
SPECS=("$@")
[ ${#SPECS[@]} -gt 0 ] || SPECS=(6.1 6.12)
read -r -a MODES <<<"${VM_MODES-full legacy systemd}"
BATS=${VM_BATS:-1}
SUPPORT_TIMEOUT=${VM_SUPPORT_TIMEOUT:-300}
BATS_TIMEOUT=${VM_BATS_TIMEOUT:-3600}
DEADLINE=$((SECONDS + ${VM_MATRIX_DEADLINE:-3000}))
LOGDIR=${VM_LOGDIR:-$VM_DIR/cache/logs/matrix}
BPFTUNE=build/bin/bpftune
PLUGINS=build/lib/bpftune
SUPPORT_RESERVE=60

mkdir -p "$LOGDIR" || exit 1
[ -x "$BPFTUNE" ] || { echo "matrix: $BPFTUNE missing: run make all first" >&2; exit 1; }

if [ "${VM_SNAPSHOT:-0}" = 1 ]; then
	SNAP=$VM_DIR/cache/snapshot.$$
	rm -rf "$SNAP"
	mkdir -p "$SNAP" || exit 1
	tar -C "$VM_DIR/../.." --exclude=./.git --exclude='./test/vm/cache*' \
		--exclude=./build/fuzz --exclude=./build/deb/src -cf - . |
		tar -xf - -C "$SNAP" ||
		{ echo "matrix: cannot copy the tree to $SNAP" >&2; exit 1; }
	trap 'rm -rf "$SNAP"' EXIT
	export VM_CACHE=${VM_CACHE:-$VM_DIR/cache}
	RUNNER=$SNAP/test/vm/run-in-vm.sh
	cd "$SNAP" || exit 1
	echo "matrix: running on a snapshot of the tree in $SNAP"
fi

# spec_modes SPEC: the bats modes of one KERNEL[:MODE,...] argument
spec_modes() {
	if [[ "$1" == *:* ]]; then
		tr ',' ' ' <<<"${1#*:}"
	else
		echo "${MODES[@]}"
	fi
}

# mode_weight MODE: the step's share of the time left (see the header)
mode_weight() {
	case $1 in
	systemd) echo 1 ;;
	*-asan) echo 4 ;;
	*) echo 3 ;;
	esac
}

SUPPORT_LEFT=${#SPECS[@]}
WEIGHT_LEFT=0
for spec in "${SPECS[@]}"; do
	for mode in $(spec_modes "$spec"); do
		case $mode in
		full|legacy|full-asan|legacy-asan|systemd) ;;
		*) echo "matrix: unknown mode '$mode' in '$spec' (full, legacy, full-asan, legacy-asan, systemd)" >&2; exit 1 ;;
		esac
		if [ "$mode" = systemd ] && ! ls build/deb/bpftune_*.deb >/dev/null 2>&1; then
			echo "matrix: build/deb/bpftune_*.deb missing: run make deb first" >&2
			exit 1
		fi
		if [[ $mode == *-asan ]] && [ ! -x build/asan/bin/bpftune ]; then
			echo "matrix: build/asan/bin/bpftune missing: run make SAN=1 all fixtures first" >&2
			exit 1
		fi
		[ "$BATS" = 1 ] && WEIGHT_LEFT=$((WEIGHT_LEFT + $(mode_weight "$mode")))
	done
done

RESULTS=()
FAILED=0
T_START=$SECONDS

bats_args() {	# bats_args MODE: the bats arguments for MODE
	local var
	var=VM_BATS_ARGS_$(tr '[:lower:]' '[:upper:]' <<<"$1")
	echo "${!var:-${VM_BATS_ARGS:---timing --filter-tags kernel test/}}"
}

# step NAME TIMEOUT RUNNER-ARGS...: run one guest, log to $LOGDIR/NAME.log,
# leave the runner's exit status in $rc (125 if not run: deadline).
step() {
	local name=$1 timeout=$2 t0
	shift 2
	if [ "$timeout" -lt 60 ]; then
		echo "matrix: $name: not run, the matrix deadline is too close" >&2
		rc=125 took=0
		return
	fi
	echo
	echo "=== matrix: $name (timeout ${timeout}s, $((DEADLINE - SECONDS))s left in the matrix) ==="
	t0=$SECONDS
	CRASH_NOTE=
	"$RUNNER" -t "$timeout" "$@" 2>&1 | tee "$LOGDIR/$name.log"
	rc=${PIPESTATUS[0]}
	# the emulated guest's kernel crashed under the step (seen once in
	# the 6.12 guest: slab corruption in a fork, in no BPF code): once
	# more while the deadline allows, the crash kept and named
	timeout=$(min "$timeout" $((DEADLINE - SECONDS - 60)))
	if guest_crashed "$LOGDIR/$name.log" && [ "$timeout" -ge 60 ]; then
		mv "$LOGDIR/$name.log" "$LOGDIR/$name.crash.log"
		CRASH_NOTE=" (run again after a guest kernel crash: $name.crash.log)"
		echo "=== matrix: $name: the guest kernel crashed; once more (timeout ${timeout}s) ==="
		"$RUNNER" -t "$timeout" "$@" 2>&1 | tee "$LOGDIR/$name.log"
		rc=${PIPESTATUS[0]}
	fi
	took=$((SECONDS - t0))
}

# guest_crashed LOG: the guest died without a status, its kernel crashing
guest_crashed() {
	[ "$rc" = 125 ] && grep -q "the guest never reported an exit status" "$1" &&
		grep -qE "Kernel panic|BUG:|Oops|general protection" "$1"
}

min() { [ "$1" -le "$2" ] && echo "$1" || echo "$2"; }

support_timeout() {
	min "$SUPPORT_TIMEOUT" $((DEADLINE - SECONDS - SUPPORT_RESERVE * (SUPPORT_LEFT - 1)))
}

# bats_timeout MODE: the share of the time left for a step of MODE
bats_timeout() {
	local left=$((DEADLINE - SECONDS - SUPPORT_RESERVE * SUPPORT_LEFT))
	min "$BATS_TIMEOUT" $((left * $(mode_weight "$1") / WEIGHT_LEFT))
}

record() {	# record NAME ok|FAIL DETAIL
	RESULTS+=("$(printf '%-22s %-5s %5ss  %s' "$1" "$2" "$took" "$3${CRASH_NOTE:-}")")
	[ "$2" = ok ] || FAILED=1
}

have_bats_suite() {
	local f
	for f in test/*.bats; do
		[ -e "$f" ] && return 0
	done
	return 1
}

for spec in "${SPECS[@]}"; do
	k=${spec%%:*}
	name="$k-support"
	step "$name" "$(support_timeout)" "$k" -- \
		sh -c 'echo "guest kernel: $(uname -r)"; exec "$0" -S -l "$1"' \
		"$BPFTUNE" "$PLUGINS"
	SUPPORT_LEFT=$((SUPPORT_LEFT - 1))
	if [ "$rc" != 0 ]; then
		record "$name" FAIL "bpftune -S exit status $rc (want 0: full support)"
	elif ! grep -q 'support level: full' "$LOGDIR/$name.log"; then
		record "$name" FAIL 'no "support level: full" in the output'
	else
		record "$name" ok "$(grep -m1 '^guest kernel:' "$LOGDIR/$name.log")"
	fi

	[ "$BATS" = 1 ] || continue
	for mode in $(spec_modes "$spec"); do
		name="$k-bats-$mode"
		if ! have_bats_suite; then
			took=0
			WEIGHT_LEFT=$((WEIGHT_LEFT - $(mode_weight "$mode")))
			record "$name" FAIL "no test/*.bats (VM_BATS=0 skips the bats steps)"
			continue
		fi
		read -r -a args <<<"$(bats_args "${mode%-asan}")"
		if [ "$mode" = systemd ]; then
			step "$name" "$(bats_timeout "$mode")" --systemd "$k" -- \
				bats --timing test/vm/systemd.bats
		elif [[ $mode == *-asan ]]; then
			step "$name" "$(bats_timeout "$mode")" -e "BPFTUNE_TEST_MODE=${mode%-asan}" \
				-e BPFTUNE_BUILD=build/asan -e BPFTUNE_SAN=1 "$k" -- \
				test/run-tests.sh "${args[@]}"
		else
			step "$name" "$(bats_timeout "$mode")" -e "BPFTUNE_TEST_MODE=$mode" "$k" -- \
				bats "${args[@]}"
		fi
		WEIGHT_LEFT=$((WEIGHT_LEFT - $(mode_weight "$mode")))
		nok=$(grep -cE '^ok ' "$LOGDIR/$name.log")
		nfail=$(grep -cE '^not ok ' "$LOGDIR/$name.log")
		plan=$(grep -m1 -oE '^1\.\.[0-9]+' "$LOGDIR/$name.log" | cut -c4-)
		# the failing tests by name: CI shows only part of a long log
		failed_names=$(grep -E '^not ok ' "$LOGDIR/$name.log" | cut -d' ' -f3- |
			sed 's/ in [0-9]*ms$//' | paste -sd ';' | cut -c1-300)
		[ -z "$failed_names" ] || failed_names=" [$failed_names]"
		case $rc in
		0)   record "$name" ok "$nok/${plan:-?} ok" ;;
		124) record "$name" FAIL "timeout after $nok ok, $nfail not ok of ${plan:-?}$failed_names" ;;
		*)   record "$name" FAIL "exit status $rc: $nfail not ok, $nok ok of ${plan:-?}$failed_names" ;;
		esac
	done
done

echo
echo "=== matrix summary: $((SECONDS - T_START))s (logs in $LOGDIR) ==="
printf '%s\n' "${RESULTS[@]}"
[ "$BATS" = 1 ] || echo "(bats steps skipped: VM_BATS=0)"
if [ "$FAILED" != 0 ]; then
	echo "matrix: FAILED"
	exit 1
fi
echo "matrix: passed"
