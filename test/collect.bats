#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# bpftune-telemetry collect and all on this host: seed 003's built-in
# workloads in three categories, the sched collector recording them,
# through to datasets, runs independent of
# each other (every global tunable as it was), missing tools skipped.
# Starts daemons that write sysctls: run under the host-kernel lock.

load helpers

TOOL="$REPO/tools/bpftune-telemetry"
PY=/usr/bin/python3
GLOBALS="net.core.rmem_default net.core.rmem_max"

setup() {
	[ "$MODE" = host ] || skip "runs the daemon itself"
	save_globals $GLOBALS
}

teardown() {
	common_teardown
	restore_globals
}

csv_values() {
	$PY -c '
import csv, sys
print("\n".join(sorted({r[sys.argv[2]] for r in csv.DictReader(open(sys.argv[1]))})))' "$1" "$2"
}

json_get() {
	$PY -c 'import json, sys; m = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# every in-tree tuner
all_tuners() {
	local so
	PLUGIN_DIR="$(mktemp -d /run/bpftune-test.XXXXXX)"
	chmod 0755 "$PLUGIN_DIR"
	for so in "$BUILD_PLUGINS"/*_tuner.so; do
		cp "$so" "$PLUGIN_DIR/"
	done
	chmod 0755 "$PLUGIN_DIR"/*.so
}

@test "all: three categories collected, then a dataset by category; files belong to the sudo user" {
	local out="$BATS_TEST_TMPDIR/t" f s held
	make_plugin_dir sysctl netns udp_buffer sched
	# as if run through sudo by nobody; the sched collector records every run
	run env SUDO_USER=nobody SUDO_UID=65534 SUDO_GID=65534 "$TOOL" all \
		--workload cpu_bound_4p,io_mixed,listen-backlog --runs 2 --duration 1 \
		--settle 0.3 --bpftune "$BPFTUNE" --libdir "$PLUGIN_DIR" --sample-interval 200 \
		--collectors sched --seed 7 --out "$out"
	echo "$output"
	[ "$status" -eq 0 ]
	! echo "$output" | grep -q "warning:"
	[ "$(ls "$out"/runs/*.db | wc -l)" -eq 6 ]
	[ "$(find "$out" ! -user nobody | wc -l)" -eq 0 ]
	# each run file: what collect ran, from what, and that it was all put back
	for f in "$out"/runs/*.db; do
		$PY - "$f" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
label, = db.execute("SELECT label FROM runs").fetchone()
w, cat, status, idx, nr, bad, ok = db.execute(
    "SELECT workload, category, exit_status, run_index, runs, tunables_not_restored, "
    "tunables_restored FROM collect_runs").fetchone()
assert w == label and status == 0 and nr == 2 and idx in (0, 1), (w, status, idx)
assert cat == {"cpu_bound_4p": "cpu_bound", "io_mixed": "io_mixed",
               "listen-backlog": "listen"}[w]
assert bad == 0 and ok >= 1, (bad, ok)
rows = db.execute("SELECT tunable, before, after, restored FROM collect_tunables "
                  "WHERE managed = 1 AND netns = 'global'").fetchall()
assert rows and all(r[1] == r[2] and r[3] == 1 for r in rows), rows
PY
	done
	# the dataset: categories held out whole, runs never in two splits
	held="$(json_get "$out/dataset/dataset_meta.json" 'm["holdout_category"]')"
	[[ "$held" =~ ^(cpu_bound|io_mixed|listen)$ ]]
	[ "$(csv_values "$out/dataset/test_unseen/runs.csv" category)" = "$held" ]
	for s in train test_seen; do
		! csv_values "$out/dataset/$s/runs.csv" category | grep -qx "$held"
	done
	[ "$( (for s in train test_seen test_unseen; do csv_values "$out/dataset/$s/runs.csv" trace_id; done) |
	      sort | uniq -d | wc -l)" -eq 0 ]
	[ "$(csv_values "$out/dataset/all/runs.csv" run_id | wc -l)" -eq 6 ]
	head -1 "$out/dataset/train/samples_system.csv" | grep -q ",label,category,trace_id"

	# the sched format from these runs' own sched_events (the collector ran
	# in each): seed 003's columns exactly, every switch a row
	run "$TOOL" dataset build --format sched --seed 7 --out "$out/sched" "$out/runs"
	echo "$output"
	[ "$status" -eq 0 ]
	for s in train test_seen test_unseen all; do
		[ "$(head -1 "$out/sched/$s.csv" | tr -d '\r')" = \
		  "timestamp,time_diff,task_name,pid,cpu,prev_state,prev_comm,workload_type,trace_id" ]
	done
	[ "$(json_get "$out/sched/dataset_meta.json" 'm["holdout_category"]')" = "$held" ]
	$PY - "$out/sched/all.csv" "$out"/runs/*.db <<'PY'
import csv, sqlite3, sys
rows = list(csv.DictReader(open(sys.argv[1])))
per_trace = {}
for r in rows:
    per_trace[r["trace_id"]] = per_trace.get(r["trace_id"], 0) + 1
want = 0
for f in sys.argv[2:]:
    db = sqlite3.connect(f)
    n = db.execute("SELECT count(*) FROM sched_events WHERE event = 'switch'").fetchone()[0]
    lost = db.execute("SELECT coalesce(sum(lost_ringbuf + lost_writer), 0) FROM sched_stats "
                      "WHERE seq IN (SELECT max(seq) FROM sched_stats GROUP BY cpu)").fetchone()[0]
    assert n > 0, (f, "no switch recorded")
    print(f, n, "switches,", lost, "lost")
    want += n
assert len(rows) == want and len(per_trace) == 6, (len(rows), want, per_trace)
assert {r["workload_type"] for r in rows} == {"cpu_bound_4p", "io_mixed", "listen-backlog"}
PY
	[ "$( (for s in train test_seen test_unseen; do csv_values "$out/sched/$s.csv" trace_id; done) |
	      sort | uniq -d | wc -l)" -eq 0 ]
	csv_values "$out/sched/test_unseen.csv" workload_type | while read -r w; do
		[ "$(json_get "$out/sched/dataset_meta.json" "m['category_of_label']['$w']")" = "$held" ]
	done
	# the same seed, the same split
	"$TOOL" dataset build --format sched --seed 7 --out "$out/sched2" "$out/runs"
	diff -r "$out/sched" "$out/sched2"
}

@test "collect leaves every global tunable the in-tree tuners manage as it found it" {
	command -v iperf3 >/dev/null || skip "iperf3 is not installed"
	local out="$BATS_TEST_TMPDIR/c" before="$BATS_TEST_TMPDIR/before.json" f
	all_tuners
	# small UDP buffers: the flood makes udp_buffer raise them, globally
	sysctl -qw net.core.rmem_max=16384
	sysctl -qw net.core.rmem_default=16384
	$PY "$REPO/tools/bpftune_telemetry/sysctls.py" > "$before"
	run "$TOOL" collect --workload iperf3-udp --runs 2 --duration 2 --settle 0.3 \
		--bpftune "$BPFTUNE" --libdir "$PLUGIN_DIR" --sample-interval 200 --out "$out"
	echo "$output"
	[ "$status" -eq 0 ]
	! echo "$output" | grep -q "left .* at"
	[ "$(ls "$out"/*.db | wc -l)" -eq 2 ]
	$PY - "$before" "$REPO/tools/bpftune_telemetry" "$out"/*.db <<'PY'
import json, sqlite3, sys
sys.path.insert(0, sys.argv[2] + "/..")
from bpftune_telemetry import sysctls
before = json.load(open(sys.argv[1]))
after = sysctls.snapshot()
managed, global_changes, initial = {}, 0, []
for f in sys.argv[3:]:
    db = sqlite3.connect(f)
    tuners = db.execute("SELECT tuners FROM runs").fetchone()[0].split(",")
    for tuner, name in db.execute("SELECT tuner, tunable FROM tunables"):
        managed.setdefault(name, tuner)
    # the run did change global tunables: there was something to put back
    n = db.execute("SELECT count(*) FROM changes WHERE netns_cookie = 0 AND applied = 1 "
                   "AND rollback = 0").fetchone()[0]
    r = db.execute("SELECT count(*) FROM changes WHERE netns_cookie = 0 AND rollback = 1"
                   ).fetchone()[0]
    print(f, "tuners", len(tuners), "global changes", n, "rollbacks", r)
    assert n >= 1 and r >= 1, (n, r)
    global_changes += n
    initial.append(sorted(db.execute("SELECT tunable, initial_values FROM tunables")))
# every run started from the same values
assert initial[0] == initial[1], "runs started from different values"
assert len(managed) >= 20, managed
for name in sorted(managed):
    b = before.get(name, sysctls.read(name))
    a = after.get(name, sysctls.read(name))
    assert a == b, "%s (%s): %s before collect, %s after" % (name, managed[name], b, a)
print(len(managed), "managed tunables as before;", global_changes, "global changes rolled back")
PY
	[ "$(sysctl -n net.core.rmem_max)" -eq 16384 ]
}

@test "collect: a workload whose tool is missing is skipped with one line, the rest run" {
	local bin="$BATS_TEST_TMPDIR/bin" f
	# every program but hackbench and sysbench
	mkdir "$bin"
	for f in /usr/local/sbin/* /usr/local/bin/* /usr/sbin/* /usr/bin/* /sbin/* /bin/*; do
		[ -x "$f" ] || continue
		case "${f##*/}" in hackbench|sysbench) continue ;; esac
		[ -e "$bin/${f##*/}" ] || ln -s "$f" "$bin/${f##*/}"
	done
	run env PATH="$bin" "$TOOL" collect --list
	echo "$output"
	echo "$output" | grep -q "^hackbench_pipe_small  *hackbench  *missing: hackbench"
	echo "$output" | grep -q "^sysbench_memory_4t  *sysbench_memory  *missing: sysbench"
	echo "$output" | grep -q "^cpu_bound_8p  *cpu_bound  *built in"
	make_plugin_dir sample
	run env PATH="$bin" "$TOOL" collect --workload hackbench_pipe_small,cpu_bound_4p \
		--category sysbench_cpu --runs 1 --duration 1 --settle 0.2 --bpftune "$BPFTUNE" \
		--libdir "$PLUGIN_DIR" --sample-interval 200 --out "$BATS_TEST_TMPDIR/o"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | grep -c "^collect: skipping hackbench_pipe_small: hackbench is not installed (apt-get install rt-tests)$")" -eq 1 ]
	[ "$(echo "$output" | grep -c "^collect: skipping sysbench_cpu_[48]t: sysbench is not installed")" -eq 2 ]
	[ "$(echo "$output" | grep -c "skipping")" -eq 3 ]
	[ "$(ls "$BATS_TEST_TMPDIR"/o/*.db | wc -l)" -eq 1 ]
	echo "$output" | grep -q "^1 run(s) of cpu_bound_4p in "
	# nothing left to run: an error, not an empty success
	run env PATH="$bin" "$TOOL" collect --category hackbench --bpftune "$BPFTUNE" \
		--out "$BATS_TEST_TMPDIR/o"
	[ "$status" -ne 0 ]
	[[ "$output" == *"nothing to run"* ]]
}
