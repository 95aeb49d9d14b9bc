#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Report of bench/cost.sh: cost ratios with intervals, BPF ns per unit.

  cost_report.py RAW.csv OUT

RAW.csv: block,config,case,run,metric,unit,value.  Writes OUT.md (also on
stdout), OUT-summary.csv (one figure per line with its interval, for
bench/compare.py) and the plots OUT.png (cost ratios with their 95 %
intervals) and OUT-bpf.png (BPF ns per unit of work, per plugin).

Cost of a run: the workload cgroup's CPU time / the work the run counted
(ns per packet, transaction, connection, context switch).  A block's value
per case and configuration: the median of its runs (a run disturbed by
the shared machine costs more; the median keeps one such run from moving
the block).  The ratio of two configurations: paired over the blocks (see
bench/stats.py).

Speed, from the same runs: iperf3's throughput (bytes / wall time of the
run, Mbit/s) and qperf tcp_lat's latency (us), per block the median of its
runs, paired ratios as for the cost.  What the daemon takes from the
workload's speed rather than its CPU: the comparison for a TCG guest,
where CPU time per unit is distorted, and against a reference daemon.
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stats  # noqa: E402
from report_common import (fmt, gnuplot, info_lines, load, num, ordered,  # noqa: E402
                           write_report, write_summary)

BASE = "baseline"
TARGET_COST_PCT = 0.5	# the interval the method aims for (+- per cent)
TARGET_BPF_SHARE = 1.0	# BPF time per packet, per cent of the kernel's own


class Runs:
    """Per (config, case): block -> [cost per unit of each run]."""

    def __init__(self, rows):
        self.rows = rows
        self.cost = {}
        self.unit = {}
        self.extra = {}
        runs = {}
        for r in rows:
            if r["case"] == "daemon" or r["block"] == "stats":
                continue
            key = (r["config"], r["case"], r["block"], r["run"])
            runs.setdefault(key, {})[r["metric"]] = r
        for (cfg, case, blk, _), m in runs.items():
            if "cpu" not in m or "work" not in m:
                continue
            work, cpu = num(m["work"]["value"]), num(m["cpu"]["value"])
            if not work or cpu is None:
                continue
            self.unit[case] = m["work"]["unit"]
            self.cost.setdefault((cfg, case), {}).setdefault(blk, []).append(cpu * 1000 / work)
            for k, v in m.items():
                if k not in ("cpu", "work", "wall"):
                    self.extra.setdefault((cfg, case, k), []).append(num(v["value"]))
        self.configs = ordered(r["config"] for r in rows if r["block"] != "stats")
        self.cases = ordered(r["case"] for r in rows if r["case"] != "daemon")

    def blocks(self, cfg, case):
        """block -> median cost of its runs"""
        return {b: statistics.median(v) for b, v in self.cost.get((cfg, case), {}).items()}

    def all_runs(self, cfg, case):
        return [x for v in self.cost.get((cfg, case), {}).values() for x in v]


def pairs_of(configs):
    """(numerator, denominator) pairs: every daemon against the baseline,
    and every other daemon against the last one listed (the other daemon
    of an A/B run, which bench/cost.sh appends)."""
    daemons = [c for c in configs if c != BASE]
    out = [(c, BASE) for c in daemons if BASE in configs]
    if len(daemons) > 1:
        out += [(c, daemons[-1]) for c in daemons[:-1]]
    return out


def ratio_table_head(first, pairs, per_pair):
    """A table's header and separator lines: the columns @first, then for
    each (a, b) of @pairs the ratio a / b with its 95 % CI and a column
    @per_pair."""
    head = "| %s |" % " | ".join(first)
    sep = "|" + "---|" * len(first)
    for a, b in pairs:
        head += " %s / %s [95 %% CI] | %s |" % (a, b, per_pair)
        sep += "---|---|"
    return [head, sep]


