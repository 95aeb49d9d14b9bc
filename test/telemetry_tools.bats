#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# bpftune-telemetry (export, dataset build, plot, collect) and the
# generated table documentation.

load helpers

TOOL="$REPO/tools/bpftune-telemetry"
SCHEMA="$BUILD/bin/telemetry-schema"

setup() {
	SAVED_SOMAXCONN="$(cat /proc/sys/net/core/somaxconn)"
	"$SCHEMA" --sql > "$BATS_TEST_TMPDIR/schema.sql"
	"$SCHEMA" --json > "$BATS_TEST_TMPDIR/decl.json"
}

teardown() {
	common_teardown
}

# fixture [--widget|--legacy] LABEL:RUNS...: run files in $FIX written with
# the daemon's DDL and declarations (--legacy: a schema version 2 file)
fixture() {
	local opts=()
	FIX="$BATS_TEST_TMPDIR/runs"
	while [[ "${1:-}" == --* ]]; do
		opts+=("$1")
		shift
	done
	/usr/bin/python3 "$REPO/test/telemetry_fixture.py" --decl "$BATS_TEST_TMPDIR/decl.json" \
		"${opts[@]}" "$BATS_TEST_TMPDIR/schema.sql" "$FIX" "$@"
}

# rows of a CSV file, header excluded
csv_rows() {
	/usr/bin/python3 -c 'import csv, sys; print(sum(1 for _ in csv.DictReader(open(sys.argv[1]))))' "$1"
}

# distinct values of a column of a CSV file, one per line, sorted
csv_values() {
	/usr/bin/python3 -c '
import csv, sys
print("\n".join(sorted({r[sys.argv[2]] for r in csv.DictReader(open(sys.argv[1]))})))' "$1" "$2"
}

