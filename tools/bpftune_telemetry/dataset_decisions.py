# SPDX-License-Identifier: GPL-2.0-only
"""dataset build --format decisions: one row per decision, with its outcome.

For every policy that declares an outcome (docs/telemetry.md, "Outcomes"),
the rows of decisions_<plugin>_<policy> (the typed inputs) joined by
decision_seq to outcomes_<plugin>_<policy> (propensity, the reward
inputs before and after, the reward), one CSV per policy and split:

  <split>/<plugin>_<policy>.csv   split: train, test_seen, test_unseen, all

Columns: run_id, trace_id, label, category, ts_uptime_us, netns_cookie,
decision_seq, event_seq, scenario, tunable, decided, action (decided up
to its first ':', one of the declared actions), the policy's inputs
(input_<name>), then propensity, observed, horizon_ms, after_ms,
before_ms, <reward input>_before/_after and reward.  A decision whose
outcome was not recorded (the daemon stopped before its horizon, or too
many were pending) has them empty.  Types, units and meanings come from
the run files' declarations (telemetry_columns), in dataset_meta.json
("column_declarations"), with each policy's declared actions and reward.
Split by run with a held-out category, as the other formats.
"""

import os
import shutil

from .common import SPLITS, connect, die, tables_of, write_csv
from .dataset import Part, base_meta, make_parts, report, split_meta, split_runs, write_meta
from .provenance import seal

RUN_COLS = ("run_id", "trace_id", "label", "category")
CONTEXT = ("ts_uptime_us", "netns_cookie", "decision_seq", "event_seq", "scenario",
           "tunable", "decided")
OUTCOME_CONTEXT = ("propensity", "observed", "horizon_ms", "after_ms", "before_ms")
COMMON = ("run_id", "host_id", "seq", "ts_uptime_us", "netns_cookie")
ADDED = {
    "trace_id": ("TEXT", None, "the trace (run, or part of one) the row belongs to"),
    "label": ("TEXT", None, "the run's label (its workload)"),
    "category": ("TEXT", None, "the run's workload category"),
    "action": ("TEXT", None, "decided up to its first ':': one of the policy's actions"),
}


def policies(src):
    """[(policy table suffix, decisions table, outcomes table)] of every
    policy some run file has an outcome table for."""
    out = []
    for t in src.tables:
        if t.startswith("outcomes_") and "decisions_" + t[9:] in src.columns:
            out.append((t[9:], "decisions_" + t[9:], t))
    return out


def declarations(src, tables):
    """{table: {column: (type, unit, description)}} and {table: description}
    from the run files' telemetry_columns and telemetry_tables."""
    cols, descs = {}, {}
    for path in src.files:
        db = connect(path)
        try:
            have = tables_of(db)
            if "telemetry_columns" in have:
                for r in db.execute("SELECT table_name, column_name, type, unit, description "
                                    "FROM telemetry_columns ORDER BY seq"):
                    if r[0] in tables:
                        cols.setdefault(r[0], {}).setdefault(r[1], (r[2], r[3], r[4]))
            if "telemetry_tables" in have:
                for r in db.execute("SELECT table_name, description FROM telemetry_tables"):
                    if r[0] in tables:
                        descs.setdefault(r[0], r[1])
        finally:
            db.close()
    return cols, descs


def declared_actions(description):
    """The actions an outcome table's description lists ("Actions: a | b.")."""
    if not description or "Actions: " not in description:
        return []
    text = description.split("Actions: ", 1)[1].split(". Reward: ", 1)[0]
    return [a.strip() for a in text.split(" | ") if a.strip()]


def layout(src, dec_t, out_t, decl):
    """(csv columns, [(csv column, source, source column)]) of a policy."""
    inputs = [c for c in src.columns[dec_t] if c not in COMMON and c not in CONTEXT]
    outcome = [c for c in src.columns[out_t] if c not in COMMON and
               c not in ("decision_seq", "decided")]
    cols = list(RUN_COLS) + list(CONTEXT) + ["action"]
    cols += ["input_" + c for c in inputs] + outcome
    types = {}
    for c in cols:
        if c in ADDED:
            types[c] = ADDED[c]
        elif c.startswith("input_"):
            types[c] = decl.get(dec_t, {}).get(c[6:])
        elif c in outcome:
            types[c] = decl.get(out_t, {}).get(c)
        else:
            types[c] = decl.get(dec_t, {}).get(c) or decl.get(out_t, {}).get(c)
    return cols, inputs, outcome, types


