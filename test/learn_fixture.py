#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Write run files with tcp_conn_outcomes rows, for bpftune-telemetry learn.

usage: learn_fixture.py DDL_FILE OUT_DIR [RUNS_PER_CATEGORY [CC,...]]

DDL_FILE is the schema as `build/bin/telemetry-schema --sql` prints it.
Three workload categories (the runs' labels): lan (short RTT, no loss:
cubic is cheapest), lossy (2 % retransmitted: bbr) and longrtt (60 ms:
htcp), each with RUNS_PER_CATEGORY runs (default 2) of 4 destinations that
every algorithm was tried on in turn, as exploration would.  CC,...: the
algorithms tried (default cubic,bbr,htcp; without htcp, longrtt's cheapest
is bbr).  Deterministic: a fixed seed.
"""

import os
import random
import sqlite3
import sys
import uuid

# category: (srtt_us, retrans per mille, rate bytes/s, {cc: mean cost})
KINDS = {
    "lan": (200, 0, 900000000, {"cubic": 0.05, "bbr": 0.30, "htcp": 0.20}),
    "lossy": (5000, 20, 20000000, {"cubic": 1.50, "bbr": 0.10, "htcp": 1.20}),
    "longrtt": (60000, 1, 60000000, {"cubic": 0.60, "bbr": 0.40, "htcp": 0.15}),
}
CCS = ("cubic", "bbr", "htcp")


def insert(db, table, row):
    cols = list(row)
    db.execute('INSERT INTO "%s" (%s) VALUES (%s)' % (
        table, ", ".join(cols), ", ".join("?" * len(cols))), [row[c] for c in cols])


def make_run(ddl, out, cat, index, rng, ccs):
    run_id = str(uuid.UUID(int=rng.getrandbits(128)))
    host = "learn-fixture"
    db = sqlite3.connect(os.path.join(out, "%s-%d.db" % (cat, index)))
    db.executescript(ddl)
    common = {"run_id": run_id, "host_id": host}
    insert(db, "meta", {"key": "run_id", "value": run_id})
    insert(db, "runs", dict(common, seq=1, ts_uptime_us=1000, label=cat,
                            tuners="tcp_conn", daemon_version="fixture"))
    srtt, pm, rate, costs = KINDS[cat]
    seq, ts = 2, 2000
    for d in range(4):
        dest = "10.%d.%d.%d/32" % (len(cat), index, d + 1)
        for i in range(15):
            cc = ccs[i % len(ccs)]
            segs = 1000 + rng.randrange(500)
            insert(db, "tcp_conn_outcomes", dict(
                common, seq=seq, ts_uptime_us=ts, netns_cookie=4096 + index,
                family=4, dest=dest, choice="explore", cc=cc,
                srtt_us=int(srtt * rng.uniform(0.8, 1.2)),
                min_rtt_us=int(srtt * 0.7), delivery_rate=int(rate * rng.uniform(0.7, 1.3)),
                bytes_acked=segs * 1448, segs_out=segs, retrans=segs * pm // 1000,
                duration_us=100000, ecn=0, lossy=0,
                cost=max(0.0, costs[cc] + rng.uniform(-0.05, 0.05)), outcomes=i + 1))
            seq += 1
            ts += 1000
    db.commit()
    db.close()


def main():
    if len(sys.argv) not in (3, 4, 5):
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        ddl = f.read()
    os.makedirs(sys.argv[2], exist_ok=True)
    runs = int(sys.argv[3]) if len(sys.argv) >= 4 else 2
    ccs = sys.argv[4].split(",") if len(sys.argv) == 5 else CCS
    if set(ccs) - set(CCS) or len(ccs) < 2:
        sys.exit("learn_fixture: CC,... are two or more of %s" % ",".join(CCS))
    rng = random.Random(42)
    for cat in sorted(KINDS):
        for i in range(runs):
            make_run(ddl, sys.argv[2], cat, i, rng, ccs)


if __name__ == "__main__":
    main()
