#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# What tcp_buffer buys on a real path: two namespaces over veth with netem
# delay DELAY each way (20 ms RTT by default), a new iperf3 connection every
# CONN_SECS for PHASE_SECS, into a receiver whose tcp_rmem is
#   small:  SMALL_RMEM ("4096 131072 131072": the window stays at 64 KB),
#   static: STATIC_RMEM (the kernel's defaults, "4096 131072 6291456"),
#   tuned:  SMALL_RMEM at the start, the daemon (tuners tcp_buffer and
#           admin_override, writing) started right before the first connection,
#   observed: STATIC_RMEM with the same daemon in --observe (it decides
#           and writes nothing): what the daemon's own cost takes from
#           static, so that tuned / observed is the tuning alone (in a TCG
#           guest the BPF programs and the daemon compete with iperf3),
#   and AB_NAME: the same with another build (AB_BPFTUNE, AB_PLUGINS).
# Per connection: Mbit/s received and tcp_rmem max after it; per daemon
# phase: the final max, and the bandwidth-delay product the tuner measured
# itself (the largest rtt_us x rate_kbps among its tcp_rmem decisions in
# its telemetry), so "final max / BDP" says how far growth overshot.
#
# Needs netem: run it in a qemu guest (bench/matrix.sh does, NETEM=1; this
# host has none) or on a host that has it.  TCG makes iperf3 CPU-bound
# (about 400 Mbit/s), which sets the BDP.  Not a test: prints numbers.
#
# Usage (root, from the top of the tree, after make):
#   bench/netem_effect.sh
# Knobs: N=1 (repetitions of the phases), PHASE_SECS=30 CONN_SECS=2
#   DELAY=10ms SMALL_RMEM STATIC_RMEM AB_BPFTUNE AB_PLUGINS AB_NAME=other
#   (or AB_CMD AB_READY: another daemon's command line, see bench/lib.sh)
#   NETEM_OUT=PATH (results prefix; default bench/results/netem-<time>)
#   NETEM_PRINT_CSV=1: print the raw CSV on stdout between marker lines
#   (how bench/matrix.sh gets it out of a guest)
# Results: OUT.csv (rep,config,conn,metric,unit,value), OUT.md, OUT.png.
set -eu
cd "$(dirname "$0")/.."
. bench/lib.sh

N="${N:-1}"
PHASE_SECS="${PHASE_SECS:-30}"
CONN_SECS="${CONN_SECS:-2}"
DELAY="${DELAY:-10ms}"
SMALL_RMEM="${SMALL_RMEM:-4096 131072 131072}"
STATIC_RMEM="${STATIC_RMEM:-4096 131072 6291456}"
bench_ab_init

bench_need iperf3 tc python3 sqlite3
bench_init
OUT="${NETEM_OUT:-$RESULTS/netem-$STAMP}"
CSV="$OUT.csv"
echo "rep,config,conn,metric,unit,value" >"$CSV"

modprobe -q sch_netem 2>/dev/null || true
bench_netns_pair n 192.168.94
ip netns exec "$CLI" tc qdisc add dev bnc root netem delay "$DELAY" 2>/dev/null ||
	bench_die "no netem on this kernel (run it in a guest: make bench-matrix)"
ip netns exec "$SRV" tc qdisc add dev bns root netem delay "$DELAY"
PORT=$((5900 + $$ % 90))
ip netns exec "$SRV" iperf3 -s -B "$SRV4" -p "$PORT" >/dev/null 2>&1 &
BENCH_PIDS+=($!)
bench_wait_listen "$SRV" "$PORT" || bench_die "iperf3 server did not start"

row() {
	echo "$1,$2,$3,$4,$5,$6" >>"$CSV"
}

rmem_max() {
	ip netns exec "$SRV" sysctl -n net.ipv4.tcp_rmem | awk '{print $3}'
}

