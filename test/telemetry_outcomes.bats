#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# bats file_tags=kernel
# Outcomes of decisions (docs/telemetry.md, "Outcomes"): a policy's
# decision gets a row of outcomes_<plugin>_<policy> at its horizon, linked
# by decision_seq, applied or under --observe, and the decisions dataset
# has it with its reward.  The sample tuner's raise-to-request (horizon
# 5 s, reward from the netns's listen overflows and drops) on this kernel,
# and tcp_buffer's grow-near-limit with RTT (a gauge's mean) in its reward.

load helpers
load telemetry_helpers

TOOL="$REPO/tools/bpftune-telemetry"

setup() {
	SAVED_SOMAXCONN="$(cat /proc/sys/net/core/somaxconn)"
	# tcp_buffer's tests run it in the global netns too: put back what it changes
	save_globals net.ipv4.tcp_rmem net.ipv4.tcp_wmem net.ipv4.tcp_mem \
		net.ipv4.tcp_no_metrics_save net.ipv4.tcp_no_ssthresh_metrics_save
	TEL="$BATS_TEST_TMPDIR/telemetry"
	make_plugin_dir admin_override sample
}

teardown() {
	[ -n "${BATS_TEST_COMPLETED:-}" ] || [ -z "${LOG:-}" ] || tail -40 "$LOG" >&3
	common_teardown
	restore_globals
}

# wait_rows TABLE N: until the run's file has N rows in TABLE (the writer
# commits every flush; an outcome row comes at its horizon)
wait_rows() {
	local i
	for i in $(seq 1 600); do
		[ "$(sql "SELECT count(*) FROM $1" 2>/dev/null || echo 0)" -ge "$2" ] && return 0
		sleep 0.1
	done
	echo "# $1: fewer than $2 rows" >&3
	return 1
}

# rtt_netns NAME: netns rttreward-$$-NAME (lo up) in $RTT_NS, removed in
# teardown (not in a subshell: the list is the shell's)
rtt_netns() {
	RTT_NS="rttreward-$$-$1"
	ip netns add "$RTT_NS"
	ip -n "$RTT_NS" link set lo up
	NETNS_LIST+=("$RTT_NS")
	echo "$RTT_NS" >> "$BATS_TEST_TMPDIR/.bt-netns"
}

# flow NS sink HOST PORT | flow NS source HOST PORT RATE: a receiver that
# reads and never writes, a sender of RATE bytes/s (0: as fast as it
# goes), in the background until teardown
flow() {
	local ns="$1"
	shift
	cat > "$BATS_TEST_TMPDIR/flow.py" <<'PY'
import socket, sys, threading, time
mode, host, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
if mode == "sink":
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((host, port))
    s.listen(8)
    def drain(c):
        while c.recv(1 << 16):
            pass
    while True:
        c = s.accept()[0]
        threading.Thread(target=drain, args=(c,), daemon=True).start()
rate, buf = int(sys.argv[4]), b"x" * 16384
c = socket.create_connection((host, port))
while True:
    c.sendall(buf)
    if rate:
        time.sleep(len(buf) / rate)
PY
	ip netns exec "$ns" python3 "$BATS_TEST_TMPDIR/flow.py" "$@" >/dev/null 2>&1 &
}

# rtt_bulk_flow SRV HOST PORT CLI LABEL: tcp_buffer with 200 ms samples
# (telemetry in $TEL, run label LABEL), a sink at HOST:PORT in netns SRV
# whose tcp_rmem max is small, and a bulk sender from netns CLI: the
# receive buffers fill and the tuner raises, one raise after another.
# With "paced", a paced sender first, until a sample of CLI has RTTs: the
# bulk sender's raises can all come in its first tens of ms, before any
# such sample (a failed run: ten raises within 30 ms, then none)
rtt_bulk_flow() {
	local srv="$1" host="$2" port="$3" cli="$4" label="$5" ccookie
	[ "${6:-}" = paced ] && ccookie="$(netns_cookie_of "$cli")"
	ip netns exec "$srv" sysctl -qw net.ipv4.tcp_rmem="4096 131072 262144"
	start_daemon --telemetry-dir "$TEL" --label "$label" --sample-interval 200 \
		--sample-netns 256
	flow "$srv" sink "$host" "$port"
	wait_listen "$srv" "$port"
	if [ -n "${ccookie:-}" ]; then
		flow "$cli" source "$host" "$port" 131072
		wait_rows "samples_tcp WHERE netns_cookie = $ccookie AND srtt_n > 0" 1
	fi
	flow "$cli" source "$host" "$port" 0
}

