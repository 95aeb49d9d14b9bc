#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""TCP connection churn in many network namespaces, one process (for
bench/netns_scale.sh).

  netns_churn.py NAME...

Each NAME is a namespace under /run/netns.  The driver enters each in turn
(setns through ctypes: python3.11 has no os.setns), brings lo up and opens
a listening socket on 127.0.0.1 there; a socket stays in the netns it was
created in.  Then it reads commands on stdin, one per line:

  churn SECS   loop over the namespaces for SECS seconds: in each, a new
               client socket (created there) connects to that netns's
               listener, sends 64 bytes, the accepted side reads them,
               both close (the client first); one connection per visit.
               Prints "churn conns=C secs=S min=A max=B errors=E cpu_ms=U"
               (connections done in all namespaces, per netns the fewest
               and the most, failed attempts, the driver's own user +
               system CPU over the window)
  quit         exit

After the set-up it prints "ready N".  Every answer is one line, flushed.
"""
import ctypes
import fcntl
import os
import resource
import socket
import struct
import sys
import time

CLONE_NEWNET = 0x40000000
SIOCGIFFLAGS = 0x8913
SIOCSIFFLAGS = 0x8914
IFF_UP = 0x1
PAYLOAD = b"x" * 64

libc = ctypes.CDLL(None, use_errno=True)


def setns(fd):
    if libc.setns(fd, CLONE_NEWNET) != 0:
        e = ctypes.get_errno()
        raise OSError(e, "setns: " + os.strerror(e))


def lo_up():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        req = struct.pack("16sh14x", b"lo", 0)
        flags = struct.unpack("16sh", fcntl.ioctl(s, SIOCGIFFLAGS, req)[:18])[1]
        if not flags & IFF_UP:
            fcntl.ioctl(s, SIOCSIFFLAGS, struct.pack("16sh14x", b"lo", flags | IFF_UP))


def raise_nofile(need):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < need:
        if hard != resource.RLIM_INFINITY and hard < need:
            sys.exit("netns_churn: %d file descriptors needed, the hard limit is %d"
                     % (need, hard))
        resource.setrlimit(resource.RLIMIT_NOFILE, (need, hard))


def setup(names):
    """[(netns fd, listener, port)] for each name"""
    raise_nofile(2 * len(names) + 64)
    spots = []
    for name in names:
        fd = os.open("/run/netns/" + name, os.O_RDONLY | os.O_CLOEXEC)
        setns(fd)
        lo_up()
        ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        ls.bind(("127.0.0.1", 0))
        ls.listen(64)
        spots.append((fd, ls, ls.getsockname()[1]))
    return spots


def one(fd, ls, port):
    """one connection in the netns of fd; True if it went through"""
    setns(fd)
    c = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        c.connect(("127.0.0.1", port))
        a, _ = ls.accept()
        with a:
            c.sendall(PAYLOAD)
            got = 0
            while got < len(PAYLOAD):
                b = a.recv(len(PAYLOAD) - got)
                if not b:
                    break
                got += len(b)
            c.close()
            return got == len(PAYLOAD)
    except OSError:
        return False
    finally:
        c.close()


def cpu_ms():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return (r.ru_utime + r.ru_stime) * 1000


def churn(spots, secs):
    counts = [0] * len(spots)
    errors = 0
    c0, t0 = cpu_ms(), time.monotonic()
    end = t0 + secs
    while time.monotonic() < end:
        for i, (fd, ls, port) in enumerate(spots):
            if one(fd, ls, port):
                counts[i] += 1
            else:
                errors += 1
    t1, c1 = time.monotonic(), cpu_ms()
    return "churn conns=%d secs=%.3f min=%d max=%d errors=%d cpu_ms=%.0f" % (
        sum(counts), t1 - t0, min(counts), max(counts), errors, c1 - c0)


def main():
    names = sys.argv[1:]
    if not names:
        sys.exit(__doc__)
    spots = setup(names)
    print("ready %d" % len(spots), flush=True)
    for line in sys.stdin:
        cmd = line.split()
        if cmd[:1] == ["churn"] and len(cmd) == 2:
            print(churn(spots, float(cmd[1])), flush=True)
        elif cmd == ["quit"]:
            break
        else:
            print("error: unknown command %r" % line.strip(), flush=True)


if __name__ == "__main__":
    main()
