#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# run.sh: run libFuzzer targets built by make fuzz-build, each for SECS
# seconds, from its committed seed corpus test/unit/fuzz/corpus/<name>/.
# New inputs go to BUILD/corpus/<name>/ (kept between runs), a crash, leak,
# sanitizer report or slow input leaves its reproducer in
# BUILD/crashes/<name>/ and fails that target.  Prints one line per target
# (executions, coverage) and exits non-zero if any target failed.
#
# Usage: test/unit/fuzz/run.sh [-b BUILD] [-s SECS] [-c SEEDS] NAME...
#   SEEDS: the directory of the seed corpora (default test/unit/fuzz/corpus)
set -u -o pipefail
cd "$(dirname "$0")/../../.."

build=build/fuzz
secs=60
seed_root=test/unit/fuzz/corpus
while getopts b:s:c: opt; do
	case $opt in
	b) build=$OPTARG ;;
	s) secs=$OPTARG ;;
	c) seed_root=$OPTARG ;;
	*) echo "usage: $0 [-b BUILD] [-s SECS] [-c SEEDS] NAME..." >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "fuzz: no targets" >&2; exit 2; }

failed=0
rows=()
for name in "$@"; do
	bin=$build/fuzz_$name
	seeds=$seed_root/$name
	work=$build/corpus/$name
	crashes=$build/crashes/$name
	log=$build/$name.log
	if [ ! -x "$bin" ]; then
		rows+=("$(printf '%-12s FAIL  not built: %s' "$name" "$bin")")
		failed=1
		continue
	fi
	if [ -z "$(ls -A "$seeds" 2>/dev/null)" ]; then
		rows+=("$(printf '%-12s FAIL  no seed corpus in %s' "$name" "$seeds")")
		failed=1
		continue
	fi
	mkdir -p "$work" "$crashes"
	echo "== fuzz $name: ${secs}s from $seeds ($(ls "$seeds" | wc -l) seeds)"
	# -timeout: an input taking 10 s is a hang; exit codes: 77 sanitizer
	# or crash, 70 timeout, 71 out of memory
	"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$crashes/" \
		"$work" "$seeds" >"$log" 2>&1
	rc=$?
	execs=$(awk '/^stat::number_of_executed_units:/ {print $2}' "$log")
	rate=$(awk '/^stat::average_exec_per_sec:/ {print $2}' "$log")
	cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' "$log" | tail -1)
	art=$(grep -oE "(Test unit|artifact_prefix.*) written to [^ ]+" "$log" | sed 's/.* written to //' | tail -1)
	if [ "$rc" -eq 0 ] && [ -z "$art" ]; then
		rows+=("$(printf '%-12s ok    %10s execs %8s/s  %s' "$name" "${execs:-?}" "${rate:-?}" "${cov:-?}")")
	else
		failed=1
		rows+=("$(printf '%-12s FAIL  exit %s after %s execs; reproducer: %s' "$name" "$rc" "${execs:-?}" "${art:-none (see $log)}")")
		grep -E '^(==[0-9]+==|SUMMARY|.*runtime error)' "$log" | head -20
		[ -n "$art" ] && echo "reproduce with: $bin $art"
	fi
done

echo
echo "== fuzz summary (${secs}s per target; logs in $build/*.log)"
printf '%s\n' "${rows[@]}"
[ "$failed" -eq 0 ]
