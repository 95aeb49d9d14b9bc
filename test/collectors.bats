#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# bats file_tags=kernel
# Collector plugins on the running kernel: the sched collector's rows
# against the kernel's own count of a known workload's switches (full or
# tracepoint-only objects, and the legacy ones with -L), the perf
# collector's counters, and how --collectors chooses them.

load helpers
load telemetry_helpers

setup() {
	TEL="$BATS_TEST_TMPDIR/telemetry"
}

teardown() {
	[ -n "${BATS_TEST_COMPLETED:-}" ] || [ -z "${LOG:-}" ] || tail -40 "$LOG" >&3
	common_teardown
}

# wait_sql QUERY [seconds]: until QUERY's first column is non-zero
wait_sql() {
	local i
	for i in $(seq 1 $((${2:-30} * 10))); do
		[ "$(sql "$1" 2>/dev/null || echo 0)" != 0 ] && return 0
		sleep 0.1
	done
	return 1
}

# expect_sql "OP N" WHAT QUERY: QUERY's count compares as OP N (=, >, >=),
# or the figure is printed with WHAT before failing
expect_sql() {
	local got op=${1%% *} want=${1#* }
	got="$(sql "$3")"
	case $op in
	=)  [ "$got" -eq "$want" ] && return 0 ;;
	\>) [ "$got" -gt "$want" ] && return 0 ;;
	\>=) [ "$got" -ge "$want" ] && return 0 ;;
	esac
	echo "# $2: $got, want $1" >&3
	return 1
}

# silent_ins CHILD T: CHILD's switches in that no tracepoint showed, before
# T: a switch out of it with no switch in since the one before, right
# after a switch on that CPU to a task never seen switching out.  Such
# tasks exist: on the Firecracker host of 2026-12 the threads of PID 1
# (process_api's tokio workers) switch out without sched_switch firing,
# for ftrace too (events/sched/sched_switch shows them only coming in).
silent_ins() {
	sql "SELECT count(*) FROM (SELECT ts_ns, cpu, prev_pid,
	       lag(CASE WHEN pid = $1 THEN 1 ELSE 0 END) OVER (ORDER BY ts_ns) AS last_in
	     FROM sched_events WHERE event = 'switch' AND (pid = $1 OR prev_pid = $1)) r
	     WHERE r.prev_pid = $1 AND r.ts_ns <= $2 AND coalesce(r.last_in, 0) = 0
	     AND (SELECT pid FROM sched_events s WHERE s.event = 'switch' AND s.cpu = r.cpu
		  AND s.ts_ns < r.ts_ns ORDER BY s.ts_ns DESC LIMIT 1)
	     NOT IN (SELECT prev_pid FROM sched_events WHERE event = 'switch')"
}

# accounted: once the daemon stopped (its last drain done), each CPU's
# events counted in BPF are its rows, lost or left out (the daemon's
# threads, without --keep-observer): none unaccounted, none extra
accounted() {
	expect_sql "= 0" "CPUs whose events are not their rows + lost + left out" \
		"SELECT count(*) FROM sched_stats s WHERE seq IN (SELECT max(seq) FROM sched_stats GROUP BY cpu)
		 AND s.events <> (SELECT count(*) FROM sched_events e WHERE e.cpu = s.cpu)
		     + s.lost_ringbuf + s.lost_writer
		     + CASE WHEN $1 THEN 0 ELSE s.observer END" || {
		sql "SELECT s.cpu, s.events, (SELECT count(*) FROM sched_events e WHERE e.cpu = s.cpu),
		     s.lost_ringbuf, s.lost_writer, s.observer FROM sched_stats s
		     WHERE seq IN (SELECT max(seq) FROM sched_stats GROUP BY cpu)" >&3
		return 1
	}
}