# json_get FILE EXPR: evaluate a Python expression on the parsed file (m)
json_get() {
	/usr/bin/python3 -c 'import json, sys; m = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

@test "docs/telemetry.md is what the declarations generate (make docs)" {
	run diff <("$SCHEMA" --markdown) "$REPO/docs/telemetry.md"
	echo "$output"
	[ "$status" -eq 0 ]
	# every table has its section, and the README links the page
	local t f
	for t in $(sed -n 's/^CREATE TABLE IF NOT EXISTS \([a-z_]*\) .*/\1/p' "$BATS_TEST_TMPDIR/schema.sql"); do
		grep -q "^## $t\$" "$REPO/docs/telemetry.md"
	done
	grep -q "docs/telemetry.md" "$REPO/README.md"
	# every in-tree plugin's declarations are documented, by file name
	for f in "$REPO"/src/tuners/*/*_tables.c "$REPO"/sample_tuner/sample_tuner_tables.c; do
		f="$(basename "$f" _tables.c)"
		grep -q "^\*Declared by the \`${f%_tuner}\` plugin" "$REPO/docs/telemetry.md"
	done
	"$SCHEMA" --check
}

@test "docs: every SQL block and typed column of collectors.md and telemetry.md is the declaration's" {
	run /usr/bin/python3 "$REPO/test/docs_sql_check.py" "$BATS_TEST_TMPDIR/schema.sql" \
		"$REPO/docs/collectors.md" "$REPO/docs/telemetry.md"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"docs/collectors.md: 3 CREATE TABLE block(s)"* ]]
	# a doc that differs is named with the column: NOT NULL, type, order
	local bad="$BATS_TEST_TMPDIR/bad.md"
	sed 's/^\tcpu INTEGER,$/\tcpu INTEGER NOT NULL,/; s/^\tevent TEXT NOT NULL,$/\tevent INTEGER NOT NULL,/' \
		"$REPO/docs/collectors.md" > "$bad"
	run /usr/bin/python3 "$REPO/test/docs_sql_check.py" "$BATS_TEST_TMPDIR/schema.sql" "$bad"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"sched_stats.cpu: NOT NULL in the doc, NULL allowed in the declaration"* ]]
	[[ "$output" == *"sched_events.event: type INTEGER, declared TEXT"* ]]
	sed 's/^\tpid INTEGER, comm TEXT, prio INTEGER,$/\tcomm TEXT, pid INTEGER, prio INTEGER,/' \
		"$REPO/docs/collectors.md" > "$bad"
	run /usr/bin/python3 "$REPO/test/docs_sql_check.py" "$BATS_TEST_TMPDIR/schema.sql" "$bad"
	[ "$status" -eq 1 ]
	[[ "$output" == *"sched_events: columns"* ]]
}

@test "export --csv: one CSV per table, every run merged, the schema's columns" {
	fixture a:2 b:2 c:1
	run "$TOOL" export --csv "$BATS_TEST_TMPDIR/csv" "$FIX"
	echo "$output"
	[ "$status" -eq 0 ]
	local t n=0
	for t in $(sed -n 's/^CREATE TABLE IF NOT EXISTS \([a-z_]*\) .*/\1/p' "$BATS_TEST_TMPDIR/schema.sql"); do
		[ -f "$BATS_TEST_TMPDIR/csv/$t.csv" ]
		n=$((n + 1))
	done
	[ "$(ls "$BATS_TEST_TMPDIR/csv" | wc -l)" -eq "$n" ]
	[ "$(csv_rows "$BATS_TEST_TMPDIR/csv/runs.csv")" -eq 5 ]
	[ "$(csv_rows "$BATS_TEST_TMPDIR/csv/events.csv")" -eq 15 ]
	[ "$(csv_rows "$BATS_TEST_TMPDIR/csv/changes.csv")" -eq 5 ]
	[ "$(csv_values "$BATS_TEST_TMPDIR/csv/events.csv" run_id | wc -l)" -eq 5 ]
	# the header is the table's columns, in the schema's order, then the
	# run's label, category and trace_id
	[ "$(head -1 "$BATS_TEST_TMPDIR/csv/events.csv" | tr -d '\r')" = \
	  "$(sed -n 's/^CREATE TABLE IF NOT EXISTS events (\(.*\));$/\1/p' "$BATS_TEST_TMPDIR/schema.sql" |
	     sed 's/ [A-Z]*\( NOT NULL\)\?//g; s/, /,/g'),label,category,trace_id" ]
	# meta rows say which run they belong to
	[ "$(csv_values "$BATS_TEST_TMPDIR/csv/meta.csv" run_id | wc -l)" -eq 5 ]
}

@test "plot: a plugin's table no tool has code for is drawn from the declarations in its file" {
	/usr/bin/python3 -c "import matplotlib, pandas" 2>/dev/null ||
		skip "python3-matplotlib and python3-pandas are not installed"
	fixture --widget alpha:1
	! grep -rq widget_stats "$REPO/tools/"
	run "$TOOL" plot --out "$BATS_TEST_TMPDIR/png" "$FIX"
	echo "$output"
	[ "$status" -eq 0 ]
	# a graph per drawn column, as its kind says
	[[ "$output" == *"/widget_stats.png: spins (rate), temperature (value), latency_us (cdf)"* ]]
	[[ "$output" == *"/sample_listen.png: backlog (cdf), somaxconn (value)"* ]]
	local png
	png="$(ls "$BATS_TEST_TMPDIR"/png/alpha-*/widget_stats.png)"
	[ "$(head -c 8 "$png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
	[ "$(stat -c %s "$png")" -gt 10000 ]
	# the in-tree plugins' and the core's tables too, from the same declarations
	[[ "$output" == *"/samples_tcp.png: retrans_segs (rate), listen_overflows (rate)"* ]]
	[[ "$output" == *"/samples_system.png: load1 (value), mem_available_kb (value)"* ]]
	# the overview PNG is there as before, one per run
	[ "$(ls "$BATS_TEST_TMPDIR"/png/*.png | wc -l)" -eq 1 ]
}

@test "export, dataset and plot read schema version 2 files, which hold no declarations" {
	fixture --legacy old:2 older:1 oldest:1
	[ "$(/usr/bin/python3 -c 'import sqlite3, sys, glob
print(sum(1 for f in glob.glob(sys.argv[1] + "/*.db")
          for _ in sqlite3.connect(f).execute("SELECT 1 FROM sqlite_master WHERE name = \"telemetry_columns\"")))' "$FIX")" -eq 0 ]
	run "$TOOL" export --csv "$BATS_TEST_TMPDIR/csv" "$FIX"
	[ "$status" -eq 0 ]
	[ "$(csv_rows "$BATS_TEST_TMPDIR/csv/samples_tcp.csv")" -eq 24 ]
	run "$TOOL" dataset build --seed 1 --out "$BATS_TEST_TMPDIR/ds" "$FIX"
	[ "$status" -eq 0 ]
	[ "$(json_get "$BATS_TEST_TMPDIR/ds/dataset_meta.json" 'm["schema_versions"]')" = "[2]" ]
	/usr/bin/python3 -c "import matplotlib, pandas" 2>/dev/null || return 0
	run "$TOOL" plot --out "$BATS_TEST_TMPDIR/png" "$FIX"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(ls "$BATS_TEST_TMPDIR"/png/*.png | wc -l)" -eq 4 ]
	# the kinds of version 2's own tables: counters as rates, gauges as values
	[[ "$output" == *"/samples_tcp.png: retrans_segs (rate), listen_overflows (rate)"* ]]
	[[ "$output" == *"/samples_system.png: load1 (value), mem_available_kb (value)"* ]]
}

@test "dataset build: split by run, one category held out only in test_unseen, counts in dataset_meta.json" {
	fixture alpha:4 beta:4 gamma:4
	run "$TOOL" dataset build --seed 7 --out "$BATS_TEST_TMPDIR/ds" "$FIX"
	echo "$output"
	[ "$status" -eq 0 ]
	local meta="$BATS_TEST_TMPDIR/ds/dataset_meta.json" held s t all=""
	held="$(json_get "$meta" 'm["holdout_category"]')"
	[[ "$held" =~ ^(alpha|beta|gamma)$ ]]
	[ "$(json_get "$meta" 'm["split_by"]')" = run ]
	# the held-out category (here: label) is all of test_unseen and nowhere else
	[ "$(csv_values "$BATS_TEST_TMPDIR/ds/test_unseen/runs.csv" label)" = "$held" ]
	[ "$(csv_rows "$BATS_TEST_TMPDIR/ds/test_unseen/runs.csv")" -eq 4 ]
	! grep -q ",$held," "$BATS_TEST_TMPDIR/ds/train/runs.csv"
	! grep -q ",$held," "$BATS_TEST_TMPDIR/ds/test_seen/runs.csv"
	# each seen label in both train and test_seen
	[ "$(csv_values "$BATS_TEST_TMPDIR/ds/train/runs.csv" label | wc -l)" -eq 2 ]
	[ "$(csv_values "$BATS_TEST_TMPDIR/ds/test_seen/runs.csv" label | wc -l)" -eq 2 ]
	# by run: every table of a split holds exactly the split's runs, and
	# no run is in two splits
	for s in train test_seen test_unseen; do
		for t in events decisions changes samples_tcp health; do
			[ "$(csv_values "$BATS_TEST_TMPDIR/ds/$s/$t.csv" run_id)" = \
			  "$(csv_values "$BATS_TEST_TMPDIR/ds/$s/runs.csv" run_id)" ]
			[ "$(csv_rows "$BATS_TEST_TMPDIR/ds/$s/$t.csv")" -eq \
			  "$(json_get "$meta" "m['splits']['$s']['counts']['$t']")" ]
		done
		[ "$(csv_values "$BATS_TEST_TMPDIR/ds/$s/runs.csv" run_id)" = \
		  "$(json_get "$meta" "'\\n'.join(m['splits']['$s']['runs'])")" ]
		all="$all$(csv_values "$BATS_TEST_TMPDIR/ds/$s/runs.csv" run_id)"$'\n'
	done
	[ "$(echo -n "$all" | sort | uniq -d | wc -l)" -eq 0 ]
	[ "$(echo -n "$all" | sort -u | wc -l)" -eq 12 ]
}

@test "dataset build: the same seed gives the same split, other seeds other splits" {
	fixture alpha:4 beta:4 gamma:4
	local seed differ=0
	"$TOOL" dataset build --seed 3 --out "$BATS_TEST_TMPDIR/a" "$FIX"
	"$TOOL" dataset build --seed 3 --out "$BATS_TEST_TMPDIR/b" "$FIX"
	# the meta differs in its command line (--out) only: the same dataset
	diff -r -x dataset_meta.json "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
	"$TOOL" dataset verify "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b" | grep -q "^identical: "
	for seed in 4 5 6 7 8; do
		"$TOOL" dataset build --seed "$seed" --out "$BATS_TEST_TMPDIR/s$seed" "$FIX"
		[ "$(json_get "$BATS_TEST_TMPDIR/a/dataset_meta.json" 'm["splits"]')" = \
		  "$(json_get "$BATS_TEST_TMPDIR/s$seed/dataset_meta.json" 'm["splits"]')" ] ||
			differ=$((differ + 1))
	done
	echo "splits different from seed 3's: $differ of 5"
	[ "$differ" -ge 1 ]
}

@test "dataset build: --holdout chooses the unseen category; two categories hold none out" {
	fixture alpha:3 beta:3 gamma:3
	"$TOOL" dataset build --holdout beta --out "$BATS_TEST_TMPDIR/h" "$FIX"
	[ "$(csv_values "$BATS_TEST_TMPDIR/h/test_unseen/runs.csv" label)" = beta ]
	run "$TOOL" dataset build --holdout delta --out "$BATS_TEST_TMPDIR/x" "$FIX"
	[ "$status" -ne 0 ]
	[[ "$output" == *"no run has category 'delta'"* ]]
	"$TOOL" dataset build --no-unseen --out "$BATS_TEST_TMPDIR/n" "$FIX"
	[ "$(csv_rows "$BATS_TEST_TMPDIR/n/test_unseen/runs.csv")" -eq 0 ]

	rm -rf "$FIX"
	fixture alpha:3 beta:3
	"$TOOL" dataset build --out "$BATS_TEST_TMPDIR/two" "$FIX"
	[ "$(json_get "$BATS_TEST_TMPDIR/two/dataset_meta.json" 'm["holdout_category"]')" = None ]
	[ "$(csv_rows "$BATS_TEST_TMPDIR/two/test_unseen/runs.csv")" -eq 0 ]
	[ "$(csv_rows "$BATS_TEST_TMPDIR/two/train/runs.csv")" -eq 4 ]
	[ "$(csv_rows "$BATS_TEST_TMPDIR/two/test_seen/runs.csv")" -eq 2 ]
}

@test "plot: one PNG per run" {
	/usr/bin/python3 -c "import matplotlib, pandas" 2>/dev/null ||
		skip "python3-matplotlib and python3-pandas are not installed"
	fixture alpha:1 beta:1
	run "$TOOL" plot --out "$BATS_TEST_TMPDIR/png" "$FIX"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(ls "$BATS_TEST_TMPDIR"/png/*.png | wc -l)" -eq 2 ]
	local f
	for f in "$BATS_TEST_TMPDIR"/png/*.png; do
		[ "$(head -c 8 "$f" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
		[ "$(stat -c %s "$f")" -gt 10000 ]
	done
	ls "$BATS_TEST_TMPDIR"/png | grep -q '^alpha-'
}

@test "collect: N labelled runs of a workload across a netns pair, a file each with the workload's events" {
	[ "$MODE" = host ] || skip "runs the daemon itself"
	make_plugin_dir admin_override sample
	run "$TOOL" collect --list
	echo "$output" | grep -q "^listen-backlog  *listen  *built in "
	run "$TOOL" collect --workload listen-backlog --runs 2 --settle 0.3 \
		--somaxconn 128 --bpftune "$BPFTUNE" --libdir "$PLUGIN_DIR" \
		--sample-interval 200 --out "$BATS_TEST_TMPDIR/c"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(ls "$BATS_TEST_TMPDIR"/c/*.db | wc -l)" -eq 2 ]
	run "$TOOL" runs "$BATS_TEST_TMPDIR/c"
	echo "$output"
	[ "$(echo "$output" | grep -c ' listen-backlog ')" -eq 2 ]
	! echo "$output" | grep -q "no clean exit"
	# each run started from somaxconn 128 in the pair, so listen() was seen
	# (whether this daemon or another one on the machine then raised it)
	local f
	for f in "$BATS_TEST_TMPDIR"/c/*.db; do
		[ "$(/usr/bin/python3 -c '
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
print(db.execute("SELECT count(*) FROM events WHERE tuner = ? AND comm = ?",
                 ("sample", "python3")).fetchone()[0])' "$f")" -ge 1 ]
	done
}

@test "collect: iperf3 TCP/UDP, forward and reverse, then a dataset split by run with one category held out" {
	[ "$MODE" = host ] || skip "runs the daemon itself"
	command -v iperf3 >/dev/null || skip "iperf3 is not installed"
	local out="$BATS_TEST_TMPDIR/c" ds="$BATS_TEST_TMPDIR/ds" w held f
	local wl="iperf3-tcp,iperf3-tcp-reverse,iperf3-udp,iperf3-udp-reverse"
	# the domain tables of the checks below are these plugins'
	make_plugin_dir tcp_buffer udp_buffer net_buffer netns
	# observe-only: the runs look, they never tune this shared machine
	run "$TOOL" collect --workload "$wl" --runs 2 --duration 1 --settle 0.5 \
		--observe --bpftune "$BPFTUNE" --libdir "$PLUGIN_DIR" \
		--sample-interval 200 --out "$out"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(ls "$out"/*.db | wc -l)" -eq 8 ]
	! echo "$output" | grep -q "warning:"
	# each run: its workload's label, a clean exit, and the traffic seen
	# in the pair's namespaces (not the daemon's), by /proc and BPF alike
	for f in "$out"/*.db; do
		/usr/bin/python3 - "$f" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
label, status, observe = db.execute("SELECT label, exit_status, observe_only FROM runs").fetchone()
assert status == 0 and observe == 1, (label, status, observe)
rx = db.execute("SELECT max(rx_bytes) FROM samples_netdev WHERE netns_cookie != 0").fetchone()[0]
assert rx and rx > 1000000, (label, rx)
tcp = db.execute("SELECT coalesce(sum(sndbuf_n), 0) + coalesce(sum(rcvbuf_n), 0) FROM samples_tcp WHERE netns_cookie != 0").fetchone()[0]
udp = db.execute("SELECT max(in_datagrams) FROM samples_udp WHERE netns_cookie != 0").fetchone()[0]
if label.startswith("iperf3-tcp"):
    assert tcp > 0, (label, tcp)
else:
    assert udp and udp > 1000, (label, udp)
print(label, "ok", rx, tcp, udp)
PY
	done
	# two categories (network_tcp, network_udp): --holdout names the unseen one
	run "$TOOL" dataset build --seed 1 --holdout network_udp --out "$ds" "$out"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(json_get "$ds/dataset_meta.json" 'm["holdout_category"]')" = network_udp ]
	[ "$(json_get "$ds/dataset_meta.json" 'len(m["labels"])')" -eq 4 ]
	[ "$(json_get "$ds/dataset_meta.json" 'sorted(m["categories"])')" = "['network_tcp', 'network_udp']" ]
	# forward and reverse UDP both unseen: all of test_unseen, in no other split
	[ "$(csv_values "$ds/test_unseen/runs.csv" label | tr '\n' ' ')" = "iperf3-udp iperf3-udp-reverse " ]
	[ "$(csv_rows "$ds/test_unseen/runs.csv")" -eq 4 ]
	! csv_values "$ds/train/runs.csv" category | grep -qx network_udp
	! csv_values "$ds/test_seen/runs.csv" category | grep -qx network_udp
	# network_tcp's four runs: one in test_seen (20 %), three in train
	[ "$(csv_rows "$ds/train/runs.csv")" -eq 3 ]
	[ "$(csv_rows "$ds/test_seen/runs.csv")" -eq 1 ]
	# per-netns samples travel with their run
	for w in train test_seen test_unseen; do
		[ "$(csv_values "$ds/$w/samples_tcp.csv" run_id)" = "$(csv_values "$ds/$w/runs.csv" run_id)" ]
		head -1 "$ds/$w/samples_tcp.csv" | grep -q "netns_cookie"
		head -1 "$ds/$w/samples_tcp.csv" | grep -q "srtt_mean_us"
	done
	# and the plots draw them
	if /usr/bin/python3 -c "import matplotlib, pandas" 2>/dev/null; then
		run "$TOOL" plot --out "$BATS_TEST_TMPDIR/png" "$out"
		echo "$output"
		[ "$status" -eq 0 ]
		[ "$(ls "$BATS_TEST_TMPDIR"/png/*.png | wc -l)" -eq 8 ]
	fi
}

@test "collect: qperf, hackbench and sysbench when installed; unknown or missing workloads refused" {
	[ "$MODE" = host ] || skip "runs the daemon itself"
	local w have=()
	run "$TOOL" collect --list
	echo "$output"
	for w in qperf:qperf hackbench_pipe_small:hackbench sysbench_threads_8t:sysbench; do
		if command -v "${w#*:}" >/dev/null; then
			echo "$output" | grep -q "^${w%%:*} .* ok "
			have+=("${w%%:*}")
		else
			echo "$output" | grep -q "^${w%%:*} .*missing: ${w#*:}"
		fi
	done
	run "$TOOL" collect --workload nosuch --bpftune "$BPFTUNE"
	[ "$status" -ne 0 ]
	[[ "$output" == *"unknown workload or category 'nosuch'"* ]]
	run "$TOOL" collect --workload iperf3-tcp,iperf3-udp --label x --bpftune "$BPFTUNE"
	[ "$status" -ne 0 ]
	[ "${#have[@]}" -gt 0 ] || skip "none of qperf, hackbench, sysbench is installed"
	make_plugin_dir sample
	run "$TOOL" collect --workload "$(IFS=,; echo "${have[*]}")" --runs 1 --duration 1 \
		--settle 0.2 --observe --bpftune "$BPFTUNE" --libdir "$PLUGIN_DIR" \
		--sample-interval 200 --out "$BATS_TEST_TMPDIR/o"
	echo "$output"
	[ "$status" -eq 0 ]
	! echo "$output" | grep -q "warning:"
	[ "$(ls "$BATS_TEST_TMPDIR"/o/*.db | wc -l)" -eq "${#have[@]}" ]
	run "$TOOL" runs "$BATS_TEST_TMPDIR/o"
	for w in "${have[@]}"; do
		echo "$output" | grep -q " $w "
	done
}

@test "perf-list: every counter of perf_counts, available or not and why" {
	local cols
	# the counters are perf_counts' columns, in order (the collector's list)
	cols="$(json_get "$BATS_TEST_TMPDIR/decl.json" '" ".join(c["name"] for t in m["tables"] if t["table_name"] == "perf_counts" for c in t["columns"] if c["source"] == "row" and c["name"] not in ("cpu", "multiplexed", "run_id", "host_id", "seq", "ts_uptime_us"))')"
	run "$TOOL" perf-list --json
	[ "$status" -eq 0 ]
	python3 - "$cols" "$output" <<'PY'
import json, sys
cols = sys.argv[1].split()
m = json.loads(sys.argv[2])
got = [c["counter"] for c in m["counters"]]
assert got == cols, (got, cols)
for c in m["counters"]:
    if c["available"]:
        assert c["cpus"] > 0 and c["errno"] == 0 and c["reason"] is None, c
    else:
        assert c["cpus"] == 0 and c["errno"] > 0 and c["reason"], c
# software counters need no PMU: every machine (root) counts them
assert all(c["available"] for c in m["counters"] if c["type"] == "software"), m
PY
	run "$TOOL" perf-list
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "counter "*"available"*"why not" ]]
	[ "${#lines[@]}" -eq $(( $(echo "$cols" | wc -w) + 2 )) ]
	[[ "${lines[-1]}" =~ ^[0-9]+\ of\ 19\ counters\ can\ be\ counted\ on\ this\ machine\ \([0-9]+\ CPUs\)$ ]]
	# the reasons are the collector's, errno named
	if grep -q " no " <<< "$output"; then
		grep -qE " no +0/[0-9]+ +[a-z].* \(E[A-Z]+\)$" <<< "$output"
	fi
}

@test "perf-list: the reasons for an errno, and a machine where nothing opens (a fake perf_event_open)" {
	PYTHONPATH="$REPO/tools" python3 - <<'PY'
import errno
from bpftune_telemetry import perf_list as p
# nothing opens: every counter missing with the words the daemon logs
rows = p.probe([0, 1], lambda t, c, cpu: errno.EACCES)
assert not any(r["available"] for r in rows)
assert {r["reason"] for r in rows} == {"not permitted (capabilities or kernel.perf_event_paranoid)"}
# one CPU of two: available, counted on 1; the first errno kept
rows = p.probe([0, 1], lambda t, c, cpu: 0 if cpu == 1 else errno.ENODEV)
assert all(r["available"] and r["cpus"] == 1 and r["errno"] == 0 for r in rows), rows
# hardware refused: software available, hardware and cache missing
rows = p.probe([0], lambda t, c, cpu: 0 if t == p.PERF_TYPE_SOFTWARE else errno.ENOENT)
assert sum(r["available"] for r in rows) == 7
assert all(r["reason"] == "no such event on this machine (no PMU for it)"
           for r in rows if not r["available"])
assert p.reason(errno.EOPNOTSUPP).startswith("not supported here")
assert p.reason(errno.EMFILE) == "out of file descriptors"
assert p.reason(errno.EINVAL) == "perf_event_open failed"
out = p.render(rows, 1).splitlines()
assert out[-1] == "7 of 19 counters can be counted on this machine (1 CPUs)", out[-1]
assert out[8].split()[:4] == ["cycles", "hardware", "no", "0/1"], out[8]
assert out[8].endswith("(ENOENT)"), out[8]
# the possible CPUs file: ranges and lists
import tempfile
with tempfile.NamedTemporaryFile("w", delete=False) as f:
    f.write("0-3,6\n")
assert p.possible_cpus(f.name) == [0, 1, 2, 3, 6]
PY
}

@test "plot: a tunable is a line per netns, the global one from its initial value (a netns change never moves it)" {
	/usr/bin/python3 -c "import pandas" 2>/dev/null || skip "python3-pandas is not installed"
	PYTHONPATH="$REPO/tools" /usr/bin/python3 - <<'PY'
import pandas as pd
from bpftune_telemetry.plot import tunable_lines
tb = {"tunable": "net.ipv4.tcp_rmem", "num_values": 3,
      "initial_0": 4096, "initial_1": 131072, "initial_2": 33554432}
changes = pd.DataFrame([
    # netns 77 first goes from 32 KB to 64 KB, then the global value grows
    {"tunable": "net.ipv4.tcp_rmem", "netns_cookie": 77, "_x": 1.0, "old_0": 4096,
     "old_1": 16384, "old_2": 32768, "new_0": 4096, "new_1": 16384, "new_2": 65536},
    {"tunable": "net.ipv4.tcp_rmem", "netns_cookie": 0, "_x": 2.0, "old_0": 4096,
     "old_1": 131072, "old_2": 33554432, "new_0": 4096, "new_1": 131072, "new_2": 41943040},
])
lines = dict(tunable_lines(tb, changes, 5.0))
assert sorted(lines) == [0, 77], lines
xs, ys = lines[0][2]
assert (xs, ys) == ([0.0, 2.0, 5.0], [33554432, 41943040, 41943040]), (xs, ys)
xs, ys = lines[77][2]
assert (xs, ys) == ([1.0, 1.0, 5.0], [32768, 65536, 65536]), (xs, ys)
# nothing changed in any netns: the global line alone, flat
lines = tunable_lines(tb, changes.iloc[0:0], 5.0)
assert [c for c, _ in lines] == [0] and lines[0][1][2] == ([0.0, 5.0], [33554432, 33554432])
PY
}
