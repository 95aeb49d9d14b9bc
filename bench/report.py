#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Summaries of the benchmarks' raw CSV files (rep,config,case,metric,unit,value).

  report.py overhead RAW.csv OUT   overhead.sh: ratios daemon/baseline
  report.py stress RAW.csv OUT     stress.sh: bogo-ops, sampling, profile
  report.py effect RAW.csv OUT     tcp_buffer_effect.sh: before/static/tuned

Each prints a markdown report on stdout and writes it to OUT.md, a summary
CSV to OUT-summary.csv and a plot to OUT.png (gnuplot; skipped with a note
if gnuplot is missing).  Numbers are reported, never judged pass/fail: the
targets are printed next to them.
"""
import csv
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report_common import (fmt, gnuplot, idle_section, info_lines, load, num,  # noqa: E402
                           write_report)

# daemon/baseline targets (issue 8), reported next to the numbers
TARGET_TPUT = 0.995	# throughput ratio at least
TARGET_LAT = 1.01	# latency ratio at most
TARGET_RSS_MB = 8.0
TARGET_RECOVER = 0.95	# of the static throughput ...
TARGET_RECOVER_S = 10.0	# ... within this many seconds

# BENCH_RATIOS_ONLY=1 (bench/matrix.sh, TCG guests): no absolute times,
# only same-run ratios and clock-independent counts
RATIOS_ONLY = os.environ.get("BENCH_RATIOS_ONLY") == "1"

NON_WORKLOAD = ("daemon", "note", "idle", "profile", "bpf", "convergence")


def stats(vals):
    vals = [v for v in vals if v is not None]
    if not vals:
        return None
    return {"median": statistics.median(vals), "min": min(vals), "max": max(vals),
            "n": len(vals)}


def spread(s):
    if not s or not s["median"]:
        return "-"
    return "%.1f%%" % ((s["max"] - s["min"]) * 100 / s["median"])


def lower_is_better(metric):
    return metric == "latency"


def workload_keys(rows):
    keys = []
    for r in rows:
        if r["case"].split(":")[0] in NON_WORKLOAD:
            continue
        k = (r["case"], r["metric"], r["unit"])
        if k not in keys:
            keys.append(k)
    return keys


def configs_of(rows, exclude=()):
    out = []
    for r in rows:
        if r["rep"] != "idle" and r["config"] not in out and r["config"] not in exclude:
            out.append(r["config"])
    return out


def series(rows, case, metric, config):
    """rep -> value"""
    return {r["rep"]: num(r["value"]) for r in rows
            if r["case"] == case and r["metric"] == metric and r["config"] == config}


def compare(rows, base, others):
    """Per workload key and config: stats, ratio of medians, paired ratios."""
    out = []
    for case, metric, unit in workload_keys(rows):
        b = series(rows, case, metric, base)
        bs = stats(b.values())
        entry = {"case": case, "metric": metric, "unit": unit, "base": bs, "cfg": {}}
        for c in others:
            s = series(rows, case, metric, c)
            cs = stats(s.values())
            ratio = cs["median"] / bs["median"] if cs and bs and bs["median"] else None
            paired = [s[k] / b[k] for k in s if k in b and s[k] is not None
                      and b[k] not in (None, 0)]
            entry["cfg"][c] = {"stats": cs, "ratio": ratio,
                               "pmin": min(paired) if paired else None,
                               "pmax": max(paired) if paired else None,
                               "pmed": statistics.median(paired) if paired else None}
        out.append(entry)
    return out


def target_note(metric, x):
    """Where the ratio stands against its target; noise: the per-repetition
    ratios fall on both sides of 1."""
    ratio = x["ratio"]
    if ratio is None:
        return "-"
    if lower_is_better(metric):
        note = "%s (<= %.2f)" % ("meets" if ratio <= TARGET_LAT else "misses", TARGET_LAT)
    else:
        note = "%s (>= %.3f)" % ("meets" if ratio >= TARGET_TPUT else "misses", TARGET_TPUT)
    if x["pmin"] is not None and x["pmin"] < 1 < x["pmax"]:
        note += ", within noise"
    return note


def ratio_table(cmp, base, others, headline=None):
    lines = []
    head = "| case | metric | %s %s |" % (base, "runs" if RATIOS_ONLY else "median (spread)")
    sep = "|---|---|---|"
    for c in others:
        head += " %s/%s [paired range] |" % (c, base)
        sep += "---|"
    if headline:
        head += " %s vs target |" % headline
        sep += "---|"
    lines += [head, sep]
    for e in cmp:
        bs = e["base"]
        if RATIOS_ONLY:
            line = "| %s | %s | %s |" % (e["case"], e["metric"], bs["n"] if bs else 0)
        else:
            line = "| %s | %s %s | %s (%s) |" % (e["case"], e["metric"], e["unit"],
                                                fmt(bs["median"] if bs else None), spread(bs))
        for c in others:
            x = e["cfg"][c]
            line += " %s [%s-%s] |" % (fmt(x["ratio"]), fmt(x["pmin"]), fmt(x["pmax"]))
        if headline:
            line += " %s |" % target_note(e["metric"], e["cfg"][headline])
        lines.append(line)
    return lines


def write_summary(path, cmp, base):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["case", "metric", "unit", "config", "median", "min", "max", "n",
                    "ratio_to_" + base, "paired_ratio_median", "paired_ratio_min",
                    "paired_ratio_max"])
        for e in cmp:
            bs = e["base"]
            if bs:
                w.writerow([e["case"], e["metric"], e["unit"], base, bs["median"], bs["min"],
                            bs["max"], bs["n"], 1, 1, 1, 1])
            for c, x in e["cfg"].items():
                s = x["stats"]
                if not s:
                    continue
                w.writerow([e["case"], e["metric"], e["unit"], c, s["median"], s["min"],
                            s["max"], s["n"], x["ratio"], x["pmed"], x["pmin"], x["pmax"]])


def ratio_plot(cmp, others, out, title):
    """Bars: ratio of medians per case and config, error bars: paired range."""
    dat = out + "-plot.dat"
    with open(dat, "w") as f:
        for e in cmp:
            label = "%s %s" % (e["case"], e["metric"])
            cols = []
            for c in others:
                x = e["cfg"][c]
                r = x["ratio"]
                cols += ["%.4f" % v if v is not None else "NaN"
                         for v in (r, x["pmin"], x["pmax"])]
            f.write('"%s" %s\n' % (label, " ".join(cols)))
    plots = []
    for i, c in enumerate(others):
        plots.append("'%s' using %d:%d:%d:xtic(1) title '%s'" % (dat, 2 + 3 * i, 3 + 3 * i,
                                                                4 + 3 * i, c))
    script = """set terminal pngcairo size 1400,600 noenhanced