# The ping-pong of test/sched_pingpong.py under the sched collector: every
# switch the kernel counted for the child is a row, with its content.
sched_pingpong_check() {
	local out child switches renamed t rows lost ins silent bad sleeps
	out="$(python3 "$REPO/test/sched_pingpong.py" 3000)"
	child="$(sed -n 's/^child=//p' <<<"$out")"
	switches="$(sed -n 's/^switches=//p' <<<"$out")"
	renamed="$(sed -n 's/^renamed_at=//p' <<<"$out")"
	t="$(sed -n 's/^t_ns=//p' <<<"$out")"
	[ "$switches" -ge 3000 ] && [ -n "$renamed" ]
	# the collector drained past t, on its own clock, and the writer committed it
	wait_sql "SELECT count(*) FROM sched_events WHERE ts_ns > $t + 300000000"
	wait_sql "SELECT count(*) FROM sched_events WHERE event = 'migrate' AND pid = $child"
	rows="$(sql "SELECT count(*) FROM sched_events WHERE event = 'switch' AND prev_pid = $child AND ts_ns <= $t")"
	lost="$(sql "SELECT coalesce(sum(lost_ringbuf + lost_writer), 0) FROM sched_stats
		     WHERE seq IN (SELECT max(seq) FROM sched_stats GROUP BY cpu)")"
	echo "# kernel: $switches switches; rows: $rows; lost: $lost" >&3
	[ "$rows" -le "$switches" ]
	[ $((switches - rows)) -le "$lost" ]
	# switched in as often as out (it slept at t), but for switches in
	# that no tracepoint shows
	ins="$(sql "SELECT count(*) FROM sched_events WHERE event = 'switch' AND pid = $child AND ts_ns <= $t")"
	silent="$(silent_ins "$child" "$t")"
	[ "$silent" -eq 0 ] || echo "# switches in from a task whose switches out no tracepoint shows: $silent" >&3
	[ $((switches - ins)) -le $((lost + silent)) ] || {
		echo "# switched in: $ins; switches after one the same way:" >&3
		sql "SELECT ts_ns, cpu, prev_pid, prev_state, pid FROM (SELECT *,
		       CASE WHEN pid = $child THEN 'in' ELSE 'out' END AS dir,
		       lag(CASE WHEN pid = $child THEN 'in' ELSE 'out' END) OVER (ORDER BY ts_ns) AS last
		     FROM sched_events WHERE event = 'switch' AND (pid = $child OR prev_pid = $child))
		     WHERE dir = last LIMIT 12" >&3
		echo "# the writer's health, last row:" >&3
		sql "SELECT rows_dropped, rows_written, queue_depth FROM health
		     ORDER BY seq DESC LIMIT 1" >&3
		return 1
	}
	# content: pinned to CPU 0, its comm (python3 until it renames itself)
	# and priority, a letter of ftrace's: S on a pipe, R when preempted, D
	# when a page fault waits for a read (the guests' 9p root: seen there)
	bad="$(sql "SELECT * FROM sched_events WHERE event = 'switch' AND prev_pid = $child
		  AND ts_ns <= $t AND NOT (cpu = 0 AND prev_comm IN ('coll2_pp_child', 'python3')
		  AND prev_prio = 120 AND prev_state IN ('S', 'R', 'D') AND preempt IN (0, 1)
		  AND pid IS NOT NULL AND comm IS NOT NULL AND target_cpu IS NULL
		  AND orig_cpu IS NULL AND dest_cpu IS NULL AND ts_uptime_us = ts_ns / 1000)")"
	[ -z "$bad" ] || { echo "bad rows: $bad" >&3; return 1; }
	# those before the child renamed itself carry the parent's comm
	expect_sql ">= $((switches - renamed - 5))" "switches out under its own name" \
		"SELECT count(*) FROM sched_events WHERE event = 'switch' AND prev_pid = $child
		 AND prev_comm = 'coll2_pp_child'"
	expect_sql "> 0" "switches out asleep" \
		"SELECT count(*) FROM sched_events WHERE event = 'switch' AND prev_pid = $child
		 AND prev_state = 'S'"
	# woken on CPU 0 after every sleep but the last (from which it is woken
	# after t), and once made.  Not "thousands of times": which of the two
	# preempts the other on a wake-up is the scheduler's choice (on a
	# loaded TCG guest the parent did), and a preempted task that is
	# written to is runnable already, so no wake-up
	sleeps="$(sql "SELECT count(*) FROM sched_events WHERE event = 'switch' AND prev_pid = $child
		       AND ts_ns <= $t AND prev_state = 'S'")"
	expect_sql ">= $((sleeps - 1 - lost))" "wakeups on CPU 0 ($sleeps sleeps)" \
		"SELECT count(*) FROM sched_events WHERE event = 'wakeup' AND pid = $child
		 AND ts_ns <= $t AND target_cpu = 0"
	expect_sql "> 0" "wakeups under its own name" \
		"SELECT count(*) FROM sched_events WHERE event = 'wakeup' AND pid = $child
		 AND ts_ns <= $t AND target_cpu = 0 AND comm = 'coll2_pp_child'"
	expect_sql "= 0" "wakeups elsewhere before t" \
		"SELECT count(*) FROM sched_events WHERE event = 'wakeup' AND pid = $child
		 AND ts_ns <= $t AND target_cpu <> 0"
	expect_sql "= 1" "its wakeup_new on CPU 0" \
		"SELECT count(*) FROM sched_events WHERE event = 'wakeup_new' AND pid = $child
		 AND prev_pid IS NULL AND target_cpu = 0"
	# moved to CPU 1 while asleep: migrated when woken
	expect_sql ">= 1" "its migration 0 -> 1 after t" \
		"SELECT count(*) FROM sched_events WHERE event = 'migrate' AND pid = $child
		 AND ts_ns > $t AND orig_cpu = 0 AND dest_cpu = 1 AND target_cpu IS NULL
		 AND prev_state IS NULL"
	# per-CPU counts every interval, consistent with themselves
	expect_sql "= $(nproc --all)" "CPUs in sched_stats" \
		"SELECT count(DISTINCT cpu) FROM sched_stats"
	expect_sql "= 0" "inconsistent sched_stats rows" \
		"SELECT count(*) FROM sched_stats WHERE events <> switch + wakeup + wakeup_new + migrate
		 OR lost_ringbuf IS NULL OR lost_writer IS NULL"
}

