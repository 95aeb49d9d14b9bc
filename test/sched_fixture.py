#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""FIXTURE: add sched collector tables to run files, for the dataset tests.

usage: sched_fixture.py COLLECTORS_MD RUN_FILE_OR_DIR... [--events N] [--except LABEL,...]
                        [--no-gaps]

Writes the tables the sched collector (src/collectors/sched/)
writes -- created from the SQL blocks of docs/collectors.md, which
test/telemetry_tools.bats compares with the collector's declarations --
with made-up events, for offline tests that need no kernel.  Per run: N events (default 300) spread over the
run's span on 2 CPUs, switches with every prev_state letter, wakeups,
wakeup_news and migrations; timestamps in nanoseconds (not multiples of
1000); rows written in per-CPU batches, so seq order is not time order
(as the collector's batching does); sched_stats rows per CPU per
second with the counts and a few lost events: one lost_ringbuf on each CPU
every 3 s, one lost_writer on CPU 1 every 5 s, each located by a row of
sched_gaps (a gap of one event, a millisecond before the stats row that
first counts it).  --no-gaps: no sched_gaps table (a run file of a
collector before it, whose losses the tools locate by sched_stats
alone).  Deterministic: the random
generator is seeded with the run id.  Runs whose label is listed after
--except get no tables.
"""

import random
import re
import sqlite3
import sys
import os

STATES = "RRRSSSSDDTtXZPI"
TASKS = {"hackbench": ["hackbench"], "sysbench": ["sysbench"], "cpu_bound": ["python3"],
         "io_mixed": ["dd", "python3", "jbd2/vda-8"], "iperf3": ["iperf3"]}


def ddl(doc, table):
    m = re.search(r"```sql\n(CREATE TABLE %s \(.*?\);)\n```" % table, doc, re.S)
    if not m:
        sys.exit("fixture: no CREATE TABLE %s block in the collectors doc" % table)
    # a run file of a daemon that had the sched collector holds them already
    return m.group(1).replace("CREATE TABLE ", "CREATE TABLE IF NOT EXISTS ", 1)


def tasks_of(label):
    for k, v in TASKS.items():
        if label.startswith(k):
            return v
    return [label[:15]]


def make_events(rng, label, start_ns, end_ns, n):
    """[(ts_ns, cpu, event, fields)] in time order per CPU."""
    names = tasks_of(label) + ["kworker/0:1", "ksoftirqd/1"]
    pids = {name: 1000 + i * 10 for i, name in enumerate(names)}
    running = {0: ("swapper/0", 0), 1: ("swapper/1", 0)}
    step = (end_ns - start_ns) // (n + 1)
    out = []
    for i in range(n):
        ts = start_ns + (i + 1) * step + rng.randrange(1, 999)
        cpu = rng.randrange(2)
        name = rng.choice(names)
        pid = pids[name] + rng.randrange(3)
        kind = rng.choice(["switch"] * 6 + ["wakeup", "wakeup", "wakeup_new", "migrate"])
        if kind == "switch":
            if rng.random() < 0.15:
                name, pid = "swapper/%d" % cpu, 0
            prev, prev_pid = running[cpu]
            state = "R" if prev.startswith("swapper") else STATES[i % len(STATES)]
            f = dict(pid=pid, comm=name, prio=120, prev_pid=prev_pid, prev_comm=prev,
                     prev_prio=120, prev_state=state,
                     preempt=int(state == "R" and i % 2 == 0))
            running[cpu] = (name, pid)
        elif kind == "migrate":
            f = dict(pid=pid, comm=name, prio=120, orig_cpu=1 - cpu, dest_cpu=cpu)
        else:
            f = dict(pid=pid, comm=name, prio=120, target_cpu=rng.randrange(2))
        out.append((ts, cpu, kind, f))
    return out


def add_tables(path, doc, n, skip, gaps):
    db = sqlite3.connect(path)
    run_id, host_id, label, start_us, end_us = db.execute(
        "SELECT run_id, host_id, label, ts_uptime_us, end_ts_uptime_us FROM runs").fetchone()
    if label in skip:
        db.close()
        return
    rng = random.Random(run_id)
    db.execute(ddl(doc, "sched_events"))
    db.execute(ddl(doc, "sched_stats"))
    if gaps:
        db.execute(ddl(doc, "sched_gaps"))
    events = make_events(rng, label, start_us * 1000, (end_us or start_us + 10**7) * 1000, n)
    seq = 0
    # per-CPU batches of 16: write order is not time order
    batches = {}
    for ev in events:
        batches.setdefault(ev[1], []).append(ev)
    order = []
    for cpu in sorted(batches):
        b = batches[cpu]
        order += [b[i:i + 16] for i in range(0, len(b), 16)]
    order.sort(key=lambda b: (b[-1][0], b[0][1]))
    for batch in order:
        for ts, cpu, kind, f in batch:
            seq += 1
            row = dict(run_id=run_id, host_id=host_id, seq=seq, ts_uptime_us=ts // 1000,
                       ts_ns=ts, cpu=cpu, event=kind, observer=0, **f)
            db.execute("INSERT INTO sched_events (%s) VALUES (%s)" % (
                ", ".join(row), ", ".join("?" * len(row))), list(row.values()))
    add_stats(db, run_id, host_id, events, start_us, end_us or start_us + 10**7, gaps)
    db.commit()
    db.close()


def add_gap(db, run_id, host_id, seq, cpu, t_us, where):
    """One dropped event of @cpu a millisecond before @t_us."""
    ts = (t_us - 1000) * 1000
    db.execute("INSERT INTO sched_gaps (run_id, host_id, seq, ts_uptime_us, cpu, start_ns, "
               "end_ns, dropped, lost_in) VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?)",
               (run_id, host_id, seq, ts // 1000, cpu, ts, ts, where))


def add_stats(db, run_id, host_id, events, start_us, end_us, gaps):
    seq = gseq = 0
    for sec in range(1, (end_us - start_us) // 10**6 + 1):
        t = start_us + sec * 10**6
        for cpu in (0, 1):
            for where, every in (("ringbuf", 3), ("writer", 5)):
                if gaps and sec % every == 0 and (cpu or where == "ringbuf"):
                    gseq += 1
                    add_gap(db, run_id, host_id, gseq, cpu, t, where)
            seen = [e for e in events if e[1] == cpu and e[0] // 1000 <= t]
            counts = {k: sum(1 for e in seen if e[2] == k)
                      for k in ("switch", "wakeup", "wakeup_new", "migrate")}
            seq += 1
            db.execute("INSERT INTO sched_stats (run_id, host_id, seq, ts_uptime_us, cpu, "
                       "events, switch, wakeup, wakeup_new, migrate, lost_ringbuf, "
                       "lost_writer) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       (run_id, host_id, seq, t, cpu, len(seen) + sec // 3, counts["switch"],
                        counts["wakeup"], counts["wakeup_new"], counts["migrate"], sec // 3,
                        sec // 5 if cpu else 0))


def main():
    args = sys.argv[1:]
    n, skip, gaps = 300, set(), True
    if "--no-gaps" in args:
        args.remove("--no-gaps")
        gaps = False
    if "--events" in args:
        i = args.index("--events")
        n = int(args[i + 1])
        del args[i:i + 2]
    if "--except" in args:
        i = args.index("--except")
        skip = set(args[i + 1].split(","))
        del args[i:i + 2]
    if len(args) < 2:
        sys.exit(__doc__)
    doc = open(args[0]).read()
    for src in args[1:]:
        files = ([os.path.join(src, f) for f in sorted(os.listdir(src)) if f.endswith(".db")]
                 if os.path.isdir(src) else [src])
        for f in files:
            add_tables(f, doc, n, skip, gaps)


if __name__ == "__main__":
    main()
