#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The BPF programs a process holds open, with the kernel's run statistics.

  bpf_progs.py PID [PLUGIN...]

Prints one line per program: "prog_id plugin name run_cnt run_time_ns".
The programs are found through /proc/PID/fdinfo (prog_id), their run
counters read from there too (kernel.bpf_stats_enabled must be 1 for
run_time_ns and run_cnt to move).  The plugin a program belongs to is
the object it was loaded from: libbpf names an object's internal maps
"<object name, 8 characters>.rodata" (or .bss, .data), and the daemon
names each object after its plugin, so the prefix of such a map among
the program's maps names the plugin (tuner or collector) - no list of
plugins is needed; given the plugin names, the 8-character prefix is
expanded to the plugin whose object name starts with it (the core's own
objects, netns_watch and admin_override, to its netns and sysctl
mechanisms).  Programs without such a map
are reported as "-".
"""
import json
import os
import subprocess
import sys

INTERNAL = (".rodata", ".bss", ".data", ".kconfig")


def fdinfo_progs(pid):
    progs = {}
    fddir = "/proc/%s/fdinfo" % pid
    for fd in os.listdir(fddir):
        info = {}
        try:
            with open(os.path.join(fddir, fd)) as f:
                for line in f:
                    k, _, v = line.partition(":")
                    info[k.strip()] = v.strip()
        except OSError:
            continue
        # a program's own fd has its counters; a link's fd names the
        # program (prog_id) without them, and must not zero them
        if "prog_id" in info and "run_cnt" in info:
            progs[int(info["prog_id"])] = (int(info["run_cnt"]),
                                          int(info.get("run_time_ns", 0)))
    return progs


def bpftool(*args):
    out = subprocess.run(["bpftool", "-j"] + list(args), capture_output=True,
                         text=True, check=False).stdout
    try:
        return json.loads(out) if out.strip() else []
    except ValueError:
        return []


def plugin_of(map_ids, map_names):
    for mid in map_ids:
        name = map_names.get(mid, "")
        for sfx in INTERNAL:
            if name.endswith(sfx) and len(name) > len(sfx):
                return name[:-len(sfx)]
    return "-"


# the daemon's own objects: its core mechanisms, loaded whatever -a says
CORE_OBJECTS = {"netns_watch": "core:netns", "admin_override": "core:admin_override"}


def expand(prefix, plugins):
    """The plugin whose object name starts with @prefix (objects are named
    <plugin>_tuner, <plugin>_collector or after the core mechanism)."""
    objects = dict(CORE_OBJECTS)
    for p in plugins:
        for obj in (p, p + "_tuner", p + "_collector"):
            objects[obj] = p
    full = {name for obj, name in objects.items() if obj.startswith(prefix)}
    return full.pop() if len(full) == 1 else prefix


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    plugins = sys.argv[2:]
    progs = fdinfo_progs(sys.argv[1])
    if not progs:
        return
    info = {p["id"]: p for p in bpftool("prog", "show") if p.get("id") in progs}
    map_names = {m["id"]: m.get("name", "") for m in bpftool("map", "show")}
    for pid, (cnt, ns) in sorted(progs.items()):
        p = info.get(pid, {})
        plugin = expand(plugin_of(p.get("map_ids", []), map_names), plugins)
        print(pid, plugin, p.get("name", "?"), cnt, ns)


if __name__ == "__main__":
    main()
