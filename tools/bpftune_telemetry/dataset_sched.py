# SPDX-License-Identifier: GPL-2.0-only
"""dataset build --format sched | sched-baseline: seed 003's CSV files.

From the sched collector's table (sched_events, docs/collectors.md): one
row per sched_switch event, each trace (run) in time order,

  sched:          timestamp, time_diff, task_name, pid, cpu, prev_state,
                  prev_comm, workload_type, trace_id
  sched-baseline: task_code, time, name, pid   (the baseline LSTM's form,
                  in seed 003's order: task_code a short code per task
                  name, time is time_diff)

timestamp: seconds since boot, 6 decimals; time_diff: seconds since the
previous switch of the same trace, 9 decimals (nanoseconds), 0 at each
trace's first event.  Written to train.csv, test_seen.csv, test_unseen.csv
and all.csv, each with <split>_gaps.csv (where its traces lost events:
dataset_gaps.py), and dataset_meta.json.
"""

import csv
import os
import string

from .common import NO_LABEL, SPLITS, connect, die, tables_of
from .dataset import Part, base_meta, lost_events, make_parts, report, split_meta, \
    split_runs, write_meta
from .dataset_gaps import COLUMNS as GAP_COLUMNS, gaps_exact, write_gaps
from .provenance import seal

SCHED_TABLE = "sched_events"
SCHED_COLUMNS = ("timestamp", "time_diff", "task_name", "pid", "cpu", "prev_state",
                 "prev_comm", "workload_type", "trace_id")
BASELINE_COLUMNS = ("task_code", "time", "name", "pid")
# every column's type (as SQL names it), unit and meaning: in the meta, for
# the loader (bpftune_telemetry.load) and any reader
DECLARED = {
    "timestamp": ("REAL", "s", "CLOCK_BOOTTIME of the switch (sched_events.ts_ns), 6 decimals"),
    "time_diff": ("REAL", "s", "since the previous switch of the trace, 9 decimals; 0 first"),
    "task_name": ("TEXT", None, "the task switched in (next_comm)"),
    "pid": ("INTEGER", None, "its thread id (next_pid)"),
    "cpu": ("INTEGER", None, "the CPU of the switch"),
    "prev_state": ("TEXT", None, "state letter of the task switched out (R S D T t X Z P I)"),
    "prev_comm": ("TEXT", None, "the task switched out"),
    "workload_type": ("TEXT", None, "the run's label"),
    "trace_id": ("TEXT", None, "the trace (run, or part of one) the row belongs to"),
    "task_code": ("TEXT", None, "a short code per task name (meta: task_codes)"),
    "time": ("REAL", "s", "time_diff"),
    "name": ("TEXT", None, "task_name"),
}
# ns: the collector's ts_ns, or its microseconds where a row has none
SWITCHES = ("SELECT COALESCE(ts_ns, ts_uptime_us * 1000) AS ns, cpu, pid, comm, "
            "prev_state, prev_comm FROM %s WHERE run_id = ? AND event = 'switch' "
            "ORDER BY ns, seq" % SCHED_TABLE)
GAPS_SUFFIX = "_gaps.csv"
CODE_ALPHABET = string.ascii_uppercase + string.ascii_lowercase + string.digits


def switch_count(path, run_id):
    db = connect(path)
    try:
        if SCHED_TABLE not in tables_of(db):
            return 0
        return db.execute("SELECT count(*) FROM %s WHERE run_id = ? AND event = 'switch'"
                          % SCHED_TABLE, (run_id,)).fetchone()[0]
    finally:
        db.close()


def switches(part):
    """(ns, cpu, pid, comm, prev_state, prev_comm) of a part, in time order."""
    db = connect(part.run["_file"])
    try:
        for r in db.execute(SWITCHES, (part.run_id,)):
            if part.holds(r[0]):
                yield r
    finally:
        db.close()


def event_cutoff_ns(path, run, keep):
    """The timestamp of the first event of the last (1 - keep) of a run's
    switches: an event-level split, exact to the event."""
    db = connect(path)
    try:
        ns = [r[0] for r in db.execute(SWITCHES, (run["run_id"],))]
    finally:
        db.close()
    return ns[min(len(ns) - 1, max(1, int(len(ns) * keep)))]


