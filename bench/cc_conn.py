#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The traffic of bench/cc_experiment.sh (standard library only).

  cc_conn.py plan [--seed S] [--draws D] [--categories a,b]
      the path categories and their seeded parameter draws, one line each:
      category draw rtt_ms loss_pct rate_mbit limit_pkts rpcs size_kb cap_s compete
  cc_conn.py server PORT
      accepts on every local address (the AnyIP /16 of the experiment):
      a request is an 8-byte length L and L bytes, answered with one byte
      once all arrived; L = 0 is a sink (a competing bulk flow) until EOF
  cc_conn.py client --first A.B.C.D --conns N [--dest-mode run|conn] ...
      N connections, one after another, to the address --first (mode
      run: every connection to it, a destination the daemon has never
      seen) or to --first, --first + 1, ... (mode conn: every connection a
      new destination, so the daemon's per-destination rules never act);
      each does --rpcs requests of --size-kb KiB, gives up after --cap-s
      seconds; --cc sets the congestion control on the socket (cubic,
      bbr, htcp, or random: one of --random-from per connection, seeded),
      none leaves it to the netns default and the daemon.  Prints CSV
      rows: the --tag columns, conn, dest, metric, value: goodput (Mbit/s,
      bytes acknowledged / time), rpc_ms per request (a request cut by the
      cap counts with the time it had: a lower bound), cc (after connect,
      what the daemon's sockops program set), cc_end, retrans, segs_out,
      srtt_us, capped (1 if the cap cut it).
  cc_conn.py arms --net A.B.C --arms "cubic bbr ..." --tag REP,CAT,DRAW ...
      every arm of one block (one repetition of one path), in the order
      given, each to new destinations A.B.C.10 on, rows as client's; the
      arms: cubic, bbr, htcp, random (set on the socket, from this
      process's own cgroup), hand (every connection a new destination),
      bandit, model (the daemon's cgroup --cg; for model the daemon is
      given --models/CATEGORY.model, for hand and bandit no model, by
      rewriting --config and a SIGHUP to --daemon-pid, waiting for its
      log --daemon-log to say it took it).  One process for the block: a
      Python start costs a second under TCG.
  cc_conn.py bulk --dest A.B.C.D --secs T
      a competing bulk flow (cubic) for T seconds at most
"""
import argparse
import ipaddress
import os
import random
import socket
import struct
import signal
import sys
import threading
import time

TCP_CONGESTION = getattr(socket, "TCP_CONGESTION", 13)
TCP_INFO = getattr(socket, "TCP_INFO", 11)
CHUNK = 64 * 1024

# category: (rtt ms range, loss % range, rate Mbit/s range, netem limit
# packets range, rpcs, KiB per rpc, cap s, competing bulk flow)
# (sizes and caps keep a connection under a second or so in a TCG guest)
CATEGORIES = {
    "longrtt": ((50, 100), (0, 0), (20, 30), (5000, 5000), 1, 512, 3.0, 0),
    "loss": ((10, 40), (0.5, 2.0), (20, 30), (5000, 5000), 1, 512, 3.0, 0),
    "shallow": ((30, 60), (0, 0), (20, 30), (20, 40), 1, 512, 3.0, 0),
    "rpc": ((10, 30), (0, 0.5), (20, 30), (5000, 5000), 8, 32, 3.0, 0),
    "compete": ((20, 40), (0, 0), (20, 30), (150, 150), 3, 48, 3.0, 1),
}


def plan(seed, draws, cats):
    """[(category, draw, rtt_ms, loss_pct, rate_mbit, limit, rpcs, size_kb,
    cap_s, compete)]: draws of each category, the same for a seed."""
    rng = random.Random(seed)
    out = []
    for cat in CATEGORIES:
        (r0, r1), (l0, l1), (b0, b1), (q0, q1), rpcs, kb, cap, comp = CATEGORIES[cat]
        for d in range(1, draws + 1):
            # drawn for every category, so that choosing a subset keeps the draws
            rtt, loss = rng.randint(r0, r1), round(rng.uniform(l0, l1), 2)
            rate, limit = rng.randint(b0, b1), rng.randint(q0, q1)
            if cat in cats:
                out.append((cat, d, rtt, loss, rate, limit, rpcs, kb, cap, comp))
    return out


def cmd_plan(args):
    cats = args.categories.split(",") if args.categories else list(CATEGORIES)
    bad = [c for c in cats if c not in CATEGORIES]
    if bad:
        sys.exit("cc_conn.py: no category %s (have %s)" % (",".join(bad), " ".join(CATEGORIES)))
    for p in plan(args.seed, args.draws, cats):
        print(" ".join(str(x) for x in p))


# ---- server ------------------------------------------------------------------

def recv_exact(c, n):
    buf = b""
    while len(buf) < n:
        got = c.recv(n - len(buf))
        if not got:
            return None
        buf += got
    return buf


def serve(c):
    try:
        while True:
            hdr = recv_exact(c, 8)
            if hdr is None:
                return
            left = struct.unpack("!Q", hdr)[0]
            if left == 0:
                while c.recv(CHUNK):
                    pass
                return
            while left > 0:
                got = c.recv(min(CHUNK, left))
                if not got:
                    return
                left -= len(got)
            c.sendall(b"k")
    except OSError:
        pass
    finally:
        c.close()


def cmd_server(args):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("0.0.0.0", args.port))
    s.listen(128)
    while True:
        c, _ = s.accept()
        threading.Thread(target=serve, args=(c,), daemon=True).start()


# ---- client ------------------------------------------------------------------

def tcp_info(s):
    """(bytes_acked, total_retrans, segs_out, srtt_us) of a socket."""
    b = s.getsockopt(socket.IPPROTO_TCP, TCP_INFO, 192)
    if len(b) < 144:
        return 0, 0, 0, 0
    rtt, = struct.unpack_from("I", b, 68)
    retrans, = struct.unpack_from("I", b, 100)
    acked, = struct.unpack_from("Q", b, 120)
    segs, = struct.unpack_from("I", b, 136)
    return acked, retrans, segs, rtt


def cc_of(s):
    return s.getsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, 16).split(b"\0")[0].decode()


def send_until(s, data, deadline):
    """sendall with a deadline: False if the deadline came first."""
    view = memoryview(data)
    while view:
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        s.settimeout(left)
        try:
            n = s.send(view[:CHUNK])
        except socket.timeout:
            return False
        view = view[n:]
    return True


def recv_until(s, deadline):
    left = deadline - time.monotonic()
    if left <= 0:
        return False
    s.settimeout(left)
    try:
        return s.recv(1) == b"k"
    except socket.timeout:
        return False


def one_conn(dest, port, cc, rpcs, size, cap):
    """Metrics of one connection: [(metric, value)]."""
    s = socket.socket()
    if cc:
        s.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, cc.encode())
    s.settimeout(cap + 10)
    s.connect((dest, port))
    out = [("cc", cc_of(s))]
    payload = struct.pack("!Q", size) + b"\0" * size
    t0 = time.monotonic()
    deadline = t0 + cap
    capped = 0
    for _ in range(rpcs):
        r0 = time.monotonic()
        ok = send_until(s, payload, deadline) and recv_until(s, deadline)
        out.append(("rpc_ms", "%.2f" % ((time.monotonic() - r0) * 1000)))
        if not ok:
            capped = 1
            break
    elapsed = time.monotonic() - t0
    acked, retrans, segs, srtt = tcp_info(s)
    out += [("goodput", "%.3f" % (acked * 8 / elapsed / 1e6)), ("cc_end", cc_of(s)),
            ("retrans", retrans), ("segs_out", segs), ("srtt_us", srtt),
            ("capped", capped), ("secs", "%.4f" % elapsed)]
    if capped:
        # no waiting for what is still queued: reset
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()
    return out


def conns(dest, mode, n, cc, args, rng, tag):
    """n connections of one arm (mode run: all to dest; conn: dest, dest+1, ...)."""
    first = ipaddress.IPv4Address(dest)
    for i in range(n):
        d = str(first + (i if mode == "conn" else 0))
        pick = rng.choice(args.random_from.split(",")) if cc == "random" else cc
        try:
            rows = one_conn(d, args.port, pick, args.rpcs, args.size_kb * 1024, args.cap_s)
        except OSError as e:
            print("cc_conn.py: connection %d to %s: %s" % (i + 1, d, e), file=sys.stderr)
            rows = [("error", 1)]
        for metric, value in rows:
            print("%s%d,%s,%s,%s" % (tag, i + 1, d, metric, value))
    sys.stdout.flush()


def cmd_client(args):
    tag = args.tag + "," if args.tag else ""
    conns(args.first, args.dest_mode, args.conns, None if args.cc == "none" else args.cc,
          args, random.Random(args.seed), tag)


def enter_netns(name):
    """Into network namespace NAME (ip netns), this process only: not with
    ip netns exec, whose mount namespace has no cgroup2 mount to move by."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    fd = os.open("/run/netns/" + name, os.O_RDONLY)
    if libc.setns(fd, 0x40000000) != 0:     # CLONE_NEWNET
        sys.exit("cc_conn.py: setns %s: %s" % (name, os.strerror(ctypes.get_errno())))
    os.close(fd)


def cgroup_of_self():
    """This process's cgroup v2 directory."""
    root = next(l.split()[1] for l in open("/proc/self/mounts") if l.split()[2] == "cgroup2")
    rel = next(l.strip().split("::", 1)[1] for l in open("/proc/self/cgroup")
               if l.startswith("0::"))
    return root + rel


def move_to(cg):
    with open(os.path.join(cg, "cgroup.procs"), "w") as f:
        f.write(str(os.getpid()))


class Daemon:
    """The model the daemon runs, swapped by rewriting its config file and
    a SIGHUP; the config file says which it runs now."""

    def __init__(self, args):
        self.args = args
        with open(args.config) as f:
            text = f.read()
        self.model = text.split("model = ", 1)[1].strip() if "model = " in text else None
        self.refused = set()

    def count(self, needle):
        with open(self.args.daemon_log, errors="replace") as f:
            return sum(1 for line in f if needle in line)

    def use(self, path):
        """True once the daemon runs @path (None: no model); False if it
        refused the model (its log says why)."""
        if path in self.refused:
            return False
        if path == self.model:
            return True
        # what the daemon says once it took the config: the old model's
        # account, or the new one loaded (or refused)
        needles = ["model %s loaded" % path, "model %s: " % path] if path else \
            ["connections evaluated"]
        n = [self.count(x) for x in needles]
        with open(self.args.config, "w") as f:
            f.write("[strategy tcp_conn]\nmodel = %s\n" % path if path else
                    "# cc experiment: no model\n")
        os.kill(self.args.daemon_pid, signal.SIGHUP)
        end = time.monotonic() + 60
        while True:
            now = [self.count(x) for x in needles]
            if now[0] > n[0]:
                self.model = path
                return True
            if path and now[1] > n[1] and "the hand rule decides" in self.last(needles[1]):
                self.model = path
                self.refused.add(path)
                return False
            if time.monotonic() > end:
                sys.exit("cc_conn.py: the daemon did not say '%s'" % needles[0])
            time.sleep(0.1)

    def last(self, needle):
        with open(self.args.daemon_log, errors="replace") as f:
            lines = [line for line in f if needle in line]
        return lines[-1] if lines else ""


def cmd_arms(args):
    home = cgroup_of_self()
    enter_netns(args.netns)
    daemon = Daemon(args)
    cat = args.tag.split(",")[1]
    model = os.path.join(args.models, cat + ".model")
    rng = random.Random(args.seed)
    host = 10
    with open(args.dests, "a") as dests:
        for arm in args.arms.split():
            n = args.conns if arm in ("bandit", "model") else args.conns_static
            dest = "%s.%d" % (args.net, host)
            host += n if arm == "hand" else 1
            if arm == "model" and not os.path.exists(model):
                continue
            dests.write("%s,%s,%s\n" % (args.tag, arm, dest))
            dests.flush()
            if arm in ("cubic", "bbr", "htcp", "random"):
                move_to(home)
                conns(dest, "run", n, arm, args, rng, "%s,%s," % (args.tag, arm))
                continue
            if not daemon.use(model if arm == "model" else None):
                print("cc_conn.py: the daemon refused %s: no model arm" % model, file=sys.stderr)
                continue
            move_to(args.cg)
            conns(dest, "conn" if arm == "hand" else "run", n, None, args, rng,
                  "%s,%s," % (args.tag, arm))
            move_to(home)


def cmd_bulk(args):
    s = socket.socket()
    s.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, b"cubic")
    s.connect((args.dest, args.port))
    s.sendall(struct.pack("!Q", 0))
    data = b"\0" * CHUNK
    end = time.monotonic() + args.secs
    try:
        while time.monotonic() < end:
            s.sendall(data)
    except OSError:
        pass
    s.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("plan")
    p.add_argument("--seed", type=int, default=25)
    p.add_argument("--draws", type=int, default=2)
    p.add_argument("--categories", default="")
    p.set_defaults(fn=cmd_plan)
    p = sub.add_parser("server")
    p.add_argument("port", type=int)
    p.set_defaults(fn=cmd_server)
    p = sub.add_parser("client")
    p.add_argument("--first", required=True)
    p.add_argument("--port", type=int, default=5301)
    p.add_argument("--conns", type=int, default=20)
    p.add_argument("--dest-mode", choices=("run", "conn"), default="run")
    p.add_argument("--cc", default="none")
    p.add_argument("--random-from", default="cubic,bbr,htcp")
    p.add_argument("--rpcs", type=int, default=1)
    p.add_argument("--size-kb", type=int, default=768)
    p.add_argument("--cap-s", type=float, default=4.0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--tag", default="", help="CSV columns put before each row")
    p.set_defaults(fn=cmd_client)
    p = sub.add_parser("arms")
    p.add_argument("--net", required=True, help="A.B.C: destinations A.B.C.10 on")
    p.add_argument("--arms", required=True)
    p.add_argument("--tag", required=True, help="REP,CATEGORY,DRAW")
    p.add_argument("--port", type=int, default=5301)
    p.add_argument("--conns", type=int, default=20, help="for bandit and model")
    p.add_argument("--conns-static", type=int, default=5, help="for the other arms")
    p.add_argument("--random-from", default="cubic,bbr,htcp")
    p.add_argument("--rpcs", type=int, default=1)
    p.add_argument("--size-kb", type=int, default=768)
    p.add_argument("--cap-s", type=float, default=4.0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--netns", required=True, help="the client's namespace")
    p.add_argument("--cg", required=True, help="the daemon's cgroup")
    p.add_argument("--daemon-pid", type=int, required=True)
    p.add_argument("--daemon-log", required=True)
    # --policy: its old name, still accepted
    p.add_argument("--config", "--policy", dest="config", required=True)
    p.add_argument("--models", required=True)
    p.add_argument("--dests", required=True, help="rows tag,arm,first destination appended")
    p.set_defaults(fn=cmd_arms)
    p = sub.add_parser("bulk")
    p.add_argument("--dest", required=True)
    p.add_argument("--port", type=int, default=5301)
    p.add_argument("--secs", type=float, default=600)
    p.set_defaults(fn=cmd_bulk)
    args = ap.parse_args()
    args.fn(args)


if __name__ == "__main__":
    main()