def cost_section(runs, summary, ipi_cost=None):
    lines = ["## Cost: CPU time of the workload per unit of work", "",
             "Per case: the baseline's cost (median of all runs, and the spread of the "
             "block values, (max - min) / median), then each ratio with its 95 %% confidence "
             "interval, paired over %s blocks; +-: half-width of the interval (target +-%.1f %%)."
             % (max(len(runs.blocks(BASE, c)) for c in runs.cases) if BASE in runs.configs
                else "the", TARGET_COST_PCT), ""]
    pairs = pairs_of(runs.configs)
    lines += ratio_table_head(["case", "unit", "%s ns/unit (block spread)" % BASE], pairs, "+-")
    for case in runs.cases:
        base = runs.all_runs(BASE, case)
        bb = list(runs.blocks(BASE, case).values())
        spread = ("%.1f%%" % (100 * (max(bb) - min(bb)) / statistics.median(bb))
                  if bb else "-")
        line = "| %s | %s | %s (%s) |" % (case, runs.unit.get(case, "-"),
                                          fmt(statistics.median(base)) if base else "-", spread)
        if base:
            summary.append((case, "cost_ns_per_" + runs.unit.get(case, "unit"), BASE,
                            statistics.median(base), min(bb), max(bb), len(bb)))
        for a, b in pairs:
            r = stats.paired_ratio(runs.blocks(a, case), runs.blocks(b, case))
            if not r:
                line += " - | - |"
                continue
            line += " %.4f [%.4f-%.4f] | %.2f %% |" % (r["est"], r["lo"], r["hi"], r["half_pct"])
            summary.append((case, "cost_ratio", "%s/%s" % (a, b), r["est"], r["lo"], r["hi"],
                            r["n"]))
        lines.append(line)
    lat = [(c, statistics.median([v for v in runs.extra.get((c, "qperf", "latency_us"), [])
                                  if v is not None]))
           for c in runs.configs if runs.extra.get((c, "qperf", "latency_us"))]
    if lat:
        lines += ["", "qperf tcp_lat latency (median of the runs, us; pinned, RT): " +
                  ", ".join("%s %s" % (c, fmt(v)) for c, v in lat)]
    leak = [v for k, vals in runs.extra.items() if k[2] == "softirqd" for v in vals
            if v is not None]
    cpu = [num(r["value"]) for r in runs.rows if r["metric"] == "cpu" and r["case"] != "daemon"]
    if leak and cpu:
        lines += ["", "Softirq work that ksoftirqd of the workload's CPU took over (outside "
                  "the workload's cgroup, so not in its cost): %.2f %% of the workload's CPU "
                  "time." % (100 * sum(leak) / max(1, sum(v for v in cpu if v)))]
    return lines + irq_lines(runs, ipi_cost)


def irq_lines(runs, ipi_cost):
    """Interrupts the workload's CPU took per run: without IRQ time
    accounting their handlers' time is charged to the workload.  With
    ipi_cost (us per IPI: median, lo, hi), what the IPIs a configuration
    adds cost as a share of the baseline's CPU time per run."""
    rows = []
    for case in runs.cases:
        med = {}
        for cfg in runs.configs:
            ipi = [v for v in runs.extra.get((cfg, case, "ipi"), []) if v is not None]
            dev = [v for v in runs.extra.get((cfg, case, "devirq"), []) if v is not None]
            if ipi and dev:
                med[cfg] = (statistics.median(ipi), statistics.median(dev))
        cpu = [num(r["value"]) for r in runs.rows if r["case"] == case and r["config"] == BASE
               and r["metric"] == "cpu" and r["block"] != "stats"]
        cpu = [v for v in cpu if v]
        for cfg, (i, d) in med.items():
            share = "-"
            if ipi_cost and BASE in med and cpu and cfg != BASE:
                share = "%.3f %%" % (100 * (i - med[BASE][0]) * ipi_cost[0] /
                                     statistics.median(cpu))
            rows.append("| %s | %s | %s | %s | %s |" % (case, cfg, fmt(i), fmt(d), share))
    if not rows:
        return []
    cost = ("One IPI costs the task it interrupts %s us [%s - %s] here "
            "(`build/bench/ipi_cost`, membarrier IPIs: the median of the pairs, the 95 %% interval of their mean)." %
            tuple(fmt(v) for v in ipi_cost) if ipi_cost else
            "(No IPI cost measured: `IPI_PAIRS=0` or a guest.)")
    return ["", "Interrupts on the workload's CPU per run, median: without IRQ time "
            "accounting in the kernel (CONFIG_IRQ_TIME_ACCOUNTING) their handlers' time "
            "is in the workload's cost.  " +
            cost, "",
            "| case | config | IPIs | device interrupts | the added IPIs, % of the baseline's CPU |",
            "|---|---|---|---|---|"] + rows