# two decisions of raise-to-request in netns $1, then their outcomes
two_decisions() {
	listen_backlog "$1" 2048
	wait_count "called listen\(\) with backlog 2048" 1
	listen_backlog "$1" 4096
	wait_count "called listen\(\) with backlog 4096" 1
	wait_rows decisions_sample_raise_to_request 2
	wait_rows outcomes_sample_raise_to_request 2
}

@test "outcomes: each decision gets its row at the horizon, linked by decision_seq" {
	local ns cookie rows
	ns="$(make_netns)"
	ip netns exec "$ns" sysctl -qw net.core.somaxconn=128
	start_daemon --telemetry-dir "$TEL" --label oc-applied --sample-interval 200
	two_decisions "$ns"
	wait_for_log "somaxconn 2048 -> 4096 in netns $ns"
	cookie="$(netns_cookie_of "$ns")"
	# linked: one outcome per decision, the same action, in the same netns
	[ "$(sql "SELECT count(*) FROM outcomes_sample_raise_to_request o JOIN decisions d ON d.seq = o.decision_seq AND d.policy = 'raise-to-request' AND d.action = o.decided AND d.netns_cookie = o.netns_cookie WHERE o.netns_cookie = $cookie")" -eq 2 ]
	# deterministic, applied, read at (not before) the 5 s horizon
	rows="$(sql "SELECT decided, propensity, observed, horizon_ms, after_ms >= 5000 FROM outcomes_sample_raise_to_request ORDER BY decision_seq")"
	[ "$rows" = "raise|1.0|0|5000|1
raise|1.0|0|5000|1" ]
	# the first in its netns has no before-rate, the second has one, and a reward
	[ "$(sql "SELECT before_ms IS NULL, reward IS NULL FROM outcomes_sample_raise_to_request ORDER BY decision_seq LIMIT 1")" = "1|1" ]
	[ "$(sql "SELECT before_ms > 0, listen_overflows_before IS NOT NULL, listen_overflows_after >= 0, reward BETWEEN -1 AND 1 FROM outcomes_sample_raise_to_request ORDER BY decision_seq DESC LIMIT 1")" = "1|1|1|1" ]
	# written after the decision, at its horizon
	[ "$(sql "SELECT count(*) FROM outcomes_sample_raise_to_request o JOIN decisions d ON d.seq = o.decision_seq WHERE o.ts_uptime_us >= d.ts_uptime_us + 5000000")" -eq 2 ]
	stop_daemon
	grep -q "telemetry: outcomes: 2 written, 0 not recorded" "$LOG"
	# the decisions dataset has both, one with its reward
	run "$TOOL" dataset build --format decisions --out "$BATS_TEST_TMPDIR/ds" "$TEL"
	echo "$output"
	[ "$status" -eq 0 ]
	run "$TOOL" dataset verify "$BATS_TEST_TMPDIR/ds"
	[ "$status" -eq 0 ]
	python3 - "$BATS_TEST_TMPDIR/ds" <<'PY'
import csv, json, sys
ds = sys.argv[1]
rows = list(csv.DictReader(open(ds + "/all/sample_raise_to_request.csv")))
assert len(rows) == 2, rows
assert [r["action"] for r in rows] == ["raise", "raise"], rows
assert [r["input_backlog"] for r in rows] == ["2048", "4096"], rows
assert rows[0]["reward"] == "" and rows[1]["reward"] != "", rows
assert float(rows[1]["propensity"]) == 1.0 and rows[1]["observed"] == "0"
m = json.load(open(ds + "/dataset_meta.json"))
p = m["policies"]["sample_raise_to_request"]
assert p["decisions"] == 2 and p["with_reward"] == 1 and p["actions"] == ["raise", "none"], p
print("ok")
PY
}

@test "outcomes: --observe records them too, marked observed, nothing applied" {
	local ns
	ns="$(make_netns)"
	ip netns exec "$ns" sysctl -qw net.core.somaxconn=128
	start_daemon --telemetry-dir "$TEL" --observe --label oc-observe --sample-interval 200
	two_decisions "$ns"
	[ "$(somaxconn_in "$ns")" -eq 128 ]
	[ "$(sql "SELECT count(*) FROM outcomes_sample_raise_to_request WHERE observed = 1 AND decided = 'raise' AND propensity = 1.0")" -eq 2 ]
	[ "$(sql "SELECT count(*) FROM outcomes_sample_raise_to_request WHERE reward IS NOT NULL")" -eq 1 ]
	stop_daemon
	[ "$(somaxconn_in "$ns")" -eq 128 ]
	run "$TOOL" dataset build --format decisions --out "$BATS_TEST_TMPDIR/ds" "$TEL"
	[ "$status" -eq 0 ]
	python3 - "$BATS_TEST_TMPDIR/ds" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1] + "/all/sample_raise_to_request.csv")))
