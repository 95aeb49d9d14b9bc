# SPDX-License-Identifier: GPL-2.0-only
"""Reading run files: the .db files of a directory, their tables and rows."""

import csv
import os
import sqlite3
import sys

from .workloads import category_of

DEFAULT_DIR = "/var/lib/bpftune/telemetry"
SPLITS = ("train", "test_seen", "test_unseen")
NO_LABEL = "unlabelled"
# the columns every exported CSV carries, so that no join with runs is needed
RUN_COLUMNS = ("label", "category", "trace_id")


def die(msg):
    print("bpftune-telemetry: " + msg, file=sys.stderr)
    sys.exit(1)


# ---- reading run files --------------------------------------------------------

def plotting(cmd):
    """(matplotlib.pyplot, pandas) for a drawing command, headless; a
    clear error naming the Debian packages if either is missing."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import pandas as pd
    except ImportError as e:
        die("%s needs python3-matplotlib and python3-pandas (%s)" % (cmd, e))
    return plt, pd


def find_files(sources):
    """The .db files named, or found in the directories named, sorted."""
    files = []
    for src in sources or [DEFAULT_DIR]:
        if os.path.isdir(src):
            files += sorted(os.path.join(src, f) for f in os.listdir(src)
                            if f.endswith(".db"))
        elif os.path.isfile(src):
            files.append(src)
        else:
            die("no such file or directory: %s" % src)
    if not files:
        die("no telemetry files in %s" % ", ".join(sources or [DEFAULT_DIR]))
    return files


def connect(path):
    # read-only: safe on the file of a running daemon (WAL)
    db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    db.row_factory = sqlite3.Row
    return db


def tables_of(db):
    return [r[0] for r in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid")]


def columns_of(db, table):
    return [r[1] for r in db.execute('PRAGMA table_info("%s")' % table)]


class Sources:
    """Every run file, with the union of their tables and columns."""

    def __init__(self, paths):
        self.files = find_files(paths)
        self.tables = []          # in schema order
        self.columns = {}         # table -> union of columns, in order
        self.runs = []            # dicts from the runs tables
        seen = set()
        for path in self.files:
            try:
                db = connect(path)
                for t in tables_of(db):
                    if t not in self.columns:
                        self.tables.append(t)
                        self.columns[t] = []
                    for c in columns_of(db, t):
                        if c not in self.columns[t]:
                            self.columns[t].append(c)
                if "runs" in tables_of(db):
                    for r in db.execute("SELECT * FROM runs ORDER BY seq"):
                        r = dict(r)
                        if r["run_id"] in seen:
                            continue
                        seen.add(r["run_id"])
                        r["_file"] = path
                        r["_category"] = run_category(db, r)
                        self.runs.append(r)
                db.close()
            except sqlite3.DatabaseError as e:
                die("%s: %s" % (path, e))
        if "meta" in self.columns and "run_id" not in self.columns["meta"]:
            # meta rows carry no run_id: add it so merged meta stays readable
            self.columns["meta"].insert(0, "run_id")
        assign_trace_ids(self.runs)
        self.by_id = {r["run_id"]: r for r in self.runs}

    def csv_columns(self, table):
        """A table's columns as exported: its own, then label, category and
        trace_id (runs has its label already)."""
        cols = list(self.columns[table])
        return cols + [c for c in RUN_COLUMNS if c not in cols]

    def csv_rows(self, table, run_ids=None):
        """rows() with each row's label, category and trace_id filled in."""
        for r in self.rows(table, run_ids):
            run = self.by_id.get(r.get("run_id"))
            if run is not None:
                for k, v in run_columns(run).items():
                    r.setdefault(k, v)	# a table's own column wins (runs.label)
            yield r

    def rows(self, table, run_ids=None):
        """Rows of @table from every file as dicts, optionally only some runs."""
        for path in self.files:
            db = connect(path)
            if table not in tables_of(db):
                db.close()
                continue
            if table == "meta":
                meta = {r["key"]: r["value"] for r in db.execute("SELECT * FROM meta")}
                rid = meta.get("run_id")
                if run_ids is None or rid in run_ids:
                    for k, v in meta.items():
                        yield {"run_id": rid, "key": k, "value": v}
            else:
                order = "ORDER BY seq" if "seq" in columns_of(db, table) else ""
                for r in db.execute('SELECT * FROM "%s" %s' % (table, order)):
                    if run_ids is None or r["run_id"] in run_ids:
                        yield dict(r)
            db.close()


# ---- who a run is: label, category, trace_id -----------------------------------

def run_category(db, run):
    """The workload category of a run: what collect recorded in the run
    file (collect_runs.category), else the catalogue's for its label, else
    the label."""
    if "collect_runs" in tables_of(db):
        row = db.execute("SELECT category FROM collect_runs WHERE run_id = ?",
                         (run["run_id"],)).fetchone()
        if row and row[0]:
            return row[0]
    return category_of(run.get("label")) or NO_LABEL


def assign_trace_ids(runs):
    """trace_id of each run: '<label>_<first 8 hex digits of run_id>'
    (seed 003 names a trace '<workload>_run<N>'; a run id prefix stays the
    same whichever runs a dataset holds).  Two runs that would share one
    get their full run ids."""
    ids = {}
    for r in runs:
        short = "%s_%s" % (r.get("label") or NO_LABEL, r["run_id"].replace("-", "")[:8])
        ids.setdefault(short, []).append(r)
    for short, rs in ids.items():
        for r in rs:
            r["_trace_id"] = short if len(rs) == 1 else "%s_%s" % (
                r.get("label") or NO_LABEL, r["run_id"])


def run_columns(run):
    return {"label": run.get("label") or NO_LABEL, "category": run["_category"],
            "trace_id": run["_trace_id"]}


# ---- files handed back to the user behind sudo -----------------------------------

def sudo_owner():
    """(uid, gid) of the user who ran us through sudo, or None."""
    if os.geteuid() != 0 or not os.environ.get("SUDO_USER"):
        return None
    try:
        return int(os.environ["SUDO_UID"]), int(os.environ["SUDO_GID"])
    except (KeyError, ValueError):
        return None


def make_dirs(path):
    """os.makedirs, returning the directories it created (outermost first)."""
    made = []
    p = os.path.abspath(path)
    while not os.path.isdir(p):
        made.insert(0, p)
        p = os.path.dirname(p)
    os.makedirs(path, exist_ok=True)
    return made


def give_back(paths):
    """chown what we wrote to the sudo user (seed 003: output files belong
    to the user, not to root).  Directories are given back with their
    whole content."""
    who = sudo_owner()
    if not who:
        return
    for p in paths:
        if not os.path.lexists(p):
            continue
        os.lchown(p, *who)
        if os.path.isdir(p) and not os.path.islink(p):
            for d, dirs, files in os.walk(p):
                for x in dirs + files:
                    os.lchown(os.path.join(d, x), *who)


def write_csv(path, columns, rows):
    n = 0
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(columns)
        for r in rows:
            w.writerow(["" if r.get(c) is None else r.get(c) for c in columns])
            n += 1
    return n
