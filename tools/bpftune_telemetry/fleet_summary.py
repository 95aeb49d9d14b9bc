# SPDX-License-Identifier: GPL-2.0-only
"""fleet summary: counts that accumulate across hosts (seed 002's "counts add up").

Each host's changes, states and health streams are read through the
consumer group "bpftune-summary", so several summaries (or other readers
with their own groups) can run, and each entry is counted once: the
counts and what has been counted (the newest rowid per run and table)
live in the host's summary hash and are updated together with the XACK
in one script on the host's shard.  Entries a crashed reader left
pending are claimed after a minute.  Read before trimming: an entry
trimmed unread is never counted.
"""

import os
import socket
from collections import defaultdict

from .fleet_dump import decode
from .fleet_redis import hash_of, hosts, key, print_json, s

GROUP = "bpftune-summary"
STREAMS = ("changes", "states", "health")
LOST = ("ringbuf_lost", "rows_dropped", "events_dropped")
CLAIM_IDLE_MS = 60000
COUNT = 2000
# KEYS: summary hash, streams.  ARGV: n, (field, incr)*, n, (field, value)*,
# then per stream: n, ids
COMMIT_LUA = """
local i = 2
for _ = 1, tonumber(ARGV[1]) do
  redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1]); i = i + 2
end
local n = tonumber(ARGV[i]); i = i + 1
for _ = 1, n do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]); i = i + 2
end
for k = 2, #KEYS do
  local ids = {}
  n = tonumber(ARGV[i]); i = i + 1
  for j = 1, n do ids[j] = ARGV[i]; i = i + 1 end
  if n > 0 then redis.call('XACK', KEYS[k], '%s', unpack(ids)) end
end
return 0
""" % GROUP


def ensure_groups(r, host):
    import redis
    names = []
    for t in STREAMS:
        k = key(host, "rows:", t)
        if not r.exists(k):
            continue
        try:
            r.xgroup_create(k, GROUP, id="0")
        except redis.exceptions.ResponseError as e:
            if "BUSYGROUP" not in str(e):
                raise
        names.append(k)
    return names


def row_of(fields, host):
    rid = s(fields.get(b"_r", b""))
    row = {}
    for k, v in fields.items():
        if k not in (b"_r", b"_i"):
            row[s(k)], _ = decode(v, rid, host)
    return rid, int(fields.get(b"_i", 0)), row


class Counter:
    """What one batch of entries adds to a host's summary hash."""

    def __init__(self, r, host):
        self.r, self.host = r, host
        self.summary = key(host, "summary")
        self.incr = defaultdict(int)
        self.set = {}
        self.acks = defaultdict(list)

    def seen(self, field):
        if field in self.set:
            return int(self.set[field])
        v = self.r.hget(self.summary, field)
        return int(v) if v else 0

    def entry(self, stream, eid, fields):
        self.acks[stream].append(eid)
        table = s(stream).rsplit(":", 1)[1]
        rid, rowid, row = row_of(fields, self.host)
        if table == "health":       # cumulative per run: count the increase
            for col in LOST:
                v = row.get(col)
                f = "max|%s|%s" % (rid, col)
                if isinstance(v, int) and v > self.seen(f):
                    self.incr["lost|" + col] += v - self.seen(f)
                    self.set[f] = v
            return
        f = "seen|%s|%s" % (rid, table)
        if rowid <= self.seen(f):
            return                  # shipped twice: counted already
        self.set[f] = rowid
        if table == "changes":
            name = "%s|%s" % (row.get("tuner") or "-", row.get("tunable") or "-")
            self.incr["changes|" + name] += 1
            if row.get("applied"):
                self.incr["applied|" + name] += 1
            if row.get("rollback"):
                self.incr["rollback|" + name] += 1
        elif table == "states" and row.get("state") == "MANUAL":
            self.incr["overrides|%s" % (row.get("tuner") or "-")] += 1

    def commit(self):
        """Counts, what was counted and the XACKs: all or nothing."""
        streams = list(self.acks)
        args = [len(self.incr)]
        for f, n in self.incr.items():
            args += [f, n]
        args.append(len(self.set))
        for f, v in self.set.items():
            args += [f, v]
        for st in streams:
            args.append(len(self.acks[st]))
            args += self.acks[st]
        # one script on the host's shard (a cluster has no MULTI across nodes)
        self.r.eval(COMMIT_LUA, 1 + len(streams), self.summary, *streams, *args)


