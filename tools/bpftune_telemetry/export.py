# SPDX-License-Identifier: GPL-2.0-only
"""export: one CSV per table, all runs merged."""

import os

from .common import Sources, die, write_csv


# ---- export -------------------------------------------------------------------

def cmd_export(args):
    if not args.csv:
        die("export: --csv DIR is the only format")
    src = Sources(args.sources)
    os.makedirs(args.csv, exist_ok=True)
    for t in src.tables:
        n = write_csv(os.path.join(args.csv, t + ".csv"), src.columns[t], src.rows(t))
        print("%-16s %8d rows" % (t, n))
    print("%d run(s) from %d file(s) -> %s" % (len(src.runs), len(src.files), args.csv))
