# SPDX-License-Identifier: GPL-2.0-only
"""The built-in workloads of collect, run as a script in the pair's netns.

  builtin.py cpu_bound --procs N --duration S
      N processes of tight sin/cos/sqrt loops: CPU contention, no I/O
  builtin.py io_mixed --dd N --burners M --duration S --dir DIR
      N dd loops copying /dev/urandom to a file in DIR with fdatasync,
      beside M CPU burners: I/O-bound and CPU-bound tasks competing
  builtin.py listen
      listen() with backlogs 256 .. 16384 (beyond a low somaxconn)

Standard library and coreutils' dd only; no imports from the package, so
the file runs on its own under `ip netns exec`.
"""

import argparse
import math
import multiprocessing
import os
import signal
import socket
import subprocess
import sys
import time

DD_MB = 32	# one dd pass: 32 MiB, then fdatasync


def burn(deadline):
    x = 0.0
    while time.time() < deadline:
        for i in range(20000):
            x += math.sin(i) * math.cos(i) + math.sqrt(i)
    return x


def run_burners(n, deadline):
    procs = [multiprocessing.Process(target=burn, args=(deadline,)) for _ in range(n)]
    for p in procs:
        p.start()
    return procs


def dd_loop(path, deadline):
    """dd passes until the deadline; the file is removed at the end."""
    passes = 0
    try:
        while time.time() < deadline:
            subprocess.run(["dd", "if=/dev/urandom", "of=" + path, "bs=1M",
                            "count=%d" % DD_MB, "conv=fdatasync"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
            passes += 1
    finally:
        if os.path.exists(path):
            os.unlink(path)
    return passes


def cpu_bound(args):
    deadline = time.time() + args.duration
    procs = run_burners(args.procs, deadline)
    return wait_all(procs)


def io_mixed(args):
    deadline = time.time() + args.duration
    procs = run_burners(args.burners, deadline)
    procs += [multiprocessing.Process(
        target=dd_loop, args=(os.path.join(args.dir, "io_mixed.%d.%d" % (os.getpid(), i)),
                              deadline)) for i in range(args.dd)]
    for p in procs[args.burners:]:
        p.start()
    return wait_all(procs)


def wait_all(procs):
    status = 0
    for p in procs:
        p.join()
        status = status or (p.exitcode != 0)
    return status


def listen(_args):
    for b in (256, 1024, 4096, 16384):
        s = socket.socket()
        s.bind(("0.0.0.0", 0))
        s.listen(b)
        time.sleep(0.2)
        s.close()
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="workload", required=True)
    p = sub.add_parser("cpu_bound")
    p.add_argument("--procs", type=int, default=4)
    p.add_argument("--duration", type=float, default=10)
    p.set_defaults(fn=cpu_bound)
    p = sub.add_parser("io_mixed")
    p.add_argument("--dd", type=int, default=2)
    p.add_argument("--burners", type=int, default=2)
    p.add_argument("--duration", type=float, default=10)
    p.add_argument("--dir", default="/var/tmp")
    p.set_defaults(fn=io_mixed)
    p = sub.add_parser("listen")
    p.add_argument("--duration", type=float, default=0, help="ignored")
    p.set_defaults(fn=listen)
    args = ap.parse_args()
    # a stopped collect stops the workers too
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    sys.exit(args.fn(args))


if __name__ == "__main__":
    main()
