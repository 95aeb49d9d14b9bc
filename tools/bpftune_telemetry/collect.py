# SPDX-License-Identifier: GPL-2.0-only
"""collect: run workloads across a netns pair under the daemon, one run file each."""

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from .common import die


# ---- collect --------------------------------------------------------------------

SERVER = "10.77.0.1"
LISTEN_PY = ("import socket,time\n"
             "for b in (256, 1024, 4096, 16384):\n"
             "    s = socket.socket(); s.bind(('0.0.0.0', 0)); s.listen(b)\n"
             "    time.sleep(0.2); s.close()\n")


def workloads(duration):
    d = str(duration)
    return {
        # name: (tool, server argv or None, client argv, description)
        "iperf3-tcp": ("iperf3", ["iperf3", "-s", "-1"],
                       ["iperf3", "-c", SERVER, "-t", d], "TCP bulk, client -> server"),
        "iperf3-tcp-reverse": ("iperf3", ["iperf3", "-s", "-1"],
                               ["iperf3", "-c", SERVER, "-t", d, "-R"], "TCP bulk, server -> client"),
        "iperf3-udp": ("iperf3", ["iperf3", "-s", "-1"],
                       ["iperf3", "-c", SERVER, "-t", d, "-u", "-b", "2G"], "UDP flood"),
        "iperf3-udp-reverse": ("iperf3", ["iperf3", "-s", "-1"],
                               ["iperf3", "-c", SERVER, "-t", d, "-u", "-b", "2G", "-R"],
                               "UDP flood, server -> client"),
        "qperf": ("qperf", ["qperf", "-lp", "19765"],
                  ["qperf", "-lp", "19765", "-t", d, SERVER, "tcp_bw", "tcp_lat", "udp_bw"],
                  "qperf TCP/UDP bandwidth and latency"),
        "hackbench": ("hackbench", None,
                      ["hackbench", "-s", "512", "-l", str(200 * duration), "-g", "4"],
                      "scheduler and socketpair messaging"),
        "sysbench-cpu": ("sysbench", None,
                         ["sysbench", "cpu", "--time=" + d, "run"], "CPU-bound"),
        "listen-backlog": ("python3", None, ["python3", "-c", LISTEN_PY],
                           "listen() backlogs beyond a low somaxconn (built in)"),
    }


def run(cmd, check=True, **kw):
    return subprocess.run(cmd, check=check, **kw)


class NetnsPair:
    """Two namespaces joined by a veth pair: server 10.77.0.1, client .2."""

    def __init__(self, somaxconn=None):
        tag = "%d" % (os.getpid() % 100000)
        self.server, self.client = "btc-s" + tag, "btc-c" + tag
        self.somaxconn = somaxconn

    def __enter__(self):
        for ns in (self.server, self.client):
            run(["ip", "netns", "add", ns])
            run(["ip", "-n", ns, "link", "set", "lo", "up"])
        run(["ip", "link", "add", "bts" + self.server[5:], "netns", self.server, "type", "veth",
             "peer", "name", "btc" + self.client[5:], "netns", self.client])
        for ns, dev, addr in ((self.server, "bts" + self.server[5:], SERVER + "/24"),
                              (self.client, "btc" + self.client[5:], "10.77.0.2/24")):
            run(["ip", "-n", ns, "addr", "add", addr, "dev", dev])
            run(["ip", "-n", ns, "link", "set", dev, "up"])
        return self

    def reset(self):
        """Start every run from the same sysctls: set before the daemon starts."""
        for ns in (self.server, self.client):
            if self.somaxconn:
                run(["ip", "netns", "exec", ns, "sysctl", "-qw",
                     "net.core.somaxconn=%d" % self.somaxconn])

    def __exit__(self, *exc):
        for ns in (self.server, self.client):
            run(["ip", "netns", "del", ns], check=False, stderr=subprocess.DEVNULL)


def start_daemon(args, label, log):
    cmd = [args.bpftune, "-s", "--telemetry-dir", args.out, "--label", label,
           "--sample-interval", str(args.sample_interval)]
    if args.libdir:
        cmd += ["-l", args.libdir]
    if args.observe:
        cmd.append("--observe")
    cmd += args.daemon_arg or []
    p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.time() + 30
    while time.time() < deadline:
        with open(log.name) as f:
            text = f.read()
        if "bpftune running" in text:
            m = re.search(r"telemetry: writing to (\S+)", text)
            return p, m.group(1) if m else None
        if p.poll() is not None:
            break
        time.sleep(0.1)
    p.kill()
    die("the daemon did not start; its log:\n" + open(log.name).read())


def stop_daemon(p):
    p.send_signal(signal.SIGTERM)
    try:
        return p.wait(30)
    except subprocess.TimeoutExpired:
        p.kill()
        return p.wait()


def cmd_collect(args):
    wl = workloads(args.duration)
    if args.list:
        for name, (tool, _, _, desc) in wl.items():
            print("%-20s %-10s %s" % (name, "ok" if shutil.which(tool) else "missing: " + tool,
                                      desc))
        return
    if not args.workload:
        die("collect: --workload NAME (see --list)")
    names = [n for w in args.workload for n in w.split(",") if n]
    for name in names:
        if name not in wl:
            die("collect: unknown workload '%s' (see --list)" % name)
        if not shutil.which(wl[name][0]):
            die("collect: %s needs %s, which is not installed" % (name, wl[name][0]))
    if args.job and not re.match(r"^[A-Za-z0-9._-]{1,64}$", args.job):
        die("collect: --job takes 1-64 of A-Z a-z 0-9 . _ -, not '%s'" % args.job)
    if args.label and len(names) > 1:
        die("collect: --label names the runs of one workload; several get their own names")
    if os.geteuid():
        die("collect: run as root (network namespaces, the daemon)")
    if not shutil.which(args.bpftune) and not os.path.exists(args.bpftune):
        die("collect: no daemon at %s (--bpftune PATH)" % args.bpftune)
    os.makedirs(args.out, exist_ok=True)
    made = []
    with NetnsPair(args.somaxconn) as pair:
        for name in names:
            made += collect_runs(args, pair, name, wl[name])
    print("%d run(s) of %s in %s" % (len(made), ", ".join(names), args.out))


def collect_runs(args, pair, name, workload):
    _, server, client, _ = workload
    label = args.label or name
    if args.job:        # fleet job ID: its runs are labelled ID/...
        label = "%s/%s" % (args.job, label)
    made = []
    for i in range(args.runs):
        pair.reset()
        with tempfile.NamedTemporaryFile("w+", prefix="bpftune-collect-", suffix=".log",
                                         delete=False) as log:
            p, path = start_daemon(args, label, log)
            srv = None
            try:
                if server:
                    srv = subprocess.Popen(["ip", "netns", "exec", pair.server] + server,
                                           stdout=subprocess.DEVNULL,
                                           stderr=subprocess.DEVNULL)
                    time.sleep(0.5)
                t = time.time()
                r = run(["ip", "netns", "exec", pair.client] + client, check=False,
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                        timeout=args.duration * 4 + 60)
                took = time.time() - t
                time.sleep(args.settle)
            finally:
                if srv:
                    srv.kill()
                    srv.wait()
                status = stop_daemon(p)
            print("run %d/%d: %s exit %d in %.1fs, daemon exit %d: %s" % (
                i + 1, args.runs, name, r.returncode, took, status, path))
            if r.returncode:
                print("warning: %s exited %d" % (name, r.returncode), file=sys.stderr)
            if path:
                made.append(path)
        os.unlink(log.name)
    return made