def seconds(ns, decimals):
    """Exact decimal seconds of an integer nanosecond count."""
    if decimals == 6:
        return "%d.%06d" % divmod(ns // 1000, 10 ** 6)
    return "%d.%09d" % divmod(ns, 10 ** 9)


def sched_rows(part):
    label = part.run.get("label") or NO_LABEL
    prev = None
    for ns, cpu, pid, comm, state, prev_comm in switches(part):
        diff = 0 if prev is None else ns - prev
        prev = ns
        yield (seconds(ns, 6), seconds(diff, 9), comm, pid, cpu, state, prev_comm,
               label, part.trace_id)


def task_code(k):
    """A, B, ... 9 for the 62 most frequent task names, then AA, AB, ..."""
    n = len(CODE_ALPHABET)
    width = 1
    while k >= n ** width:
        k -= n ** width
        width += 1
    code = ""
    for _ in range(width):
        k, d = divmod(k, n)
        code = CODE_ALPHABET[d] + code
    return code


def task_codes(parts):
    count = {}
    for p in parts:
        for r in switches(p):
            count[r[3]] = count.get(r[3], 0) + 1
    names = sorted(count, key=lambda c: (-count[c], c))
    return {c: task_code(i) for i, c in enumerate(names)}


def write_split(path, parts, fmt, codes):
    n = 0
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(SCHED_COLUMNS if fmt == "sched" else BASELINE_COLUMNS)
        for p in sorted(parts, key=lambda p: p.trace_id):
            for r in sched_rows(p):
                if fmt == "sched":
                    w.writerow(r)
                else:
                    w.writerow((codes[r[2]], r[1], r[2], r[3]))
                n += 1
    return n


def build_sched(args, src):
    counts = {r["run_id"]: switch_count(r["_file"], r["run_id"]) for r in src.runs}
    runs = [r for r in src.runs if counts[r["run_id"]]]
    without = sorted(r["run_id"] for r in src.runs if not counts[r["run_id"]])
    if not runs:
        die("dataset: no run has %s rows (collect with the sched collector: "
            "--collectors sched)" % SCHED_TABLE)
    if without:
        print("dataset: %d run(s) without sched_switch events left out" % len(without))
    split, held, cats, single = split_runs(runs, args.seed, args.test_fraction,
                                           args.holdout, not args.no_unseen)
    parts, notes = make_parts(src, split, single, args.test_fraction, event_cutoff_ns)
    for n in notes:
        n["cutoff_ts_ns"] = n.pop("cutoff_ts_uptime_us")
    meta = base_meta(args, src, runs, held, cats, notes)
    meta["table"] = SCHED_TABLE
    meta["columns"] = list(SCHED_COLUMNS if args.format == "sched" else BASELINE_COLUMNS)
    meta["column_declarations"] = {c: dict(zip(("type", "unit", "description"), DECLARED[c]))
                                   for c in meta["columns"]}
    meta["runs_without_sched_events"] = without
    every = [Part(r) for r in runs]
    codes = task_codes(every) if args.format == "sched-baseline" else None
    if codes is not None:
        meta["task_codes"] = codes
    written = [os.path.join(args.out, "dataset_meta.json")]
    for s in SPLITS + ("all",):
        ps = every if s == "all" else parts[s]
        path = os.path.join(args.out, s + ".csv")
        n = write_split(path, ps, args.format, codes)
        written.append(path)
        meta["splits"][s] = trace_meta(ps, n)
        gaps = write_gaps(os.path.join(args.out, s + GAPS_SUFFIX), ps)
        written.append(os.path.join(args.out, s + GAPS_SUFFIX))
        meta["splits"][s]["gaps"] = gaps
        meta["splits"][s]["traces_with_gaps"] = sorted(t for t, g in gaps.items() if g)
        meta["splits"][s]["gaps_exact"] = gaps_exact(ps)
    meta["gaps"] = {"file": "<split>" + GAPS_SUFFIX, "columns": list(GAP_COLUMNS),
                    "resolution": "per trace (gaps_exact of its split): true, the event "
                    "(the collector's sched_gaps: the first and last dropped event); false, "
                    "the sample interval (between two sched_stats rows of the CPU)",
                    "mark": "a row whose time_diff overlaps a gap of its trace (any CPU) "
                    "spans dropped switches: in_gap in bpftune_telemetry.load"}
    seal(meta, args.out, written, src, runs)
    write_meta(args.out, meta)
    report(meta, held, args)
    return written


def trace_meta(parts, events):
    m = split_meta(parts)
    m["workload_types"] = m.pop("labels")
    m["events"] = events
    m["lost_events"] = {p.trace_id: lost_events(p.run["_file"], p.run_id) for p in parts}
    return m
