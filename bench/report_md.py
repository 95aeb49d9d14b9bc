#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Assemble a per-commit benchmark report (bench/report.sh).

  report_md.py DIR

DIR holds info.txt ("key: value" lines) and the parts' outputs: PART.md and
PART-summary.csv for PART in cost, footprint, profile, effect, reaction,
netem-* and ref-* (those that ran: the last two come from guests, copied
here by bench/matrix.sh and bench/ref_compare.sh).  Writes DIR/summary.csv (every part's figures with a
source column: what bench/compare.py reads) and DIR/report.md: the header
(machine, kernel, mode, commit, date), the targets with the figures that
answer them, then each part's own report.

Every picture the report promises (a markdown image or a link to a local
.png or .svg) must be there: non-empty, a PNG that starts as one, an SVG
that parses as XML; a part whose plot could not be drawn ("(no gnuplot",
"(gnuplot failed") has broken its promise too.  Each broken promise is
one "report_md.py: missing picture: NAME (why)" line on stderr and the
exit status is 1 (report.md is still written, to be read).
"""
import csv
import glob
import os
import re
import statistics
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report_common import fmt, num  # noqa: E402

PARTS = ["cost", "footprint", "profile", "effect", "reaction"]


def effect_rows(d):
    """tuned / static throughput per repetition of bench/tcp_buffer_effect.sh"""
    p = os.path.join(d, "effect.csv")
    if not os.path.exists(p):
        return []
    by = {}
    with open(p, newline="") as f:
        for r in csv.DictReader(f):
            if r["metric"] == "throughput":
                by.setdefault(r["rep"], {})[r["config"]] = num(r["value"])
    ratios = sorted(v["tuned"] / v["static"] for v in by.values()
                    if v.get("tuned") and v.get("static"))
    if not ratios:
        return []
    # the median: with an even count, the middle two's mean (not the upper)
    return [{"source": "effect", "case": "iperf-v4-up", "metric": "tuned_over_static",
             "config": "tuned", "value": statistics.median(ratios), "lo": ratios[0],
             "hi": ratios[-1], "n": len(ratios)}]


def load_summaries(d):
    rows = effect_rows(d)
    parts = PARTS + sorted(os.path.basename(p)[:-len("-summary.csv")]
                           for g in ("netem-*-summary.csv", "ref-*-summary.csv")
                           for p in glob.glob(os.path.join(d, g)))
    for part in parts:
        p = os.path.join(d, part + "-summary.csv")
        if part == "effect" or not os.path.exists(p):
            continue
        with open(p, newline="") as f:
            for r in csv.DictReader(f):
                r["source"] = part
                rows.append(r)
    return rows, parts


def find(rows, source, case, metric, config):
    for r in rows:
        if (r["source"], r["case"], r["metric"], r["config"]) == (source, case, metric, config):
            return num(r["value"]), num(r.get("lo")), num(r.get("hi"))
    return None


def ival(t, unit=""):
    if not t or t[0] is None:
        return "not measured"
    v, lo, hi = t
    if lo is None or hi is None or lo == hi:
        return "%s%s" % (fmt(v), unit)
    return "%s%s [%s-%s]" % (fmt(v), unit, fmt(lo), fmt(hi))


def half_width_pct(t):
    """half-width of an interval (value, lo, hi) in % of the value, or None"""
    v, lo, hi = t
    return max(hi - v, v - lo) / v * 100 if lo and hi else None


def cost_verdict(t, limit):
    if not t or t[0] is None:
        return "not measured"
    v, lo, hi = t
    half = half_width_pct(t)
    res = "" if half is None else " (+-%.2f %%)" % half
    if hi is not None and hi <= limit:
        return "met" + res
    if lo is not None and lo > limit:
        return "**missed**" + res
    return "not resolved: the interval spans the target" + res


def share_verdict(t, limit):
    """a share in per cent against limit, by its interval (absolute)"""
    if not t or t[0] is None:
        return "not measured"
    v, lo, hi = t
    if hi is None:
        return ("met" if v < limit else "**missed**") + " (one run, no interval)"
    if hi < limit:
        return "met"
    if lo > limit:
        return "**missed**"
    return "not resolved: the interval spans %g %%" % limit


def le(t, limit):
    if not t or t[0] is None:
        return "not measured"
    return "met" if t[0] <= limit else "**missed** by %s" % fmt(t[0] - limit)


def ge(t, limit):
    if not t or t[0] is None:
        return "not measured"
    return "met" if t[0] >= limit else "**missed** by %s" % fmt(limit - t[0])


def reaction_targets(rows):
    """the reaction part's bound (issue 23) against the A/B build, if it ran"""
    held = [r for r in rows if r["source"] == "reaction" and r["metric"] == "bound_holds"]
    if not held:
        return []
    ok = [r["case"] for r in held if num(r["value"])]
    bad = [r["case"] for r in held if not num(r["value"])]
    return ["| reaction: p50 within 1 s or 2x of %s's, no more misses, every scenario | %d of %d "
            "scenarios | %s |" % (held[0]["config"].split("/", 1)[-1], len(ok), len(held),
                                  "met" if not bad else "**missed**: " + ", ".join(bad))]


