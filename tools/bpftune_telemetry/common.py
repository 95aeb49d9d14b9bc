# SPDX-License-Identifier: GPL-2.0-only
"""Reading run files: the .db files of a directory, their tables and rows."""

import csv
import os
import sqlite3
import sys

DEFAULT_DIR = "/var/lib/bpftune/telemetry"
SPLITS = ("train", "test_seen", "test_unseen")
NO_LABEL = "unlabelled"


def die(msg):
    print("bpftune-telemetry: " + msg, file=sys.stderr)
    sys.exit(1)


# ---- reading run files --------------------------------------------------------

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
                        self.runs.append(r)
                db.close()
            except sqlite3.DatabaseError as e:
                die("%s: %s" % (path, e))
        if "meta" in self.columns and "run_id" not in self.columns["meta"]:
            # meta rows carry no run_id: add it so merged meta stays readable
            self.columns["meta"].insert(0, "run_id")

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


def write_csv(path, columns, rows):
    n = 0
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(columns)
        for r in rows:
            w.writerow(["" if r.get(c) is None else r.get(c) for c in columns])
            n += 1
    return n
