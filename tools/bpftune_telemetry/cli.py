# SPDX-License-Identifier: GPL-2.0-only
"""bpftune-telemetry: work with the SQLite files bpftune writes per run.

  export --csv DIR [SOURCE...]      one CSV per table, all runs merged, each
                                    row with its label, category, trace_id
  dataset build --out DIR [--format tables|sched|sched-baseline|decisions] [SOURCE...]
                                    merge runs, split them BY RUN into train,
                                    test_seen and test_unseen (one workload
                                    category held out when there are >= 3)
  dataset verify DIR [DIR2]         recheck the sha256 of every output (and of
                                    the sources still present) and the dataset
                                    id; with DIR2: are both the same dataset?
                                    exit 0 ok, 1 something differs, 2 no dataset
  plot --out DIR [SOURCE...]        one PNG per run: tunables and key signals
                                    over time, changes marked
  graphs --out DIR [SOURCE...]      one PNG per signal across runs: rates and
                                    cumulative totals of counters, values and
                                    CDFs of gauges, a line per category
  collect [--workload NAME,...] [--category CAT,...] [--runs N]
                                    run workloads (default: all) N times
                                    (default 3) under the daemon, each run
                                    from the same sysctls (--list: catalogue)
  all --out DIR [collect options] [dataset options]
                                    collect into DIR/runs, then dataset build
                                    into DIR/dataset
  runs [SOURCE...]                  list the runs found
  perf-list [--json]                the perf counters this machine can count
                                    (the perf collector's), and why not
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

import os
import sys

from .collect import COLLECT_BUFFER_KB, cmd_collect
from .common import DEFAULT_DIR, die
from .dataset import cmd_dataset
from .export import cmd_export
from .graphs import cmd_graphs
from .perf_list import cmd_perf_list
from .provenance import cmd_verify
from .fleet import add_parser as add_fleet_parser
from .learn import add_parser as add_learn_parser
from .plot import cmd_plot
from .runs import cmd_runs


def add_dataset_options(p):
    p.add_argument("--seed", type=int, default=42, help="split seed (default 42)")
    p.add_argument("--test-fraction", type=float, default=0.2,
                   help="share of each seen category's runs in test_seen (default 0.2)")
    p.add_argument("--holdout", metavar="CATEGORY", help="category for test_unseen")
    p.add_argument("--no-unseen", action="store_true", help="hold no category out")
    p.add_argument("--format", choices=("tables", "sched", "sched-baseline", "decisions"),
                   default="tables", help="tables: a CSV per table and split (default); "
                   "sched: seed 003's sched_switch CSVs; sched-baseline: its LSTM form; "
                   "decisions: a CSV per policy, one row per decision with its outcome")


def add_collect_options(p):
    p.add_argument("--workload", metavar="NAME[,NAME...]", action="append",
                   help="workload(s) to run, each --runs times (repeatable; default all)")
    p.add_argument("--category", metavar="CAT[,CAT...]", action="append",
                   help="every workload of these categories (repeatable)")
    p.add_argument("--runs", type=int, default=3, help="runs per workload (default 3)")
    p.add_argument("--duration", type=int, default=10, help="seconds per run (default 10)")
    p.add_argument("--timeout", type=int, default=600,
                   help="limit for workloads that run to completion (hackbench), s")
    p.add_argument("--settle", type=float, default=1.0,
                   help="seconds to keep sampling after the workload (default 1)")
    p.add_argument("--label", help="label for the runs (default: the workload name)")
    p.add_argument("--bpftune", default="bpftune", help="daemon binary")
    p.add_argument("--libdir", help="plugin directory for the daemon")
    p.add_argument("--observe", action="store_true", help="daemon in observe-only mode")
    p.add_argument("--sample-interval", type=int, default=1000, metavar="MS")
    p.add_argument("--somaxconn", type=int,
                   help="set net.core.somaxconn in both namespaces first")
    p.add_argument("--collectors", metavar="LIST",
                   help="collectors the daemon runs, e.g. sched,perf (its --collectors)")
    p.add_argument("--buffer-size", type=int, metavar="KB", default=COLLECT_BUFFER_KB,
                   help="the collectors' ring buffers, KiB per CPU (the daemon's "
                   "--buffer-size; default %d: the daemon's own 16384 lost 1 percent "
                   "of one hackbench_pipe_large run here)" % COLLECT_BUFFER_KB)
    p.add_argument("--daemon-arg", action="append", metavar="ARG",
                   help="extra daemon argument (repeatable)")
    p.add_argument("--job", metavar="ID",
                   help="tag the runs for fleet job ID (label ID/LABEL)")


def cmd_all(args):
    """collect into OUT/runs, then build the dataset of OUT/runs into OUT/dataset."""
    out = args.out
    args.out = os.path.join(out, "runs")
    args.list = False
    cmd_collect(args)
    args.action = "build"
    args.sources = [args.out]
    args.out = os.path.join(out, "dataset")
    cmd_dataset(args)


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
    add_dataset_options(p)
    p.add_argument("sources", nargs="*")
    p.set_defaults(fn=cmd_dataset)
    p = dsub.add_parser("verify", help="recheck a dataset's hashes and id; with two, "
                        "whether they are the same dataset (exit 0 ok, 1 differs, 2 not a "
                        "dataset)")
    p.add_argument("dirs", nargs="+", metavar="DIR")
    p.add_argument("--no-sources", action="store_true",
                   help="do not rehash the source run files")
    p.set_defaults(fn=cmd_verify)

    p = sub.add_parser("plot", help="one PNG per run")
    p.add_argument("--out", metavar="DIR", required=True)
    p.add_argument("--run", metavar="RUN_ID", help="only this run (prefix)")
    p.add_argument("sources", nargs="*")
    p.set_defaults(fn=cmd_plot)

    p = sub.add_parser("graphs", help="one PNG per signal, a line per category across runs")
    p.add_argument("--out", metavar="DIR", required=True)
    p.add_argument("--by", choices=("category", "label"), default="category",
                   help="one line per category (default) or per label")
    p.add_argument("--table", action="append", metavar="TABLE",
                   help="only these tables (repeatable)")
    p.add_argument("--column", action="append", metavar="COLUMN",
                   help="only these columns (repeatable)")
    p.add_argument("sources", nargs="*")
    p.set_defaults(fn=cmd_graphs)

    p = sub.add_parser("perf-list", help="the perf counters this machine can count, and why not")
    p.add_argument("--json", action="store_true", help="JSON instead of a table")
    p.set_defaults(fn=cmd_perf_list)

    p = sub.add_parser("runs", help="list runs")
    p.add_argument("sources", nargs="*")
    p.set_defaults(fn=cmd_runs)

    p = sub.add_parser("collect", help="run workloads N times under the daemon")
    add_collect_options(p)
    p.add_argument("--out", default=DEFAULT_DIR, help="telemetry directory")
    p.add_argument("--list", action="store_true",
                   help="list workloads: name, category, install status")
    p.set_defaults(fn=cmd_collect)

    p = sub.add_parser("all", help="collect, then dataset build (seed 003's all)")
    add_collect_options(p)
    add_dataset_options(p)
    p.add_argument("--out", metavar="DIR", required=True,
                   help="DIR/runs: the run files; DIR/dataset: the dataset")
    p.set_defaults(fn=cmd_all)

    add_fleet_parser(sub)
    add_learn_parser(sub)

    args = ap.parse_args()
    # progress lines of a long collect show up as they happen, also in a pipe
    sys.stdout.reconfigure(line_buffering=True)
    if getattr(args, "runs", 1) < 1:
        die("--runs must be at least 1")
    args.fn(args)