def read_ipi_cost(path):
    """(median, lo, hi) us per IPI over ipi_cost's pairs (lo, hi: the 95 %
    t interval of their mean); None without two pairs"""
    us = []
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                w = line.split()
                if w[:1] == ["pair"] and w[-3:] == ["us", "per", "IPI"]:
                    us.append(float(w[-4]))
    except (OSError, ValueError):
        return None
    mi = stats.mean_interval(us)
    if not mi or mi["lo"] is None:
        return None
    return (statistics.median(us), mi["lo"], mi["hi"])


def speed_blocks(rows):
    """(config, case) -> {block: median over its runs} of the run's speed:
    iperf Mbit/s (bytes over the run's wall time), qperf latency us."""
    runs = {}
    for r in rows:
        if r["case"] in ("iperf", "qperf") and r["block"] != "stats":
            runs.setdefault((r["config"], r["case"], r["block"], r["run"]),
                            {})[r["metric"]] = num(r["value"])
    per = {}
    for (cfg, case, blk, _), m in runs.items():
        if case == "iperf" and m.get("bytes") and m.get("wall"):
            v = m["bytes"] * 8 / (m["wall"] * 1000)
        elif case == "qperf" and m.get("latency_us"):
            v = m["latency_us"]
        else:
            continue
        per.setdefault((cfg, case), {}).setdefault(blk, []).append(v)
    return {k: {b: statistics.median(v) for b, v in d.items()} for k, d in per.items()}


def speed_section(rows, configs, summary):
    sb = speed_blocks(rows)
    if not sb:
        return []
    what = {"iperf": ("throughput", "Mbit/s"), "qperf": ("latency", "us")}
    pairs = pairs_of(configs)
    lines = ["", "## Speed: iperf3 throughput and qperf tcp_lat latency", "",
             "Per block the median of its runs; each ratio with its 95 % confidence "
             "interval, paired over the blocks (n).  Throughput below 1 and latency "
             "above 1: the daemon slows the workload.", ""]
    lines += ratio_table_head(["case", "metric", "%s median (block range)" % BASE], pairs, "n")
    for case in ("iperf", "qperf"):
        metric, unit = what[case]
        bb = list(sb.get((BASE, case), {}).values())
        if not bb and not any(k[1] == case for k in sb):
            continue
        line = "| %s | %s %s | %s |" % (
            case, metric, unit,
            "%s (%s-%s)" % (fmt(statistics.median(bb)), fmt(min(bb)), fmt(max(bb)))
            if bb else "-")
        for a, b in pairs:
            r = stats.paired_ratio(sb.get((a, case), {}), sb.get((b, case), {}))
            if not r:
                line += " - | - |"
                continue
            line += " %.3f [%.3f-%.3f] | %d |" % (r["est"], r["lo"], r["hi"], r["n"])
            summary.append((case, metric + "_ratio", "%s/%s" % (a, b), r["est"], r["lo"],
                            r["hi"], r["n"]))
        lines.append(line)
    return lines


def bpf_data(rows):
    """(config, case) -> {"units", "unit", "progs": {(plugin, name): [cnt, ns]},
    "runs": {run: {"units", "progs"}}}"""
    out = {}
    for r in rows:
        if r["block"] != "stats":
            continue
        d = out.setdefault((r["config"], r["case"]),
                           {"units": 0, "progs": {}, "unit": None, "runs": {}})
        run = d["runs"].setdefault(r["run"], {"units": 0, "progs": {}})
        if r["metric"] == "work":
            v = num(r["value"]) or 0
            d["units"] += v
            run["units"] += v
            d["unit"] = r["unit"]
        elif r["metric"].startswith("bpf:"):
            plugin, _, name = r["metric"][4:].partition("/")
            i = 0 if r["unit"] == "run_cnt" else 1
            v = num(r["value"]) or 0
            d["progs"].setdefault((plugin, name), [0, 0])[i] += v
            run["progs"].setdefault((plugin, name), [0, 0])[i] += v
    return out


