#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# bats file_tags=nosan,offline
# (nosan: no program of the build under test runs here; make test-asan
# leaves these out, as running them again adds nothing)
# bpftune-telemetry dataset build by workload category, seed 003's sched
# formats (from fixture sched tables, as the collector writes them),
# graphs across runs, and the README's pandas example.  Offline: run files
# made by fixtures, no daemon, no lock.

load helpers

TOOL="$REPO/tools/bpftune-telemetry"
SCHEMA="$REPO/build/bin/telemetry-schema"
PY=/usr/bin/python3

setup() {
	"$SCHEMA" --sql > "$BATS_TEST_TMPDIR/schema.sql"
	# the declarations every run file of the daemon holds
	"$SCHEMA" --json > "$BATS_TEST_TMPDIR/decl.json"
	FIX="$BATS_TEST_TMPDIR/runs"
}

# fixture LABEL:RUNS...: run files like the daemon's, then sched tables
# (--except LABEL,... leaves some runs without them)
fixture() {
	$PY "$REPO/test/telemetry_fixture.py" --decl "$BATS_TEST_TMPDIR/decl.json" \
		"$BATS_TEST_TMPDIR/schema.sql" "$FIX" "$@"
}
sched_fixture() {
	$PY "$REPO/test/sched_fixture.py" "$REPO/docs/collectors.md" "$FIX" "$@"
}

csv_rows() {
	$PY -c 'import csv, sys; print(sum(1 for _ in csv.DictReader(open(sys.argv[1]))))' "$1"
}

# distinct values of a column of a CSV file, one per line, sorted
csv_values() {
	$PY -c '
import csv, sys
print("\n".join(sorted({r[sys.argv[2]] for r in csv.DictReader(open(sys.argv[1]))})))' "$1" "$2"
}

json_get() {
	$PY -c 'import json, sys; m = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# the seed's four categories, 3 runs each but io_mixed (one run); extra
# LABEL:RUNS arguments are runs without sched tables
seed_runs() {
	local extra=() e
	for e in "$@"; do
		extra+=("$e")
	done
	fixture hackbench_pipe_small:2 hackbench_socket_small:1 sysbench_cpu_4t:3 \
		cpu_bound_4p:2 cpu_bound_8p:1 io_mixed:1 "${extra[@]}"
	sched_fixture --except "$(IFS=,; echo "${extra[*]%%:*}")"
}

@test "dataset build: a category is held out whole, near-duplicate labels with it" {
	fixture iperf3-tcp:2 iperf3-tcp-reverse:2 iperf3-udp:2 iperf3-udp-reverse:1 \
		cpu_bound_4p:2 cpu_bound_8p:2
	local ds="$BATS_TEST_TMPDIR/ds" seed held s
	for seed in 1 2 3 4 5 6; do
		"$TOOL" dataset build --seed "$seed" --out "$ds" "$FIX" >/dev/null
		held="$(json_get "$ds/dataset_meta.json" 'm["holdout_category"]')"
		[[ "$held" =~ ^(network_tcp|network_udp|cpu_bound)$ ]]
		# every label of the held category in test_unseen, none elsewhere
		[ "$(csv_values "$ds/test_unseen/runs.csv" category)" = "$held" ]
		case "$held" in
		network_tcp) [ "$(csv_values "$ds/test_unseen/runs.csv" label | tr '\n' ' ')" = "iperf3-tcp iperf3-tcp-reverse " ] ;;
		cpu_bound) [ "$(csv_rows "$ds/test_unseen/runs.csv")" -eq 4 ] ;;
		esac
		for s in train test_seen; do
			! csv_values "$ds/$s/runs.csv" category | grep -qx "$held"
		done
	done
	[ "$(json_get "$ds/dataset_meta.json" 'm["category_of_label"]["iperf3-udp-reverse"]')" = network_udp ]
	[ "$(json_get "$ds/dataset_meta.json" 'm["seed"]')" = 6 ]
	# --holdout names a category; a label is refused
	"$TOOL" dataset build --holdout network_udp --out "$ds" "$FIX"
	[ "$(csv_values "$ds/test_unseen/runs.csv" label | tr '\n' ' ')" = "iperf3-udp iperf3-udp-reverse " ]
	run "$TOOL" dataset build --holdout iperf3-udp --out "$ds" "$FIX"
	[ "$status" -ne 0 ]
	[[ "$output" == *"no run has category 'iperf3-udp'"* ]]
	# the default seed is 42, as seed 003's
	"$TOOL" dataset build --out "$ds" "$FIX" >/dev/null
	[ "$(json_get "$ds/dataset_meta.json" 'm["seed"]')" = 42 ]
}

