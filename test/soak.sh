#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make soak: the daemon with every tuner, telemetry, the journal (-R) and
# the control socket runs for SOAK_SECS (default 600) while SOAK_NETNS
# (default 1000) network namespaces are created and destroyed, about ten
# alive at a time, with TCP traffic (iperf3) in every SOAK_TRAFFIC-th
# (default 4) and an admin's sysctl write (per-netns state) in the others.
# Every SOAK_EVERY seconds (default 30) it prints the daemon's fds, RSS,
# per-netns states, netns cache, journal size and telemetry rows; at the end
# it checks that they are bounded:
#   - fds back to the baseline (taken after the first SOAK_WARMUP
#     namespaces), per-netns tuner states (the manual ones the admin
#     writes make, from -q tuners) bounded while churning and 0 once
#     every namespace is gone, and the tuners' per-netns tables released;
#   - RSS at most SOAK_RSS_SLACK_KB (default 4096) above the baseline;
#   - telemetry rows per minute no more in the last minute than 1.5x the
#     first (per-netns samples are capped, not one per netns);
#   - the daemon exits 0, restores every change, the database is intact.
# Not part of make test.  Needs root and the host-kernel lock:
#   flock /run/bpftune-host-tests.lock make soak
set -u -o pipefail
cd "$(dirname "$0")/.."

SECS=${SOAK_SECS:-600}
NETNS=${SOAK_NETNS:-1000}
TRAFFIC_EVERY=${SOAK_TRAFFIC:-4}
EVERY=${SOAK_EVERY:-30}
WARMUP=${SOAK_WARMUP:-50}
RSS_SLACK=${SOAK_RSS_SLACK_KB:-4096}
BUILD=${BPFTUNE_BUILD:-build}
BPFTUNE=$BUILD/bin/bpftune

[ "$(id -u)" -eq 0 ] || { echo "soak: run as root" >&2; exit 1; }
command -v iperf3 >/dev/null || { echo "soak: needs iperf3" >&2; exit 1; }