def read_host(r, host, me):
    streams = ensure_groups(r, host)
    if not streams:
        return 0
    n = 0
    for k in streams:       # what a crashed reader left pending
        start = "0-0"
        while True:
            # claimed entries become ours: the "0" read below counts them
            res = r.xautoclaim(k, GROUP, me, CLAIM_IDLE_MS, start_id=start, count=COUNT)
            start = s(res[0])
            if start == "0-0":
                break
    for since in ("0", ">"):    # ours pending first, then new entries
        while True:
            got = r.xreadgroup(GROUP, me, {k: since for k in streams}, count=COUNT)
            entries = [(st, eid, f) for st, es in got for eid, f in es if f]
            if not entries:
                break
            c = Counter(r, host)
            for st, eid, f in entries:
                c.entry(st, eid, f)
            c.commit()
            n += len(entries)
    return n


def totals(r):
    out = {"hosts": 0, "runs": 0, "rows_shipped": 0, "changes": defaultdict(dict),
           "overrides": defaultdict(int), "lost": defaultdict(int)}
    for h in hosts(r):
        out["hosts"] += 1
        out["runs"] += r.zcard(key(h, "runs"))
        out["rows_shipped"] += sum(int(v) for f, v in hash_of(r, key(h, "host")).items()
                                   if f.startswith("rows."))
        for f, v in hash_of(r, key(h, "summary")).items():
            kind, _, name = f.partition("|")
            if kind in ("changes", "applied", "rollback"):
                c = out["changes"][name]
                c[kind] = c.get(kind, 0) + int(v)
            elif kind == "overrides":
                out["overrides"][name] += int(v)
            elif kind == "lost":
                out["lost"][name] += int(v)
    return out


def print_totals(t):
    print("%d host(s), %d run(s), %d rows shipped" % (t["hosts"], t["runs"], t["rows_shipped"]))
    by_tuner = defaultdict(lambda: defaultdict(int))
    for name, c in t["changes"].items():
        for k, v in c.items():
            by_tuner[name.split("|")[0]][k] += v
    print("\nchanges per tuner:            changes  applied  rollbacks")
    for tuner, c in sorted(by_tuner.items()):
        print("  %-26s %8d %8d %10d" % (tuner, c["changes"], c["applied"], c["rollback"]))
    print("\nchanges per tunable:")
    for name, c in sorted(t["changes"].items()):
        tuner, tunable = name.split("|", 1)
        print("  %-40s %-14s %8d %8d %10d" % (tunable, tuner, c.get("changes", 0),
                                            c.get("applied", 0), c.get("rollback", 0)))
    print("\noverrides (an admin took a tunable over: MANUAL):")
    for tuner, n in sorted(t["overrides"].items()):
        print("  %-26s %8d" % (tuner, n))
    if not t["overrides"]:
        print("  none")
    print("\nrows lost on the hosts: %d events in the ring buffer, %d rows dropped by the "
          "writer (%d of them events)" % (t["lost"]["ringbuf_lost"], t["lost"]["rows_dropped"],
                                          t["lost"]["events_dropped"]))


def cmd_summary(args, r):
    me = "%s-%d" % (socket.gethostname(), os.getpid())
    n = sum(read_host(r, h, me) for h in hosts(r))
    t = totals(r)
    if args.json:
        t["new_entries"] = n
        return print_json(t)
    print_totals(t)
    print("\n(%d new entries counted now)" % n)
