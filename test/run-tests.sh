#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The whole default suite: C unit tests, then the bats tests on this
# machine's kernel.  Must run as root.  Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/.."

if [ "$(id -u)" -ne 0 ]; then
	echo "the test suite loads BPF programs and changes sysctls: run it as root" >&2
	exit 1
fi

passed=0 failed=0 skipped=0
log="$(mktemp)"
trap 'rm -f "$log"' EXIT

echo "== unit tests"
build/test/unit_tests 2>&1 | tee "$log"
unit_rc=${PIPESTATUS[0]}
p=$(awk '/\[  PASSED  \]/ {s += $4} END {print s + 0}' "$log")
f=$(awk '/\[  FAILED  \] [0-9]+ test/ {s += $4} END {print s + 0}' "$log")
[ "$unit_rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
passed=$((passed + p)) failed=$((failed + f))

echo "== bats tests (mode: ${BPFTUNE_TEST_MODE:-host})"
bats --tap test/ 2>&1 | tee "$log"
bats_rc=${PIPESTATUS[0]}
s=$(grep -cE '^ok [0-9]+ .*# skip' "$log")
p=$(grep -E '^ok [0-9]+ ' "$log" | grep -vc '# skip')
f=$(grep -cE '^not ok [0-9]+ ' "$log")
[ "$bats_rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))

echo
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
