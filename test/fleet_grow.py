#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Grow a run file the daemon wrote, for the fleet tests and bench/ship.sh.

usage: fleet_grow.py SRC.db DST.db ROWS [--host-id ID] [--run-id UUID] [--wal]
                     [--start-wall-us US]

DST is SRC with about ROWS more rows: the rows of SRC's tables with a seq
column are repeated (seq and ts_uptime_us moved on), each table in the
share it has in SRC, so the mix of tables and values stays the daemon's.
--host-id/--run-id rewrite the identity (another host's or run's file),
--wal leaves DST in WAL mode as the daemon does, --start-wall-us sets the
run's start (a fixture's may be NULL).  runs, tuners and tunables keep
their rows (one per run, tuner, tunable).
"""

import argparse
import os
import shutil
import sqlite3
import uuid


ONCE_PER_RUN = ("runs", "tuners", "tunables")


def tables_with_seq(db, grown=False):
    out = []
    for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid"):
        if grown and t in ONCE_PER_RUN:
            continue
        cols = [c[1] for c in db.execute('PRAGMA table_info("%s")' % t)]
        if "seq" in cols and "ts_uptime_us" in cols:
            n = db.execute('SELECT count(*) FROM "%s"' % t).fetchone()[0]
            if n:
                out.append((t, cols, n))
    return out


def grow(db, rows):
    tabs = tables_with_seq(db, grown=True)
    total = sum(n for _, _, n in tabs)
    for t, cols, n in tabs:
        want = rows * n // total
        src = db.execute('SELECT * FROM "%s" ORDER BY rowid' % t).fetchall()
        seq_i, ts_i = cols.index("seq"), cols.index("ts_uptime_us")
        seq = db.execute('SELECT max(seq) FROM "%s"' % t).fetchone()[0]
        ts = db.execute('SELECT max(ts_uptime_us) FROM "%s"' % t).fetchone()[0]
        sql = 'INSERT INTO "%s" VALUES (%s)' % (t, ", ".join("?" * len(cols)))
        batch = []
        for i in range(want):
            r = list(src[i % len(src)])
            seq += 1
            ts += 1000
            r[seq_i], r[ts_i] = seq, ts
            batch.append(r)
            if len(batch) == 10000:
                db.executemany(sql, batch)
                batch = []
        db.executemany(sql, batch)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("rows", type=int)
    ap.add_argument("--host-id")
    ap.add_argument("--run-id")
    ap.add_argument("--wal", action="store_true")
    ap.add_argument("--start-wall-us", type=int)
    a = ap.parse_args()
    tmp = a.dst + ".tmp"
    shutil.copyfile(a.src, tmp)
    db = sqlite3.connect(tmp, isolation_level=None)
    db.execute("PRAGMA journal_mode = DELETE")
    db.execute("BEGIN")
    old = dict(db.execute("SELECT key, value FROM meta"))
    run_id = a.run_id or (str(uuid.uuid4()) if a.host_id else None)
    for col, new in (("run_id", run_id), ("host_id", a.host_id)):
        if not new:
            continue
        db.execute("UPDATE meta SET value = ? WHERE key = ?", (new, col))
        for t, cols, _ in tables_with_seq(db):
            if col in cols:
                db.execute('UPDATE "%s" SET %s = ? WHERE %s = ?' % (t, col, col),
                           (new, old[col]))
    grow(db, a.rows)
    if a.start_wall_us is not None:
        db.execute("UPDATE runs SET start_wall_us = ?", (a.start_wall_us,))
    db.execute("COMMIT")
    if a.wal:
        db.execute("PRAGMA journal_mode = WAL")
    db.close()
    os.replace(tmp, a.dst)


if __name__ == "__main__":
    main()