@test "dataset build: every CSV carries label, category and trace_id; all/ holds every run" {
	fixture iperf3-tcp:2 cpu_bound_4p:2 io_mixed:2
	local ds="$BATS_TEST_TMPDIR/ds" s f
	"$TOOL" dataset build --seed 1 --out "$ds" "$FIX"
	for s in train test_seen test_unseen all; do
		for f in "$ds/$s"/*.csv; do
			case "$f" in */telemetry_tables.csv|*/telemetry_columns.csv) continue ;; esac
			head -1 "$f" | tr -d '\r' | tr ',' '\n' > "$BATS_TEST_TMPDIR/cols"
			for c in label category trace_id run_id; do
				grep -qx "$c" "$BATS_TEST_TMPDIR/cols" || { echo "$f: no $c"; false; }
			done
		done
	done
	# all/ = every run; a row's trace_id names its label and run
	[ "$(csv_rows "$ds/all/runs.csv")" -eq 6 ]
	# the declarations once per split, not once per run: as many rows as
	# the daemon declares, each made by every run of the split
	[ "$(csv_rows "$ds/all/telemetry_columns.csv")" -eq \
	  "$(json_get "$BATS_TEST_TMPDIR/decl.json" 'sum(len(t["columns"]) for t in m["tables"])')" ]
	[ "$(csv_values "$ds/all/telemetry_columns.csv" runs)" = 6 ]
	[ "$(csv_values "$ds/all/telemetry_tables.csv" runs)" = 6 ]
	[ "$(head -1 "$ds/all/telemetry_columns.csv" | tr -d '\r')" = \
	  "table_name,position,column_name,type,kind,draw,unit,description,source,machine_wide,overview,not_null,runs" ]
	$PY - "$ds/all/events.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert rows
for r in rows:
    assert r["trace_id"] == "%s_%s" % (r["label"], r["run_id"].replace("-", "")[:8]), r
    assert r["category"] == {"iperf3-tcp": "network_tcp", "cpu_bound_4p": "cpu_bound",
                             "io_mixed": "io_mixed"}[r["label"]], r
PY
	# export carries them too, after the table's own columns
	"$TOOL" export --csv "$BATS_TEST_TMPDIR/csv" "$FIX"
	[ "$(head -1 "$BATS_TEST_TMPDIR/csv/changes.csv" | tr -d '\r' | awk -F, '{print $(NF-2)","$(NF-1)","$NF}')" = "label,category,trace_id" ]
	[ "$(head -1 "$BATS_TEST_TMPDIR/csv/runs.csv" | tr -d '\r' | tr ',' '\n' | grep -cx label)" -eq 1 ]
}

@test "dataset build: a seen category with a single run is split in time, and the meta says so" {
	fixture sysbench_cpu_4t:3 cpu_bound_4p:3 io_mixed:1
	local ds="$BATS_TEST_TMPDIR/ds" rid
	"$TOOL" dataset build --holdout sysbench_cpu --out "$ds" "$FIX"
	[ "$(json_get "$ds/dataset_meta.json" 'm["event_level_split"]["categories"]')" = "['io_mixed']" ]
	json_get "$ds/dataset_meta.json" 'm["event_level_split"]["why"]' | grep -q "single run"
	rid="$(json_get "$ds/dataset_meta.json" 'm["event_level_split"]["runs"][0]["run_id"]')"
	# the run is in train and in test_seen, as two traces; its time-series
	# rows are divided at the cutoff, none lost, none twice
	$PY - "$ds" "$rid" <<'PY'
import csv, json, sys
ds, rid = sys.argv[1:]
m = json.load(open(ds + "/dataset_meta.json"))
note = m["event_level_split"]["runs"][0]
cut = note["cutoff_ts_uptime_us"]
def rows(split, table):
    return [r for r in csv.DictReader(open("%s/%s/%s.csv" % (ds, split, table)))
            if r["run_id"] == rid]
for table in ("samples_system", "samples_tcp", "health"):
    head, tail, every = rows("train", table), rows("test_seen", table), rows("all", table)
    assert head and tail, (table, len(head), len(tail))
    assert len(head) + len(tail) == len(every), table
    assert all(int(r["ts_uptime_us"]) < cut for r in head)
    assert all(int(r["ts_uptime_us"]) >= cut for r in tail)
    assert {r["trace_id"] for r in head} == {note["trace_ids"]["train"]}
    assert {r["trace_id"] for r in tail} == {note["trace_ids"]["test_seen"]}
# the run's description is in both parts
assert len(rows("train", "runs")) == len(rows("test_seen", "runs")) == 1
assert rid in m["splits"]["train"]["runs"] and rid in m["splits"]["test_seen"]["runs"]
PY
	# no trace_id in two splits
	[ "$( (csv_values "$ds/train/runs.csv" trace_id; csv_values "$ds/test_seen/runs.csv" trace_id;
	       csv_values "$ds/test_unseen/runs.csv" trace_id) | sort | uniq -d | wc -l)" -eq 0 ]
	# with runs enough, no fallback
	rm -rf "$FIX"
	fixture sysbench_cpu_4t:3 cpu_bound_4p:3 io_mixed:2
	"$TOOL" dataset build --out "$ds" "$FIX"
	[ "$(json_get "$ds/dataset_meta.json" 'm["event_level_split"]')" = None ]
}

