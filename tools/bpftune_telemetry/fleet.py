# SPDX-License-Identifier: GPL-2.0-only
"""fleet: the central side of the rows bpftune-ship streams into Redis.

  hosts                         every host: kernel, runs, last row, lag, rows
  job create ID --info TEXT     a job groups runs: those labelled ID or ID/...
  job list                      jobs, with the hosts and runs that arrived
  job remove ID                 the job's record (its rows stay)
  dump [--job ID | --host H | --run R] --out DIR
                                one SQLite file per run, as on its host
  summary                       counts accumulated across hosts
"""

import time

from .common import die
from .fleet_dump import cmd_dump_runs
from .fleet_redis import ID_RE, all_runs, connect, hash_of, hosts, job_of_label, key, \
    print_json, runs_of, s
from .fleet_summary import cmd_summary


def fmt_time(ms):
    if not ms:
        return "-"
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ms / 1000))


def last_row_ms(r, host, run):
    """Wall time of the newest row of @run: the runs row's start plus uptime."""
    newest, start = None, None
    for f in run:
        if not f.startswith("last."):
            continue
        e = r.xrange(key(host, "rows:", f[5:]), min=run[f], max=run[f])
        if e and b"ts_uptime_us" in e[0][1]:
            v = e[0][1][b"ts_uptime_us"]
            if v[:1].isdigit():
                newest = max(newest or 0, int(v))
    first = run.get("first.runs")
    if first:
        e = r.xrange(key(host, "rows:runs"), min=first, max=run.get("last.runs", first))
        for _, f in e:
            if f.get(b"_r") == run["run"].encode() and f.get(b"start_wall_us", b"")[:1].isdigit():
                start = (int(f[b"start_wall_us"]), int(f[b"ts_uptime_us"]))
    if newest is None or not start:
        return None
    return (start[0] + newest - start[1]) / 1000


def host_info(r, host):
    h = hash_of(r, key(host, "host"))
    runs = runs_of(r, host)
    last = max((last_row_ms(r, host, runs[-1]) or 0,) if runs else (0,))
    rows = {f[5:]: int(v) for f, v in h.items() if f.startswith("rows.")}
    return {
        "host": host, "kernel": h.get("kernel", ""), "runs": len(runs),
        "last_row": fmt_time(last), "seen": fmt_time(int(h.get("seen_ms", 0) or 0)),
        "pending_rows": int(h.get("pending", 0) or 0), "files": int(h.get("files", 0) or 0),
        "rows": rows, "refused": h.get("refused", ""),
    }


def cmd_hosts(args, r):
    infos = [host_info(r, h) for h in hosts(r)]
    if args.json:
        return print_json(infos)
    if not infos:
        print("no host has shipped yet")
        return
    print("%-34s %-22s %5s  %-20s  %-20s  %s" % ("HOST", "KERNEL", "RUNS", "LAST ROW",
                                              "SHIPPER SEEN", "LAG (rows)"))
    for i in infos:
        print("%-34s %-22s %5d  %-20s  %-20s  %d" % (
            i["host"], i["kernel"] or "-", i["runs"], i["last_row"], i["seen"],
            i["pending_rows"]))
        print("  rows: " + (", ".join("%s %d" % kv for kv in sorted(i["rows"].items()))
                            or "none"))
        if i["refused"]:
            print("  refused: " + i["refused"])


# ---- jobs ---------------------------------------------------------------------

def job_key(jid, suffix=""):
    return "bpftune:job:{%s}%s" % (jid, suffix)


def job_runs(r, jid, runs=None):
    """Runs labelled JOB or JOB/...: recorded in the job as they are found."""
    found = [run for run in (all_runs(r) if runs is None else runs)
             if job_of_label(run.get("label")) == jid]
    if found:
        r.sadd(job_key(jid, ":runs"), *["%s %s" % (x["host"], x["run"]) for x in found])
    return found


def check_id(jid):
    if not ID_RE.match(jid):
        die("job: the id must be 1-64 of A-Z a-z 0-9 . _ -, not '%s'" % jid)