assert [r["observed"] for r in rows] == ["1", "1"], rows
assert sum(1 for r in rows if r["reward"] != "") == 1, rows
print("ok")
PY
}

@test "outcomes: a decision still pending at exit is counted, not written" {
	local ns
	ns="$(make_netns)"
	ip netns exec "$ns" sysctl -qw net.core.somaxconn=128
	start_daemon --telemetry-dir "$TEL" --label oc-exit
	listen_backlog "$ns" 2048
	wait_for_log "somaxconn 128 -> 2048 in netns $ns"
	stop_daemon
	grep -q "telemetry: outcomes: 0 written, 0 not recorded (over 256 pending or plugin gone), 0 refused, 1 still pending at exit" "$LOG"
	[ "$(sql "SELECT count(*) FROM outcomes_sample_raise_to_request")" -eq 0 ]
	[ "$(sql "SELECT count(*) FROM decisions_sample_raise_to_request")" -eq 1 ]
}

# tcp_buffer's buffer policies weigh RTT (the mean of samples_tcp's
# srtt observations over each horizon); on loopback in a netns of our own
# the sender's RTTs and the receiver's tcp_rmem raises share the netns
# (/proc/net/dev leaves lo out: rx_bytes and tx_bytes stay 0 there)
@test "outcomes: a buffer raise's row has the netns's RTT before and after, in its reward" {
	local ns cookie
	rm -rf "$PLUGIN_DIR"
	make_plugin_dir tcp_buffer
	rtt_netns lo
	ns="$RTT_NS"
	cookie="$(netns_cookie_of "$ns")"
	# a reward needs the counters' before-rates, i.e. a raise after the
	# first, whose horizon before has the sender's RTTs (the srtt gauge
	# counts a socket with data in flight as it sends)
	rtt_bulk_flow "$ns" 127.0.0.1 5401 "$ns" rtt-reward paced
	wait_rows "outcomes_tcp_buffer_grow_near_limit WHERE netns_cookie = $cookie AND reward IS NOT NULL" 1
	# and the receiver's: its first raise can come after a sender's
	# tcp_wmem raise has its reward, its row 10 s after that raise
	wait_rows "outcomes_tcp_buffer_grow_near_limit o JOIN decisions d ON d.seq = o.decision_seq WHERE o.netns_cookie = $cookie AND d.tunable = 'net.ipv4.tcp_rmem'" 1
	stop_daemon
	python3 - "$(tel_db)" "$cookie" <<'PY' >&3
import sqlite3, sys
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
db.row_factory = sqlite3.Row
cookie = int(sys.argv[2])
rows = db.execute("SELECT o.*, d.tunable FROM outcomes_tcp_buffer_grow_near_limit o JOIN decisions d ON d.seq = o.decision_seq WHERE o.netns_cookie = ? ORDER BY o.decision_seq", (cookie,)).fetchall()
# grow-near-limit raises tcp_rmem (the receiver's) and tcp_wmem (the
# sender's) here; the first raises come before any take, so which one
# gets a reward first varies
assert rows and all(r["tunable"] in ("net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem") for r in rows)
assert any(r["tunable"] == "net.ipv4.tcp_rmem" for r in rows), [dict(r) for r in rows]
names = ["rx_bytes", "tx_bytes", "retrans_segs", "rcvq_drops", "srtt_mean_us"]
weights = [1, 1, -1, -1, -1]
done = [r for r in rows if r["reward"] is not None]
for r in done:
    b, a = r["srtt_mean_us_before"], r["srtt_mean_us_after"]
    assert b is not None and a is not None and b > 0 and a > 0, dict(r)
    # the reward from the row's own columns: RTT's term in it
    terms = [w * (r[n + "_after"] - r[n + "_before"]) /
             max(abs(r[n + "_after"]), abs(r[n + "_before"]), 1) for n, w in zip(names, weights)]
    assert abs(sum(terms) / 5 - r["reward"]) < 1e-9, (terms, dict(r))
    # the before-mean lies within what samples_tcp saw in that netns then
    t0 = r["ts_uptime_us"] - r["after_ms"] * 1000
    lo, hi = db.execute("SELECT min(srtt_mean_us), max(srtt_mean_us) FROM samples_tcp WHERE netns_cookie = ? AND srtt_n > 0 AND ts_uptime_us BETWEEN ? AND ?", (cookie, t0 - 11_000_000, t0 + 1_000_000)).fetchone()
    assert lo is not None and lo - 1e-6 <= b <= hi + 1e-6, (lo, b, hi)
    print("# decision %d (%s): srtt %.1f -> %.1f us, reward %.4f (RTT term %.4f)" % (
        r["decision_seq"], r["tunable"], b, a, r["reward"], terms[4]))
PY
}

