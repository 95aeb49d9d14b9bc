# SPDX-License-Identifier: GPL-2.0-only
"""Where a trace lost events: gaps.csv of the sched formats.

The sched collector writes a row of sched_gaps per run of a CPU's dropped
events: the times of the first and the last event dropped and how many
(lost_in: ringbuf or writer).  Each is a gap, to the event (start floored,
end ceiled to the microsecond).  Run files of a collector without
sched_gaps locate a loss to the sample interval instead: the collector
counts lost events per CPU (sched_stats.lost_ringbuf, lost_writer,
cumulative) every interval, and a gap is the interval between two rows of
a CPU whose counters grew.  Either way a gap is:

  trace_id, cpu, start, end (seconds since boot, 6 decimals: the two
  rows' times; the first row of a CPU starts from the run's start),
  lost_ringbuf, lost_writer, lost_events (their sum)

A switch row of the trace whose time is within a gap, on any CPU, may
follow dropped switches: its time_diff can span a hole (time_diff is
taken across the trace's CPUs).  bpftune_telemetry.load marks those rows
(`in_gap`): the rows whose time_diff overlaps a gap.
"""

import csv

from .common import connect, tables_of

COLUMNS = ("trace_id", "cpu", "start", "end", "lost_ringbuf", "lost_writer", "lost_events")


def exact_gaps(db, run):
    """The run's sched_gaps rows as gaps, in time order."""
    out = []
    for cpu, t0, t1, n, where in db.execute(
            "SELECT cpu, start_ns, end_ns, dropped, lost_in FROM sched_gaps "
            "WHERE run_id = ? ORDER BY start_ns, cpu", (run["run_id"],)):
        rb, wr = (n, 0) if where == "ringbuf" else (0, n)
        out.append((cpu, t0 // 1000, -(-t1 // 1000), rb, wr))
    return out


def interval_gaps(db, run):
    """The run's losses located by its sched_stats rows, per CPU."""
    rows = db.execute("SELECT cpu, ts_uptime_us, coalesce(lost_ringbuf, 0), "
                      "coalesce(lost_writer, 0) FROM sched_stats WHERE run_id = ? "
                      "ORDER BY cpu, ts_uptime_us, seq", (run["run_id"],)).fetchall()
    gaps = []
    last = {}
    for cpu, ts, rb, wr in rows:
        t0, rb0, wr0 = last.get(cpu, (run["ts_uptime_us"], 0, 0))
        if rb > rb0 or wr > wr0:
            gaps.append((cpu, t0, ts, max(rb - rb0, 0), max(wr - wr0, 0)))
        last[cpu] = (ts, rb, wr)
    return gaps


def run_gaps_of(path, run):
    """([(cpu, start_us, end_us, lost_ringbuf, lost_writer)], exact) of a
    run: its sched_gaps rows if it has any, or if it lost nothing (exact);
    else the sample intervals in which its counters grew (a run file of a
    collector before sched_gaps, whose table may exist and stay empty)."""
    db = connect(path)
    try:
        have = tables_of(db)
        exact = exact_gaps(db, run) if "sched_gaps" in have else []
        counted = interval_gaps(db, run) if "sched_stats" in have else []
    finally:
        db.close()
    if exact or ("sched_gaps" in have and not counted):
        return exact, True
    return counted, False


def run_gaps(path, run):
    """[(cpu, start_us, end_us, lost_ringbuf, lost_writer)] of a run."""
    return run_gaps_of(path, run)[0]


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


def gaps_exact(parts):
    """{trace_id: True if its gaps are located to the event}."""
    return {p.trace_id: run_gaps_of(p.run["_file"], p.run)[1] for p in parts}


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