@test "dataset build --format sched: seed 003's columns, traces whole, time_diff in ns from 0" {
	seed_runs iperf3-tcp:1	# a run without sched events: left out
	local ds="$BATS_TEST_TMPDIR/ds" s held
	run "$TOOL" dataset build --format sched --out "$ds" "$FIX"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"1 run(s) without sched_switch events left out"* ]]
	for s in train test_seen test_unseen all; do
		[ "$(head -1 "$ds/$s.csv" | tr -d '\r')" = \
		  "timestamp,time_diff,task_name,pid,cpu,prev_state,prev_comm,workload_type,trace_id" ]
	done
	held="$(json_get "$ds/dataset_meta.json" 'm["holdout_category"]')"
	$PY - "$ds" "$held" "$FIX" <<'PY'
import csv, glob, json, re, sqlite3, sys
ds, held, fix = sys.argv[1:]
m = json.load(open(ds + "/dataset_meta.json"))
cat_of = m["category_of_label"]
# the fixture's switch events, per run, in time order
switch = {}
for f in glob.glob(fix + "/*.db"):
    db = sqlite3.connect(f)
    if not db.execute("SELECT 1 FROM sqlite_master WHERE name = 'sched_events'").fetchone():
        continue
    rid = db.execute("SELECT run_id FROM runs").fetchone()[0]
    ev = db.execute("SELECT ts_ns, comm, pid, cpu, prev_state, prev_comm FROM "
                    "sched_events WHERE event = 'switch' ORDER BY ts_ns").fetchall()
    if ev:      # (the daemon creates the declared table, empty, in every run)
        switch[rid] = ev
split_of = {}
for s in ("train", "test_seen", "test_unseen", "all"):
    rows = list(csv.DictReader(open("%s/%s.csv" % (ds, s))))
    assert len(rows) == m["splits"][s]["events"], s
    traces = {}
    for r in rows:
        assert re.fullmatch(r"\d+\.\d{6}", r["timestamp"]), r
        assert re.fullmatch(r"\d+\.\d{9}", r["time_diff"]), r
        assert r["prev_state"] in list("RSDTtXZPI"), r
        traces.setdefault(r["trace_id"], []).append(r)
        if s != "all":
            assert split_of.setdefault(r["trace_id"], s) == s, ("trace in two splits", r)
        cat = cat_of[r["workload_type"]]
        assert (cat == held) == (s == "test_unseen") or s == "all", (s, r)
    for tid, rs in traces.items():
        assert rs[0]["time_diff"] == "0.000000000", tid
        ns = [int(r["timestamp"].replace(".", "")) for r in rs]
        assert ns == sorted(ns), tid
    if s == "all":
        # every switch of every run, exact to the nanosecond
        assert len(traces) == len(switch)
        for tid, rs in traces.items():
            rid = next(k for k in switch if k.replace("-", "")[:8] == tid.rsplit("_", 1)[1])
            ev = switch[rid]
            assert [(r["task_name"], int(r["pid"]), int(r["cpu"]), r["prev_state"],
                     r["prev_comm"]) for r in rs] == [e[1:] for e in ev]
            for a, b, r in zip(ev, ev[1:], rs[1:]):
                d = b[0] - a[0]
                assert r["time_diff"] == "%d.%09d" % divmod(d, 10**9), (r, d)
            assert rs[0]["timestamp"] == "%d.%06d" % divmod(ev[0][0] // 1000, 10**6)
assert m["table"] == "sched_events" and len(m["runs_without_sched_events"]) == 1
assert all(v is not None for v in m["splits"]["all"]["lost_events"].values())
print("ok", {s: m["splits"][s]["events"] for s in m["splits"]})
PY
	# io_mixed has a single run: split at an event, both parts from time_diff 0
	[ "$(json_get "$ds/dataset_meta.json" 'm["event_level_split"]["categories"]')" = "['io_mixed']" ] ||
		[ "$held" = io_mixed ]
}

