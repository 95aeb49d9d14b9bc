# SPDX-License-Identifier: GPL-2.0-only
"""export: one CSV per table, all runs merged; every row with its run's
label, category and trace_id."""

import os

from .common import Sources, die, give_back, make_dirs, write_csv


# ---- export -------------------------------------------------------------------

def cmd_export(args):
    if not args.csv:
        die("export: --csv DIR is the only format")
    src = Sources(args.sources)
    made = make_dirs(args.csv)
    written = []
    for t in src.tables:
        path = os.path.join(args.csv, t + ".csv")
        n = write_csv(path, src.csv_columns(t), src.csv_rows(t))
        written.append(path)
        print("%-16s %8d rows" % (t, n))
    give_back(made[:1] or written)
    print("%d run(s) from %d file(s) -> %s" % (len(src.runs), len(src.files), args.csv))