def run_values(d, pick):
    """pick(run) per unit of each run that did work (ns per unit)"""
    return [pick(run) / run["units"] for run in d["runs"].values() if run["units"]]


def run_range(d, pick):
    """min and max over the runs of pick(run) (ns per unit), or (None, None)"""
    vals = run_values(d, pick)
    return (min(vals), max(vals)) if vals else (None, None)


def share_text(share):
    """a mean_interval() of per cent shares, as 0.12 % [0.05 - 0.19]"""
    if share["lo"] is None:
        return "%.3f %%" % share["est"]
    return "%.3f %% [%.3f - %.3f]" % (share["est"], share["lo"], share["hi"])


def bpf_section(rows, runs, summary, out):
    data = bpf_data(rows)
    if not data:
        return []
    lines = ["", "## BPF programs: in-kernel cost per unit of work",
             "", "From the statistics pass (kernel.bpf_stats_enabled=1 for it only): every "
             "program the daemon holds, its runs and run time during each run of the case "
             "divided by the work the run counted; in brackets the range over the runs.  "
             "Programs that did not run are left out.  Share: BPF ns per unit / the "
             "baseline's CPU ns per unit (target for iperf: < %g %%).  The statistics add "
             "two clock reads per run, so ns per run is an upper bound; programs also run "
             "for other traffic on the host during the pass." % TARGET_BPF_SHARE]
    for (cfg, case), d in sorted(data.items()):
        units = d["units"]
        if not units:
            continue
        base = runs.all_runs(BASE, case)
        base_ns = statistics.median(base) if base else None
        total = sum(ns for _, ns in d["progs"].values()) / units
        per_run = run_values(d, lambda run: sum(ns for _, ns in run["progs"].values()))
        lo, hi = (min(per_run), max(per_run)) if per_run else (None, None)
        # the share: the mean of the runs with its t interval, not the
        # range: a window gate open in one short run is what a range shows
        share = stats.mean_interval([100 * v / base_ns for v in per_run]) if base_ns else None
        if share and share["lo"] is not None:
            share["lo"] = max(0.0, share["lo"])	# a share is never below 0
        lines += ["", "### %s, %s: %s [%s-%s] BPF ns per %s%s" % (
            cfg, case, fmt(total), fmt(lo), fmt(hi), d["unit"],
            " = %.3f %% of the kernel's %s ns; per run %s (mean of %d runs, 95 %% CI)" % (
                100 * total / base_ns, fmt(base_ns), share_text(share), share["n"])
            if share else ""), "",
            "| plugin | program | runs per %s | ns per run | BPF ns per %s [range] |"
            % (d["unit"], d["unit"]), "|---|---|---|---|---|"]
        summary.append((case, "bpf_ns_per_" + d["unit"], cfg, total, lo, hi, len(d["runs"])))
        if share:
            summary.append((case, "bpf_share_pct", cfg, share["est"], share["lo"], share["hi"],
                            share["n"]))
        per_plugin = {}
        for (plugin, name), (cnt, ns) in sorted(d["progs"].items(), key=lambda x: -x[1][1]):
            per_plugin.setdefault(plugin, []).append((plugin, name))
            if not cnt:
                continue
            plo, phi = run_range(d, lambda run, k=(plugin, name): run["progs"].get(k, [0, 0])[1])
            lines.append("| %s | %s | %s | %s | %s [%s-%s] |" % (
                plugin, name, fmt(cnt / units), fmt(ns / cnt), fmt(ns / units),
                fmt(plo), fmt(phi)))
            summary.append((case, "bpf_ns_per_unit:%s/%s" % (plugin, name), cfg, ns / units,
                            plo, phi, len(d["runs"])))
        for plugin, keys in sorted(per_plugin.items()):
            ns = sum(d["progs"][k][1] for k in keys)
            if not ns:
                continue
            plo, phi = run_range(d, lambda run, ks=keys: sum(run["progs"].get(k, [0, 0])[1]
                                                             for k in ks))
            summary.append((case, "bpf_ns_per_unit:%s" % plugin, cfg, ns / units, plo, phi,
                            len(d["runs"])))
    lines += ["", bpf_plot(data, runs, out)]
    return lines


