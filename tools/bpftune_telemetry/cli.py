# SPDX-License-Identifier: GPL-2.0-only
"""bpftune-telemetry: work with the SQLite files bpftune writes per run.

  export --csv DIR [SOURCE...]      one CSV per table, all runs merged
  dataset build --out DIR [SOURCE...]
                                    merge runs, split them BY RUN into train,
                                    test_seen and test_unseen (one workload
                                    label held out when there are >= 3)
  plot --out DIR [SOURCE...]        one PNG per run: tunables and key signals
                                    over time, changes marked
  collect --workload NAME[,NAME...] --runs N
                                    run each workload across a netns pair N
                                    times, the daemon started with the
                                    workload as label (--list: what exists)
  runs [SOURCE...]                  list the runs found
  fleet hosts|job|dump|summary --redis URL
                                    the rows bpftune-ship streamed into
                                    Redis: hosts, jobs, dumps back to run
                                    files, counts across hosts (docs/fleet.md)

SOURCE is a run's .db file or a directory of them (default
/var/lib/bpftune/telemetry).  The tables are described in docs/telemetry.md.
export and dataset need only the Python standard library; plot needs
python3-matplotlib and python3-pandas; fleet needs python3-redis.
"""

import argparse

from .collect import cmd_collect
from .common import DEFAULT_DIR, die
from .dataset import cmd_dataset
from .export import cmd_export
from .fleet import add_parser as add_fleet_parser
from .plot import cmd_plot
from .runs import cmd_runs


# ---- command line ----------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(prog="bpftune-telemetry", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)

    p = sub.add_parser("export", help="one CSV per table")
    p.add_argument("--csv", metavar="DIR", required=True)
    p.add_argument("sources", nargs="*")
    p.set_defaults(fn=cmd_export)

    p = sub.add_parser("dataset", help="build a train/test dataset split by run")
    dsub = p.add_subparsers(dest="action", required=True)
    p = dsub.add_parser("build", help="merge runs, split them by run, write CSVs")
    p.add_argument("--out", metavar="DIR", required=True)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--test-fraction", type=float, default=0.25,
                   help="share of each seen label's runs in test_seen (default 0.25)")
    p.add_argument("--holdout", metavar="LABEL", help="label for test_unseen")
    p.add_argument("--no-unseen", action="store_true", help="hold no label out")
    p.add_argument("sources", nargs="*")
    p.set_defaults(fn=cmd_dataset)

    p = sub.add_parser("plot", help="one PNG per run")
    p.add_argument("--out", metavar="DIR", required=True)
    p.add_argument("--run", metavar="RUN_ID", help="only this run (prefix)")
    p.add_argument("sources", nargs="*")
    p.set_defaults(fn=cmd_plot)

    p = sub.add_parser("runs", help="list runs")
    p.add_argument("sources", nargs="*")
    p.set_defaults(fn=cmd_runs)

    p = sub.add_parser("collect", help="run a workload N times under the daemon")
    p.add_argument("--workload", metavar="NAME[,NAME...]", action="append",
                   help="workload(s) to run, each --runs times (repeatable)")
    p.add_argument("--runs", type=int, default=1)
    p.add_argument("--duration", type=int, default=10, help="seconds per run (default 10)")
    p.add_argument("--settle", type=float, default=1.0,
                   help="seconds to keep sampling after the workload (default 1)")
    p.add_argument("--label", help="label for the runs (default: the workload name)")
    p.add_argument("--out", default=DEFAULT_DIR, help="telemetry directory")
    p.add_argument("--bpftune", default="bpftune", help="daemon binary")
    p.add_argument("--libdir", help="plugin directory for the daemon")
    p.add_argument("--observe", action="store_true", help="daemon in observe-only mode")
    p.add_argument("--sample-interval", type=int, default=1000, metavar="MS")
    p.add_argument("--somaxconn", type=int,
                   help="set net.core.somaxconn in both namespaces first")
    p.add_argument("--daemon-arg", action="append", metavar="ARG",
                   help="extra daemon argument (repeatable)")
    p.add_argument("--list", action="store_true", help="list workloads")
    p.add_argument("--job", metavar="ID",
                   help="tag the runs for fleet job ID (label ID/LABEL)")
    p.set_defaults(fn=cmd_collect)

    add_fleet_parser(sub)

    args = ap.parse_args()
    if getattr(args, "runs", 1) < 1:
        die("--runs must be at least 1")
    args.fn(args)