# one connection of CONN_SECS: Mbit/s received, or "-"
connection() {
	timeout $((CONN_SECS + 30)) ip netns exec "$CLI" iperf3 -c "$SRV4" -p "$PORT" \
		-t "$CONN_SECS" -J 2>/dev/null | python3 -c 'import json,sys
try:
    print("%.1f" % (json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"] / 1e6))
except Exception:
    print("-")'
}

# the largest BDP (bytes) among the tcp_rmem decisions in the daemon's
# telemetry: the tuner's own bdp= where it records one (rate x smallest
# RTT), else rate_kbps * rtt_us / 8000
tuner_bdp() {
	local db

	db="$(ls -t "$BENCH_TMP"/telemetry/*.db 2>/dev/null | head -1)"
	[ -n "$db" ] || { echo -; return; }
	sqlite3 -readonly "$db" "SELECT inputs FROM decisions WHERE tunable = 'net.ipv4.tcp_rmem' AND inputs LIKE '%rtt_us=%'" 2>/dev/null |
		awk '{r = 0; k = 0; b = -1
		      for (i = 1; i <= NF; i++) {
			if ($i ~ /^rtt_us=/) r = substr($i, 8) + 0
			if ($i ~ /^rate_kbps=/) k = substr($i, 11) + 0
			if ($i ~ /^bdp=/) b = substr($i, 5) + 0
		      }
		      if (b < 0) b = r * k / 8000; if (b > m) m = b}
		     END {if (m) printf "%.0f\n", m; else print "-"}'
}

phase() {
	local rep="$1" cfg="$2" t0 n=0 v

	case "$cfg" in
	static | observed) ip netns exec "$SRV" sysctl -qw net.ipv4.tcp_rmem="$STATIC_RMEM" ;;
	*) ip netns exec "$SRV" sysctl -qw net.ipv4.tcp_rmem="$SMALL_RMEM" ;;
	esac
	if [ "$cfg" != small ] && [ "$cfg" != static ]; then
		bench_use_build "$cfg"
		rm -rf "$BENCH_TMP/telemetry"
		bench_plugin_dir tcp_buffer admin_override
		if [ "$cfg" = observed ]; then
			bench_daemon_start --observe
		else
			bench_daemon_start
		fi
	fi
	t0=$SECONDS
	while [ $((SECONDS - t0)) -lt "$PHASE_SECS" ]; do
		n=$((n + 1))
		row "$rep" "$cfg" "$n" start s $((SECONDS - t0))
		v="$(connection)"
		row "$rep" "$cfg" "$n" throughput Mbit/s "$v"
		row "$rep" "$cfg" "$n" rmem_max bytes "$(rmem_max)"
	done
	if [ -n "$DAEMON_PID" ]; then
		row "$rep" "$cfg" - tuner_bdp bytes "$(tuner_bdp)"
		# --observe: what it decided, none of it written
		row "$rep" "$cfg" - "$([ "$cfg" = observed ] && echo would_raise || echo raises)" count \
			"$(grep -c "net.ipv4.tcp_rmem .* -> .* in netns $SRV " "$DAEMON_LOG" || true)"
		row "$rep" "$cfg" - wscale_notes count \
			"$(grep -c "is bound by its window scale" "$DAEMON_LOG" || true)"
		bench_daemon_stop "$OUT-$cfg-rep$rep.log"
	fi
	row "$rep" "$cfg" - rmem_max_final bytes "$(rmem_max)"
}

CONFIGS="small static observed tuned"
bench_ab && CONFIGS="$CONFIGS $AB_NAME"
{
	echo "# netem effect: $N repetitions; RTT 2 x $DELAY; a new ${CONN_SECS}s iperf3 connection after another for ${PHASE_SECS}s per phase: $CONFIGS"
	echo "# receiver tcp_rmem: small '$SMALL_RMEM', static '$STATIC_RMEM'; daemon: tcp_buffer and admin_override, writing ${BENCH_DAEMON_FLAGS:-}"
	echo "# machine: $(bench_machine)"
	echo "# commit: $(git rev-parse --short HEAD 2>/dev/null || echo -)$(git diff --quiet HEAD 2>/dev/null || echo ' (modified)')"
	echo "# date: $(date -u '+%Y-%m-%d %H:%M UTC')"
} | tee "$OUT.info" >&2

start=$SECONDS
for rep in $(seq 1 "$N"); do
	for cfg in $CONFIGS; do
		echo "rep $rep/$N: $cfg ($((SECONDS - start)) s)" >&2
		phase "$rep" "$cfg"
	done
done
echo "done in $((SECONDS - start)) s" >&2
if [ "${NETEM_PRINT_CSV:-0}" = 1 ]; then
	echo "=== netem csv begin ==="
	cat "$OUT.info" "$CSV"
	echo "=== netem csv end ==="
fi
python3 bench/netem_report.py "$CSV" "$OUT"
