# SPDX-License-Identifier: GPL-2.0-only
"""The workload catalogue of collect: names, categories, commands.

The scheduler workloads are seed 003's, with its names, parameters and
categories (hackbench, sysbench_cpu, sysbench_threads, sysbench_memory,
cpu_bound, io_mixed); the network workloads run across collect's netns
pair.  A category is what a dataset holds out: near-duplicates such as
iperf3-tcp and iperf3-tcp-reverse share one, so the unseen test set never
sees a variant of a training workload.
"""

import os
import shutil
import sys
from dataclasses import dataclass
from typing import Callable

SERVER = "10.77.0.1"
# where the built-in workloads live: run as a script, in the pair's netns
BUILTIN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "builtin.py")
# Debian package of each external tool (scripts/install-deps.sh installs them)
PACKAGE = {"hackbench": "rt-tests", "sysbench": "sysbench", "iperf3": "iperf3",
           "qperf": "qperf", "dd": "coreutils"}


@dataclass
class Workload:
    """One catalogue entry.  tool: the program it needs (None: only
    Python); builtin: implemented in builtin.py; server/client: functions
    of (duration, scratch dir) giving argv, server None if none; timed:
    runs for --duration (hackbench: a loop count)."""
    name: str
    category: str
    tool: str
    client: Callable
    desc: str
    params: str
    server: Callable = None
    builtin: bool = False
    timed: bool = True

    def missing(self):
        """None if runnable here, else the one-line reason."""
        if self.tool and not shutil.which(self.tool):
            pkg = PACKAGE.get(self.tool)
            return "%s is not installed%s" % (
                self.tool, " (apt-get install %s)" % pkg if pkg else "")
        return None

    def status(self):
        why = self.missing()
        if why:
            return "missing: " + self.tool
        return "built in" if self.builtin else "ok"


def _hackbench(mode, groups, loops):
    def argv(_d, _dir):
        return ["hackbench"] + (["-p"] if mode == "pipe" else []) + [
            "-g", str(groups), "-l", str(loops)]
    return argv


def _sysbench(test, threads):
    def argv(d, _dir):
        return ["sysbench", test, "--threads=%d" % threads, "--time=%d" % d, "run"]
    return argv


def _builtin(*extra):
    def argv(d, scratch):
        a = [sys.executable, BUILTIN] + list(extra) + ["--duration", str(d)]
        return a + (["--dir", scratch] if "io_mixed" in extra else [])
    return argv


def _iperf3(*extra):
    def argv(d, _dir):
        return ["iperf3", "-c", SERVER, "-t", str(d)] + list(extra)
    return argv


def _const(*argv):
    return lambda _d, _dir: list(argv)


def _seed003():
    out = []
    for mode in ("pipe", "socket"):
        for size, groups, loops in (("small", 4, 3000), ("large", 8, 5000)):
            out.append(Workload(
                "hackbench_%s_%s" % (mode, size), "hackbench", "hackbench",
                _hackbench(mode, groups, loops),
                "%d groups, %ss, %d message loops" % (groups, mode, loops),
                {"groups": groups, "ipc": mode, "loops": loops}, timed=False))
    for test, threads, desc in (("cpu", 4, "prime computation"),
                                ("cpu", 8, "prime computation"),
                                ("threads", 8, "threads yielding and rescheduled"),
                                ("threads", 16, "threads yielding and rescheduled"),
                                ("memory", 4, "memory allocation and access")):
        out.append(Workload(
            "sysbench_%s_%dt" % (test, threads), "sysbench_" + test, "sysbench",
            _sysbench(test, threads), "%d threads, %s" % (threads, desc),
            {"test": test, "threads": threads}))
    for procs in (4, 8):
        out.append(Workload(
            "cpu_bound_%dp" % procs, "cpu_bound", None,
            _builtin("cpu_bound", "--procs", str(procs)),
            "%d processes of sin/cos/sqrt loops" % procs, {"procs": procs},
            builtin=True))
    out.append(Workload(
        "io_mixed", "io_mixed", "dd",
        _builtin("io_mixed", "--dd", "2", "--burners", "2"),
        "2 dd (urandom to disk, fdatasync) + 2 CPU burners",
        {"dd": 2, "burners": 2}, builtin=True))
    return out


def _network():
    iperf_srv = _const("iperf3", "-s", "-1")
    return [
        Workload("iperf3-tcp", "network_tcp", "iperf3", _iperf3(),
                 "TCP bulk, client -> server", {"proto": "tcp"}, iperf_srv),
        Workload("iperf3-tcp-reverse", "network_tcp", "iperf3", _iperf3("-R"),
                 "TCP bulk, server -> client", {"proto": "tcp", "reverse": 1}, iperf_srv),
        Workload("iperf3-udp", "network_udp", "iperf3", _iperf3("-u", "-b", "2G"),
                 "UDP flood", {"proto": "udp", "bitrate": "2G"}, iperf_srv),
        Workload("iperf3-udp-reverse", "network_udp", "iperf3",
                 _iperf3("-u", "-b", "2G", "-R"), "UDP flood, server -> client",
                 {"proto": "udp", "bitrate": "2G", "reverse": 1}, iperf_srv),
        Workload("qperf", "network_mixed", "qperf",
                 lambda d, _dir: ["qperf", "-lp", "19765", "-t", str(d), SERVER,
                                  "tcp_bw", "tcp_lat", "udp_bw"],
                 "qperf TCP/UDP bandwidth and latency", {"tests": "tcp_bw,tcp_lat,udp_bw"},
                 _const("qperf", "-lp", "19765")),
        Workload("listen-backlog", "listen", None, _builtin("listen"),
                 "listen() backlogs beyond a low somaxconn (built in)",
                 {"backlogs": "256,1024,4096,16384"}, builtin=True, timed=False),
    ]


CATALOGUE = {w.name: w for w in _seed003() + _network()}
CATEGORIES = sorted({w.category for w in CATALOGUE.values()})
# labels of runs made before this catalogue (same tools, other names)
OLD_NAMES = {"hackbench": "hackbench", "sysbench-cpu": "sysbench_cpu"}


def category_of(label):
    """The category of a run's label: the catalogue's for a workload name
    (also under a fleet job, 'JOB/name'); else the label itself."""
    if not label:
        return None
    name = label.rsplit("/", 1)[-1]
    if name in CATALOGUE:
        return CATALOGUE[name].category
    return OLD_NAMES.get(name, label)


def select(names=None, categories=None):
    """Workloads by name and by category, in catalogue order; all without
    either.  Unknown names raise KeyError(name)."""
    if not names and not categories:
        return list(CATALOGUE.values())
    for n in names or []:
        if n not in CATALOGUE:
            raise KeyError(n)
    for c in categories or []:
        if c not in CATEGORIES:
            raise KeyError(c)
    want = set(names or [])
    cats = set(categories or [])
    return [w for w in CATALOGUE.values() if w.name in want or w.category in cats]
