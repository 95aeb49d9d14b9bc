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
	make_plugin_dir admin_override netns udp_buffer sched
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
label, args = db.execute("SELECT label, args FROM runs").fetchone()
# a collection's buffer: collect's own default, larger than the daemon's
assert "--collectors sched --buffer-size 131072" in args, args
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
	# the same seed, the same dataset: byte-identical outputs, the same id;
	# the meta names this kernel and CPU, the daemon and every file's hash
	"$TOOL" dataset build --format sched --seed 7 --out "$out/sched2" "$out/runs"
	diff -r -x dataset_meta.json "$out/sched" "$out/sched2"
	run "$TOOL" dataset verify "$out/sched" "$out/sched2"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"identical: both are dataset ds-"* ]]
	$PY - "$out/sched/dataset_meta.json" "$(uname -r)" "$(uname -v)" "$out"/runs/*.db <<'PY'
import hashlib, json, os, sys
meta, release, version, files = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
p = json.load(open(meta))["provenance"]
assert p["kernels"] == [{"kernel_release": release, "kernel_version": version}], p["kernels"]
model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
              if l.startswith("model name")), None)
assert p["cpu_models"] == [model], (p["cpu_models"], model)
assert len(p["daemon_versions"]) == 1 and p["daemon_versions"][0], p["daemon_versions"]
assert sorted(p["sources"]) == sorted(os.path.abspath(f) for f in files)
for f in files:
    assert p["sources"][os.path.abspath(f)]["sha256"] == \
        hashlib.sha256(open(f, "rb").read()).hexdigest(), f
assert sorted(p["outputs"]) == sorted(s + x for s in ("train", "test_seen", "test_unseen", "all")
                                     for x in (".csv", "_gaps.csv")), p["outputs"]
print("provenance:", p["dataset_id"], p["kernels"], p["cpu_models"], p["tool"])
PY
	# every loss the collector counted is located in all_gaps.csv: per trace
	# the gaps add up to the run's lost events, each within the run
	$PY - "$out/sched" <<'PY'
import csv, json, sys
d = sys.argv[1]
m = json.load(open(d + "/dataset_meta.json"))
gaps = list(csv.DictReader(open(d + "/all_gaps.csv")))
per = {}
for g in gaps:
    assert float(g["start"]) < float(g["end"]), g
    assert int(g["lost_events"]) == int(g["lost_ringbuf"]) + int(g["lost_writer"]) > 0, g
    per[g["trace_id"]] = per.get(g["trace_id"], 0) + int(g["lost_events"])
for tid, n in m["splits"]["all"]["lost_events"].items():
    assert per.get(tid, 0) == (n or 0), (tid, per.get(tid), n)
assert sorted(per) == m["splits"]["all"]["traces_with_gaps"]
print("gaps:", len(gaps), "lost:", per)
PY
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