# a receiver that never sends has no RTT: its netns's windows are NULL, so
# is the reward -- never an RTT of 0; the sender's netns has the RTTs
@test "outcomes: a tcp_rmem raise in a netns without RTT observations has NULL RTT and reward" {
	local srv cli scookie ccookie
	rm -rf "$PLUGIN_DIR"
	make_plugin_dir tcp_buffer
	rtt_netns s
	srv="$RTT_NS"
	rtt_netns c
	cli="$RTT_NS"
	ip link add rttr-c netns "$cli" type veth peer name rttr-s netns "$srv"
	ip -n "$srv" addr add 10.79.0.1/24 dev rttr-s
	ip -n "$cli" addr add 10.79.0.2/24 dev rttr-c
	ip -n "$srv" link set rttr-s up
	ip -n "$cli" link set rttr-c up
	scookie="$(netns_cookie_of "$srv")"
	ccookie="$(netns_cookie_of "$cli")"
	rtt_bulk_flow "$srv" 10.79.0.1 5402 "$cli" rtt-null
	# a row with the counters' before-rates: only RTT can make its reward NULL
	wait_rows "outcomes_tcp_buffer_grow_near_limit WHERE netns_cookie = $scookie AND rx_bytes_before IS NOT NULL" 1
	stop_daemon
	[ "$(sql "SELECT count(*) FROM outcomes_tcp_buffer_grow_near_limit WHERE netns_cookie = $scookie AND (srtt_mean_us_before IS NOT NULL OR srtt_mean_us_after IS NOT NULL OR reward IS NOT NULL)")" -eq 0 ]
	[ "$(sql "SELECT rx_bytes_after > 0, retrans_segs_before IS NOT NULL FROM outcomes_tcp_buffer_grow_near_limit WHERE netns_cookie = $scookie AND rx_bytes_before IS NOT NULL LIMIT 1")" = "1|1" ]
	# sampled there all along without an observation; the sender's had them
	[ "$(sql "SELECT count(*), sum(srtt_n) FROM samples_tcp WHERE netns_cookie = $scookie")" != "0|" ]
	[ "$(sql "SELECT sum(srtt_n) FROM samples_tcp WHERE netns_cookie = $scookie")" -eq 0 ]
	[ "$(sql "SELECT sum(srtt_n) > 0 FROM samples_tcp WHERE netns_cookie = $ccookie")" -eq 1 ]
}
