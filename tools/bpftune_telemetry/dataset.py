# SPDX-License-Identifier: GPL-2.0-only
"""dataset build: runs merged and split by run into train/test_seen/test_unseen.

The split follows seed 003: by run (a trace), never by row, so rows of one
run never land in two sets; with >= 3 workload categories one whole
category is held out for test_unseen (a category, so that near-duplicate
workloads such as iperf3-tcp and iperf3-tcp-reverse cannot leak into it);
the runs of every other category are divided between train and test_seen.
A seen category with a single run cannot be divided by run: that run is
split in time instead (the first part to train, the rest to test_seen as a
trace of its own), and dataset_meta.json says so.

--format tables (default): a directory per split (and all/) with one CSV
per table (the declarations, telemetry_tables and telemetry_columns, once
per split rather than once per run); --format sched and sched-baseline:
seed 003's CSV files of sched_switch events (dataset_sched.py); --format
decisions: one row per decision with its outcome (dataset_decisions.py).  Every format's
dataset_meta.json has the provenance and the hashes that `dataset
verify` rechecks (provenance.py).
"""

import json
import os
import random
import shutil

from .common import NO_LABEL, SPLITS, Sources, connect, die, give_back, make_dirs, \
    tables_of, write_csv
from .provenance import seal

# tables that describe a run rather than record its time: a run split in
# time has them in both parts
DESCRIBE_RUN = {"meta", "runs", "tuners", "tunables", "collect_runs", "collect_tunables",
                "telemetry_tables", "telemetry_columns", "sched_info"}
# the declarations every run file repeats: written once per split, one row
# per distinct declaration, with the number of the split's runs that made it
DECLARATIONS = ("telemetry_tables", "telemetry_columns")
PER_RUN = ("run_id", "host_id", "seq", "ts_uptime_us", "label", "category", "trace_id")
TAIL = "_tail"


class Part:
    """A run, or a time slice of one, as it goes into a split."""

    def __init__(self, run, lo_us=None, hi_us=None, suffix=""):
        self.run = run
        self.run_id = run["run_id"]
        self.trace_id = run["_trace_id"] + suffix
        self.lo_us, self.hi_us = lo_us, hi_us

    def holds(self, ts_us):
        if ts_us is None:
            return self.lo_us is None
        return ((self.lo_us is None or ts_us >= self.lo_us) and
                (self.hi_us is None or ts_us < self.hi_us))


# ---- the split -----------------------------------------------------------------

def split_runs(runs, seed, test_fraction, holdout=None, unseen=True):
    """{split: [run_id]} by category, the held-out category, {category:
    runs}, and the run ids of seen categories with a single run (to be
    split in time).  Deterministic for a seed: runs are sorted by run_id
    before the seeded generator touches them."""
    rng = random.Random(seed)
    by_cat = {}
    for r in sorted(runs, key=lambda r: r["run_id"]):
        by_cat.setdefault(r["_category"], []).append(r["run_id"])
    cats = sorted(by_cat)
    held = None
    if holdout is not None:
        if holdout not in by_cat:
            die("dataset: no run has category '%s' (categories: %s)" % (
                holdout, ", ".join(cats)))
        held = holdout
    elif unseen and len(cats) >= 3:
        held = rng.choice(cats)
    split = {s: [] for s in SPLITS}
    single = []
    for cat in cats:
        ids = list(by_cat[cat])
        if cat == held:
            split["test_unseen"] += ids
            continue
        rng.shuffle(ids)
        n_test = 0
        if len(ids) >= 2:
            n_test = min(len(ids) - 1, max(1, round(len(ids) * test_fraction)))
        elif test_fraction > 0:
            single += ids
        split["test_seen"] += ids[:n_test]
        split["train"] += ids[n_test:]
    for s in SPLITS:
        split[s].sort()
    return split, held, {c: len(by_cat[c]) for c in cats}, sorted(single)