# bats test_tags=hooks
@test "sched collector: every switch the kernel counts for a pinned ping-pong is a row, with its content" {
	make_plugin_dir admin_override sched
	# the daemon's threads kept: a switch to or from one of them is the
	# child's too, and the kernel counts it
	start_daemon --telemetry-dir "$TEL" --collectors sched --sample-interval 200 --keep-observer
	grep -qE "collector sched started \((full|legacy) objects, 4 hooks\)" "$LOG"
	sched_pingpong_check
	stop_daemon
	[ "$DAEMON_STATUS" -eq 0 ]
	accounted 1
}

@test "sched collector: the legacy objects (raw_tp, -L) record the same" {
	# in the guests BPFTUNE_TEST_MODE=legacy runs the test above with -L
	[ "$MODE" = host ] || skip "the mode gives -L or not"
	"$BPFTUNE" -S -l "$BUILD_PLUGINS" 2>/dev/null | grep -qE "^  kprobe +yes" ||
		skip "-L needs kprobes, which this kernel lacks (test/vm: BPFTUNE_TEST_MODE=legacy)"
	make_plugin_dir admin_override sched
	start_daemon -L --telemetry-dir "$TEL" --collectors sched --sample-interval 200 --keep-observer
	grep -q "collector sched started (legacy objects, 4 hooks)" "$LOG"
	sched_pingpong_check
	stop_daemon
	[ "$DAEMON_STATUS" -eq 0 ]
	accounted 1
}

# the daemon's threads, as a SQL list: "(1, 2, 3)"
daemon_tids() {
	local tids
	tids="$(ls /proc/"$DAEMON_PID"/task | paste -sd, -)"
	echo "($tids)"
}

