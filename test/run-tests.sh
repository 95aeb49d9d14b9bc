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
trap 'rm -f "$log"' EXIT

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
# the sanitizer build: the files tagged nosan run none of its programs
if [ $# -eq 0 ] && [ "${BPFTUNE_SAN:-0}" = 1 ]; then
	set -- --filter-tags '!nosan' test/
fi
[ $# -gt 0 ] || set -- test/
bats --tap --timing "$@" 2>&1 | tee "$log"
bats_rc=${PIPESTATUS[0]}
s=$(grep -cE '^ok [0-9]+ .*# skip' "$log")
p=$(grep -E '^ok [0-9]+ ' "$log" | grep -vc '# skip')
f=$(grep -cE '^not ok [0-9]+ ' "$log")
[ "$bats_rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))

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
