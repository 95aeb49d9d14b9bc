# SPDX-License-Identifier: GPL-2.0-only
"""What the benchmark reports share: reading the raw CSV and the .info
header, number formatting, gnuplot, the summary CSV, the markdown file,
and the idle wake-up table (footprint.sh and overhead.sh measure it the
same way: bench_idle in bench/lib.sh).  Standard library only.
"""
import csv
import os
import shutil
import subprocess
import sys

SUMMARY_HEADER = ["case", "metric", "config", "value", "lo", "hi", "n"]


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def fmt(v, digits=3):
    if v is None:
        return "-"
    if abs(v) >= 1000:
        return "%.0f" % v
    return "%.*g" % (digits, v)


def ordered(seq):
    """The distinct items of seq in their first order."""
    out = []
    for x in seq:
        if x not in out:
            out.append(x)
    return out


def load(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def info_lines(out):
    """OUT.info (the benchmark's "# key: value" header) as markdown lines."""
    if not os.path.exists(out + ".info"):
        return []
    with open(out + ".info") as f:
        return [l.lstrip("# ").rstrip() + "  " for l in f] + [""]


def gnuplot(script, png):
    """Run a gnuplot script; the markdown image line, or why there is none."""
    if not shutil.which("gnuplot"):
        return "(no gnuplot: no plot)"
    r = subprocess.run(["gnuplot"], input=script, text=True, capture_output=True, check=False)
    if r.returncode:
        return "(gnuplot failed: %s)" % r.stderr.strip()
    return "![%s](%s)" % (os.path.basename(png), os.path.basename(png))


def write_csv(path, header, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        for r in rows:
            w.writerow(["" if v is None else v for v in r])


def write_summary(path, summary):
    """summary: (case, metric, config, value, lo, hi, n) tuples"""
    write_csv(path, SUMMARY_HEADER, summary)


def write_report(out, lines):
    """OUT.md, and the same text on stdout."""
    text = "\n".join(lines) + "\n"
    with open(out + ".md", "w") as f:
        f.write(text)
    sys.stdout.write(text)


def idle_section(rows, summary=None):
    """The idle wake-up table of bench_idle's rows (rep "idle")."""
    idle = [r for r in rows if r["rep"] == "idle"]
    if not idle:
        return []

    def pick(cfg, case, metric):
        v = [r["value"] for r in idle if r["config"] == cfg and r["case"] == case
             and r["metric"] == metric]
        return v[0] if v else "-"

    lines = ["", "## Idle wake-ups", "",
             "Per second, with no traffic of ours: wake-ups are the voluntary context "
             "switches of the daemon's threads (a sleeping thread switches once per "
             "wake-up); preemptions, the involuntary ones, are other tasks taking the CPU "
             "while the daemon ran, which a loaded host adds.  `sleep` is the floor of the "
             "method.  Target: at most one wake-up per telemetry sample interval (1 s by "
             "default), in one thread, with telemetry on; none with it off.  Events/s: "
             "events the daemon handled meanwhile (other users' traffic wakes it "
             "legitimately).  Measured once the daemon settled: its pressure gates asleep "
             "until a packet comes (gate.h), which they are after their calm period; "
             "settled: seconds from the start until then (60: they did not); VmRSS "
             "at the end of the idle time.", "",
             "| daemon | wake-ups/s | per thread | preemptions/s | events/s | settled (s) "
             "| VmRSS (MB) |",
             "|---|---|---|---|---|---|---|"]
    for cfg in ordered(r["config"] for r in idle if r["case"] == "idle"):
        thr = ", ".join("%s %s" % (r["case"].split(":", 1)[1], r["value"]) for r in idle
                        if r["config"] == cfg and r["case"].startswith("idle:"))
        tot = pick(cfg, "idle", "wakeups_per_s")
        rss = num(pick(cfg, "idle", "vm_rss"))
        lines.append("| %s | %s | %s | %s | %s | %s | %s |" % (
            cfg, tot, thr or "-", pick(cfg, "idle", "preemptions_per_s"),
            pick(cfg, "idle", "events_per_s"), pick(cfg, "idle", "settled_s"),
            "%.2f" % (rss / 1024.0) if rss is not None else "-"))
        if summary is not None and num(tot) is not None:
            summary.append(("daemon", "idle_wakeups_per_s", cfg, num(tot), None, None, 1))
    return lines
