#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The daemon's own footprint, without load: memory from the fork to a
# settled state, and wake-ups while idle.
#
# Memory: for each telemetry setting (default telemetry, --no-telemetry),
# REPS daemon starts with all tuners; /proc/PID/status is read every
# 20 ms from the fork until SETTLE_SECS after "bpftune running": VmHWM (the
# peak, kept by the kernel), VmRSS and its split into anonymous, file-backed
# and shared-memory pages.  "Loading" is up to "bpftune running", "steady"
# the last reading.
#
# Idle: with no traffic of ours, the context switches of every daemon
# thread over IDLE_SECS after 3 s to settle (a sleeping thread switches
# once per wake-up), with the default telemetry and with --no-telemetry,
# next to a sleep process (the floor of the method) and the events the
# daemon handled meanwhile (other users' traffic wakes it legitimately).
#
# Usage (root, from the top of the tree, after make; on a shared host under
# the host-kernel lock):
#   bench/footprint.sh
# Knobs: REPS=3 SETTLE_SECS=5 IDLE_SECS=10 FOOTPRINT_OUT=PATH
#   BENCH_DAEMON_FLAGS="-L"; AB_BPFTUNE/AB_PLUGINS/AB_NAME or AB_CMD/AB_READY
#   as in cost.sh (an AB_CMD daemon runs its own command line in both
#   telemetry settings)
#   (the other daemon is measured the same way, as more rows)
# Results: OUT.csv (rep,config,case,metric,unit,value), OUT-timeline.dat,
# OUT.md, OUT.png (memory during start-up).
set -eu
cd "$(dirname "$0")/.."
. bench/lib.sh

REPS="${REPS:-3}"
SETTLE_SECS="${SETTLE_SECS:-5}"
IDLE_SECS="${IDLE_SECS:-10}"
bench_ab_init

bench_need python3
bench_init
OUT="${FOOTPRINT_OUT:-$RESULTS/footprint-$STAMP}"
CSV="$OUT.csv"
TL="$OUT-timeline.dat"
echo "rep,config,case,metric,unit,value" >"$CSV"
echo "# config rep ms_since_fork vm_hwm_kb vm_rss_kb rss_anon_kb rss_file_kb rss_shmem_kb" >"$TL"

# the configuration is "build,telemetry setting": quoted, one CSV field
row() {
	echo "$1,\"$2\",$3,$4,$5,$6" >>"$CSV"
}

# "VmHWM VmRSS RssAnon RssFile RssShmem" in kB, empty if the process is gone
mem_now() {
	awk '$1 ~ /^(VmHWM|VmRSS|RssAnon|RssFile|RssShmem):$/ {v[$1] = $2}
	     END {if (v["VmRSS:"] != "") print v["VmHWM:"], v["VmRSS:"], v["RssAnon:"], v["RssFile:"], v["RssShmem:"]}' \
		"/proc/$1/status" 2>/dev/null || true
}

# one start: follow the memory until SETTLE_SECS after "bpftune running"
memory_run() {
	local cfg="$1" rep="$2" t0 now m up="" last="" load="" i names ready
	shift 2
	names=(vm_hwm vm_rss rss_anon rss_file rss_shmem)

	bench_use_build "${cfg%%,*}"
	bench_plugin_dir
	bench_daemon_argv "$@"
	ready="$(bench_ready_re)"
	DAEMON_LOG="$BENCH_TMP/daemon.log"
	: >"$DAEMON_LOG"
	t0="$(date +%s%N)"
	"${BENCH_ARGV[@]}" >>"$DAEMON_LOG" 2>&1 &
	DAEMON_PID=$!
	DAEMON_SOCK="$BENCH_TMP/bpftune.sock"
	while :; do
		now=$((($(date +%s%N) - t0) / 1000000))
		m="$(mem_now "$DAEMON_PID")"
		[ -n "$m" ] || { cat "$DAEMON_LOG" >&2; bench_die "the daemon exited during start-up"; }
		echo "$cfg $rep $now $m" >>"$TL"
		last="$m"
		if [ -z "$up" ] && grep -qE -- "$ready" "$DAEMON_LOG"; then
			up=$now
			load="$m"
		fi
		[ -n "$up" ] && [ $((now - up)) -ge $((SETTLE_SECS * 1000)) ] && break
		[ "$now" -gt 120000 ] && bench_die "the daemon did not start in 120 s"
		sleep 0.02
	done
	row "$rep" "$cfg" memory running_ms ms "$up"
	read -ra m <<<"$load"
	for i in "${!names[@]}"; do
		row "$rep" "$cfg" memory "loaded_${names[$i]}" kB "${m[$i]}"
	done
	read -ra m <<<"$last"
	for i in "${!names[@]}"; do
		row "$rep" "$cfg" memory "steady_${names[$i]}" kB "${m[$i]}"
	done
	bench_daemon_stop
}

idle_run() {
	local cfg="$1"
	shift

	bench_use_build "${cfg%%,*}"
	bench_plugin_dir
	bench_idle row "$cfg" "$@"
}

BUILDS=(this)
bench_ab && BUILDS+=("$AB_NAME")
{
	echo "# footprint: all tuners, $REPS starts per setting, ${SETTLE_SECS}s after 'bpftune running'; idle ${IDLE_SECS}s ${BENCH_DAEMON_FLAGS:-}"
	echo "# kernel BTF: $(stat -c %s /sys/kernel/btf/vmlinux 2>/dev/null || echo -) bytes"
	echo "# machine: $(bench_machine)"
	echo "# commit: $(git rev-parse --short HEAD 2>/dev/null || echo -)$(git diff --quiet HEAD 2>/dev/null || echo ' (modified)')"
	echo "# date: $(date -u '+%Y-%m-%d %H:%M UTC')"
} | tee "$OUT.info" >&2

start=$SECONDS
for b in "${BUILDS[@]}"; do
	for rep in $(seq 1 "$REPS"); do
		echo "memory: $b rep $rep ($((SECONDS - start)) s)" >&2
		memory_run "$b,telemetry" "$rep" --telemetry-dir "$BENCH_TMP/telemetry"
		memory_run "$b,no-telemetry" "$rep" --no-telemetry
	done
done
if [ "$IDLE_SECS" -gt 0 ]; then
	echo "idle: ${IDLE_SECS}s each ($((SECONDS - start)) s)" >&2
	bench_idle_sleep row
	for b in "${BUILDS[@]}"; do
		idle_run "$b,telemetry"
		idle_run "$b,no-telemetry" --no-telemetry
	done
fi
echo "done in $((SECONDS - start)) s" >&2
python3 bench/footprint_report.py "$CSV" "$OUT"
