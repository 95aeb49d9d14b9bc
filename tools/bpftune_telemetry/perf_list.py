# SPDX-License-Identifier: GPL-2.0-only
"""perf-list: what this machine can count, counter by counter.

The perf collector (src/collectors/perf/perf_collector.[ch]) opens the same
counters the same way -- perf_event_open(2), one per CPU, system-wide
(pid -1) -- so what is listed here as available is what its perf_counts
rows will hold, and a counter listed as missing is NULL there, for the
reason given.  The counters and their order are those of perf_counts
(test/collectors.bats checks the two lists against each other).  Opening
a counter per CPU needs CAP_PERFMON (root) or kernel.perf_event_paranoid
<= 0; without either every counter is "not permitted", as the daemon
would find it.  Only the Python standard library (ctypes).
"""

import ctypes
import errno
import json
import os
import platform

PERF_TYPE_HARDWARE, PERF_TYPE_SOFTWARE, PERF_TYPE_HW_CACHE = 0, 1, 3
# <linux/perf_event.h>: PERF_COUNT_HW_CACHE_{L1D,L1I,DTLB,ITLB}, OP_READ,
# RESULT_{ACCESS,MISS}
CACHE = {"L1D": 0, "L1I": 1, "DTLB": 3, "ITLB": 4}
RESULT = {"ACCESS": 0, "MISS": 1}


def cache_cfg(cache, result):
    return CACHE[cache] | (0 << 8) | (RESULT[result] << 16)


# (column of perf_counts, type, config): perf_collector.h's PERF_COUNTERS
COUNTERS = [
    ("cpu_clock", PERF_TYPE_SOFTWARE, 0),
    ("task_clock", PERF_TYPE_SOFTWARE, 1),
    ("context_switches", PERF_TYPE_SOFTWARE, 3),
    ("cpu_migrations", PERF_TYPE_SOFTWARE, 4),
    ("page_faults", PERF_TYPE_SOFTWARE, 2),
    ("minor_faults", PERF_TYPE_SOFTWARE, 5),
    ("major_faults", PERF_TYPE_SOFTWARE, 6),
    ("cycles", PERF_TYPE_HARDWARE, 0),
    ("instructions", PERF_TYPE_HARDWARE, 1),
    ("branch_misses", PERF_TYPE_HARDWARE, 5),
    ("cache_misses", PERF_TYPE_HARDWARE, 3),
    ("l1d_loads", PERF_TYPE_HW_CACHE, cache_cfg("L1D", "ACCESS")),
    ("l1d_load_misses", PERF_TYPE_HW_CACHE, cache_cfg("L1D", "MISS")),
    ("l1i_loads", PERF_TYPE_HW_CACHE, cache_cfg("L1I", "ACCESS")),
    ("l1i_load_misses", PERF_TYPE_HW_CACHE, cache_cfg("L1I", "MISS")),
    ("dtlb_loads", PERF_TYPE_HW_CACHE, cache_cfg("DTLB", "ACCESS")),
    ("dtlb_load_misses", PERF_TYPE_HW_CACHE, cache_cfg("DTLB", "MISS")),
    ("itlb_loads", PERF_TYPE_HW_CACHE, cache_cfg("ITLB", "ACCESS")),
    ("itlb_load_misses", PERF_TYPE_HW_CACHE, cache_cfg("ITLB", "MISS")),
]
TYPE_WORD = {PERF_TYPE_SOFTWARE: "software", PERF_TYPE_HARDWARE: "hardware",
             PERF_TYPE_HW_CACHE: "hw_cache"}
SYSCALL = {"x86_64": 298, "aarch64": 241, "i686": 336, "armv7l": 364,
           "ppc64le": 319, "s390x": 331, "riscv64": 241}


