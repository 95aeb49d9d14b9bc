# SPDX-License-Identifier: GPL-2.0-only
"""fleet dump: rebuild one SQLite file per run from Redis, row for row.

The schema objects are created as the original file had them (same SQL,
same order, same user_version and journal mode), every row is inserted
with its rowid and the storage class it had, and a row shipped twice
(after a crash) is kept once: the newest entry wins, so a row updated
after it was shipped (the runs row at exit) has its final values.
"""

import os
import sqlite3
import sys

from .common import die
from .fleet_redis import key, s, tables_of

XRANGE_COUNT = 5000


def decode(v, run_id, host_id):
    """One stream field value -> (SQLite value, needs CAST AS TEXT)."""
    if not v:
        return None, False
    c = v[0]
    if c == 0x2d or 0x30 <= c <= 0x39:     # '-' or a digit: INTEGER
        return int(v), False
    if c == 0x66:                           # f: REAL
        return float(v[1:]), False
    if c == 0x78:                           # x: BLOB
        return bytes(v[1:]), False
    if c == 0x74:                           # t: TEXT
        try:
            return v[1:].decode("utf-8"), False
        except UnicodeDecodeError:
            return bytes(v[1:]), True       # bytes that are TEXT in the file
    if v == b"=r":
        return run_id, False
    if v == b"=h":
        return host_id, False
    raise ValueError("not a bpftune-ship value: %r" % v[:20])


class Table:
    """Rows of one table of one run, inserted in batches as they come."""

    BATCH = 2000

    def __init__(self, db, name):
        self.db, self.name = db, name
        self.seen = bytearray()     # one byte per rowid: inserted already
        self.rows = self.dups = 0
        self.stmts = {}
        self.pending = {}           # statement -> rows waiting

    def insert(self, rowid, cols, vals, casts):
        sig = (cols, casts)
        sql = self.stmts.get(sig)
        if sql is None:
            marks = ", ".join("CAST(? AS TEXT)" if c else "?" for c in (False,) + casts)
            sql = 'INSERT OR REPLACE INTO "%s" (rowid, %s) VALUES (%s)' % (
                self.name, ", ".join('"%s"' % c for c in cols), marks)
            self.stmts[sig] = sql
        vals.insert(0, rowid)
        batch = self.pending.setdefault(sql, [])
        batch.append(vals)
        if len(batch) >= self.BATCH:
            self.flush()
        if rowid >= len(self.seen):
            self.seen.extend(bytes(rowid + 1 - len(self.seen) + 4096))
        if self.seen[rowid]:
            self.dups += 1
        else:
            self.seen[rowid] = 1
            self.rows += 1

    def flush(self):
        # one statement at a time keeps the rows in arrival order: a
        # repeated row replaces the earlier one
        for sql, rows in self.pending.items():
            self.db.executemany(sql, rows)
        self.pending = {}

    def missing(self, upto):
        """rowids up to @upto that never arrived (lost or trimmed in Redis)."""
        have = self.seen[1:upto + 1]
        return upto - have.count(1)


def entries(r, stream, first, last):
    """Entries of @stream from @first to @last, in chunks."""
    start = first
    while True:
        chunk = r.xrange(stream, min=start, max=last, count=XRANGE_COUNT)
        yield from chunk
        if len(chunk) < XRANGE_COUNT:
            return
        ms, seq = s(chunk[-1][0]).split("-")
        start = "%s-%d" % (ms, int(seq) + 1)


def fill_table(r, db, run, table):
    host, rid = run["host"], run["run"]
    t = Table(db, table)
    first, last = run.get("first." + table), run.get("last." + table)
    if not first or not last:
        return t
    rid_b = rid.encode()
    names = {}      # the entry's field names -> column names
    for _id, f in entries(r, key(host, "rows:", table), first, last):
        if f.get(b"_r") != rid_b:
            continue            # another run of the host, shipped meanwhile
        try:
            rowid = int(f[b"_i"])
        except (KeyError, ValueError):
            die("dump: %s of host %s, entry %s: no rowid (_i): not written by bpftune-ship"
                % (table, host, s(_id)))
        fields = tuple(f)
        cols = names.get(fields)
        if cols is None:
            cols = names[fields] = tuple(k.decode() for k in fields if k not in (b"_r", b"_i"))
        vals, casts = [], ()
        for k, v in f.items():
            if k == b"_r" or k == b"_i":
                continue
            if v and (48 <= v[0] <= 57 or v[0] == 45):    # the common case: INTEGER
                vals.append(int(v))
                continue
            try:
                val, cast = decode(v, rid, host)
            except ValueError as e:
                die("dump: %s of host %s, entry %s: %s" % (table, host, s(_id), e))
            vals.append(val)
            if cast:
                casts = tuple(vals_cast(len(cols), len(vals) - 1, casts))
        t.insert(rowid, cols, vals, casts or (False,) * len(cols))
    t.flush()
    return t