@test "dataset build --format sched: gaps to the event from sched_gaps, else to the sample interval" {
	local mode
	for mode in exact interval; do
		rm -rf "$FIX"
		fixture hackbench_pipe_small:2 cpu_bound_4p:2
		sched_fixture $([ "$mode" = exact ] || echo --no-gaps)
		"$TOOL" dataset build --format sched --no-unseen --out "$BATS_TEST_TMPDIR/$mode" "$FIX"
	done
	$PY - "$BATS_TEST_TMPDIR" <<'PY'
import csv, json, sys
for mode, exact in (("exact", True), ("interval", False)):
    d = "%s/%s" % (sys.argv[1], mode)
    m = json.load(open(d + "/dataset_meta.json"))
    a = m["splits"]["all"]
    assert set(a["gaps_exact"].values()) == {exact}, (mode, a["gaps_exact"])
    gaps = list(csv.DictReader(open(d + "/all_gaps.csv")))
    per = {}
    for g in gaps:
        per[g["trace_id"]] = per.get(g["trace_id"], 0) + int(g["lost_events"])
    # every loss located either way; to the event: a gap of one dropped event
    assert per == a["lost_events"], (mode, per, a["lost_events"])
    assert all((g["start"] == g["end"]) == exact for g in gaps), mode
PY
}

@test "dataset build --format sched: the same seed gives the same files, other seeds other splits" {
	seed_runs
	local differ=0 seed
	"$TOOL" dataset build --format sched --out "$BATS_TEST_TMPDIR/a" "$FIX"
	"$TOOL" dataset build --format sched --out "$BATS_TEST_TMPDIR/b" "$FIX"
	# the same content; the meta differs only in the command line (--out)
	diff -r -x dataset_meta.json "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
	"$TOOL" dataset verify "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
	for seed in 1 2 3 4 5; do
		"$TOOL" dataset build --format sched --seed "$seed" --out "$BATS_TEST_TMPDIR/s$seed" "$FIX"
		cmp -s "$BATS_TEST_TMPDIR/a/test_unseen.csv" "$BATS_TEST_TMPDIR/s$seed/test_unseen.csv" ||
			differ=$((differ + 1))
	done
	echo "unseen sets different from seed 42's: $differ of 5"
	[ "$differ" -ge 1 ]
	run "$TOOL" dataset build --format sched --out "$BATS_TEST_TMPDIR/c" "$REPO/test/nosuch"
	[ "$status" -ne 0 ]
	rm -rf "$FIX"
	fixture cpu_bound_4p:2
	run "$TOOL" dataset build --format sched --out "$BATS_TEST_TMPDIR/c" "$FIX"
	[ "$status" -ne 0 ]
	[[ "$output" == *"no run has sched_events rows"* ]]
}

@test "dataset build --format decisions: a row per decision with its outcome, split by run" {
	fixture iperf3-tcp:2 cpu_bound_4p:2 io_mixed:2
	local ds="$BATS_TEST_TMPDIR/dec"
	run "$TOOL" dataset build --format decisions --out "$ds" "$FIX"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"held out: "* ]]
	run "$TOOL" dataset verify "$ds"
	echo "$output"
	[ "$status" -eq 0 ]
	$PY - "$ds" "$BATS_TEST_TMPDIR/decl.json" <<'PY'
import csv, json, sys
ds, decl = sys.argv[1:]
m = json.load(open(ds + "/dataset_meta.json"))
assert m["format"] == "decisions" and m["split_by"] == "run"
p = m["policies"]["sample_raise_to_request"]
assert p["actions"] == ["raise", "none"], p
assert "Reward: fewer listen queue overflows" in p["outcome"], p["outcome"]
# 3 decisions a run, 6 runs; the last of each has no outcome, the first no before
assert p["decisions"] == 18 and p["with_reward"] == 6, p
assert p["undeclared_actions"] == []
t = m["policies"]["tcp_buffer_grow_near_limit"]
assert t["decisions"] == 18 and t["with_reward"] == 12 and t["undeclared_actions"] == [], t
rows = list(csv.DictReader(open(ds + "/all/sample_raise_to_request.csv")))
cols = list(rows[0])
assert cols[:12] == ["run_id", "trace_id", "label", "category", "ts_uptime_us", "netns_cookie",
                     "decision_seq", "event_seq", "scenario", "tunable", "decided", "action"], cols
assert cols[12:14] == ["input_backlog", "input_somaxconn"], cols
assert cols[14:] == ["propensity", "observed", "horizon_ms", "after_ms", "before_ms",
                     "listen_overflows_before", "listen_overflows_after", "listen_drops_before",
                     "listen_drops_after", "reward"], cols
for r in rows:
    seq = int(r["decision_seq"])
    assert (r["reward"] != "") == (seq == 2), r
    assert (r["propensity"] == "") == (seq == 3), r
    if seq == 2:
        assert float(r["reward"]) == 0.375 and r["before_ms"] == "1000", r