@test "sched collector: the daemon's own threads are left out and counted; --keep-observer keeps them, marked" {
	local tids
	make_plugin_dir admin_override sched
	start_daemon --telemetry-dir "$TEL" --collectors sched --sample-interval 200
	grep -q "the daemon's own threads left out" "$LOG"
	python3 "$REPO/test/sched_pingpong.py" 300 >/dev/null
	# the writer thread switches at every commit: counted, never written
	wait_sql "SELECT sum(observer_switch) FROM sched_stats
		  WHERE seq IN (SELECT max(seq) FROM sched_stats GROUP BY cpu)"
	wait_sql "SELECT count(*) FROM sched_events WHERE event = 'switch' AND comm = 'coll2_pp_child'"
	tids="$(daemon_tids)"
	expect_sql "= 0" "rows of the daemon's threads $tids" \
		"SELECT count(*) FROM sched_events WHERE pid IN $tids OR prev_pid IN $tids OR observer <> 0"
	expect_sql "= 0" "sched_stats rows with observer > events" \
		"SELECT count(*) FROM sched_stats WHERE observer > events OR observer_switch > switch
		 OR observer IS NULL"
	stop_daemon
	[ "$DAEMON_STATUS" -eq 0 ]
	expect_sql "= 0" "rows of the daemon's threads $tids after the last drain" \
		"SELECT count(*) FROM sched_events WHERE pid IN $tids OR prev_pid IN $tids"
	accounted 0

	rm -rf "$TEL"
	start_daemon --telemetry-dir "$TEL" --collectors sched --sample-interval 200 --keep-observer
	grep -q "the daemon's own threads kept, marked observer=1" "$LOG"
	wait_sql "SELECT count(*) FROM sched_events WHERE observer = 1 AND event = 'switch'"
	tids="$(daemon_tids)"
	# marked exactly when a task of the row is one of the daemon's
	expect_sql "= 0" "rows of the daemon's threads $tids not marked" \
		"SELECT count(*) FROM sched_events WHERE (pid IN $tids OR prev_pid IN $tids)
		 AND observer <> 1"
	expect_sql "= 0" "marked rows of other tasks" \
		"SELECT count(*) FROM sched_events WHERE observer = 1 AND event = 'switch'
		 AND pid NOT IN $tids AND prev_pid NOT IN $tids"
	expect_sql "= 0" "observer NULL or not 0/1" \
		"SELECT count(*) FROM sched_events WHERE observer IS NULL OR observer NOT IN (0, 1)"
}

@test "sched collector: a ring buffer too small drops events, each located in sched_gaps to the event" {
	make_plugin_dir admin_override sched
	# 4 KiB per CPU: a buffer of a few dozen records, drained every 50 ms
	start_daemon --telemetry-dir "$TEL" --collectors sched --sample-interval 200 --buffer-size 4
	grep -qE "sched collector: [0-9]+ CPUs, a (4|8|16|32|64) KiB ring buffer" "$LOG"
	python3 "$REPO/test/sched_pingpong.py" 3000 >/dev/null
	wait_sql "SELECT count(*) FROM sched_gaps"
	stop_daemon
	[ "$DAEMON_STATUS" -eq 0 ]
	accounted 0
	# every lost event is in a gap: the gaps add up to the last counts
	python3 - "$(tel_db)" <<'PY'
import sqlite3, sys
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
lost = dict(db.execute(
    "SELECT cpu, lost_ringbuf + lost_writer FROM sched_stats "
    "WHERE seq IN (SELECT max(seq) FROM sched_stats GROUP BY cpu)").fetchall())
gaps = dict(db.execute("SELECT cpu, sum(dropped) FROM sched_gaps GROUP BY cpu").fetchall())
print("# lost per CPU %s, in gaps %s" % (lost, gaps))
assert sum(lost.values()) > 0
assert {c: n for c, n in lost.items() if n} == gaps, (lost, gaps)
bad = db.execute("SELECT count(*) FROM sched_gaps WHERE dropped < 1 OR start_ns > end_ns "
                 "OR lost_in NOT IN ('ringbuf', 'writer') OR ts_uptime_us <> start_ns / 1000"
                 ).fetchone()[0]
assert bad == 0, bad
# no event of the CPU inside its gap; a CPU's gaps of one kind never overlap
inside = db.execute("SELECT count(*) FROM sched_gaps g JOIN sched_events e ON e.cpu = g.cpu "
                    "AND e.ts_ns > g.start_ns AND e.ts_ns < g.end_ns").fetchone()[0]
assert inside == 0, inside
over = db.execute("SELECT count(*) FROM sched_gaps a JOIN sched_gaps b ON a.cpu = b.cpu "
                  "AND a.lost_in = b.lost_in AND a.seq < b.seq "
                  "AND a.start_ns <= b.end_ns AND b.start_ns <= a.end_ns"
                  ).fetchone()[0]
assert over == 0, over
PY
}

