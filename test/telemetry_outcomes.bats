#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# bats file_tags=kernel
# Outcomes of decisions (docs/telemetry.md, "Outcomes"): a policy's
# decision gets a row of outcomes_<plugin>_<policy> at its horizon, linked
# by decision_seq, applied or under --observe, and the decisions dataset
# has it with its reward.  The sample tuner's raise-to-request (horizon
# 5 s, reward from the netns's listen overflows and drops) on this kernel.

load helpers
load telemetry_helpers

TOOL="$REPO/tools/bpftune-telemetry"

setup() {
	SAVED_SOMAXCONN="$(cat /proc/sys/net/core/somaxconn)"
	TEL="$BATS_TEST_TMPDIR/telemetry"
	make_plugin_dir sysctl sample
}

teardown() {
	[ -n "${BATS_TEST_COMPLETED:-}" ] || [ -z "${LOG:-}" ] || tail -40 "$LOG" >&3
	common_teardown
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
