#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""A scheduler workload whose switches the kernel counts for us.

usage: sched_pingpong.py ROUNDS

Parent and child, both pinned to CPU 0, pass a byte back and forth
ROUNDS times over two pipes, so each blocks (S) and the other runs.
Then the child blocks on a third pipe; once it sleeps there it cannot
switch again, and the parent prints, as KEY=VALUE lines:
  child       its pid (comm "coll2_pp_child")
  switches    its context switches so far (voluntary + involuntary,
              /proc/PID/status: the kernel's own count)
  renamed_at  how many of them came before it took its comm (on a busy
              CPU the new child may be switched out before it renames
              itself: those switches carry the parent's comm)
  t_ns        CLOCK_BOOTTIME in ns, taken while it sleeps (every one of
              those switches happened before)
Then it moves the child to CPU 1 and wakes it: the kernel migrates it
(sched_migrate_task 0 -> 1) and it exits.
"""

import os
import sys
import time


def ctxt_switches(pid):
    n = 0
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                n += int(line.split()[1])
    return n


def state(pid):
    with open("/proc/%d/stat" % pid) as f:
        return f.read().rsplit(")", 1)[1].split()[0]


def child(rounds, ping, pong, hold):
    with open("/proc/self/comm", "w") as f:
        f.write("coll2_pp_child")
    renamed_at = ctxt_switches(os.getpid())
    for _ in range(rounds):
        os.read(ping, 1)
        os.write(pong, b"b")
    os.write(pong, b"d%d\n" % renamed_at)
    os.read(hold, 1)
    os._exit(0)


def main():
    rounds = int(sys.argv[1])
    os.sched_setaffinity(0, {0})
    ping_r, ping_w = os.pipe()
    pong_r, pong_w = os.pipe()
    hold_r, hold_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        child(rounds, ping_r, pong_w, hold_r)
    for _ in range(rounds):
        os.write(ping_w, b"a")
        os.read(pong_r, 1)
    done = os.read(pong_r, 64)
    assert done.startswith(b"d") and done.endswith(b"\n"), done
    renamed_at = int(done[1:])
    # asleep in os.read(hold): no switch of its own until we write
    deadline = time.time() + 30
    while state(pid) != "S":
        if time.time() > deadline:
            sys.exit("child never slept")
        time.sleep(0.01)
    switches = ctxt_switches(pid)
    t_ns = time.clock_gettime_ns(time.CLOCK_BOOTTIME)
    print("child=%d\nswitches=%d\nrenamed_at=%d\nt_ns=%d" % (pid, switches, renamed_at, t_ns),
          flush=True)
    os.sched_setaffinity(pid, {1})
    os.write(hold_w, b"x")
    os.waitpid(pid, 0)


if __name__ == "__main__":
    main()