class PerfEventAttr(ctypes.Structure):
    """perf_event_attr as of PERF_ATTR_SIZE_VER0 (64 bytes): the kernel
    takes the older size and zeroes the rest."""
    _fields_ = [("type", ctypes.c_uint32), ("size", ctypes.c_uint32),
                ("config", ctypes.c_uint64), ("sample_period", ctypes.c_uint64),
                ("sample_type", ctypes.c_uint64), ("read_format", ctypes.c_uint64),
                ("flags", ctypes.c_uint64), ("wakeup_events", ctypes.c_uint32),
                ("bp_type", ctypes.c_uint32), ("config1", ctypes.c_uint64)]


def reason(err):
    """The perf collector's words for an errno (perf_collector.c: reason())."""
    if err in (errno.ENOENT, errno.ENODEV):
        return "no such event on this machine (no PMU for it)"
    if err == errno.EOPNOTSUPP:
        return "not supported here (no PMU, or the PMU cannot count it per CPU)"
    if err in (errno.EACCES, errno.EPERM):
        return "not permitted (capabilities or kernel.perf_event_paranoid)"
    if err in (errno.EMFILE, errno.ENFILE):
        return "out of file descriptors"
    return "perf_event_open failed"


def possible_cpus(path="/sys/devices/system/cpu/possible"):
    """The CPUs the collector opens counters on (libbpf's possible CPUs:
    "0-3,5"), or 0..cpu_count-1 if the file cannot be read."""
    try:
        with open(path) as f:
            text = f.read().strip()
        cpus = []
        for part in text.split(","):
            lo, _, hi = part.partition("-")
            cpus.extend(range(int(lo), int(hi or lo) + 1))
        return cpus
    except (OSError, ValueError):
        return list(range(os.cpu_count() or 1))


def probe(cpus, opener=None):
    """[{counter, type, config, available, cpus, errno, reason}] in
    perf_counts order; @opener(type, config, cpu) -> 0 or an errno (tests
    pass their own)."""
    opener = opener or open_counter
    out = []
    for name, typ, config in COUNTERS:
        ok, first = 0, 0
        for cpu in cpus:
            err = opener(typ, config, cpu)
            if err == 0:
                ok += 1
            elif not first:
                first = err
        out.append({"counter": name, "type": TYPE_WORD[typ], "config": config,
                    "available": ok > 0, "cpus": ok, "errno": 0 if ok else first,
                    "reason": None if ok else reason(first)})
    return out


_libc = None


def open_counter(typ, config, cpu):
    """0 if counter (@typ, @config) opens on @cpu system-wide, else the errno."""
    global _libc
    nr = SYSCALL.get(platform.machine())
    if nr is None:
        return errno.ENOSYS
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
    attr = PerfEventAttr(type=typ, size=ctypes.sizeof(PerfEventAttr), config=config,
                         flags=1)  # disabled: opened, never started
    fd = _libc.syscall(ctypes.c_long(nr), ctypes.byref(attr), ctypes.c_int(-1),
                       ctypes.c_int(cpu), ctypes.c_int(-1), ctypes.c_ulong(0))
    if fd < 0:
        return ctypes.get_errno() or errno.EINVAL
    os.close(fd)
    return 0


def render(rows, ncpus):
    lines = ["%-18s %-9s %-9s %-5s %s" % ("counter", "type", "available", "cpus", "why not")]
    for r in rows:
        why = "" if r["available"] else "%s (%s)" % (
            r["reason"], errno.errorcode.get(r["errno"], r["errno"]))
        lines.append("%-18s %-9s %-9s %-5s %s" % (
            r["counter"], r["type"], "yes" if r["available"] else "no",
            "%d/%d" % (r["cpus"], ncpus), why))
    n = sum(r["available"] for r in rows)
    lines.append("%d of %d counters can be counted on this machine (%d CPUs)" % (
        n, len(rows), ncpus))
    return "\n".join(lines)


def cmd_perf_list(args):
    cpus = possible_cpus()
    rows = probe(cpus)
    if args.json:
        print(json.dumps({"cpus": len(cpus), "counters": rows}, indent=1))
    else:
        print(render(rows, len(cpus)))
