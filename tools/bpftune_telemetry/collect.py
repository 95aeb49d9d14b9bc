# SPDX-License-Identifier: GPL-2.0-only
"""collect: run workloads across a netns pair under the daemon, one run file each.

Runs are independent: each gets a new netns pair, the daemon is started
with -R (its own journal), so every sysctl it changed is put back when it
exits, and the network sysctls are read before and after each run.  What
the run started from, what collect set and whether everything was put back
go into the run file (tables collect_runs and collect_tunables, see
docs/collectors.md).
"""

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from . import runrecord, sysctls
from .common import die, give_back, make_dirs

# the collectors' ring buffers of a collection, KiB per CPU: a collection
# must lose nothing, and under hackbench_pipe_large the daemon's threads get
# little CPU until the workload ends (the daemon's own 16384 lost 1 % of
# one run of two there; 131072 lost none in 7, bench/sched_collector.sh)
COLLECT_BUFFER_KB = 131072
from .workloads import CATALOGUE, SERVER, select


# ---- the netns pair --------------------------------------------------------------

def run(cmd, check=True, **kw):
    return subprocess.run(cmd, check=check, **kw)


class NetnsPair:
    """Two namespaces joined by a veth pair: server 10.77.0.1, client .2.
    A new pair for every run, so no run inherits another's namespaced
    sysctls; what collect sets there is recorded (set_values)."""

    def __init__(self, somaxconn=None):
        tag = "%d" % (os.getpid() % 100000)
        self.server, self.client = "btc-s" + tag, "btc-c" + tag
        self.set_values = {}
        if somaxconn:
            self.set_values["net.core.somaxconn"] = str(somaxconn)

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
        # set before the daemon starts: a write while it runs is an admin's
        for ns in (self.server, self.client):
            for k, v in self.set_values.items():
                run(["ip", "netns", "exec", ns, "sysctl", "-qw", "%s=%s" % (k, v)])
        return self

    def __exit__(self, *exc):
        for ns in (self.server, self.client):
            # what a workload left running there goes too
            pids = subprocess.run(["ip", "netns", "pids", ns], capture_output=True,
                                  text=True).stdout.split()
            for pid in pids:
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except (OSError, ValueError):
                    pass
            run(["ip", "netns", "del", ns], check=False, stderr=subprocess.DEVNULL)


# ---- the daemon ------------------------------------------------------------------

def daemon_cmd(args, label, private):
    cmd = [args.bpftune, "-s", "-R", "--telemetry-dir", args.out, "--label", label,
           "--sample-interval", str(args.sample_interval)]
    extra = args.daemon_arg or []
    # its own journal and control socket: neither another daemon's nor the default
    if "--journal" not in extra:
        cmd += ["--journal", os.path.join(private, "journal")]
    if "--socket" not in extra:
        cmd += ["--socket", os.path.join(private, "bpftune.sock")]
    # a collection keeps every run it made: no pruning of the directory
    if "--telemetry-keep" not in extra and "--telemetry-max-mb" not in extra:
        cmd += ["--telemetry-keep", "0", "--telemetry-max-mb", "0"]
    if args.libdir:
        cmd += ["-l", args.libdir]
    if args.observe:
        cmd.append("--observe")
    if getattr(args, "collectors", None):
        cmd += ["--collectors", args.collectors]
    if getattr(args, "collectors", None) and getattr(args, "buffer_size", None):
        cmd += ["--buffer-size", str(args.buffer_size)]
    return cmd + extra


def start_daemon(args, label, log, private):
    p = subprocess.Popen(daemon_cmd(args, label, private), stdout=log,
                         stderr=subprocess.STDOUT)
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
    p.wait()
    die("the daemon did not start; its log:\n" + open(log.name).read())


def stop_daemon(args, p, private):
    """SIGTERM: with -R the daemon puts back what it changed.  If it had to
    be killed, or left values in its journal, --restore puts them back."""
    p.send_signal(signal.SIGTERM)
    try:
        status = p.wait(30)
    except subprocess.TimeoutExpired:
        p.kill()
        status = p.wait()
    journal = os.path.join(private, "journal")
    if os.path.exists(journal) and os.path.getsize(journal):
        print("collect: the daemon left values in its journal: bpftune --restore",
              file=sys.stderr)
        run([args.bpftune, "--restore", "--journal", journal], check=False)
    return status


# ---- one workload ----------------------------------------------------------------

