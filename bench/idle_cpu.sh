#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The CPU an idle daemon takes, per thread: for each daemon given (a
# bpftune binary and its plugin directory), REPS starts; after "bpftune
# running" and SETTLE_SECS of calm, the run time of each thread
# (/proc/PID/task/TID/schedstat, ns on a CPU) over IDLE_SECS, as ms/s.
# Made for the qemu guests (test/vm), where a daemon's system time is what
# its attach and detach cost the emulated kernel; it runs on a host too.
#
# Usage (root, from the top of the tree):
#   bench/idle_cpu.sh NAME=BIN:PLUGINDIR [NAME=BIN:PLUGINDIR...] [-- FLAGS]
# Knobs: REPS=2 SETTLE_SECS=8 IDLE_SECS=20; FLAGS are the daemons' (default
#   --no-telemetry -s); the log goes to a temporary file, printed on failure.
# Output: one line per start and thread, then "NAME rep N total X ms/s".
set -eu

REPS="${REPS:-2}"
SETTLE_SECS="${SETTLE_SECS:-8}"
IDLE_SECS="${IDLE_SECS:-20}"
daemons=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	daemons+=("$1")
	shift
done
[ $# -gt 0 ] && shift
flags=("$@")
[ ${#flags[@]} -gt 0 ] || flags=(--no-telemetry -s)
[ ${#daemons[@]} -gt 0 ] || { echo "usage: $0 NAME=BIN:PLUGINDIR... [-- FLAGS]" >&2; exit 2; }

# ns on a CPU of every thread of $1: "tid comm ns" lines
threads_ns() {
	local t
	for t in /proc/"$1"/task/*; do
		printf '%s %s %s\n' "${t##*/}" "$(cat "$t/comm")" "$(cut -d' ' -f1 "$t/schedstat")"
	done
}

measure() {
	local name="$1" bin="$2" dir="$3" rep="$4" log pid n before after
	log="$(mktemp)"
	"$bin" -l "$dir" "${flags[@]}" >"$log" 2>&1 &
	pid=$!
	n=0
	until grep -q "bpftune running" "$log"; do
		kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; return 1; }
		n=$((n + 1))
		[ "$n" -lt 1200 ] || { echo "$name: not running after 120 s" >&2; kill "$pid"; return 1; }
		sleep 0.1
	done
	sleep "$SETTLE_SECS"
	before="$(threads_ns "$pid")"
	sleep "$IDLE_SECS"
	after="$(threads_ns "$pid")"
	kill -INT "$pid"
	wait "$pid" || true
	join <(sort <<<"$before") <(sort <<<"$after") |
		awk -v name="$name" -v rep="$rep" -v secs="$IDLE_SECS" '
			{ ms = ($5 - $3) / 1e6 / secs; total += ms
			  printf "%s rep %d thread %s %s %.2f ms/s\n", name, rep, $1, $2, ms }
			END { printf "%s rep %d total %.2f ms/s\n", name, rep, total }'
	grep -E "attach \+ detach costs|gated by" "$log" || true
	rm -f "$log"
}

for rep in $(seq 1 "$REPS"); do
	for d in "${daemons[@]}"; do
		name="${d%%=*}"
		rest="${d#*=}"
		measure "$name" "${rest%%:*}" "${rest#*:}" "$rep"
	done
done
