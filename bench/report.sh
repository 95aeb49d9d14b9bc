#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The per-commit benchmark report (make bench-report; make bench-ci is the
# reduced set).  Runs a fixed set of benchmarks and writes
# bench/results/<commit>/:
#   report.md         machine, kernel, mode, commit, date; the targets with
#                     the figures that answer them; each part's report
#   summary.csv       every figure with its interval (source,case,metric,
#                     config,value,lo,hi,n): what BASE= comparisons read
#   cost.*            bench/cost.sh: CPU time per unit of work with 95 % CIs,
#                     BPF ns per unit per program (cost.png, cost-bpf.png)
#   footprint.*       bench/footprint.sh: memory while loading and settled,
#                     idle wake-ups (footprint.png)
#   profile.*         bench/profile.sh: the daemon under load, flame graph
#                     titled with the commit (profile-flame.svg/.png) and a
#                     per-function table
#   effect.*          bench/tcp_buffer_effect.sh (full set only)
#   reaction.*        bench/reaction.sh (full set only): onset of pressure
#                     to the first change per scenario, p50/p95, and
#                     against the A/B build the issue's bound
#   netem-<kernel>.*  the netem path, if make bench-matrix ran for this
#                     commit (it copies its results here)
#   ref-<kernel>.*    the same-run comparison with the reference daemon in
#                     a guest, if make bench-ref ran for this commit (it
#                     copies its results here), or with REF_DIR=<its build>
#                     set, run as the last part (about 17 minutes more)
# With BASE=<another results directory> it then prints the comparison
# (bench/compare.py) and flags every figure that moved beyond its interval.
# AB_BPFTUNE/AB_PLUGINS (another build), or AB_CMD (another daemon's whole
# command line, e.g. one with other flags; see bench/lib.sh), are passed
# on to the cost, footprint and effect parts (and make bench-matrix to the
# netem path): same-run ratios between the two daemons.  The reaction part
# takes AB_BPFTUNE only (it reads our daemon's log lines): with AB_CMD it
# runs this build alone and says so.
#
# Never fails on a number; exits non-zero if no part produced anything,
# or if a picture the report promises (a plot, the flame graph SVG or its
# PNG) is missing or broken: bench/report_md.py names each on stderr.
# Full set about 14 minutes here (more with an A/B build), --ci about 3.
#
# Usage (root, from the top of the tree, after make; on a shared host under
# the host-kernel lock):
#   bench/report.sh [--ci]
# Knobs: REPORT_DIR (default bench/results/<commit>), BASE=DIR,
#   REF_DIR (the reference's build: run bench/ref_compare.sh too),
#   REF_KERNEL=6.12, REF_BLOCKS=10
set -u
cd "$(dirname "$0")/.."

CI=0
[ "${1:-}" = --ci ] && CI=1
COMMIT_DIR="$(bench/commit_dir.sh)"
COMMIT="${COMMIT_DIR##*/}"
DIR="${REPORT_DIR:-$COMMIT_DIR}"
mkdir -p "$DIR"
start=$SECONDS

mode_line() {
	build/bin/bpftune -S -l build/lib/bpftune 2>/dev/null |
		awk -F': ' '/support level:/ {lvl = $NF} /^tuners( and collectors)? in .*objects/ {
			sub(/.*\(/, ""); sub(/\).*/, ""); obj = $0}
		     END {print lvl ", " obj}'
}

{
	echo "commit: $COMMIT ($(git log -1 --format=%s 2>/dev/null | cut -c1-70))"
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "machine: $(hostname), $(nproc) CPUs ($(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)), $(awk '/^MemTotal/ {printf "%d", $2 / 1024}' /proc/meminfo) MB"
	echo "kernel: $(uname -r), BTF $(stat -c %s /sys/kernel/btf/vmlinux 2>/dev/null || echo -) bytes"
	echo "mode: $(mode_line)"
	echo "set: $([ "$CI" = 1 ] && echo "reduced (bench-ci)" || echo "full (bench-report)")"
	echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$DIR/info.txt"
cat "$DIR/info.txt" >&2

part() {
	local name="$1"
	shift
	echo "== bench-report: $name ($((SECONDS - start)) s)" >&2
	if ! "$@" >"$DIR/$name.out" 2>"$DIR/$name.err"; then
		echo "bench-report: $name failed (see $DIR/$name.err)" >&2
		tail -5 "$DIR/$name.err" >&2
	fi
}

if [ "$CI" = 1 ]; then
	part cost env COST_OUT="$DIR/cost" BLOCKS="${BLOCKS:-4}" RUNS="${RUNS:-2}" \
		CASES="${CASES:-iperf qperf syscall}" STATS_RUNS=4 bench/cost.sh
	part footprint env FOOTPRINT_OUT="$DIR/footprint" REPS=1 SETTLE_SECS=3 IDLE_SECS=5 \
		bench/footprint.sh
	part profile env PROFILE_OUT="$DIR/profile" PROFILE_SECS=4 bench/profile.sh
else
	part cost env COST_OUT="$DIR/cost" BLOCKS="${BLOCKS:-10}" RUNS="${RUNS:-3}" \
		CASES="${CASES:-iperf qperf sock switch syscall}" STATS_RUNS=10 bench/cost.sh
	part footprint env FOOTPRINT_OUT="$DIR/footprint" REPS=3 SETTLE_SECS=5 IDLE_SECS=10 \
		bench/footprint.sh
	part profile env PROFILE_OUT="$DIR/profile" PROFILE_SECS=8 bench/profile.sh
	part effect env EFFECT_OUT="$DIR/effect" N=2 SECS=2 CONVERGE_SECS=8 \
		bench/tcp_buffer_effect.sh
	part reaction env REACTION_OUT="$DIR/reaction" \
		REPS="${REACTION_REPS:-5}" bench/reaction.sh
	# the guest's part: ref_compare.sh copies it to this commit's results
	if [ -n "${REF_DIR:-}" ]; then
		part reference env REF_DIR="$REF_DIR" REF_BLOCKS="${REF_BLOCKS:-10}" REPORT_DIR="$DIR" \
			bench/ref_compare.sh "${REF_KERNEL:-6.12}"
	fi
fi
echo "done in $((SECONDS - start)) s" >&2
echo "duration: $((SECONDS - start)) s" >>"$DIR/info.txt"

if ! ls "$DIR"/*-summary.csv >/dev/null 2>&1; then
	echo "bench-report: no part produced results" >&2
	exit 1
fi
rc=0
python3 bench/report_md.py "$DIR" || rc=1
echo "report: $DIR/report.md" >&2
if [ -n "${BASE:-}" ]; then
	python3 bench/compare.py "$DIR" "$BASE"
fi
if [ "$rc" != 0 ]; then
	echo "bench-report: FAILED: the report promises pictures that are missing (above)" >&2
fi
exit "$rc"
