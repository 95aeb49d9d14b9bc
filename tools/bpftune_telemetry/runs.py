# SPDX-License-Identifier: GPL-2.0-only
"""runs: list the runs found."""

from .common import Sources


# ---- runs ---------------------------------------------------------------------

def cmd_runs(args):
    src = Sources(args.sources)
    for r in src.runs:
        dur = ("%.1fs" % ((r["end_ts_uptime_us"] - r["ts_uptime_us"]) / 1e6)
               if r.get("end_ts_uptime_us") else "no clean exit")
        print("%s  %-20s %-14s %s  %s  %s" % (
            r["run_id"], r.get("label") or "-", r.get("start_wall") or "",
            dur, r.get("tuners") or "", r["_file"]))
