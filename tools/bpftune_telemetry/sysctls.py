# SPDX-License-Identifier: GPL-2.0-only
"""Snapshots of the network sysctls, to check that a run left them as it found them.

A snapshot is {dotted name: value text, whitespace collapsed} of every
readable file under /proc/sys/net -- every sysctl an in-tree tuner manages
is there -- less the per-device directories (conf/DEV, neigh/DEV), whose
devices come and go; conf/all, conf/default and neigh/default stay.
Run as a script it prints the snapshot of its own netns as JSON (collect
runs it under `ip netns exec`).
"""

import json
import os
import subprocess
import sys

ROOT = "/proc/sys"
KEEP_DEVICES = {"all", "default"}


def _skip_dir(parts):
    # net/ipv4/conf/DEV, net/ipv6/neigh/DEV, ...
    return (len(parts) == 4 and parts[2] in ("conf", "neigh")
            and parts[3] not in KEEP_DEVICES)


def read(name):
    """The value text of one sysctl, or None if unreadable."""
    try:
        with open(os.path.join(ROOT, name.replace(".", "/"))) as f:
            return " ".join(f.read().split())
    except OSError:
        return None


def snapshot(top="net"):
    out = {}
    for d, dirs, files in os.walk(os.path.join(ROOT, top)):
        rel = os.path.relpath(d, ROOT).split(os.sep)
        dirs[:] = sorted(x for x in dirs if not _skip_dir(rel + [x]))
        for f in sorted(files):
            name = ".".join(rel + [f])
            v = read(name)
            if v is not None:
                out[name] = v
    return out


def snapshot_in(netns):
    """The snapshot as seen in a named netns."""
    r = subprocess.run(["ip", "netns", "exec", netns, sys.executable,
                        os.path.abspath(__file__)], capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError("sysctl snapshot in %s: %s" % (netns, r.stderr.strip()))
    return json.loads(r.stdout)


def changed(before, after, names=None):
    """[(name, before, after)] of the names (default: every one in both)
    whose value differs."""
    keys = names if names is not None else sorted(set(before) & set(after))
    return [(k, before.get(k), after.get(k)) for k in keys
            if before.get(k) != after.get(k)]


if __name__ == "__main__":
    json.dump(snapshot(), sys.stdout)