@test "collectors run only when named: --collectors, unknown names said, -a names one too" {
	make_plugin_dir sample sched perf
	start_daemon --telemetry-dir "$TEL"
	grep -q "plugin sched_collector.so not loaded: a collector not named by --collectors" "$LOG"
	grep -q "plugin perf_collector.so not loaded: a collector not named by --collectors" "$LOG"
	grep -q "bpftune running with 1 tuner$" "$LOG"
	stop_daemon
	[ "$(sql "SELECT count(*) FROM sqlite_master WHERE name IN ('sched_events', 'perf_counts')")" -eq 0 ]
	start_daemon --telemetry-dir "$TEL" --collectors nosuch,sched
	grep -q "collector nosuch: no nosuch_collector.so in $PLUGIN_DIR" "$LOG"
	grep -q "collector sched started" "$LOG"
	grep -q "plugin perf_collector.so not loaded" "$LOG"
	grep -q "bpftune running with 2 tuners" "$LOG"
	stop_daemon
	run "$BPFTUNE" -s --collectors 'bad/name' -l "$PLUGIN_DIR"
	[ "$status" -ne 0 ]
	[[ "$output" == *"--collectors: bad collector name 'bad/name'"* ]]
	start_daemon --telemetry-dir "$TEL" -a sample -a perf
	grep -q "collector perf started" "$LOG"
	grep -q "plugin sched_collector.so not loaded" "$LOG"
	stop_daemon
}