def run_workload(args, pair, w, scratch):
    """Server (if any) in the server netns, client in the client netns;
    the client's process group is killed if it outlives its time."""
    srv = None
    limit = args.duration * 4 + 60 if w.timed else args.timeout
    if w.server:
        srv = subprocess.Popen(["ip", "netns", "exec", pair.server] +
                               w.server(args.duration, scratch),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_listening(pair.server, srv)
    argv = w.client(args.duration, scratch)
    t0 = time.clock_gettime(time.CLOCK_BOOTTIME)
    c = subprocess.Popen(["ip", "netns", "exec", pair.client] + argv,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True)
    try:
        status = c.wait(limit)
    except subprocess.TimeoutExpired:
        os.killpg(c.pid, signal.SIGKILL)
        c.wait()
        status = None
    t1 = time.clock_gettime(time.CLOCK_BOOTTIME)
    if srv:
        srv.kill()
        srv.wait()
    return argv, status, int(t0 * 1e6), int(t1 * 1e6)


def wait_listening(ns, srv, timeout=10):
    """Until a TCP socket listens in @ns (the server is up), or it exited."""
    deadline = time.time() + timeout
    while time.time() < deadline and srv.poll() is None:
        out = subprocess.run(["ip", "netns", "exec", ns, "ss", "-Hltn"],
                             capture_output=True, text=True).stdout
        if out.strip():
            return
        time.sleep(0.05)


# ---- collect ---------------------------------------------------------------------

def list_workloads():
    print("%-24s %-18s %-22s %s" % ("WORKLOAD", "CATEGORY", "STATUS", "PARAMETERS"))
    for w in CATALOGUE.values():
        print("%-24s %-18s %-22s %s" % (w.name, w.category, w.status(), w.desc))


def chosen(args):
    names = [n for x in args.workload or [] for n in x.split(",") if n]
    cats = [c for x in args.category or [] for c in x.split(",") if c]
    try:
        wl = select(names, cats)
    except KeyError as e:
        die("collect: unknown workload or category '%s' (see --list)" % e.args[0])
    runnable = []
    for w in wl:
        why = w.missing()
        if why:
            print("collect: skipping %s: %s" % (w.name, why))
        else:
            runnable.append(w)
    return runnable


def cmd_collect(args):
    if args.list:
        list_workloads()
        return
    wl = chosen(args)
    if not wl:
        die("collect: nothing to run (every workload chosen lacks its tool)")
    if args.label and len(wl) > 1:
        die("collect: --label names the runs of one workload; several get their own names")
    if args.job and not re.match(r"^[A-Za-z0-9._-]{1,64}$", args.job):
        die("collect: --job takes 1-64 of A-Z a-z 0-9 . _ -, not '%s'" % args.job)
    if os.geteuid():
        die("collect: run as root (network namespaces, the daemon)")
    if not shutil.which(args.bpftune) and not os.path.exists(args.bpftune):
        die("collect: no daemon at %s (--bpftune PATH)" % args.bpftune)
    made_dirs = make_dirs(args.out)
    made = []
    try:
        for w in wl:
            made += collect_runs(args, w)
    finally:
        give_back(made_dirs[:1] or made)
    print("%d run(s) of %s in %s" % (len(made), ", ".join(w.name for w in wl), args.out))
    return made


def collect_runs(args, w):
    label = args.label or w.name
    if args.job:        # fleet job ID: its runs are labelled ID/...
        label = "%s/%s" % (args.job, label)
    made = []
    for i in range(args.runs):
        path = collect_one(args, w, label, i)
        if path:
            made.append(path)
    return made


def collect_one(args, w, label, i):
    private = tempfile.mkdtemp(prefix="bpftune-collect-", dir="/run")
    scratch = tempfile.mkdtemp(prefix="bpftune-collect-", dir="/var/tmp")
    log = open(os.path.join(private, "daemon.log"), "w+")
    try:
        with NetnsPair(args.somaxconn) as pair:
            rec = runrecord.RunRecord(w, label, i, args, pair)
            rec.before(sysctls.snapshot(), {ns: sysctls.snapshot_in(ns)
                                            for ns in (pair.server, pair.client)})
            p, path = start_daemon(args, label, log, private)
            try:
                argv, status, t0, t1 = run_workload(args, pair, w, scratch)
                time.sleep(args.settle)
            finally:
                dstatus = stop_daemon(args, p, private)
            rec.ran(argv, status, t0, t1, dstatus)
            rec.after(sysctls.snapshot())
        left = rec.write(path) if path else []
        print("run %d/%d: %s exit %s in %.1fs, daemon exit %d: %s" % (
            i + 1, args.runs, w.name, "timeout" if status is None else status,
            (t1 - t0) / 1e6, dstatus, path))
        if dstatus:
            log.seek(0)
            print("warning: the daemon exited %d; the end of its log:\n%s" % (
                dstatus, "".join(log.readlines()[-15:])), file=sys.stderr)
        if status:
            print("warning: %s exited %d" % (w.name, status), file=sys.stderr)
        elif status is None:
            print("warning: %s killed after its time limit" % w.name, file=sys.stderr)
        for name, was, now in left:
            print("warning: run %d of %s left %s at %s (it was %s before the run)" % (
                i + 1, w.name, name, now, was), file=sys.stderr)
        return path
    finally:
        log.close()
        shutil.rmtree(private, ignore_errors=True)
        shutil.rmtree(scratch, ignore_errors=True)
