#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The whole default suite: C unit tests, then the bats tests on this
# machine's kernel.  Must run as root.  Ends with "N passed, N failed".
# Arguments: bats files (or bats options) instead of the whole test/.
set -u
cd "$(dirname "$0")/.."

if [ "$(id -u)" -ne 0 ]; then
	echo "the test suite loads BPF programs and changes sysctls: run it as root" >&2
	exit 1
fi

# Debian's tools first: the suite's python must be the one with Debian's
# python3-redis, -pandas and -sklearn, and a version manager's shim in
# front of it (pyenv) costs a process tree per call: measured 6x the time
# of /usr/bin/python3 per call on a loaded machine, with hundreds of calls
export PATH="/usr/sbin:/usr/bin:/sbin:/bin:$PATH"

build=${BPFTUNE_BUILD:-build}
passed=0 failed=0 skipped=0
log="$(mktemp)"
trap 'rm -f "$log" "${offline_log:-}"; rm -rf "${guard:-}"' EXIT

# make test-asan (BPFTUNE_SAN=1): every sanitizer report of every process
# of the build under test goes to a file of its own; each one is a failure
if [ "${BPFTUNE_SAN:-0}" = 1 ]; then
	reports="$PWD/$build/san-reports/$(date +%Y%m%dT%H%M%S)-$$"
	mkdir -p "$reports"
	export ASAN_OPTIONS="log_path=$reports/asan:detect_leaks=1:detect_stack_use_after_return=1:strict_string_checks=1:check_initialization_order=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
	export UBSAN_OPTIONS="log_path=$reports/ubsan:print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
	export LSAN_OPTIONS="${LSAN_OPTIONS:-}"
	echo "== sanitizer build $build: reports go to $reports"
	test/san-check.sh "$build" "$reports" || exit 1
fi

echo "== unit tests"
"$build/test/unit_tests" 2>&1 | tee "$log"
unit_rc=${PIPESTATUS[0]}
p=$(awk '/\[  PASSED  \]/ {s += $4} END {print s + 0}' "$log")
f=$(awk '/\[  FAILED  \] [0-9]+ test/ {s += $4} END {print s + 0}' "$log")
[ "$unit_rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
passed=$((passed + p)) failed=$((failed + f))

echo "== bats tests (mode: ${BPFTUNE_TEST_MODE:-host})"
# a test that leaves a global tunable changed is named and fails the suite
. test/globals_guard.bash
guard="$(mktemp -d)"
globals_guard_start "$guard"
# count_tap LOG RC: add a bats run's TAP results to the totals
count_tap() {
	local s p f
	s=$(grep -cE '^ok [0-9]+ .*# skip' "$1")
	p=$(grep -E '^ok [0-9]+ ' "$1" | grep -vc '# skip')
	f=$(grep -cE '^not ok [0-9]+ ' "$1")
	[ "$2" -ne 0 ] && [ "$f" -eq 0 ] && f=1
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
}
if [ $# -gt 0 ]; then
	bats --tap --timing "$@" 2>&1 | tee "$log"
	count_tap "$log" "${PIPESTATUS[0]}"
else
	# the whole suite: the files tagged offline (no daemon, no BPF, no
	# kernel state: tools on fixture files, a redis-server of their own)
	# run beside the others, which take turns on the kernel; the sanitizer
	# build leaves out the files tagged nosan (they run none of its
	# programs).  Installed once for both runs (two installs into two
	# prefixes would relink the same build at once).
	no=""
	[ "${BPFTUNE_SAN:-0}" = 1 ] && no=",!nosan"
	. test/setup_suite.bash
	setup_suite || exit 1
	export BPFTUNE_SUITE_SHARED=1
	offline_log="$(mktemp)"
	# in a network namespace of their own: their listening sockets (a
	# redis-server's backlog of 511) would be events for the daemons of
	# the kernel tests, which read the global netns's sysctls
	BPFTUNE_GLOBALS_GUARD= unshare --net sh -c 'ip link set lo up && exec "$@"' sh \
		bats --tap --timing --filter-tags "offline$no" test/ >"$offline_log" 2>&1 &
	offline_pid=$!
	bats --tap --timing --filter-tags "!offline$no" test/ 2>&1 | tee "$log"
	count_tap "$log" "${PIPESTATUS[0]}"
	wait "$offline_pid"
	offline_rc=$?
	echo "== bats tests tagged offline (run beside the others)"
	cat "$offline_log"
	count_tap "$offline_log" "$offline_rc"
	rm -f "$offline_log"
	BPFTUNE_SUITE_SHARED=0 teardown_suite
fi

BATS_TEST_FILENAME=end globals_guard
n=$(wc -l < "$guard/leaks")
if [ "$n" -gt 0 ]; then
	echo "== global tunables left changed (put back for the next test): $n"
	cat "$guard/leaks"
	failed=$((failed + n))
fi
rm -rf "$guard"

if [ -n "${reports:-}" ]; then
	n=$(find "$reports" -type f | wc -l)
	echo "== sanitizer reports: $n"
	for r in $(find "$reports" -type f | sort); do
		echo "--- $r"
		head -n 60 "$r"
	done
	failed=$((failed + n))
fi

echo
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