def daemon_section(rows, summary):
    d = {}
    for r in rows:
        if r["case"] == "daemon" and r["block"] != "stats":
            d.setdefault(r["config"], {}).setdefault(r["metric"], []).append(num(r["value"]))
    if not d:
        return []
    lines = ["", "## The daemon during the blocks", "",
             "Medians over the blocks (range).  CPU: the daemon's cgroup, per second of the "
             "block and as a share of the workload's CPU time in the block.  Wake-ups: "
             "context switches of its threads per second.  Memory at the end of a block "
             "(VmHWM: peak since start).  Start-up: from the fork to the daemon's 'up' "
             "line (ours: all tuners loaded; another daemon's may come earlier); "
             "programs loaded: to the last change of the number of BPF programs it "
             "holds, looked at every 0.5 s (with a settle only), the same for both.", "",
             "| config | start-up ms | programs loaded ms | CPU ms/s | CPU / workload CPU | "
             "wake-ups/s | events | VmHWM MB | VmRSS MB | anon MB | file MB |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    wl_cpu = {}
    for r in rows:
        if r["metric"] == "cpu" and r["case"] != "daemon" and r["block"] != "stats":
            k = (r["config"], r["block"])
            wl_cpu[k] = wl_cpu.get(k, 0) + (num(r["value"]) or 0)
    for cfg, m in d.items():
        def med(key, scale=1.0):
            v = [x for x in m.get(key, []) if x is not None]
            if not v:
                return None
            return statistics.median(v) * scale

        def rng(key, scale=1.0):
            v = [x * scale for x in m.get(key, []) if x is not None]
            if not v:
                return "-"
            return "%s (%s-%s)" % (fmt(statistics.median(v)), fmt(min(v)), fmt(max(v)))
        per_s = [c / w for c, w in zip(m.get("cpu", []), m.get("wall", [])) if c and w]
        wake = [c * 1000 / w for c, w in zip(m.get("wakeups", []), m.get("wall", [])) if w]
        blocks = sorted({r["block"] for r in rows if r["config"] == cfg and r["case"] == "daemon"
                         and r["block"] != "stats"})
        shares = []
        for b, c in zip(blocks, m.get("cpu", [])):
            w = wl_cpu.get((cfg, b))
            if w and c is not None:
                shares.append(100 * c / w)
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            cfg, rng("startup"), rng("loaded"), fmt(statistics.median(per_s)) if per_s else "-",
            "%.3f %%" % statistics.median(shares) if shares else "-",
            fmt(statistics.median(wake)) if wake else "-", rng("events"),
            rng("vm_hwm", 1 / 1024), rng("vm_rss", 1 / 1024), rng("rss_anon", 1 / 1024),
            rng("rss_file", 1 / 1024)))
        for key, name, scale in (("vm_hwm", "vm_hwm_mb", 1 / 1024), ("vm_rss", "vm_rss_mb", 1 / 1024),
                                 ("rss_anon", "rss_anon_mb", 1 / 1024),
                                 ("rss_file", "rss_file_mb", 1 / 1024), ("startup", "startup_ms", 1),
                                 ("loaded", "loaded_ms", 1)):
            v = [x * scale for x in m.get(key, []) if x is not None]
            if v:
                summary.append(("daemon", name, cfg, statistics.median(v), min(v), max(v), len(v)))
        if per_s:
            summary.append(("daemon", "cpu_ms_per_s", cfg, statistics.median(per_s), min(per_s),
                            max(per_s), len(per_s)))
        if shares:
            summary.append(("daemon", "cpu_share_pct", cfg, statistics.median(shares),
                            min(shares), max(shares), len(shares)))
        if wake:
            summary.append(("daemon", "wakeups_per_s_loaded", cfg, statistics.median(wake),
                            min(wake), max(wake), len(wake)))
    return lines