def time_cutoff_us(path, run, keep):
    """The instant that leaves @keep of a run's time-series rows before it:
    of its sched_switch events if it has them, else of its system samples,
    else of its span."""
    db = connect(path)
    try:
        tables = tables_of(db)
        for sql in ("SELECT ts_uptime_us FROM sched_events WHERE run_id = ? AND "
                    "event = 'switch' ORDER BY ts_ns, seq",
                    "SELECT ts_uptime_us FROM samples_system WHERE run_id = ? "
                    "ORDER BY ts_uptime_us"):
            if sql.split("FROM ")[1].split()[0] not in tables:
                continue
            ts = [r[0] for r in db.execute(sql, (run["run_id"],))]
            if len(ts) >= 2:
                return ts[min(len(ts) - 1, max(1, int(len(ts) * keep)))]
    finally:
        db.close()
    end = run.get("end_ts_uptime_us") or run["ts_uptime_us"]
    return int(run["ts_uptime_us"] + (end - run["ts_uptime_us"]) * keep)


def make_parts(src, split, single, test_fraction, cutoff=time_cutoff_us):
    """{split: [Part]}, and the meta entry of each run split in time."""
    parts = {s: [Part(src.by_id[i]) for i in split[s] if i not in single] for s in SPLITS}
    notes = []
    for rid in single:
        run = src.by_id[rid]
        cut = cutoff(run["_file"], run, 1 - test_fraction)
        head, tail = Part(run, None, cut), Part(run, cut, None, TAIL)
        parts["train"].append(head)
        parts["test_seen"].append(tail)
        notes.append({"run_id": rid, "category": run["_category"],
                      "cutoff_ts_uptime_us": cut,
                      "trace_ids": {"train": head.trace_id, "test_seen": tail.trace_id}})
    return parts, notes


def event_split_note(notes, test_fraction):
    if not notes:
        return None
    return {
        "why": "these seen categories have a single run, which cannot be divided by "
               "run: it is split in time instead, its first %d %% of events in train "
               "and the rest in test_seen as a trace of its own (trace_id + '%s')"
               % (round((1 - test_fraction) * 100), TAIL),
        "categories": sorted({n["category"] for n in notes}),
        "runs": notes,
    }


# ---- --format tables -----------------------------------------------------------

def part_rows(src, table, parts):
    by_run = {}
    for p in parts:
        by_run.setdefault(p.run_id, []).append(p)
    static = table in DESCRIBE_RUN
    for r in src.csv_rows(table, set(by_run)):
        for p in by_run.get(r.get("run_id"), ()):
            if static or p.holds(r.get("ts_uptime_us")):
                yield dict(r, trace_id=p.trace_id)


def declaration_columns(src, table):
    return [c for c in src.csv_columns(table) if c not in PER_RUN] + ["runs"]


def declaration_rows(src, table, parts):
    """A declaration table's distinct rows over the runs of @parts, in
    first-seen order, each with how many runs declared it."""
    cols = declaration_columns(src, table)[:-1]
    rows = {}
    runs = {}
    for r in part_rows(src, table, parts):
        key = tuple(r.get(c) for c in cols)
        rows.setdefault(key, dict(zip(cols, key)))
        runs.setdefault(key, set()).add(r["run_id"])
    for key, r in rows.items():
        yield dict(r, runs=len(runs[key]))


def write_tables(src, out, parts, meta):
    every = [Part(r) for r in src.runs]
    for s in SPLITS + ("all",):
        d = os.path.join(out, s)
        if os.path.isdir(d):
            shutil.rmtree(d)
        os.makedirs(d)
        ps = every if s == "all" else parts[s]
        counts = {}
        for t in src.tables:
            path = os.path.join(d, t + ".csv")
            if t in DECLARATIONS:
                counts[t] = write_csv(path, declaration_columns(src, t),
                                      declaration_rows(src, t, ps))
            else:
                counts[t] = write_csv(path, src.csv_columns(t), part_rows(src, t, ps))
        meta["splits"][s] = dict(split_meta(ps), counts=counts, lost_events={
            p.trace_id: lost_events(p.run["_file"], p.run_id) for p in ps})