# the no-op's action is the declared one, its reason left in decided
g = list(csv.DictReader(open(ds + "/all/tcp_buffer_grow_near_limit.csv")))
assert {r["action"] for r in g} == {"raise", "none"}
assert {r["decided"] for r in g if r["action"] == "none"} == {"none: at the cap"}
# types and units from the declarations
cd = m["column_declarations"]["sample_raise_to_request"]
assert cd["reward"]["type"] == "REAL" and cd["input_backlog"]["type"] == "INTEGER"
assert cd["listen_overflows_after"]["unit"] == "/s" and cd["action"]["type"] == "TEXT"
# split by run: a run's rows in one split only, the held-out category whole
held = m["holdout_category"]
seen = {}
for s in ("train", "test_seen", "test_unseen"):
    for r in csv.DictReader(open("%s/%s/sample_raise_to_request.csv" % (ds, s))):
        assert seen.setdefault(r["run_id"], s) == s, r["run_id"]
        assert (r["category"] == held) == (s == "test_unseen"), (s, r["category"], held)
assert len(seen) == 6 and sum(m["splits"][s]["counts"]["sample_raise_to_request"]
                              for s in ("train", "test_seen", "test_unseen")) == 18
print("ok")
PY
	if $PY -c "import pandas" 2>/dev/null; then
		PYTHONPATH="$REPO/tools" $PY - "$ds" <<'PY'
import sys
import bpftune_telemetry
ds = bpftune_telemetry.load(sys.argv[1], verify=True)
assert ds.format == "decisions" and "train" in ds.splits
df = ds["all"]["sample_raise_to_request"]
assert str(df["reward"].dtype) == "float64" and str(df["input_backlog"].dtype) == "Int64"
assert str(df["action"].dtype) == "string" and df["reward"].notna().sum() == 6
assert df.attrs["units"]["listen_overflows_after"] == "/s"
print("load ok")
PY
	fi
}

@test "dataset build --format decisions: no outcome tables is a clear error" {
	$PY "$REPO/test/telemetry_fixture.py" --legacy "$BATS_TEST_TMPDIR/schema.sql" "$FIX" \
		iperf3-tcp:1
	$PY - "$FIX" <<'PY'
import glob, sqlite3, sys
for f in glob.glob(sys.argv[1] + "/*.db"):
    db = sqlite3.connect(f)
    for (t,) in db.execute("SELECT name FROM sqlite_master WHERE name LIKE 'outcomes%'").fetchall():
        db.execute('DROP TABLE "%s"' % t)
    db.commit()
PY
	run "$TOOL" dataset build --format decisions --out "$BATS_TEST_TMPDIR/dec" "$FIX"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"no run file has outcome tables"* ]]
}

@test "dataset build --format sched-baseline: task_code, time, name, pid (seed 003's order); one code per name" {
	seed_runs
	local ds="$BATS_TEST_TMPDIR/ds" sched="$BATS_TEST_TMPDIR/sched" s
	"$TOOL" dataset build --format sched-baseline --out "$ds" "$FIX"
	"$TOOL" dataset build --format sched --out "$sched" "$FIX"
	for s in train test_seen test_unseen all; do
		[ "$(head -1 "$ds/$s.csv" | tr -d '\r')" = "task_code,time,name,pid" ]
		# the same events as the sched form, time = time_diff
		[ "$(cut -d, -f2,3,4 "$sched/$s.csv" | tail -n +2 | md5sum)" = \
		  "$(tr -d '\r' < "$ds/$s.csv" | cut -d, -f2,3,4 | tail -n +2 | md5sum)" ]
	done
	$PY - "$ds" <<'PY'
import csv, json, sys
ds = sys.argv[1]
codes = json.load(open(ds + "/dataset_meta.json"))["task_codes"]
assert len(set(codes.values())) == len(codes)
count = {}
for r in csv.DictReader(open(ds + "/all.csv")):
    assert codes[r["name"]] == r["task_code"], r
    count[r["name"]] = count.get(r["name"], 0) + 1
top = max(count, key=lambda n: (count[n], -ord(n[0])))
assert len(codes[top]) == 1 and codes[top] == "A", (top, codes[top])
PY
}