set output '%s'
set title '%s (bars: ratio of the medians; whiskers: range of the per-repetition ratios)'
set style data histogram
set style histogram errorbars gap 2 lw 1
set style fill solid 0.6 border -1
set ylabel 'daemon / baseline (log scale)'
set xtics rotate by -35 font ',9'
set key outside right
set grid ytics
set logscale y 2
set yrange [0.25:4]
set ytics (0.25, 0.5, 0.8, 0.9, 1, 1.1, 1.25, 2, 4)
f(x) = 1
plot %s, f(x) notitle lc rgb 'black' lw 1
""" % (out + ".png", title, ", ".join(plots))
    return gnuplot(script, out + ".png")


def per_config(rows, case, metric, config):
    return stats(v for v in series(rows, case, metric, config).values())


def overhead(rows, out):
    configs = configs_of(rows)
    base = "baseline"
    others = [c for c in configs if c != base]
    cmp = compare(rows, base, others)
    lines = ["## Workload ratios (daemon / baseline)", "",
             "Median of the repetitions per configuration; ratio of the medians, in brackets "
             "the range of the per-repetition ratios (each daemon run against the baseline "
             "run of the same repetition).  Throughput: higher is better; latency: lower is "
             "better.", ""]
    lines += ratio_table(cmp, base, others, headline="all" if "all" in others else None)
    lines += ["", "## The daemon during the runs", ""]
    if RATIOS_ONLY:
        lines += ["| config | peak RSS MB (target <= %g) | RSS at the end MB | events handled |"
                  % TARGET_RSS_MB, "|---|---|---|---|"]
    else:
        lines += ["| config | start-up to 'bpftune running' ms | CPU ms per run | CPU share %% | "
                  "peak RSS MB (target <= %g) | RSS at the end MB | events handled |"
                  % TARGET_RSS_MB, "|---|---|---|---|---|---|---|"]

    def rng(s):
        return "%s (%s-%s)" % (fmt(s["median"]), fmt(s["min"]), fmt(s["max"])) if s else "-"
    for c in others:
        st = per_config(rows, "daemon", "startup", c)
        cpu = per_config(rows, "daemon", "cpu", c)
        share = per_config(rows, "daemon", "cpu_share", c)
        rss = per_config(rows, "daemon", "rss_peak", c)
        rss_end = per_config(rows, "daemon", "rss_end", c)
        ev = per_config(rows, "daemon", "events", c)
        if RATIOS_ONLY:
            lines.append("| %s | %s | %s | %s |" % (c, rng(rss), rng(rss_end), rng(ev)))
        else:
            lines.append("| %s | %s | %s | %s | %s | %s | %s |" % (
                c, rng(st), rng(cpu), rng(share), rng(rss), rng(rss_end), rng(ev)))
    notes = [r for r in rows if r["case"] == "note"]
    lines += idle_section(rows)
    if notes:
        lines += ["", "Note: the TCP buffer sysctls of the test namespaces were changed by "
                  "someone else during %d run(s) (another daemon on the host); they were put "
                  "back after each." % len(notes)]
    write_summary(out + "-summary.csv", cmp, base)
    lines += ["", ratio_plot(cmp, others, out, "bpftune overhead: daemon / baseline")]
    return lines


def stress(rows, out):
    base = "baseline"
    others = [c for c in configs_of(rows, exclude=("profile",)) if c != base]
    cmp = compare(rows, base, others)
    lines = ["## stress-ng --sock: bogo-ops (daemon / baseline)", ""]
    lines += ratio_table(cmp, base, others)
    lines += ["", "## The daemon during the stress runs", "",
              "| config | CPU ms per run | CPU share % | peak RSS MB |", "|---|---|---|---|"]
    for c in others:
        cpu = per_config(rows, "daemon", "cpu", c)
        share = per_config(rows, "daemon", "cpu_share", c)
        rss = per_config(rows, "daemon", "rss_peak", c)
        lines.append("| %s | %s | %s | %s |" % (
            c, fmt(cpu["median"]) if cpu else "-", fmt(share["median"]) if share else "-",
            fmt(rss["max"]) if rss else "-"))
    samp = {}
    for r in rows:
        if r["case"].startswith("daemon:sampler:"):
            hook = r["case"].split(":", 2)[2]
            samp.setdefault(hook, {}).setdefault(r["metric"], []).append(num(r["value"]))
    if samp:
        lines += ["", "## Adaptive sampling (per stress run, medians over the runs)", "",
                  "| tuner/hook | calls | sampled | sampled share |", "|---|---|---|---|"]
        for hook, m in sorted(samp.items()):
            c = statistics.median(m.get("calls", [0]))
            s = statistics.median(m.get("sampled", [0]))
            lines.append("| %s | %s | %s | %s |" % (hook, fmt(c), fmt(s),
                                                     "%.2f%%" % (s * 100 / c) if c else "-"))
    prof = [r for r in rows if r["config"] == "profile"]
    if prof:
        lines += ["", "## Profile run (perf record -e cpu-clock -g on the daemon, BPF run-time "
                  "statistics on)", "",
                  "| BPF program | runs | ns per run | total ms |", "|---|---|---|---|"]
        progs = {}
        for r in prof:
            if r["case"].startswith("bpf:"):
                # programs of the same name (one per object) add up
                m = progs.setdefault(r["case"][4:], {})
                m[r["metric"]] = m.get(r["metric"], 0) + (num(r["value"]) or 0)
        for p, m in sorted(progs.items(), key=lambda x: -(x[1].get("run_time_ns") or 0)):
            cnt, ns = m.get("run_cnt") or 0, m.get("run_time_ns") or 0
            lines.append("| %s | %d | %s | %.1f |" % (p, cnt, fmt(ns / cnt) if cnt else "-",
                                                       ns / 1e6))
        for r in prof:
            if r["case"] == "profile":
                lines.append("")
                lines.append("%s: %s %s" % (r["metric"], r["value"], r["unit"]))
    write_summary(out + "-summary.csv", cmp, base)
    lines += ["", ratio_plot(cmp, others, out, "stress-ng --sock: daemon / baseline")]
    return lines


def effect_timeline(path):
    """{(rep, config): [(s after bpftune running, Mbit/s)]} of -timeline.dat
    (rep config s mbps; files without the config column are "tuned")."""
    timeline = {}
    if os.path.exists(path):
        for l in open(path):
            f = l.split()
            if l.startswith("#") or len(f) not in (3, 4):
                continue
            key = (f[0], "tuned") if len(f) == 3 else (f[0], f[1])
            timeline.setdefault(key, []).append((float(f[-2]), float(f[-1])))
    return timeline


def time_to(tl, target):
    """The first interval at @target with the next one too, or None."""
    for i, (t, v) in enumerate(tl):
        nxt = tl[i + 1][1] if i + 1 < len(tl) else v
        if v >= target and nxt >= target:
            return t
    return None


def effect_convergence(rows, timeline, target, daemons):
    conv = [r for r in rows if r["case"] == "convergence"]
    lines = ["", "## Time to %d %% of the static throughput (%s Mbit/s) after 'bpftune "
             "running' (target <= %g s)" % (TARGET_RECOVER * 100, fmt(target), TARGET_RECOVER_S), "",
             "First 0.5 s interval of a continuous iperf3 run at that level together with "
             "the next one; the run starts right after the daemon is up.", "",
             "| config | rep | seconds | Mbit/s in the first / last second | tcp_rmem max after "
             "the run / at the end | tcp_rmem changes | latency-guard holds |",
             "|---|---|---|---|---|---|---|"]
    reps = sorted(set([k[0] for k in timeline] + [r["rep"] for r in conv]), key=int)
    for cfg in daemons:
        for rep in reps:
            m = {r["metric"]: r["value"] for r in conv if r["rep"] == rep and r["config"] == cfg}
            tl = timeline.get((rep, cfg), [])
            if not m and not tl:
                continue
            reached = time_to(tl, target) if target else None
            first = [v for t, v in tl[:2]]
            last = [v for t, v in tl[-2:]]
            when = ("%.1f" % reached if reached is not None else
                    "not within %.0f s" % tl[-1][0] if tl else "-")
            lines.append("| %s | %s | %s | %s / %s | %s / %s | %s | %s |" % (
                cfg, rep, when, fmt(statistics.mean(first)) if first else "-",
                fmt(statistics.mean(last)) if last else "-",
                m.get("rmem_max_after_converge", "-"), m.get("rmem_max", "-"),
                m.get("changes", "-"), m.get("holds", "-")))
    return lines


def effect(rows, out):
    base = "small"
    configs = configs_of(rows)
    # tuned: this build; any other daemon configuration is an A/B build
    daemons = [c for c in configs if c not in ("small", "static")]
    daemons.sort(key=lambda c: c != "tuned")
    others = [c for c in ["static"] + daemons if c in configs]
    cmp = compare(rows, base, others)
    lines = ["## tcp_buffer: throughput with too-small buffers, static well-chosen ones, "
             "and after tuning (ratios to the too-small start)", ""]
    lines += ratio_table(cmp, base, others)
    for e in cmp:
        s = e["cfg"].get("static")
        for d in daemons:
            t = e["cfg"].get(d)
            if s and t and s["stats"] and t["stats"]:
                lines += ["", "%s / static: %s (target >= %.2f)" % (
                    d, fmt(t["stats"]["median"] / s["stats"]["median"]), TARGET_RECOVER)]
        t, o = e["cfg"].get("tuned"), [e["cfg"].get(d) for d in daemons if d != "tuned"]
        for d, x in zip([d for d in daemons if d != "tuned"], o):
            if t and x and t["stats"] and x["stats"]:
                lines += ["", "tuned / %s (this build against the other): %s" % (
                    d, fmt(t["stats"]["median"] / x["stats"]["median"]))]
    ts = out + "-timeline.dat"
    static = cmp[0]["cfg"].get("static") if cmp else None
    target = TARGET_RECOVER * static["stats"]["median"] if static and static["stats"] else None
    timeline = effect_timeline(ts)
    if timeline or any(r["case"] == "convergence" for r in rows):
        lines += effect_convergence(rows, timeline, target, daemons)
    write_summary(out + "-summary.csv", cmp, base)
    if timeline:
        lines += ["", effect_plot(timeline, target, out)]
    return lines


def effect_plot(timeline, target, out):
    dat = out + "-plot.dat"
    series = []
    with open(dat, "w") as f:
        for (rep, cfg), tl in sorted(timeline.items(), key=lambda k: (k[0][1], int(k[0][0]))):
            f.write("# %s rep %s\n" % (cfg, rep))
            for t, v in tl:
                f.write("%.2f %.1f\n" % (t, v))
            f.write("\n\n")
            series.append("%s rep %s" % (cfg, rep))
    plots = ["'%s' index %d using 1:2 with linespoints title '%s'" % (dat, i, name)
             for i, name in enumerate(series)]
    if target:
        plots.append("%.1f title '%d %% of static' lc rgb 'red'" % (target, TARGET_RECOVER * 100))
    script = """set terminal pngcairo size 1000,500 noenhanced
set output '%s'
set title 'tcp_buffer: iperf3 throughput after the daemon started (too-small tcp_rmem at start)'
set xlabel 's after bpftune running'
set ylabel 'Mbit/s'
set grid
set key bottom right
plot %s
""" % (out + ".png", ", \\\n     ".join(plots))
    return gnuplot(script, out + ".png")


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("overhead", "stress", "effect"):
        sys.exit(__doc__)
    kind, raw, out = sys.argv[1:]
    rows = load(raw)
    if not rows:
        sys.exit("report.py: %s has no rows" % raw)
    lines = info_lines(out)
    lines += globals()[kind](rows, out)
    write_report(out, lines)


if __name__ == "__main__":
    main()
