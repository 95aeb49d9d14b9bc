#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# bats file_tags=nosan,offline
# (nosan: no program of the build under test runs here)
# The report of the learned congestion-control experiment
# (bench/cc_report.py, docs/learning.md) on a results directory with known
# effects (test/cc_fixture.py): the ratios, the best fixed choice in
# hindsight, the harm rate, the p99 of RPC times, the targets it says are
# met or not, the trees and the plot.  And the traffic tool: its seeded
# plan, and its swapping of the daemon's model (against a stand-in daemon).

load helpers

setup() {
	FX="$BATS_TEST_TMPDIR/cc"
	python3 "$REPO/test/cc_fixture.py" "$FX"
}

# value ARM METRIC CATEGORY: the estimate in summary.csv
value() {
	awk -F, -v c="$3" -v m="$2" -v a="$1" '$1 == c && $2 == m && $3 == a {print $4}' \
		"$FX/summary.csv"
}

# within X LO HI
within() {
	awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN {exit !(x >= lo && x <= hi)}'
}

@test "cc_report: ratios to cubic, best fixed choice, harm and p99 from a fixture" {
	run python3 "$REPO/bench/cc_report.py" "$FX"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -s "$FX/report.md" ]
	# bbr moves 4x cubic on the lossy paths, and is the best fixed choice there
	within "$(value bbr goodput_ratio loss)" 3.8 4.2
	within "$(value htcp goodput_ratio loss)" 1.1 1.3
	within "$(value cubic goodput_ratio loss)" 1 1
	grep -q "^12 blocks (repetitions x draws).  Best fixed choice in hindsight: bbr.$" "$FX/report.md"
	grep -qE '^\| bbr \(= best fixed\) \| 12 \| 3\.9[0-9]* \[' "$FX/report.md"
	# the model loses 20 % everywhere on the long paths: every connection harmed
	within "$(value model goodput_ratio longrtt)" 0.78 0.82
	within "$(value model harm_rate longrtt)" 1 1
	within "$(value model harm_rate loss)" 0 0
	# RPC times: bbr and the model 1.5x cubic's p99, the bandit as cubic
	within "$(value model p99_ratio rpc)" 1.45 1.55
	within "$(value bandit p99_ratio rpc)" 0.97 1.03
	[ -z "$(value model p99_ratio loss)" ]
}

@test "cc_report: the targets it says met and not met" {
	run python3 "$REPO/bench/cc_report.py" "$FX"
	[ "$status" -eq 0 ]
	sed -n '/^## loss/,/^## longrtt/p' "$FX/report.md" >"$BATS_TEST_TMPDIR/loss.md"
	sed -n '/^## longrtt/,/^## rpc/p' "$FX/report.md" >"$BATS_TEST_TMPDIR/longrtt.md"
	sed -n '/^## rpc/,/^## What/p' "$FX/report.md" >"$BATS_TEST_TMPDIR/rpc.md"
	cat "$BATS_TEST_TMPDIR/loss.md"
	# loss: the model beats hand, bandit and cubic, is 6 % short of bbr
	grep -q "^- met: goodput model / hand 1.2" "$BATS_TEST_TMPDIR/loss.md"
	grep -q "^- met: goodput model / bandit over the first 20 connections" "$BATS_TEST_TMPDIR/loss.md"
	grep -q "^- NOT met: goodput model / best fixed (bbr) 0.9" "$BATS_TEST_TMPDIR/loss.md"
	grep -q "^- met: harm rate 0 %" "$BATS_TEST_TMPDIR/loss.md"
	grep -q "placed by the model 216 (90 %)" "$BATS_TEST_TMPDIR/loss.md"
	# longrtt: it loses, and the report says so
	[ "$(grep -c '^- NOT met:' "$BATS_TEST_TMPDIR/longrtt.md")" -eq 6 ]
	[ "$(grep -c '^- met:' "$BATS_TEST_TMPDIR/longrtt.md")" -eq 0 ]
	# rpc: the p99 target fails
	grep -q "^- NOT met: p99 RPC time model / cubic 1.5" "$BATS_TEST_TMPDIR/rpc.md"
	grep -q "p99 RPC ms" "$BATS_TEST_TMPDIR/rpc.md"
	# the tree, readable
	grep -q "^trained without loss:" "$FX/report.md"
	grep -q "^if retrans_pm <= 4:" "$FX/report.md"
	# with learn's held-out scores, not its explanation of them
	grep -qE "^longrtt +150 +10$" "$FX/report.md"
	[ "$(grep -c '^model=best' "$FX/report.md")" -eq 0 ]
}

