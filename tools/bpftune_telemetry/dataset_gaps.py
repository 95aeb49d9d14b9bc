# SPDX-License-Identifier: GPL-2.0-only
"""Where a trace lost events: gaps.csv of the sched formats.

The sched collector counts lost events per CPU (sched_stats.lost_ringbuf,
lost_writer, cumulative) and writes a row per CPU every sample interval,
so a loss is located to the interval between two rows of its CPU: the
counters grew from one row to the next.  Each such interval is a gap:

  trace_id, cpu, start, end (seconds since boot, 6 decimals: the two
  rows' times; the first row of a CPU starts from the run's start),
  lost_ringbuf, lost_writer, lost_events (their sum)

A switch row of the trace whose time is within a gap, on any CPU, may
follow dropped switches: its time_diff can span a hole (time_diff is
taken across the trace's CPUs).  bpftune_telemetry.load marks those rows
(`in_gap`).  Resolution: the sample interval (--sample-interval).
"""

import csv

from .common import connect, tables_of

COLUMNS = ("trace_id", "cpu", "start", "end", "lost_ringbuf", "lost_writer", "lost_events")


def run_gaps(path, run):
    """[(cpu, start_us, end_us, lost_ringbuf, lost_writer)] of a run."""
    db = connect(path)
    try:
        if "sched_stats" not in tables_of(db):
            return []
        rows = db.execute("SELECT cpu, ts_uptime_us, coalesce(lost_ringbuf, 0), "
                          "coalesce(lost_writer, 0) FROM sched_stats WHERE run_id = ? "
                          "ORDER BY cpu, ts_uptime_us, seq", (run["run_id"],)).fetchall()
    finally:
        db.close()
    gaps = []
    last = {}
    for cpu, ts, rb, wr in rows:
        t0, rb0, wr0 = last.get(cpu, (run["ts_uptime_us"], 0, 0))
        if rb > rb0 or wr > wr0:
            gaps.append((cpu, t0, ts, max(rb - rb0, 0), max(wr - wr0, 0)))
        last[cpu] = (ts, rb, wr)
    return gaps


def part_gaps(part):
    """The gaps of a part of a run (a time slice keeps those it overlaps)."""
    out = []
    for cpu, t0, t1, rb, wr in run_gaps(part.run["_file"], part.run):
        if part.lo_us is not None and t1 * 1000 < part.lo_us:
            continue
        if part.hi_us is not None and t0 * 1000 >= part.hi_us:
            continue
        out.append((cpu, t0, t1, rb, wr))
    return out


def us_seconds(us):
    return "%d.%06d" % divmod(us, 10 ** 6)


def write_gaps(path, parts):
    """gaps.csv of a split; {trace_id: number of gaps} of its traces."""
    count = {}
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(COLUMNS)
        for p in sorted(parts, key=lambda p: p.trace_id):
            gaps = part_gaps(p)
            count[p.trace_id] = len(gaps)
            for cpu, t0, t1, rb, wr in gaps:
                w.writerow((p.trace_id, cpu, us_seconds(t0), us_seconds(t1), rb, wr, rb + wr))
    return count
