#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Compare the SQL blocks of docs with the declarations.

usage: docs_sql_check.py SCHEMA_SQL DOC.md...

SCHEMA_SQL is `telemetry-schema --sql` (the DDL the daemon runs, from the
declarations).  Every CREATE TABLE in a ```sql block of a doc must name a
declared table and list its columns in the declared order, with the
declared types and NOT NULL exactly where the declaration has it.  A
markdown table under a heading that names a declared table ("### t")
with a type column must give each column it names the declared type.
Prints one line per difference and exits 1 if there is any; prints what
it compared otherwise.
"""

import re
import sys

CREATE = re.compile(r"CREATE TABLE (?:IF NOT EXISTS )?(\w+) \((.*?)\);", re.S)
TYPES = {"INTEGER", "TEXT", "REAL", "BLOB"}


def columns(body):
    """[(name, type, not_null)] of a CREATE TABLE body."""
    out = []
    for c in body.split(","):
        words = c.split()
        if not words:
            continue
        out.append((words[0], words[1] if len(words) > 1 else "",
                    " ".join(words[2:]).upper() == "NOT NULL"))
    return out


def declared(path):
    return {m.group(1): columns(m.group(2)) for m in CREATE.finditer(open(path).read())}


def sql_blocks(doc):
    return re.findall(r"^```sql\n(.*?)^```", doc, re.S | re.M)


def check_block(name, decl, errors, where):
    tables = 0
    for block in sql_blocks(open(where).read()):
        for m in CREATE.finditer(block):
            tables += 1
            t, doc_cols = m.group(1), columns(m.group(2))
            if t not in decl:
                errors.append("%s: %s: no such declared table" % (where, t))
                continue
            if [c[0] for c in doc_cols] != [c[0] for c in decl[t]]:
                errors.append("%s: %s: columns %s, declared %s" % (
                    where, t, [c[0] for c in doc_cols], [c[0] for c in decl[t]]))
                continue
            for d, c in zip(doc_cols, decl[t]):
                if d[1] != c[1]:
                    errors.append("%s: %s.%s: type %s, declared %s" % (where, t, d[0], d[1], c[1]))
                if d[2] != c[2]:
                    errors.append("%s: %s.%s: %s in the doc, %s in the declaration" % (
                        where, t, d[0], "NOT NULL" if d[2] else "NULL allowed",
                        "NOT NULL" if c[2] else "NULL allowed"))
    return tables


def check_md_tables(decl, errors, where):
    """Type columns of markdown tables under a heading naming a table."""
    rows = 0
    table = None
    for line in open(where):
        h = re.match(r"#+ `?(\w+)`?\s*$", line)
        if h:
            table = h.group(1) if h.group(1) in decl else None
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if table is None or not line.startswith("|") or len(cells) < 2 or \
                cells[1] not in TYPES:
            continue
        types = {c[0]: c[1] for c in decl[table]}
        for name in re.findall(r"`(\w+)`", cells[0]):
            rows += 1
            if name not in types:
                errors.append("%s: %s.%s: no such declared column" % (where, table, name))
            elif types[name] != cells[1]:
                errors.append("%s: %s.%s: type %s, declared %s" % (
                    where, table, name, cells[1], types[name]))
    return rows


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    decl = declared(sys.argv[1])
    errors = []
    for doc in sys.argv[2:]:
        n = check_block(doc, decl, errors, doc)
        m = check_md_tables(decl, errors, doc)
        print("%s: %d CREATE TABLE block(s), %d typed column row(s) compared" % (doc, n, m))
    for e in errors:
        print(e)
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
