#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Report of bench/footprint.sh: memory while loading and settled, idle wake-ups.

  footprint_report.py RAW.csv OUT

Writes OUT.md (also on stdout), OUT-summary.csv (case,metric,config,value,
lo,hi,n like cost_report.py) and OUT.png (memory from the fork on, first
start of each configuration).
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report_common import (gnuplot, idle_section, info_lines, load, num,  # noqa: E402
                           ordered, write_report, write_summary)

TARGET_PEAK_MB = 12.0
TARGET_STEADY_MB = 8.0
FIELDS = [("vm_hwm", "VmHWM"), ("vm_rss", "VmRSS"), ("rss_anon", "anon"),
          ("rss_file", "file"), ("rss_shmem", "shmem")]


def mb_range(vals):
    v = [x / 1024 for x in vals if x is not None]
    if not v:
        return "-", None
    m = statistics.median(v)
    if min(v) == max(v):
        return "%.1f" % m, (m, min(v), max(v), len(v))
    return "%.1f (%.1f-%.1f)" % (m, min(v), max(v)), (m, min(v), max(v), len(v))


def memory(rows, summary):
    mem = [r for r in rows if r["case"] == "memory"]
    if not mem:
        return []
    configs = ordered(r["config"] for r in mem)
    lines = ["## Memory (MB; median over the starts, range)", "",
             "Loading: at 'bpftune running' (all tuners loaded and attached); VmHWM then is "
             "the peak of start-up.  Steady: the last reading, seconds later.  Targets, "
             "all tuners with telemetry on: peak <= %g MB, steady VmRSS <= %g MB."
             % (TARGET_PEAK_MB, TARGET_STEADY_MB), "",
             "| config | start-up ms | peak (VmHWM) | steady VmRSS | anon | file | shmem |",
             "|---|---|---|---|---|---|---|"]
    for cfg in configs:
        def vals(metric):
            return [num(r["value"]) for r in mem if r["config"] == cfg and r["metric"] == metric]
        st = [v for v in vals("running_ms") if v is not None]
        cells = ["%.0f" % statistics.median(st) if st else "-"]
        for metric in ("steady_vm_hwm", "steady_vm_rss", "steady_rss_anon", "steady_rss_file",
                       "steady_rss_shmem"):
            text, s = mb_range(vals(metric))
            cells.append(text)
            if s:
                summary.append(("daemon", metric.replace("steady_", "") + "_mb", cfg) + s)
        lines.append("| %s | %s |" % (cfg, " | ".join(cells)))
    return lines


def plot(out):
    tl = out + "-timeline.dat"
    if not os.path.exists(tl):
        return "(no timeline: no plot)"
    series = {}
    for line in open(tl):
        if line.startswith("#"):
            continue
        f = line.split()
        if len(f) == 8 and f[1] == "1":
            series.setdefault(f[0], []).append(f[2:])
    if not series:
        return "(no timeline: no plot)"
    dats, plots = [], []
    for i, (cfg, pts) in enumerate(series.items()):
        dat = "%s-timeline-%d.dat" % (out, i)
        with open(dat, "w") as f:
            for p in pts:
                f.write(" ".join(p) + "\n")
        dats.append(dat)
        plots.append("'%s' using 1:($2/1024) with lines lw 2 dt 2 lc %d title '%s VmHWM'"
                     % (dat, i + 1, cfg))
        plots.append("'%s' using 1:($3/1024) with lines lw 2 lc %d title '%s VmRSS'"
                     % (dat, i + 1, cfg))
        plots.append("'%s' using 1:($4/1024) with lines lw 1 dt 3 lc %d title '%s anon'"
                     % (dat, i + 1, cfg))
    script = """set terminal pngcairo size 1100,520 noenhanced
set output '%s'
set title 'Daemon memory from the fork on (all tuners; first start of each configuration)'
set xlabel 'ms since fork'
set ylabel 'MB'
set grid
set key outside right
set yrange [0:*]
plot %s, %g title 'peak target' lc rgb 'red' dt 4, %g title 'steady target' lc rgb 'dark-red' dt 5
""" % (out + ".png", ", ".join(plots), TARGET_PEAK_MB, TARGET_STEADY_MB)
    img = gnuplot(script, out + ".png")
    for d in dats:
        os.unlink(d)
    return img


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    raw, out = sys.argv[1:]
    rows = load(raw)
    summary = []
    lines = info_lines(out)
    lines += memory(rows, summary)
    lines += ["", plot(out)]
    lines += idle_section(rows, summary)
    write_summary(out + "-summary.csv", summary)
    write_report(out, lines)


if __name__ == "__main__":
    main()