def ref_names(rows, src):
    """(ours, the reference) of a ref-* part: "notel" where it ran (the
    reference records nothing either), else "all"; the reference is the
    configuration every one of ours is divided by"""
    pairs = [r["config"].split("/", 1) for r in rows
             if r["source"] == src and r["metric"] == "cost_ratio" and "/" in r["config"]]
    refs = {b for a, b in pairs if b != "baseline"}
    ours = {a for a, b in pairs if b in refs}
    if len(refs) != 1 or not ours:
        return None, None
    return ("notel" if "notel" in ours else sorted(ours)[0]), refs.pop()


def ref_verdict(t):
    """ours / the reference's CPU per unit: below 1 is ours costing less"""
    if not t or t[0] is None or t[1] is None or t[2] is None:
        return "not measured"
    half = half_width_pct(t)
    if t[2] < 1:
        return "met: ours costs less (+-%.2f %%)" % half
    if t[1] > 1:
        return "**missed**: ours costs more (+-%.2f %%)" % half
    return "not resolved: the interval spans 1 (+-%.2f %%)" % half


def ref_targets(rows, sources):
    """issue 23: against the reference daemon, same run, ours must cost less"""
    if not sources:
        return ["| against the reference daemon, same run: ours costs less | not run for "
                "this commit (`make bench-ref`, or `REF_DIR=` here) | not measured |"]
    lines = []
    for src in sources:
        ours, ref = ref_names(rows, src)
        if not ref:
            lines.append("| %s: against the reference daemon | no ratios in its results "
                         "| not measured |" % src)
            continue
        for case, unit in (("iperf", "packet"), ("qperf", "transaction")):
            t = find(rows, src, case, "cost_ratio", "%s/%s" % (ours, ref))
            if not t:
                continue
            lines.append("| %s: %s CPU per %s, %s / %s (ours / none %s, %s / none %s) "
                         "| %s | %s |" % (
                             src, case, unit, ours, ref,
                             ival(find(rows, src, case, "cost_ratio", ours + "/baseline")), ref,
                             ival(find(rows, src, case, "cost_ratio", ref + "/baseline")),
                             ival(t), ref_verdict(t)))
        a = find(rows, src, "daemon", "cpu_ms_per_s", ours)
        b = find(rows, src, "daemon", "cpu_ms_per_s", ref)
        if a and b and a[0] is not None and b[0] is not None:
            lines.append("| %s: daemon CPU ms/s, %s / %s (median over blocks [range]) | %s / %s "
                         "| %s |" % (src, ours, ref, ival(a), ival(b),
                                     "met: ours less" if a[0] < b[0] else "**missed**: ours more"))
    return lines