def vals_cast(n, i, casts):
    """@casts with column @i marked CAST AS TEXT (bytes that are TEXT)."""
    c = list(casts) if casts else [False] * n
    c[i] = True
    return c


def seq_gaps(db, table):
    """seq numbers missing in 1..max(seq): rows the daemon dropped."""
    cols = [c[1] for c in db.execute('PRAGMA table_info("%s")' % table)]
    if "seq" not in cols:
        return 0
    n, mx = db.execute('SELECT count(DISTINCT seq), max(seq) FROM "%s"' % table).fetchone()
    return (mx or 0) - n


def create_schema(r, db, run):
    schema = {s(a): s(b) for a, b in
              r.hgetall(key(run["host"], "schema:", run.get("schema", ""))).items()}
    if "objects" not in schema:
        die("run %s: its schema (%s) is not in Redis" % (run["run"], run.get("schema")))
    for i in range(int(schema["objects"])):
        db.execute(schema["obj.%d.sql" % i])
    db.execute("PRAGMA user_version = %d" % int(run.get("user_version") or 0))
    db.execute("PRAGMA application_id = %d" % int(run.get("application_id") or 0))


def dump_run(r, run, out):
    """Rebuild one run's file in @out; a report line per problem found."""
    name = os.path.basename(run.get("file") or (run["run"] + ".db"))
    path = os.path.join(out, name)
    tmp = path + ".tmp"
    for p in (tmp, tmp + "-journal"):
        if os.path.exists(p):
            os.unlink(p)
    db = sqlite3.connect(tmp, isolation_level=None)
    try:
        notes, stats = fill_run(r, db, run)
    except BaseException:
        # Redis went away, or an entry no shipper wrote: no half-built file
        db.close()
        os.unlink(tmp)
        raise
    db.close()
    os.replace(tmp, path)
    if run.get("done") == "1":
        pass
    elif any(k.startswith("refused.") for k in run):
        notes.append("the run's file was refused by the shipper (damaged): the rows it could read")
    else:
        notes.append("the run was still being shipped (its file open on the host)")
    return path, stats, notes


def fill_run(r, db, run):
    db.execute("BEGIN")
    create_schema(r, db, run)
    notes, stats = [], {"rows": 0, "dups": 0}
    for table in tables_of(run):
        t = fill_table(r, db, run, table)
        stats["rows"] += t.rows
        stats["dups"] += t.dups
        lost = t.missing(int(run.get("wm." + table) or 0))
        if lost:
            notes.append("%s: %d acknowledged rows not in Redis (trimmed or lost)" % (table, lost))
        gaps = seq_gaps(db, table)
        if gaps:
            notes.append("%s: %d seq gaps (rows the daemon dropped; as in the original)"
                         % (table, gaps))
        pend = int(run.get("max." + table) or 0) - int(run.get("wm." + table) or 0)
        if pend > 0:
            notes.append("%s: %d rows not shipped yet" % (table, pend))
    for k in run:
        if k.startswith("refused."):
            notes.append("%s: not shipped: %s" % (k[8:], run[k]))
    db.execute("COMMIT")
    if (run.get("journal_mode") or "").lower() == "wal":
        db.execute("PRAGMA journal_mode = WAL")
    return notes, stats


def cmd_dump_runs(r, runs, out):
    os.makedirs(out, exist_ok=True)
    total = {"rows": 0, "dups": 0}
    for run in runs:
        path, st, notes = dump_run(r, run, out)
        total["rows"] += st["rows"]
        total["dups"] += st["dups"]
        print("%s  host %s  %d rows, %d duplicates removed: %s" % (
            run["run"], run["host"], st["rows"], st["dups"], path))
        for n in notes:
            print("  %s" % n, file=sys.stderr)
    print("%d run(s), %d rows, %d duplicates removed, in %s" % (
        len(runs), total["rows"], total["dups"], out))
