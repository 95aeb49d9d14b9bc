#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Damage one page of a run file, deterministically, for the fault tests.

usage: fleet_damage.py FILE TABLE root|leaf|truncate
       fleet_damage.py FILE - header

root      overwrite TABLE's root page (an interior page once it has more
          than one leaf) with garbage: its row range cannot be read
leaf      overwrite the middle leaf page of TABLE (a child of the root)
truncate  cut the file at the start of that leaf page
header    overwrite the page-size and file-format bytes of the header

The pages are found from the file, not guessed: TABLE's root page number
is sqlite_master's rootpage, and its children are read from the b-tree
interior page itself (SQLite's file format, section 1.6), so this works
without the dbstat virtual table.  Prints what it did.
"""

import sqlite3
import struct
import sys

GARBAGE = bytes((i * 131 + 7) & 0xff for i in range(65536))


def page(f, size, n):
    f.seek((n - 1) * size)
    return f.read(size)


def children(data, n):
    """child page numbers of interior table page n, in key order"""
    off = 100 if n == 1 else 0
    if data[off] != 0x05:
        sys.exit("page %d is not an interior table page (type %d)" % (n, data[off]))
    cells = struct.unpack(">H", data[off + 3:off + 5])[0]
    out = []
    for i in range(cells):
        ptr = struct.unpack(">H", data[off + 12 + 2 * i:off + 14 + 2 * i])[0]
        out.append(struct.unpack(">I", data[ptr:ptr + 4])[0])
    out.append(struct.unpack(">I", data[off + 8:off + 12])[0])
    return out


def main():
    path, table, what = sys.argv[1:4]
    # every transaction into the file itself; closing the last connection
    # removes the -wal and -shm (a read-only one would leave them)
    db = sqlite3.connect(path)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    size = db.execute("PRAGMA page_size").fetchone()[0]
    if what == "header":
        db.close()
        with open(path, "r+b") as f:
            f.seek(16)
            f.write(b"\x00\x03\x07\x07")    # page size 3, versions 7
        print("header: page size and versions overwritten")
        return
    root = db.execute("SELECT rootpage FROM sqlite_master WHERE type = 'table' AND name = ?",
                      (table,)).fetchone()[0]
    db.close()
    with open(path, "r+b") as f:
        kids = children(page(f, size, root), root)
        leaf = kids[len(kids) // 2]
        if page(f, size, leaf)[0] != 0x0d:
            sys.exit("page %d is not a leaf table page" % leaf)
        if what == "truncate":
            f.truncate((leaf - 1) * size)
            print("truncated at page %d of %s (a leaf of %d)" % (leaf, table, root))
            return
        n = root if what == "root" else leaf
        f.seek((n - 1) * size)
        f.write(GARBAGE[:size])
        print("page %d (%s of %s, %d leaves) overwritten" % (n, what, table, len(kids)))


main()