def cost_plot(summary, out):
    ratios = [s for s in summary if s[1] == "cost_ratio"]
    if not ratios:
        return "(no ratios: no plot)"
    dat = out + "-plot.dat"
    with open(dat, "w") as f:
        for i, (case, _, pair, est, lo, hi, _) in enumerate(ratios):
            f.write('%d "%s %s" %.5f %.5f %.5f\n' % (i, case, pair, est, lo, hi))
    lo = min(min(s[4] for s in ratios), 0.99)
    hi = max(max(s[5] for s in ratios), 1.01)
    script = """set terminal pngcairo size 1100,520 noenhanced
set output '%s'
set title 'Workload CPU time per unit of work: ratio and 95 %% CI (paired blocks)'
set ylabel 'ratio'
set xtics rotate by -30 font ',9'
set grid ytics
set key off
set xrange [-0.7:%f]
set yrange [%f:%f]
set arrow from -0.7,1 to %f,1 nohead lc rgb 'black'
set arrow from -0.7,1.005 to %f,1.005 nohead lc rgb 'gray' dt 2
set arrow from -0.7,0.995 to %f,0.995 nohead lc rgb 'gray' dt 2
plot '%s' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2
""" % (out + ".png", len(ratios) - 0.3, lo - 0.005, hi + 0.005, len(ratios) - 0.3,
       len(ratios) - 0.3, len(ratios) - 0.3, dat)
    return gnuplot(script, out + ".png")


def bpf_plot(data, runs, out):
    """Stacked bars: BPF time per unit per plugin as a share of the
    baseline's CPU time per unit (cases of different units side by side),
    one bar per config and case."""
    plugins = ordered(p for d in data.values() for (p, _), (_, ns) in d["progs"].items() if ns)
    if not plugins:
        return "(no BPF run time recorded: no plot)"
    dat = out + "-bpf.dat"
    with open(dat, "w") as f:
        f.write("# label %s\n" % " ".join(plugins))
        for (case, cfg), d in sorted((k[::-1], v) for k, v in data.items()):
            base = runs.all_runs(BASE, case)
            base_ns = statistics.median(base) if base else None
            if not d["units"] or not base_ns:
                continue
            per = {p: 0.0 for p in plugins}
            for (p, _), (_, ns) in d["progs"].items():
                if p in per:
                    per[p] += 100 * ns / d["units"] / base_ns
            f.write('"%s %s" %s\n' % (case, cfg, " ".join("%.4f" % per[p] for p in plugins)))
    cols = ", ".join("'%s' using %d%s title '%s'" % (dat, i + 2, ":xtic(1)" if i == 0 else "", p)
                     for i, p in enumerate(plugins))
    script = """set terminal pngcairo size 1100,520 noenhanced
set output '%s'
set title "BPF run time per unit of work, per plugin, as %% of the workload's own CPU time per unit (bpf_stats pass)"
set style data histograms
set style histogram rowstacked
set style fill solid 0.8 border -1
set boxwidth 0.6
set ylabel '%% of the baseline CPU time per unit'
set xtics rotate by -20 font ',9'
set key outside right
set grid ytics
plot %s
""" % (out + "-bpf.png", cols)
    return gnuplot(script, out + "-bpf.png")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    raw, out = sys.argv[1:]
    rows = load(raw)
    if not rows:
        sys.exit("cost_report.py: %s has no rows" % raw)
    runs = Runs(rows)
    summary = []
    lines = info_lines(out)
    lines += cost_section(runs, summary, read_ipi_cost(out + "-ipi.txt"))
    lines += ["", cost_plot(summary, out)]
    lines += speed_section(rows, runs.configs, summary)
    lines += bpf_section(rows, runs, summary, out)
    lines += daemon_section(rows, summary)
    write_summary(out + "-summary.csv", summary)
    write_report(out, lines)


if __name__ == "__main__":
    main()