work=$(mktemp -d /run/bpftune-soak.XXXXXX)
chmod 0700 "$work"
plugins=$work/plugins
mkdir -m 0755 "$plugins"
cp "$BUILD"/lib/bpftune/*_tuner.so "$plugins/"
chmod 0755 "$plugins"/*.so
sock=$work/bpftune.sock
journal=$work/journal
tel=$work/telemetry
log=$work/daemon.log
prefix="soak$$"
pid=

cleanup() {
	local ns
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	for ns in $(ip netns list | awk '{print $1}' | grep "^$prefix-"); do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null
		ip netns del "$ns" 2>/dev/null
	done
	[ "${SOAK_KEEP:-0}" = 1 ] && echo "soak: kept $work" || rm -rf "$work"
}
trap cleanup EXIT

fds() { ls /proc/"$pid"/fd | wc -l; }
rss() { awk '/^VmRSS:/ {print $2}' /proc/"$pid"/status; }
states() {
	"$BPFTUNE" --socket "$sock" -q tuners --json 2>/dev/null |
		python3 -c 'import json, sys; print(sum(len(t.get("netns", [])) for t in json.load(sys.stdin)["tuners"]))' 2>/dev/null || echo "?"
}
db() { sed -n 's/.*telemetry: writing to \([^ ]*\)$/\1/p' "$log" | tail -1; }
rows() {
	python3 - "$(db)" <<'EOF' 2>/dev/null || echo "?"
import sqlite3, sys
d = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
t = [r[0] for r in d.execute("SELECT name FROM sqlite_master WHERE type='table'")]
print(sum(d.execute("SELECT count(*) FROM %s" % x).fetchone()[0] for x in t))
EOF
}
alive() { ip netns list | grep -c "^$prefix-"; }

# one netns: created, given traffic or an admin write, kept a few seconds, deleted
one_netns() {
	local ns=$prefix-$1 life=$((1 + RANDOM % 8))
	ip netns add "$ns" || return
	ip -n "$ns" link set lo up
	if [ $(($1 % TRAFFIC_EVERY)) -eq 0 ]; then
		ip netns exec "$ns" iperf3 -s -1 -D -p 5201 >/dev/null 2>&1
		sleep 0.2
		ip netns exec "$ns" timeout 20 iperf3 -c 127.0.0.1 -p 5201 -t 2 >/dev/null 2>&1
	else
		# a managed tunable: tcp_buffer goes manual there (a state
		# the daemon must release when the netns goes)
		ip netns exec "$ns" sysctl -qw net.ipv4.tcp_rmem="4096 131072 $((6291456 + $1))"
	fi
	sleep "$life"
	ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null
	ip netns del "$ns"
}

"$BPFTUNE" -s -l "$plugins" --socket "$sock" --journal "$journal" -R \
	--telemetry-dir "$tel" >"$log" 2>&1 &
pid=$!
for i in $(seq 1 300); do
	grep -q "bpftune running" "$log" && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
grep -q "bpftune running" "$log" || { cat "$log"; echo "soak: the daemon did not start" >&2; exit 1; }

printf '%6s %7s %6s %5s %8s %7s %8s %9s\n' t_s netns alive fds rss_kB states journal_B tel_rows
RT=() RN=()	# telemetry rows at each sample while churning
max_states=0 max_alive=0
sample() {
	local n st al
	n=$(rows)
	st=$(states)
	al=$(alive)
	printf '%6d %7d %6d %5d %8d %7s %8d %9s\n' $((SECONDS - t0)) "$1" "$al" "$(fds)" \
		"$(rss)" "$st" "$(stat -c %s "$journal" 2>/dev/null || echo 0)" "$n"
	RT+=("$SECONDS") RN+=("$n")
	[[ "$st" =~ ^[0-9]+$ ]] && [ "$st" -gt "$max_states" ] && max_states=$st
	[ "$al" -gt "$max_alive" ] && max_alive=$al
}

t0=$SECONDS
interval_ms=$((SECS * 1000 / NETNS))
next_sample=0
created=0
base_fds= base_rss=
while [ "$created" -lt "$NETNS" ]; do
	created=$((created + 1))
	one_netns "$created" &
	if [ "$created" -eq "$WARMUP" ]; then
		base_fds=$(fds) base_rss=$(rss)
	fi
	if [ $((SECONDS - t0)) -ge "$next_sample" ]; then
		sample "$created"
		next_sample=$((next_sample + EVERY))
	fi
	kill -0 "$pid" 2>/dev/null || { echo "soak: the daemon died" >&2; tail -50 "$log"; exit 1; }
	sleep "$(printf '%d.%03d' $((interval_ms / 1000)) $((interval_ms % 1000)))"
done
wait_ns=$SECONDS
while [ "$(alive)" -gt 0 ] && [ $((SECONDS - wait_ns)) -lt 120 ]; do sleep 1; done
# the namespaces' jobs, not the daemon (a bare wait would wait for it too)
for p in $(jobs -p); do
	[ "$p" = "$pid" ] || wait "$p"
done
# the daemon sees the last ones go (netns destruction is asynchronous)
for i in $(seq 1 60); do
	[ "$(states)" = 0 ] && break
	sleep 1
done
sample "$created"
end_fds=$(fds) end_rss=$(rss) end_states=$(states)
kill -TERM "$pid"
wait "$pid"
status=$?
pid=

# telemetry rows per minute in each sample window: the first two windows
# (start-up, warm-up) aside, none much above the first
rates=$(python3 - "${RT[*]}" "${RN[*]}" <<'EOF'
import sys
t = [int(x) for x in sys.argv[1].split()]
n = [int(x) if x.isdigit() else 0 for x in sys.argv[2].split()]
r = [(n[i + 1] - n[i]) * 60 // max(1, t[i + 1] - t[i]) for i in range(len(t) - 1)]
print(" ".join(map(str, r)))
EOF
)
read -r -a rate <<<"$rates"
first_rate=${rate[1]:-${rate[0]:-0}}
max_rate=0
for r in "${rate[@]:1}"; do [ "$r" -gt "$max_rate" ] && max_rate=$r; done
echo
echo "soak: $created namespaces in $((wait_ns - t0)) s, $((created / TRAFFIC_EVERY)) with iperf3 traffic"
echo "soak: fds $base_fds -> $end_fds; RSS $base_rss -> $end_rss kB; per-netns states: at most $max_states while at most $max_alive namespaces were alive, $end_states at the end"
echo "soak: telemetry rows per minute, per window: $rates; file $(stat -c %s "$(db)" 2>/dev/null) bytes"
grep -E "netns: [0-9]+ created|telemetry: [0-9]+ rows written|summary: .* events lost" "$log" | sed 's/^/soak: daemon: /'
echo "soak: journal: $(stat -c %s "$journal") bytes after the restore; daemon exit status $status"

fail=0
check() { if ! eval "$1"; then echo "soak: FAILED: $2"; fail=1; fi; }
check '[ "$end_fds" -le "$base_fds" ]' "fds grew from $base_fds to $end_fds"
check '[ "$end_rss" -le $((base_rss + RSS_SLACK)) ]' "RSS grew by $((end_rss - base_rss)) kB (more than $RSS_SLACK)"
check '[ "$end_states" = 0 ]' "$end_states per-netns states left"
# a state per admin-written netns alive (about 3 in 4 of them), never one
# per netns ever written ($((NETNS - NETNS / TRAFFIC_EVERY)))
check '[ "$max_states" -gt 0 ] && [ "$max_states" -le $((max_alive * 2 + 10)) ]' \
	"per-netns states: at most $max_states with at most $max_alive namespaces alive"
check 'grep -q "per-netns tuner states: 0," "$log"' "the netns tuner reports states left at exit"
check '[ "$max_rate" -le $((first_rate * 3 / 2 + 100)) ]' "telemetry rows per minute grew: $first_rate -> $max_rate"
check '[ "$status" -eq 0 ]' "exit status $status"
check '[ "$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(\"PRAGMA integrity_check\").fetchone()[0])" "$(db)")" = ok ]' "integrity_check"
check '[ ! -s "$journal" ]' "the journal was not cleared by the restore"
[ "$fail" -eq 0 ] && echo "soak: passed"
exit "$fail"