@test "cc_report: the plot, and a clear error without cubic" {
	command -v gnuplot >/dev/null || skip "no gnuplot"
	run python3 "$REPO/bench/cc_report.py" "$FX"
	[ "$status" -eq 0 ]
	grep -qx '!\[cc_experiment.png\](cc_experiment.png)' "$FX/report.md"
	run python3 "$REPO/bench/png_stats.py" --min-coloured 5 "$FX/cc_experiment.png"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -v ',cubic,' "$FX/eval.csv" >"$BATS_TEST_TMPDIR/e.csv"
	mv "$BATS_TEST_TMPDIR/e.csv" "$FX/eval.csv"
	run python3 "$REPO/bench/cc_report.py" "$FX"
	[ "$status" -ne 0 ]
	[[ "$output" == *"no block with a static cubic arm"* ]]
}

@test "cc_conn: the plan is seeded, and a subset keeps its draws" {
	run python3 "$REPO/bench/cc_conn.py" plan --seed 7 --draws 2
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 10 ]
	all="$output"
	run python3 "$REPO/bench/cc_conn.py" plan --seed 7 --draws 2
	[ "$output" = "$all" ]
	run python3 "$REPO/bench/cc_conn.py" plan --seed 7 --draws 2 --categories loss,rpc
	[ "$output" = "$(grep -E '^(loss|rpc) ' <<<"$all")" ]
	# the loss draws are within 0.5 - 2 %, the long RTTs within 50 - 100 ms
	awk '$1 == "loss" && ($4 < 0.5 || $4 > 2) {exit 1}' <<<"$all"
	awk '$1 == "longrtt" && ($3 < 50 || $3 > 100) {exit 1}' <<<"$all"
	run python3 "$REPO/bench/cc_conn.py" plan --categories nosuch
	[ "$status" -ne 0 ]
	[[ "$output" == *"no category nosuch"* ]]
}

# a stand-in for the daemon: on SIGHUP it reads the config and logs what
# tcp_conn_strategy.c logs (a model named *bad* is refused)
FAKE_DAEMON='
import os, signal, sys, time
conf, log = sys.argv[1], sys.argv[2]
state = {"model": None}
def hup(*_):
    text = open(conf).read()
    new = text.split("model = ", 1)[1].strip() if "model = " in text else None
    with open(log, "a") as f:
        if state["model"]:
            f.write("tcp_conn: model %s: 3 connections evaluated, 90 ns\n" % state["model"])
        if new and "bad" in new:
            f.write("tcp_conn: model %s: line 1: checksum mismatch: the hand rule decides\n" % new)
            new = None
        elif new:
            f.write("tcp_conn: model %s loaded (checksum 00): a tree\n" % new)
    state["model"] = new
signal.signal(signal.SIGHUP, hup)
open(log, "a").write("bpftune running\n")
while True:
    time.sleep(1)
'

@test "cc_conn: the daemon's model is swapped by SIGHUP, a refused one is no arm" {
	local pol="$BATS_TEST_TMPDIR/bpftune.conf" log="$BATS_TEST_TMPDIR/log"
	echo "# no model" >"$pol"
	: >"$log"
	python3 -c "$FAKE_DAEMON" "$pol" "$log" &
	local pid=$!
	for _ in $(seq 1 50); do grep -q running "$log" && break; sleep 0.1; done
	run python3 - "$REPO/bench" "$pol" "$log" "$pid" <<'EOF2'
import sys, types
sys.path.insert(0, sys.argv[1])
import cc_conn
d = cc_conn.Daemon(types.SimpleNamespace(config=sys.argv[2], daemon_log=sys.argv[3],
                                         daemon_pid=int(sys.argv[4])))
print(d.use("/m/loss.model"), d.use("/m/loss.model"), d.use(None), d.use("/m/bad.model"),
      d.use("/m/bad.model"), d.use("/m/rpc.model"), d.use(None))
EOF2
	kill "$pid"
	echo "$output"
	cat "$log"
	[ "$status" -eq 0 ]
	[ "$output" = "True True True False False True True" ]
	# one SIGHUP per change: loss, none, bad, rpc, none
	[ "$(grep -c "loaded" "$log")" -eq 2 ]
	[ "$(grep -c "the hand rule decides" "$log")" -eq 1 ]
	grep -qx "# cc experiment: no model" "$pol"
}