def targets(rows):
    tel = "this,telemetry"
    lines = ["## Targets", "", "| target | figure [interval] | result |", "|---|---|---|"]
    for case, limit in (("iperf", 1.005), ("qperf", 1.01), ("sock", 1.01), ("switch", 1.01),
                        ("syscall", 1.01)):
        t = find(rows, "cost", case, "cost_ratio", "all/baseline")
        if t:
            lines.append("| %s: CPU per unit, all tuners / baseline <= %g | %s | %s |" % (
                case, limit, ival(t), cost_verdict(t, limit)))
    t = find(rows, "cost", "iperf", "bpf_share_pct", "all")
    # the mean of the statistics pass's runs and its t interval
    lines.append("| iperf: BPF time per packet < 1 %% of the kernel's own (mean of the "
                 "statistics runs) | %s | %s |" % (ival(t, " %"), share_verdict(t, 1.0)))
    lines.append("| peak RSS while loading <= 12 MB (all tuners, telemetry on) | %s | %s |" % (
        ival(find(rows, "footprint", "daemon", "vm_hwm_mb", tel), " MB"),
        le(find(rows, "footprint", "daemon", "vm_hwm_mb", tel), 12)))
    lines.append("| steady RSS <= 8 MB (telemetry on) | %s | %s |" % (
        ival(find(rows, "footprint", "daemon", "vm_rss_mb", tel), " MB"),
        le(find(rows, "footprint", "daemon", "vm_rss_mb", tel), 8)))
    lines.append("| idle wake-ups, telemetry on: <= 1 per sample interval (1/s) | %s | %s |" % (
        ival(find(rows, "footprint", "daemon", "idle_wakeups_per_s", tel), "/s"),
        le(find(rows, "footprint", "daemon", "idle_wakeups_per_s", tel), 1.0)))
    lines.append("| idle wake-ups, telemetry off: none | %s | %s |" % (
        ival(find(rows, "footprint", "daemon", "idle_wakeups_per_s", "this,no-telemetry"), "/s"),
        le(find(rows, "footprint", "daemon", "idle_wakeups_per_s", "this,no-telemetry"), 0.0)))
    t = find(rows, "effect", "iperf-v4-up", "tuned_over_static", "tuned")
    if t:
        lines.append("| host: tuned / static throughput >= 0.95 | %s | %s |" % (ival(t), ge(t, 0.95)))
    lines += reaction_targets(rows)
    lines += ref_targets(rows, sorted({r["source"] for r in rows
                                       if r["source"].startswith("ref-")}))
    for src in sorted({r["source"] for r in rows if r["source"].startswith("netem-")}):
        for metric, what in (("later_over_static", "connections 2.. / static >= 0.95"),
                             ("later_over_observed", "connections 2.. / observed (static, "
                              "daemon watching) >= 0.95")):
            t = find(rows, src, "netem", metric, "tuned")
            if t:
                lines.append("| %s: %s | %s | %s |" % (src, what, ival(t), ge(t, 0.95)))
        t = find(rows, src, "netem", "max_over_bdp", "tuned")
        if t:
            lines.append("| %s: final tcp_rmem max / measured BDP <= 4 (largest of the "
                         "repetitions) | %s | %s |" % (src, ival(t), le((t[2], None, None), 4.0)))
    return lines


PICTURE = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
NO_PLOT = re.compile(r"\((no gnuplot|gnuplot failed)[^)]*\)?")


def picture_problem(path):
    """why the picture at path cannot be shown, or None"""
    if not os.path.exists(path) or not os.path.getsize(path):
        return "not there" if not os.path.exists(path) else "empty"
    if path.endswith(".svg"):
        try:
            ET.parse(path)
        except ET.ParseError as e:
            return "not well-formed XML: %s" % e
    elif path.endswith(".png"):
        with open(path, "rb") as f:
            if f.read(8) != b"\x89PNG\r\n\x1a\n":
                return "not a PNG"
    return None


def missing_pictures(d, lines):
    """"NAME (why)" for every picture the lines promise that cannot be shown"""
    bad, seen = [], set()
    for line in lines:
        for name in PICTURE.findall(line):
            if "://" in name or not name.endswith((".png", ".svg")) or name in seen:
                continue
            seen.add(name)
            why = picture_problem(os.path.join(d, name))
            if why:
                bad.append("%s (%s)" % (name, why))
        m = NO_PLOT.search(line)
        if m:
            bad.append("a plot (%s)" % m.group(0).strip("()"))
    return bad


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    d = sys.argv[1]
    info = []
    if os.path.exists(os.path.join(d, "info.txt")):
        info = [l.rstrip("\n") for l in open(os.path.join(d, "info.txt")) if ":" in l]
    rows, parts = load_summaries(d)
    with open(os.path.join(d, "summary.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["source", "case", "metric", "config", "value", "lo", "hi", "n"])
        for r in rows:
            w.writerow([r["source"], r["case"], r["metric"], r["config"], r["value"],
                        r.get("lo", ""), r.get("hi", ""), r.get("n", "")])
    commit = dict(l.split(":", 1) for l in info).get("commit", "").strip()
    lines = ["# bpftune benchmark report: %s" % (commit or d), "",
             "| | |", "|---|---|"]
    lines += ["| %s | %s |" % tuple(x.strip() for x in l.split(":", 1)) for l in info]
    lines += [""] + targets(rows)
    for part in parts:
        p = os.path.join(d, part + ".md")
        if os.path.exists(p):
            lines += ["", "---", "", "# %s" % part, ""]
            lines += [l.rstrip("\n") for l in open(p)]
    lines += ["", "---", "", "Files: summary.csv (every figure with its interval; "
              "`make bench-report BASE=<dir>` compares two), each part's raw CSV, the "
              "PNG plots and the flame graph they link."]
    with open(os.path.join(d, "report.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    sys.stdout.write("\n".join(lines[:4 + len(info)] + [""] + targets(rows)) + "\n")
    bad = missing_pictures(d, lines)
    for b in bad:
        print("report_md.py: missing picture: %s" % b, file=sys.stderr)
    if bad:
        sys.exit(1)


if __name__ == "__main__":
    main()