@test "perf collector: software counters non-NULL and increasing per CPU; the missing ones NULL with the reason, said once" {
	make_plugin_dir admin_override perf
	start_daemon --telemetry-dir "$TEL" --collectors perf --sample-interval 200
	grep -qE "perf collector: [0-9]+ of 19 counters on $(nproc --all) CPUs" "$LOG"
	wait_sql "SELECT count(*) >= 8 FROM perf_counts WHERE cpu = 0"
	wait_sql "SELECT count(*) = 19 FROM perf_counters"
	# the software ones exist everywhere
	[ "$(sql "SELECT count(*) FROM perf_counters WHERE type = 'software' AND available = 1
		  AND cpus = $(nproc --all) AND errno = 0 AND reason IS NULL")" -eq 7 ]
	python3 - "$(tel_db)" <<'PY'
import sqlite3, sys
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
avail = dict(db.execute("SELECT counter, available FROM perf_counters"))
reasons = dict(db.execute("SELECT counter, reason FROM perf_counters"))
cols = list(avail)
rows = {}
for r in db.execute("SELECT cpu, %s FROM perf_counts ORDER BY seq" % ", ".join(cols)):
    rows.setdefault(r[0], []).append(r[1:])
for cpu, rs in rows.items():
    for i, c in enumerate(cols):
        vals = [r[i] for r in rs]
        if avail[c]:
            assert None not in vals, (cpu, c, "NULL though available")
            assert vals == sorted(vals), (cpu, c, "decreased", vals)
        else:
            assert set(vals) == {None}, (cpu, c, "a value though unavailable")
            assert reasons[c], (c, "no reason")
    clock = [r[cols.index("cpu_clock")] for r in rs]
    assert all(b > a for a, b in zip(clock, clock[1:])), (cpu, "cpu_clock not increasing")
# switches happen on some CPU between the first and last row
cs = [rs[-1][cols.index("context_switches")] - rs[0][cols.index("context_switches")]
      for rs in rows.values()]
assert max(cs) > 0, cs
print("perf: %d of %d counters available" % (sum(avail.values()), len(avail)))
PY
	# each reason said once
	local n
	n="$(grep -c "perf collector: not counted here" "$LOG" || true)"
	[ "$n" -eq "$(sql "SELECT count(DISTINCT reason) FROM perf_counters WHERE available = 0")" ]
	# bpftune-telemetry perf-list finds what the collector found
	"$REPO/tools/bpftune-telemetry" perf-list --json > "$BATS_TEST_TMPDIR/perf.json"
	python3 - "$(tel_db)" "$BATS_TEST_TMPDIR/perf.json" <<'PY'
import json, sqlite3, sys
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
run = [tuple(r) for r in db.execute(
    "SELECT counter, type, available, cpus, reason FROM perf_counters ORDER BY seq")]
listed = [(c["counter"], c["type"], int(c["available"]), c["cpus"], c["reason"])
          for c in json.load(open(sys.argv[2]))["counters"]]
assert run == listed, (run, listed)
PY
	stop_daemon
	[ "$DAEMON_STATUS" -eq 0 ]
}

@test "end to end: run files of the sched collector make seed 003's dataset (dataset build --format sched)" {
	local label out n
	make_plugin_dir sched
	for label in hackbench_pipe_small cpu_bound_4p; do
		start_daemon --telemetry-dir "$TEL" --collectors sched --label "$label"
		python3 "$REPO/test/sched_pingpong.py" 500 >/dev/null
		wait_sql "SELECT count(*) FROM sched_events WHERE event = 'migrate'"
		stop_daemon
		[ "$DAEMON_STATUS" -eq 0 ]
	done
	out="$BATS_TEST_TMPDIR/sched"
	run "$REPO/tools/bpftune-telemetry" dataset build --format sched --no-unseen --out "$out" "$TEL"
	echo "$output"
	[ "$status" -eq 0 ]
	for s in train test_seen test_unseen all; do
		[ "$(head -1 "$out/$s.csv" | tr -d '\r')" = \
		  "timestamp,time_diff,task_name,pid,cpu,prev_state,prev_comm,workload_type,trace_id" ]
	done
	python3 - "$out/all.csv" "$TEL" <<'PY'
import csv, glob, sqlite3, sys
rows = list(csv.DictReader(open(sys.argv[1])))
want = sum(sqlite3.connect(f).execute(
    "SELECT count(*) FROM sched_events WHERE event = 'switch'").fetchone()[0]
    for f in glob.glob(sys.argv[2] + "/*.db"))
assert len(rows) == want, (len(rows), want)
traces = {}
for r in rows:
    traces.setdefault(r["trace_id"], []).append(r)
assert len(traces) == 2, list(traces)
assert {r["workload_type"] for r in rows} == {"hackbench_pipe_small", "cpu_bound_4p"}
for t, rs in traces.items():
    assert float(rs[0]["time_diff"]) == 0, (t, rs[0])
    assert all(float(r["time_diff"]) >= 0 for r in rs)
    assert len(rs[1]["time_diff"].split(".")[1]) == 9, rs[1]
    assert any(r["task_name"] == "coll2_pp_child" for r in rs)
    assert {r["prev_state"] for r in rs} <= set("RSDTtXZPI"), {r["prev_state"] for r in rs}
print("sched dataset: %d switch rows in %d traces" % (len(rows), len(traces)))
PY
}