def policy_rows(part, dec_t, out_t, inputs, outcome):
    """A part's decisions of one policy, each with its outcome (or none)."""
    db = connect(part.run["_file"])
    try:
        have = tables_of(db)
        if dec_t not in have:
            return
        join = out_t in have
        sql = 'SELECT d.*%s FROM "%s" d %s WHERE d.run_id = ? ORDER BY d.seq' % (
            "".join(', o."%s" AS "o_%s"' % (c, c) for c in outcome) if join else "", dec_t,
            'LEFT JOIN "%s" o ON o.run_id = d.run_id AND o.decision_seq = d.decision_seq'
            % out_t if join else "")
        for r in db.execute(sql, (part.run_id,)):
            r = dict(r)
            if not part.holds(r.get("ts_uptime_us")):
                continue
            row = {c: r.get(c) for c in CONTEXT}
            row.update(run_id=part.run_id, trace_id=part.trace_id,
                       label=part.run.get("label") or "none", category=part.run["_category"])
            decided = r.get("decided") or ""
            row["action"] = decided.split(":", 1)[0].strip()
            for c in inputs:
                row["input_" + c] = r.get(c)
            for c in outcome:
                row[c] = r.get("o_" + c)
            yield row
    finally:
        db.close()


def build_decisions(args, src):
    pols = policies(src)
    if not pols:
        die("dataset: no run file has outcome tables (outcomes_<plugin>_<policy>): "
            "record with a daemon that declares outcomes")
    tables = {t for p in pols for t in p[1:]}
    decl, descs = declarations(src, tables)
    split, held, cats, single = split_runs(src.runs, args.seed, args.test_fraction,
                                           args.holdout, not args.no_unseen)
    parts, notes = make_parts(src, split, single, args.test_fraction)
    meta = base_meta(args, src, src.runs, held, cats, notes)
    meta["policies"], meta["column_declarations"] = {}, {}
    every = [Part(r) for r in src.runs]
    for s in SPLITS + ("all",):
        d = os.path.join(args.out, s)
        if os.path.isdir(d):
            shutil.rmtree(d)
        os.makedirs(d)
    counts = {s: {} for s in SPLITS + ("all",)}
    for name, dec_t, out_t in pols:
        cols, inputs, outcome, types = layout(src, dec_t, out_t, decl)
        meta["column_declarations"][name] = {
            c: dict(zip(("type", "unit", "description"), types[c] or ("TEXT", None, None)))
            for c in cols}
        info = {"decisions_table": dec_t, "outcomes_table": out_t,
                "outcome": descs.get(out_t), "actions": declared_actions(descs.get(out_t)),
                "file": "<split>/%s.csv" % name}
        for s in SPLITS + ("all",):
            ps = every if s == "all" else parts[s]
            rows = [r for p in sorted(ps, key=lambda p: p.trace_id)
                    for r in policy_rows(p, dec_t, out_t, inputs, outcome)]
            counts[s][name] = write_csv(os.path.join(args.out, s, name + ".csv"), cols, rows)
            if s == "all":
                info["decisions"] = len(rows)
                info["with_reward"] = sum(1 for r in rows if r.get("reward") is not None)
                info["undeclared_actions"] = sorted(
                    {r["action"] for r in rows} - set(info["actions"])) if info["actions"] \
                    else []
        meta["policies"][name] = info
    for s in SPLITS + ("all",):
        ps = every if s == "all" else parts[s]
        meta["splits"][s] = dict(split_meta(ps), counts=counts[s])
    written = [os.path.join(args.out, s) for s in SPLITS + ("all", "dataset_meta.json")]
    seal(meta, args.out, written, src, src.runs)
    write_meta(args.out, meta)
    report(meta, held, args)
    return written