@test "dataset provenance: every format; built twice it verifies identical; a changed file fails verify" {
	seed_runs
	local fmt a b cmd
	for fmt in tables sched sched-baseline decisions; do
		a="$BATS_TEST_TMPDIR/$fmt-a" b="$BATS_TEST_TMPDIR/$fmt-b"
		"$TOOL" dataset build --format "$fmt" --out "$a" "$FIX"
		# again, from another directory, the sources named another way
		(cd "$BATS_TEST_TMPDIR" && "$TOOL" dataset build --format "$fmt" --out "$fmt-b" ./runs/)
		run "$TOOL" dataset verify "$a"
		echo "$output"
		[ "$status" -eq 0 ]
		[[ "$output" == *"$a: OK, "*" output file(s), dataset id ds-"* ]]
		run "$TOOL" dataset verify "$a" "$b"
		echo "$output"
		[ "$status" -eq 0 ]
		[[ "$output" == *"identical: both are dataset ds-"* ]]
		$PY - "$a" "$b" "$FIX" "$fmt" "$REPO" <<'PY'
import glob, hashlib, json, os, subprocess, sys
a, b, fix, fmt, repo = sys.argv[1:]
ma, mb = (json.load(open(d + "/dataset_meta.json")) for d in (a, b))
pa, pb = ma["provenance"], mb["provenance"]
# byte-identical outputs, each hashed in the meta as sha256sum has it
assert pa["outputs"] == pb["outputs"] and pa["outputs"]
for rel, e in pa["outputs"].items():
    data = open(os.path.join(a, rel), "rb").read()
    assert e == {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}, rel
per_table = fmt in ("tables", "decisions")
want = {".csv"} if per_table else {s + x for s in ("train", "test_seen", "test_unseen", "all")
                                   for x in (".csv", "_gaps.csv")}
assert {os.path.basename(r) if not per_table else os.path.splitext(r)[1]
        for r in pa["outputs"]} == want, pa["outputs"].keys()
# every source file, by its absolute path
srcs = sorted(glob.glob(fix + "/*.db"))
assert sorted(pa["sources"]) == [os.path.abspath(f) for f in srcs]
for f in srcs:
    assert pa["sources"][os.path.abspath(f)]["sha256"] == \
        hashlib.sha256(open(f, "rb").read()).hexdigest()
# the id is the same, the when and how are the build's own
assert pa["dataset_id"] == pb["dataset_id"] and pa["dataset_id"].startswith("ds-")
assert pa["command_line"][-3:] == ["--out", a, fix], pa["command_line"]
assert pb["command_line"][-2:] == [fmt + "-b", "./runs/"], pb["command_line"]
assert pa["created_utc"].endswith("Z")
head = subprocess.run(["git", "-C", repo, "rev-parse", "HEAD"], capture_output=True,
                      text=True).stdout.strip()
assert pa["tool"]["name"] == "bpftune-telemetry" and pa["tool"]["version"]
assert pa["tool"]["commit"].split("+")[0] == head, (pa["tool"], head)
# the runs' daemons, kernels and CPUs
assert pa["daemon_versions"] and pa["kernels"] and "cpu_models" in pa
assert sorted(pa["runs"]) == ma["splits"]["all"]["runs"]
for r in pa["runs"].values():
    assert r["daemon_version"] and r["kernel_release"], r
print(fmt, "ok", pa["dataset_id"], len(pa["outputs"]), "outputs")
PY
	done
	# another seed is another dataset
	"$TOOL" dataset build --format sched --seed 5 --out "$BATS_TEST_TMPDIR/s5" "$FIX"
	run "$TOOL" dataset verify "$BATS_TEST_TMPDIR/sched-b" "$BATS_TEST_TMPDIR/s5"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"differ: "* ]]
	# one byte of one output changed: that file is named, exit 1
	a="$BATS_TEST_TMPDIR/sched-a"
	sed -i '2s/$/x/' "$a/train.csv"
	run "$TOOL" dataset verify "$a"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"train.csv: sha256 differs from the meta's"* ]]
	[[ "$output" == *"FAILED (1 difference(s))"* ]]
	run "$TOOL" dataset verify "$a" "$BATS_TEST_TMPDIR/sched-b"
	[ "$status" -eq 1 ]
	[[ "$output" != *identical* ]]
	# a file missing, a file added
	a="$BATS_TEST_TMPDIR/tables-a"
	rm "$a/test_seen/runs.csv"
	touch "$a/notes.txt"
	run "$TOOL" dataset verify "$a"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"test_seen/runs.csv: missing"* ]]
	[[ "$output" == *"notes.txt: not in the meta"* ]]
	# the meta edited: its id no longer matches
	a="$BATS_TEST_TMPDIR/sched-baseline-a"
	sed -i 's/"seed": 42/"seed": 7/' "$a/dataset_meta.json"
	run "$TOOL" dataset verify "$a"
	[ "$status" -eq 1 ]
	[[ "$output" == *"dataset_meta.json: edited"* ]]
	# a source changed since the build
	a="$BATS_TEST_TMPDIR/sched-baseline-b"
	run "$TOOL" dataset verify "$a"
	[ "$status" -eq 0 ]
	echo >> "$(ls "$FIX"/*.db | head -1)"
	run "$TOOL" dataset verify "$a"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"source "*".db: sha256 differs"* ]]
	run "$TOOL" dataset verify --no-sources "$a"
	[ "$status" -eq 0 ]
	# not a dataset: exit 2
	run "$TOOL" dataset verify "$FIX"
	[ "$status" -eq 2 ]
	[[ "$output" == *"not a dataset"* ]]
}

