#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Write telemetry files like the daemon's, for the offline tool tests.

usage: telemetry_fixture.py [--decl JSON] [--widget] [--legacy]
                            DDL_FILE OUT_DIR LABEL:RUNS...

DDL_FILE is the schema as `build/bin/telemetry-schema --sql` prints it (the
daemon's own DDL, so the fixture cannot drift from it).  Each run gets its
own file with a runs row, a tuner, a tunable, events, decisions (one of
them a no-op; with --decl also their typed inputs, decisions_<tuner>_<policy>,
and the outcomes of two of them, outcomes_<tuner>_<policy>),
one change, samples and health, all with run_id, host_id,
seq and ts_uptime_us.  Deterministic: run ids come from a fixed seed.
--decl JSON: the declarations as `telemetry-schema --json` prints them go
into telemetry_tables and telemetry_columns, as the daemon writes them.
--widget: a table of a plugin no tool has code for, widget_stats, declared
in the file.  --legacy: a schema version 2 file (no declaration tables).
"""

import json
import os
import random
import re
import sqlite3
import sys
import uuid


def columns(db, table):
    return [r[1] for r in db.execute('PRAGMA table_info("%s")' % table)]


def insert(db, table, common, seq, ts, **values):
    row = dict(common, seq=seq, ts_uptime_us=ts, **values)
    cols = [c for c in columns(db, table) if c in row]
    unknown = set(values) - set(columns(db, table))
    if unknown:
        sys.exit("fixture: %s has no column %s" % (table, ", ".join(sorted(unknown))))
    db.execute('INSERT INTO "%s" (%s) VALUES (%s)' % (
        table, ", ".join(cols), ", ".join("?" * len(cols))), [row[c] for c in cols])


WIDGET = {
    "table_name": "widget_stats", "owner": "widget", "sampled": 1, "per_netns": 1,
    "description": "a plugin's table that no tool has code for",
    "columns": [
        {"name": n, "type": t, "kind": k, "draw": d, "unit": u, "description": n,
         "source": "row", "machine_wide": 0, "overview": o, "not_null": 0}
        for n, t, k, d, u, o in (
            ("run_id", "TEXT", None, None, None, 0),
            ("host_id", "TEXT", None, None, None, 0),
            ("seq", "INTEGER", None, None, None, 0),
            ("ts_uptime_us", "INTEGER", None, None, "us", 0),
            ("netns_cookie", "INTEGER", "label", None, None, 0),
            ("spins", "INTEGER", "counter", "rate", "spins", 1),
            ("temperature", "REAL", "gauge", "value", "C", 0),
            ("latency_us", "INTEGER", "distribution", "cdf", "us", 0),
            ("widget", "TEXT", "label", None, None, 0))],
}


def declare(db, c, decl, start):
    """telemetry_tables and telemetry_columns rows, as the daemon writes them"""
    for i, t in enumerate(decl):
        insert(db, "telemetry_tables", c, i + 1, start, table_name=t["table_name"],
               owner=t["owner"], description=t["description"], sampled=t["sampled"],
               per_netns=t["per_netns"], num_columns=len(t["columns"]))
    seq = 0
    for t in decl:
        for pos, col in enumerate(t["columns"]):
            seq += 1
            insert(db, "telemetry_columns", c, seq, start, table_name=t["table_name"],
                   position=pos, column_name=col["name"], type=col["type"],
                   kind=col["kind"], draw=col["draw"], unit=col["unit"],
                   description=col["description"], source=col["source"],
                   machine_wide=col["machine_wide"], overview=col["overview"],
                   not_null=col["not_null"])


def widget_rows(db, c, start):
    types = {col["name"]: col["type"] for col in WIDGET["columns"]}
    db.execute("CREATE TABLE widget_stats (%s)" % ", ".join(
        "%s %s" % (n, t) for n, t in types.items()))
    seq = 0
    for i in range(20):
        for cookie in (0, 8192):
            seq += 1
            insert(db, "widget_stats", c, seq, start + i * 500_000 + cookie,
                   netns_cookie=cookie, spins=i * i * (3 if cookie else 1),
                   temperature=40.0 + (i % 7) + cookie / 8192,
                   latency_us=(i * 37) % 101 + (50 if cookie else 0), widget="w%d" % cookie)


def typed_decisions(db, c, i, ts, index):
    """The typed inputs of decision @i (the sample tuner's), and one of
    tcp_buffer's grow-near-limit, as the daemon writes them."""
    insert(db, "decisions_sample_raise_to_request", c, i, ts + 10, netns_cookie=4096,
           decision_seq=i, event_seq=i, scenario="listen backlog truncated",
           tunable="net.core.somaxconn", decided="raise", backlog=1000 * i,
           somaxconn=128 if i == 1 else 2048)
    insert(db, "decisions", c, 10 + i, ts + 11, tuner_id=1, tuner="tcp_buffer",
           scenario_id=0, policy="grow-near-limit", action="raise" if i < 3 else "none: at the cap",
           inputs="buffer=%d" % (6 << 20), tunable_index=0, tunable="net.ipv4.tcp_rmem")
    insert(db, "decisions_tcp_buffer_grow_near_limit", c, i, ts + 11, netns_cookie=0,
           decision_seq=10 + i, scenario="rmem near max", tunable="net.ipv4.tcp_rmem",
           decided="raise" if i < 3 else "none: at the cap", buffer=(6 << 20) - i,
           event_max=6 << 20, live_max=6 << 20, rtt_us=100 * i + index,
           rate_kbps=1000 * i, tcp_pages=50, tcp_mem1=1000, pressure=0)
    outcomes(db, c, i, ts, index)


def outcomes(db, c, i, ts, index):
    """Their outcomes at the horizon: none for the last decision (the
    daemon stopped first), no before-rate for the first (no earlier
    reading)."""
    if i == 3:
        return
    before = None if i == 1 else 2.0 * i
    reward = None if before is None else -(0.5 * i - before) / before / 2
    insert(db, "outcomes_sample_raise_to_request", c, i, ts + 5_000_010, netns_cookie=4096,
           decision_seq=i, decided="raise", propensity=1.0, observed=index % 2,
           horizon_ms=5000, after_ms=5000, before_ms=None if i == 1 else 1000,
           listen_overflows_before=before, listen_overflows_after=0.5 * i,
           listen_drops_before=None if i == 1 else 0.0, listen_drops_after=0.0,
           reward=reward)
    insert(db, "outcomes_tcp_buffer_grow_near_limit", c, i, ts + 10_000_011, netns_cookie=0,
           decision_seq=10 + i, decided="raise", propensity=1.0, observed=0,
           horizon_ms=10000, after_ms=10001, before_ms=1000, rx_bytes_before=1e6,
           rx_bytes_after=2e6, tx_bytes_before=0.0, tx_bytes_after=0.0,
           retrans_segs_before=1.0, retrans_segs_after=1.0, rcvq_drops_before=0.0,
           rcvq_drops_after=0.0, srtt_mean_us_before=200.0, srtt_mean_us_after=250.0,
           reward=0.06)


def make_run(ddl, out, label, index, rng, opts):
    run_id = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    host = "%032x" % rng.getrandbits(128)
    start = 1_000_000_000 + index * 100_000_000
    path = os.path.join(out, "20250101T%06dZ-%s.db" % (index, run_id))
    db = sqlite3.connect(path)
    db.executescript(ddl)
    c = {"run_id": run_id, "host_id": host}
    version = int(re.search(r"schema version (\d+)", ddl).group(1))
    if opts.get("legacy"):
        version = 2
        db.execute("DROP TABLE telemetry_tables")
        db.execute("DROP TABLE telemetry_columns")
        for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND "
                               "(name = 'sample_listen' OR name LIKE 'decisions\\_%' ESCAPE '\\')"
                               ).fetchall():
            db.execute('DROP TABLE "%s"' % t)
    for k, v in (("schema_version", str(version)), ("run_id", run_id), ("host_id", host)):
        db.execute("INSERT INTO meta (key, value) VALUES (?, ?)", (k, v))
    decl = list(opts.get("decl") or [])
    if opts.get("widget"):
        decl.append(WIDGET)
        widget_rows(db, c, start)
    if decl and not opts.get("legacy"):
        declare(db, c, decl, start)
    insert(db, "runs", c, 1, start, label=label, schema_version=version,
           end_ts_uptime_us=start + 10_000_000, exit_status=0, tuners="sample",
           kernel_release="6.1.0-test", support_mode="full", learning_rate=4,
           observe_only=0, sample_interval_ms=1000, daemon_version="0.1.0")
    insert(db, "tuners", c, 1, start + 1, tuner_id=0, tuner="sample", num_tunables=1)
    insert(db, "tunables", c, 1, start + 2, tuner_id=0, tuner="sample", tunable_index=0,
           tunable="net.core.somaxconn", num_values=1, min=128, max=65535,
           initial_values="128", initial_0=128, read_errno=0)
    insert(db, "states", c, 1, start + 3, tuner_id=0, tuner="sample", netns_cookie=0,
           state="ACTIVE", cause="started")
    value = 128
    for i in range(1, 4):
        ts = start + i * 1_000_000
        insert(db, "events", c, i, ts, tuner_id=0, tuner="sample", scenario_id=0,
               scenario="listen backlog truncated", netns_cookie=4096, pid=100 + i,
               comm="python3", payload_len=8, payload_hex="00080000%02x000000" % i)
        insert(db, "decisions", c, i, ts + 10, event_seq=i, tuner_id=0, tuner="sample",
               scenario_id=0, policy="raise-to-request",
               inputs="backlog=%d somaxconn=%d" % (1000 * i, 128 if i == 1 else 2048),
               action="raise", tunable_index=0, tunable="net.core.somaxconn")
        if opts.get("decl") and not opts.get("legacy"):
            typed_decisions(db, c, i, ts, index)
        if i == 1:
            insert(db, "changes", c, 1, ts + 20, decision_seq=1, event_seq=1, tuner_id=0,
                   tuner="sample", scenario_id=0, tunable_index=0,
                   tunable="net.core.somaxconn", netns_cookie=4096, num_values=1,
                   old_values=str(value), new_values="2048", old_0=value, new_0=2048,
                   reason="fixture", errno=0, applied=1, rollback=0)
        # per-netns tables: the daemon's netns (0), then another one
        for t in ("samples_tcp", "samples_udp"):
            for k, cookie in enumerate((0, 4096)):
                extra = {"samples_tcp": {"retrans_segs": 10 * i + index, "listen_overflows": i,
                                         "srtt_n": 2 * k, "srtt_mean_us": 150.0 * k or None,
                                         "srtt_max_us": 200 * k or None},
                         "samples_udp": {"rcvbuf_errors": i}}[t]
                insert(db, t, c, 2 * i - 1 + k, ts + 30 + k, netns_cookie=cookie, **extra)
        insert(db, "samples_system", c, i, ts + 30, load1=0.5 * i, mem_available_kb=1000 - i)
        if not opts.get("legacy"):
            insert(db, "sample_listen", c, i, ts, netns_cookie=4096, pid=100 + i,
                   comm="python3", backlog=1000 * i, somaxconn=128 if i == 1 else 2048)
        insert(db, "health", c, i, ts + 40, ringbuf_lost=0, events_seen=i, rows_dropped=0)
    db.commit()
    db.execute("PRAGMA user_version = %d" % version)
    db.close()


def main():
    args = sys.argv[1:]
    opts = {}
    while args and args[0].startswith("--"):
        flag = args.pop(0)
        if flag == "--decl":
            opts["decl"] = json.load(open(args.pop(0)))["tables"]
        else:
            opts[flag[2:]] = True
    if len(args) < 3:
        sys.exit(__doc__)
    ddl = open(args[0]).read()
    out = args[1]
    os.makedirs(out, exist_ok=True)
    rng = random.Random(4242)
    index = 0
    for spec in args[2:]:
        label, runs = spec.rsplit(":", 1)
        for _ in range(int(runs)):
            make_run(ddl, out, label, index, rng, opts)
            index += 1


if __name__ == "__main__":
    main()