def cmd_job(args, r):
    if args.action == "create":
        check_id(args.id)
        created = r.hsetnx(job_key(args.id), "id", args.id)
        if not created:
            die("job %s exists already" % args.id)
        r.hset(job_key(args.id), mapping={"info": args.info or "",
                                         "created": fmt_time(time.time() * 1000)})
        r.sadd("bpftune:jobs", args.id)
        print("job %s created: tag its runs with --label %s/NAME (or collect --job %s)"
              % (args.id, args.id, args.id))
    elif args.action == "remove":
        check_id(args.id)
        if not r.delete(job_key(args.id)):
            die("no job %s" % args.id)
        r.delete(job_key(args.id, ":runs"))
        r.srem("bpftune:jobs", args.id)
        print("job %s removed (its runs' rows stay in their hosts' streams)" % args.id)
    else:
        job_list(args, r)


def job_list(args, r):
    jobs = []
    ids = sorted(s(j) for j in r.smembers("bpftune:jobs"))
    every = list(all_runs(r)) if ids else []     # read once for all jobs
    for jid in ids:
        h = hash_of(r, job_key(jid))
        runs = job_runs(r, jid, every)
        jobs.append({"id": jid, "info": h.get("info", ""), "created": h.get("created", ""),
                     "hosts": sorted({x["host"] for x in runs}),
                     "runs": [{"host": x["host"], "run": x["run"], "label": x.get("label"),
                               "done": x.get("done") == "1"} for x in runs]})
    if args.json:
        return print_json(jobs)
    if not jobs:
        print("no jobs")
    for j in jobs:
        print("%s  %s  created %s: %d host(s), %d run(s)" % (
            j["id"], j["info"], j["created"], len(j["hosts"]), len(j["runs"])))
        for x in j["runs"]:
            print("  %s  %s  %s%s" % (x["host"], x["run"], x["label"],
                                       "" if x["done"] else "  (shipping)"))


# ---- dump -----------------------------------------------------------------------

def cmd_dump(args, r):
    if args.job:
        check_id(args.job)
        if not r.exists(job_key(args.job)):
            die("no job %s (fleet job list)" % args.job)
        runs = job_runs(r, args.job)
    else:
        runs = list(runs_of(r, args.host) if args.host else all_runs(r))
    if args.run:
        runs = [x for x in runs if x["run"].startswith(args.run)]
    if args.host:
        runs = [x for x in runs if x["host"] == args.host]
    if not runs:
        die("dump: no run matches")
    cmd_dump_runs(r, runs, args.out)


def cmd_fleet(args):
    r = connect(args.redis)
    {"hosts": cmd_hosts, "job": cmd_job, "dump": cmd_dump,
     "summary": cmd_summary}[args.fleet_cmd](args, r)


def add_parser(sub):
    p = sub.add_parser("fleet", help="the fleet's rows in Redis (bpftune-ship)")
    fsub = p.add_subparsers(dest="fleet_cmd", required=True)

    def sp(name, help):
        q = fsub.add_parser(name, help=help)
        q.add_argument("--redis", metavar="URL",
                       help="redis://[user:password@]host:port[/db] (default $BPFTUNE_REDIS)")
        return q

    q = sp("hosts", "every host seen: kernel, runs, last row, lag, rows per table")
    q.add_argument("--json", action="store_true")
    q = sp("job", "create, list or remove jobs")
    q.add_argument("action", choices=("create", "list", "remove"))
    q.add_argument("id", nargs="?")
    q.add_argument("--info", help="what the job is (create)")
    q.add_argument("--json", action="store_true")
    q = sp("dump", "rebuild one SQLite file per run")
    q.add_argument("--job", metavar="ID")
    q.add_argument("--host", metavar="HOST")
    q.add_argument("--run", metavar="RUN_ID", help="a run (or a prefix of its id)")
    q.add_argument("--out", metavar="DIR", required=True)
    q = sp("summary", "counts accumulated across hosts")
    q.add_argument("--json", action="store_true")
    p.set_defaults(fn=check_fleet_args)


def check_fleet_args(args):
    if args.fleet_cmd == "job" and args.action in ("create", "remove") and not args.id:
        die("job %s: ID is needed" % args.action)
    cmd_fleet(args)