@test "graphs: a figure per signal with a line per category, from the built-in kinds or the file's" {
	$PY -c "import matplotlib, pandas" 2>/dev/null ||
		skip "python3-matplotlib and python3-pandas are not installed"
	seed_runs
	local out="$BATS_TEST_TMPDIR/g" f
	run "$TOOL" graphs --out "$out" "$FIX"
	echo "$output"
	[ "$status" -eq 0 ]
	# counters (rates), gauges (values), the sched collector's counts
	[ -f "$out/samples_tcp.retrans_segs.png" ]
	[ -f "$out/samples_system.load1.png" ]
	[ -f "$out/sched_stats.switch.png" ]
	# a signal that never moves is not drawn
	[ ! -f "$out/samples_system.mem_total_kb.png" ]
	for f in "$out"/*.png; do
		[ "$(head -c 8 "$f" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
	done
	[[ "$output" == *"never moved in any run: not drawn"* ]]
	# --by label, --table: only that table
	run "$TOOL" graphs --by label --table samples_udp --out "$BATS_TEST_TMPDIR/l" "$FIX"
	[ "$status" -eq 0 ]
	[ "$(ls "$BATS_TEST_TMPDIR/l" | grep -vc '^samples_udp\.')" -eq 0 ]
	# a file that declares its columns is drawn as declared: rcvbuf_errors a
	# gauge here (the daemon's files declare every table; undeclared ones,
	# like these sched fixture tables, get the built-in kinds)
	for f in "$FIX"/*.db; do
		$PY - "$f" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
n = db.execute("UPDATE telemetry_columns SET kind = 'gauge' WHERE table_name = 'samples_udp' "
               "AND column_name = 'rcvbuf_errors'").rowcount
assert n == 1, n
db.commit()
PY
	done
	run "$TOOL" graphs --table samples_udp --out "$BATS_TEST_TMPDIR/d" "$FIX"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(ls "$BATS_TEST_TMPDIR/d")" = "samples_udp.rcvbuf_errors.png" ]
}

@test "README: the pandas example loads a split" {
	$PY -c "import pandas" 2>/dev/null || skip "python3-pandas is not installed"
	fixture iperf3-tcp:2 cpu_bound_4p:2 io_mixed:2
	sched_fixture
	"$TOOL" dataset build --out "$BATS_TEST_TMPDIR/dataset" "$FIX"
	"$TOOL" dataset build --format sched --out "$BATS_TEST_TMPDIR/sched" "$FIX"
	# the README's example, as printed there
	sed -n '/^<!-- pandas example: begin -->/,/^<!-- pandas example: end -->/p' "$REPO/README.md" |
		sed -n '/^```python$/,/^```$/p' | sed '1d;$d' > "$BATS_TEST_TMPDIR/example.py"
	[ -s "$BATS_TEST_TMPDIR/example.py" ]
	cd "$BATS_TEST_TMPDIR"
	run $PY example.py
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"train:"* ]]
}

@test "load: docs/datasets.md's example runs, from the tree and as installed" {
	$PY -c "import pandas" 2>/dev/null || skip "python3-pandas is not installed"
	seed_runs
	"$TOOL" dataset build --out "$BATS_TEST_TMPDIR/dataset" "$FIX"
	"$TOOL" dataset build --format sched --out "$BATS_TEST_TMPDIR/sched" "$FIX"
	sed -n '/^<!-- loader example: begin -->/,/^<!-- loader example: end -->/p' "$REPO/docs/datasets.md" |
		sed -n '/^```python$/,/^```$/p' | sed '1d;$d' > "$BATS_TEST_TMPDIR/example.py"
	[ -s "$BATS_TEST_TMPDIR/example.py" ]
	cd "$BATS_TEST_TMPDIR"
	local dir
	# the source tree's package, and the one make install put in the suite's prefix
	for dir in "$REPO/tools" "$SUITE_PREFIX/lib/bpftune/python"; do
		[ -f "$dir/bpftune_telemetry/loader.py" ]
		run env PYTHONPATH="$dir" $PY example.py
		echo "$output"
		[ "$status" -eq 0 ]
		[[ "$output" == *"train: "*" switches in "*" traces"* ]]
		[[ "$output" == *"dtypes: Int64 string float64"* ]]
		[[ "$output" == *"time_diff in s"* ]]
		[[ "$output" == *"samples_tcp: "*" rows; units: us"* ]]
	done
}

@test "load: declared dtypes and units in every format and split, gaps and provenance from the meta" {
	$PY -c "import pandas" 2>/dev/null || skip "python3-pandas is not installed"
	seed_runs
	local fmt
	for fmt in tables sched sched-baseline; do
		"$TOOL" dataset build --format "$fmt" --out "$BATS_TEST_TMPDIR/$fmt" "$FIX" >/dev/null
	done
	PYTHONPATH="$REPO/tools" $PY - "$BATS_TEST_TMPDIR" "$BATS_TEST_TMPDIR/decl.json" <<'PY'
import csv, json, sys
import bpftune_telemetry
tmp, decl = sys.argv[1:]
DT = {"INTEGER": "Int64", "REAL": "float64", "TEXT": "string"}
for fmt in ("sched", "sched-baseline"):
    ds = bpftune_telemetry.load("%s/%s" % (tmp, fmt), verify=True)
    m = json.load(open("%s/%s/dataset_meta.json" % (tmp, fmt)))
    assert ds.splits == ("train", "test_seen", "test_unseen", "all"), ds.splits
    assert ds.dataset_id == m["provenance"]["dataset_id"] and ds.provenance == m["provenance"]
    for s in ds.splits:
        df = ds[s]
        assert list(df.columns) == m["columns"] + (["in_gap"] if fmt == "sched" else [])
        assert len(df) == m["splits"][s]["events"], (fmt, s)
        for c in m["columns"]:
            assert str(df[c].dtype) == DT[m["column_declarations"][c]["type"]], (fmt, c, df[c].dtype)
        # the values as written: exact to the printed digits
        rows = list(csv.DictReader(open("%s/%s/%s.csv" % (tmp, fmt, s))))
        tcol = "time_diff" if fmt == "sched" else "time"
        assert [float(r[tcol]) for r in rows] == list(df[tcol]), (fmt, s)
        assert [int(r["pid"]) for r in rows] == list(df["pid"]), (fmt, s)
        assert df.attrs["units"] == {c: "s" for c in ("timestamp", "time_diff", "time") if c in df}
    g = ds.lost
    assert len(g) == sum(len(m["splits"][s]["lost_events"]) for s in ("train", "test_seen", "test_unseen"))
    assert str(g["lost_events"].dtype) == "Int64" and (g["lost_events"] > 0).all()
    # the gaps: every loss of sched_stats located, the rows in them marked
    g = ds.gaps
    assert str(g["cpu"].dtype) == "Int64" and str(g["start"].dtype) == "float64"
    assert (g["lost_events"] == g["lost_ringbuf"] + g["lost_writer"]).all()
    assert (g["start"] <= g["end"]).all()   # a gap of one event: start = end
    for s in ("train", "test_seen", "test_unseen"):
        gs = g[g["split"] == s]
        assert sorted(gs["trace_id"].unique()) == m["splits"][s]["traces_with_gaps"]
        assert {t: int((gs["trace_id"] == t).sum()) for t in m["splits"][s]["gaps"]} == \
            m["splits"][s]["gaps"]
        if fmt == "sched":
            df = ds[s]
            assert df["in_gap"].dtype == bool and df["in_gap"].any() and not df["in_gap"].all()
            # marked: the rows whose time_diff overlaps a gap, and only those
            for r in df.sample(40, random_state=1).itertuples():
                w = gs[(gs["trace_id"] == r.trace_id) & (gs["start"] <= r.timestamp) &
                       (gs["end"] >= r.timestamp - r.time_diff)]
                assert bool(len(w)) == r.in_gap, r
    # whole runs: the gaps add up to the losses sched_stats counted
    ga = g[g["split"] == "all"]
    for tid, n in m["splits"]["all"]["lost_events"].items():
        assert int(ga[ga["trace_id"] == tid]["lost_events"].sum()) == n, (tid, n)
# tables: the daemon's declarations give every declared column its dtype and unit
d = json.load(open(decl))
ds = bpftune_telemetry.load(tmp + "/tables")
assert ds.format == "tables" and ds.splits == ("train", "test_seen", "test_unseen", "all")
n = 0
for t in d["tables"]:
    if t["table_name"] not in ds["all"]:
        continue
    df = ds["all"][t["table_name"]]
    for c in t["columns"]:
        if c["name"] in df.columns:
            assert str(df[c["name"]].dtype) == DT[c["type"]], (t["table_name"], c, df[c["name"]].dtype)
            if c["unit"]:
                assert df.attrs["units"][c["name"]] == c["unit"], (t["table_name"], c)
            n += 1
    for c in ("label", "category", "trace_id"):
        if c in df.columns:
            assert str(df[c].dtype) == "string"
assert n > 500, n
assert not ds.undeclared - {"collect_runs", "collect_tunables"}, ds.undeclared
assert str(ds["train"]["telemetry_columns"]["runs"].dtype) == "Int64"
assert len(ds.lost) > 0 and (ds.lost["lost_events"] > 0).all()
print("ok", n, "declared columns checked")
PY
	# verify=True refuses a changed file, naming it
	echo x >> "$BATS_TEST_TMPDIR/sched/test_seen.csv"
	run env PYTHONPATH="$REPO/tools" $PY -c 'import sys, bpftune_telemetry; bpftune_telemetry.load(sys.argv[1], verify=True)' "$BATS_TEST_TMPDIR/sched"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"ValueError"*"test_seen.csv: sha256 differs"* ]]
	run env PYTHONPATH="$REPO/tools" $PY -c 'import sys, bpftune_telemetry; bpftune_telemetry.load(sys.argv[1])' "$FIX"
	[ "$status" -ne 0 ]
	[[ "$output" == *"not a dataset"* ]]
}
