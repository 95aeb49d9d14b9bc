#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# What a learned model costs per connection: tcp_conn's sockops program
# walks the model's tree (tcp_conn_model_walk.h) for every new connection.
# The daemon times the range check and the walk with bpf_ktime_get_ns()
# (model_stats) and logs the mean at exit ("N connections evaluated, T ns
# per evaluation").  The model here is the worst case the format allows: a
# chain of 8 splits (depth 8, every feature's range the whole u64), so each
# connection checks 5 ranges and walks 9 nodes to its leaf.  Beside it, the
# whole sockops program's run time per call (kernel.bpf_stats_enabled)
# with that model and with a model of one leaf (the same pick, set with
# bpf_setsockopt() the same way, no walk): their difference is what the
# walk adds to the program, its timer included.
#
# Per repetition, interleaved: a daemon (tuner tcp_conn, --strategy
# tcp_conn.model=... the leaf, then the chain), CONNS connections opened
# and closed one after the other from a netns to another over veth, the
# daemon stopped.  Not a test: it prints
# numbers (median and min..max over REPS) and never fails on them.
#
# Usage (root, from the top of the tree, after make):
#   bench/tcp_conn_model.sh
# Knobs: REPS=5 CONNS=2000
# Results: bench/results/tcp_conn_model-<time>.txt as well.
set -eu
cd "$(dirname "$0")/.."
. bench/lib.sh

REPS="${REPS:-5}"
CONNS="${CONNS:-2000}"
bench_need python3 bpftool
bench_init
OUT="$RESULTS/tcp_conn_model-$STAMP.txt"
PORT=7989

bench_netns_pair m 10.81.1
bench_cgroup
bench_plugin_dir tcp_conn
MODEL="$BENCH_TMP/chain.model"
LEAF="$BENCH_TMP/leaf.model"
PYTHONPATH="$PWD/tools" /usr/bin/python3 - "$MODEL" "$LEAF" <<'PY'
import sys
from bpftune_telemetry.learn import fnv1a64, FEATURES

def write(path, nodes):
    text = "bpftune-model 1\npolicy tcp_conn cc\nfeatures %d %s\n" % (len(FEATURES), " ".join(FEATURES))
    text += "".join("range %s 0 18446744073709551615\n" % f for f in FEATURES)
    text += "nodes %d\n" % len(nodes) + "\n".join(nodes) + "\n"
    open(path, "w").write(text + "checksum fnv1a64 %016x\n" % fnv1a64(text.encode()))

# node 2k splits (x <= max: always left) to node 2k+2, its right a leaf
nodes = []
for k in range(8):
    f = k % len(FEATURES)
    nodes.append("node %d %d 18446744073709551615 %d %d -" % (2 * k, f, 2 * k + 2, 2 * k + 1))
    nodes.append("node %d -1 0 -1 -1 cubic" % (2 * k + 1))
nodes.append("node 16 -1 0 -1 -1 cubic")
nodes.sort(key=lambda n: int(n.split()[1]))
write(sys.argv[1], nodes)
write(sys.argv[2], ["node 0 -1 0 -1 -1 cubic"])
PY
chmod 0644 "$MODEL" "$LEAF"

ip netns exec "$SRV" /usr/bin/python3 -c '
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2]))); s.listen(512)
while True:
    c, _ = s.accept(); c.close()
' "$SRV4" "$PORT" >/dev/null 2>&1 &
BENCH_PIDS+=($!)
bench_wait_listen "$SRV" "$PORT" || bench_die "the server did not start"

stats_saved="$(sysctl -n kernel.bpf_stats_enabled)"
sysctl -qw kernel.bpf_stats_enabled=1
restore_stats() { sysctl -qw kernel.bpf_stats_enabled="$stats_saved"; }
trap 'restore_stats; bench_cleanup' EXIT

# sockops run count and time of the daemon's conn_sockops now
prog_stats() {
	bpftool prog show name conn_sockops -j 2>/dev/null | /usr/bin/python3 -c '
import json, sys
t = sys.stdin.read().strip()
p = json.loads(t) if t else {}
p = p[0] if isinstance(p, list) else p
print(p.get("run_cnt", 0), p.get("run_time_ns", 0))'
}

# one run with model file $1: echo "walk_ns prog_ns_per_run runs"
one_run() {
	local model="$1" line walk runs0 ns0 runs1 ns1
	bench_daemon_start --no-telemetry -a tcp_conn -c "$BENCH_CG" \
		--strategy "tcp_conn.model=$model"
	read -r runs0 ns0 < <(prog_stats)
	bench_in_cg ip netns exec "$CLI" /usr/bin/python3 -c '
import socket, sys
for i in range(int(sys.argv[3])):
    socket.create_connection((sys.argv[1], int(sys.argv[2]))).close()
' "$SRV4" "$PORT" "$CONNS"
	read -r runs1 ns1 < <(prog_stats)
	bench_daemon_stop
	line="$(grep -oE "[0-9]+ connections evaluated, [0-9.]+ ns per evaluation" "$DAEMON_LOG" | tail -1)"
	[ -n "$line" ] || bench_die "no evaluation line in the daemon's log"
	walk="$(awk '{print $4}' <<<"$line")"
	[ "$(awk '{print $1}' <<<"$line")" -ge "$CONNS" ] ||
		bench_die "the model evaluated fewer connections than made: $line"
	awk -v w="$walk" -v r=$((runs1 - runs0)) -v n=$((ns1 - ns0)) \
		'BEGIN { printf "%s %.0f %d\n", w, r ? n / r : 0, r }'
}

{
	echo "tcp_conn model walk: $REPS repetitions of $CONNS connections, kernel $(uname -r), $(nproc) CPUs"
	echo "model: a chain of 8 splits (depth 8, 17 nodes), 5 range checks per connection"
	printf '%-4s %-10s %-10s %-24s %-24s %s\n' rep "walk ns" "leaf ns" "sockops ns/run chain" "sockops ns/run leaf" "runs"
} | tee "$OUT"
walks=() leaves=() with=() without=() conn=()
for r in $(seq 1 "$REPS"); do
	# interleaved: the one-leaf model, then the chain, in every repetition
	read -r leafw leaf runs < <(one_run "$LEAF")
	read -r walk chain _ < <(one_run "$MODEL")
	walks+=("$walk") leaves+=("$leafw") with+=("$chain") without+=("$leaf")
	conn+=("$(( runs / CONNS ))")
	printf '%-4s %-10s %-10s %-24s %-24s %s\n' "$r" "$walk" "$leafw" "$chain" "$leaf" "$runs" | tee -a "$OUT"
done
/usr/bin/python3 - "${walks[*]}" "${leaves[*]}" "${with[*]}" "${without[*]}" "${conn[0]}" <<'PY' | tee -a "$OUT"
import statistics, sys
w, l, m, r = ([float(x) for x in a.split()] for a in sys.argv[1:5])
per_conn = int(sys.argv[5])
d = [a - b for a, b in zip(m, r)]
def s(v):
    return "median %.0f (%.0f .. %.0f)" % (statistics.median(v), min(v), max(v))
print("evaluation per connection, timed in BPF (5 range checks + the walk + 2 clock reads):")
print("  depth-8 chain: " + s(w) + " ns; one leaf: " + s(l) + " ns (target <= 200 ns)")
print("sockops program per run: chain " + s(m) + " ns, one leaf " + s(r) + " ns")
print("difference per run (chain - leaf, paired): " + s(d) + " ns; %d runs per connection, the walk in one of them" % per_conn)
PY