def lost_events(path, run_id):
    """Events the collector counted as lost in the run (sched_stats), or None."""
    db = connect(path)
    try:
        if "sched_stats" not in tables_of(db):
            return None
        r = db.execute("SELECT sum(l) FROM (SELECT max(lost_ringbuf) + max(lost_writer) AS l "
                       "FROM sched_stats WHERE run_id = ? GROUP BY cpu)",
                       (run_id,)).fetchone()
        return r[0]
    finally:
        db.close()


def split_meta(parts):
    """What a split holds: runs, traces, categories and labels."""
    runs = [p.run for p in parts]
    return {
        "runs": sorted({p.run_id for p in parts}),
        "trace_ids": sorted(p.trace_id for p in parts),
        "categories": sorted({r["_category"] for r in runs}),
        "labels": sorted({r.get("label") or NO_LABEL for r in runs}),
    }


# ---- dataset build -------------------------------------------------------------

def base_meta(args, src, runs, held, cats, notes):
    return {
        "created_by": "bpftune-telemetry dataset build",
        "format": args.format,
        "seed": args.seed,
        "test_fraction": args.test_fraction,
        "split_by": "run",
        "holdout_category": held,
        "categories": cats,
        "labels": {l: sum(1 for r in runs if (r.get("label") or NO_LABEL) == l)
                   for l in sorted({r.get("label") or NO_LABEL for r in runs})},
        "category_of_label": {r.get("label") or NO_LABEL: r["_category"] for r in runs},
        "event_level_split": event_split_note(notes, args.test_fraction),
        "schema_versions": sorted({r.get("schema_version") for r in runs
                                   if r.get("schema_version") is not None}),
        "sources": src.files,
        "splits": {},
    }


def write_meta(out, meta):
    with open(os.path.join(out, "dataset_meta.json"), "w") as f:
        json.dump(meta, f, indent=2, sort_keys=True)
        f.write("\n")


def cmd_dataset(args):
    if args.action != "build":
        die("dataset: the actions are build and verify")
    if not 0 <= args.test_fraction < 1:
        die("dataset: --test-fraction must be in [0, 1)")
    src = Sources(args.sources)
    if not src.runs:
        die("dataset: no runs found")
    made = make_dirs(args.out)
    if args.format == "tables":
        written = build_tables(args, src)
    elif args.format == "decisions":
        from .dataset_decisions import build_decisions
        written = build_decisions(args, src)
    else:
        from .dataset_sched import build_sched
        written = build_sched(args, src)
    give_back(made[:1] or written)


def build_tables(args, src):
    split, held, cats, single = split_runs(src.runs, args.seed, args.test_fraction,
                                           args.holdout, not args.no_unseen)
    parts, notes = make_parts(src, split, single, args.test_fraction)
    meta = base_meta(args, src, src.runs, held, cats, notes)
    write_tables(src, args.out, parts, meta)
    written = [os.path.join(args.out, s) for s in SPLITS + ("all", "dataset_meta.json")]
    seal(meta, args.out, written, src, src.runs)
    write_meta(args.out, meta)
    report(meta, held, args)
    return written


def report(meta, held, args):
    for s in SPLITS:
        m = meta["splits"][s]
        print("%-12s %3d run(s), categories: %s" % (s, len(m["runs"]),
              ", ".join(m["categories"]) or "-"))
    if meta["event_level_split"]:
        print("split in time (a single run in its category): %s" %
              ", ".join(meta["event_level_split"]["categories"]))
    print("held out: %s; seed %d -> %s" % (held or "none", args.seed, args.out))
    print("dataset id %s (bpftune-telemetry dataset verify %s)" % (
        meta["provenance"]["dataset_id"], args.out))
