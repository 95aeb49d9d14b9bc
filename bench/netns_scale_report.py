#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Report of bench/netns_scale.sh: the daemon's cost against the number of
live network namespaces, each with a TCP connection churning.

  netns_scale_report.py RAW.csv OUT

Writes OUT.md (also on stdout) and OUT-summary.csv (case,metric,config,
value,lo,hi,n as the other reports).  Per step: the mean over the
repetitions with its 95 % t interval; the driver's rate with / without
the daemon as a paired ratio (bench/stats.py); then least-squares lines
against N over every repetition, the slope with its 95 % interval, and the
growth exponent (slope of log y against log N: 1 is linear).
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report_common import fmt, info_lines, load, num, write_report, write_summary  # noqa: E402
from stats import linear_fit, mean_interval, paired_ratio  # noqa: E402


def blocks(rows):
    """{(step, rep, config): {metric: value}}"""
    out = {}
    for r in rows:
        key = (int(r["step"]), r["rep"], r["config"])
        out.setdefault(key, {})[r["metric"]] = num(r["value"])
    return out


def derived(b):
    """Per (step, rep): the figures the report shows, from both windows."""
    per = {}
    for (n, rep, cfg), m in b.items():
        d = per.setdefault((n, rep), {"n": n})
        conns, secs = m.get("driver_conns"), m.get("driver_secs")
        if not conns or not secs:
            continue
        d[cfg + "_rate"] = conns / secs
        if m.get("driver_cpu_ms") is not None:
            d[cfg + "_drv_ns"] = m["driver_cpu_ms"] * 1e6 / conns
        if cfg != "daemon":
            continue
        if m.get("daemon_cpu_ns") is not None:
            d["cpu_ns_conn"] = m["daemon_cpu_ns"] / conns
            d["cpu_pct"] = m["daemon_cpu_ns"] / (secs * 1e9) * 100
            d["cpu_us_netns"] = m["daemon_cpu_ns"] / 1e3 / secs / n
        if m.get("daemon_stat_cpu_ms") is not None:
            d["stat_ns_conn"] = m["daemon_stat_cpu_ms"] * 1e6 / conns
        if m.get("daemon_rss_kb") is not None:
            d["rss_kb"] = m["daemon_rss_kb"]
            d["rss_kb_netns"] = m["daemon_rss_kb"] / n
            if m.get("daemon_rss_kb_before") is not None:
                d["rss_growth_kb"] = m["daemon_rss_kb"] - m["daemon_rss_kb_before"]
        d["settle_s"] = m.get("settle_s")
        d["known"] = m.get("netns_known")
        d["fewest"] = min(v for v in (m.get("driver_min"),
                                      b.get((n, rep, "none"), {}).get("driver_min"), 1e18)
                          if v is not None)
        d["errors"] = (m.get("driver_errors") or 0) + \
            (b.get((n, rep, "none"), {}).get("driver_errors") or 0)
    return per


def cell(iv, digits=3):
    if iv is None:
        return "-"
    if iv["lo"] is None:
        return fmt(iv["est"], digits)
    return "%s [%s-%s]" % (fmt(iv["est"], digits), fmt(iv["lo"], digits),
                           fmt(iv["hi"], digits))


RATE = [("none_rate", "conn/s, no daemon"), ("daemon_rate", "conn/s, daemon")]
CPU = [("cpu_ns_conn", "daemon CPU ns/conn"), ("stat_ns_conn", "same, utime+stime"),
       ("cpu_pct", "daemon CPU % of one CPU"),
       ("cpu_us_netns", "daemon CPU us/s per netns"), ("none_drv_ns", "driver CPU ns/conn, none"),
       ("daemon_drv_ns", "driver CPU ns/conn, daemon")]
MEMORY = [("rss_kb", "daemon VmRSS kB"), ("rss_kb_netns", "VmRSS kB / netns"),
          ("rss_growth_kb", "VmRSS growth in the window kB")]


def table(per, title, columns, extra, summary):
    """One row per step: the mean of each column's figure [interval];
    extra(n, ds) gives (headers, cells) after them."""
    steps = sorted({d["n"] for d in per.values()})
    heads = extra(None, [])[0]
    lines = ["## %s (mean [95 %% t interval] over the repetitions)" % title, "",
             "| netns | reps | " + " | ".join([c[1] for c in columns] + heads) + " |",
             "|---" * (len(columns) + len(heads) + 2) + "|"]
    for n in steps:
        ds = [d for d in per.values() if d["n"] == n]
        cells = []
        for key, _ in columns:
            iv = mean_interval([d.get(key) for d in ds])
            cells.append(cell(iv))
            if iv is not None:
                summary.append((str(n), key, "none" if key.startswith("none") else "daemon",
                                iv["est"], iv["lo"], iv["hi"], iv["n"]))
        lines.append("| %d | %d | %s |" % (n, len(ds), " | ".join(cells + extra(n, ds)[1])))
    return lines + [""]


def rate_extra(summary):
    def extra(n, ds):
        heads = ["daemon / none (paired)", "failed conns", "fewest per netns"]
        if n is None:
            return heads, []
        ratio = paired_ratio({i: d.get("daemon_rate") for i, d in enumerate(ds)},
                             {i: d.get("none_rate") for i, d in enumerate(ds)})
        if ratio:
            summary.append((str(n), "rate_ratio", "daemon/none", ratio["est"], ratio["lo"],
                            ratio["hi"], ratio["n"]))
        fewest = [d["fewest"] for d in ds if d.get("fewest") is not None]
        return heads, [cell(ratio), "%d" % sum(d.get("errors", 0) for d in ds),
                       "%d" % min(fewest) if fewest else "-"]
    return extra


def settle_extra(n, ds):
    settle = [d["settle_s"] for d in ds if d.get("settle_s") is not None]
    return ["settle s (most)"], [fmt(max(settle)) if settle else "-"] if n else []


def known_extra(n, ds):
    known = [d["known"] for d in ds if d.get("known") is not None]
    return ["netns known to telemetry (fewest)"], [
        "%d" % min(known) if known else "-"] if n else []


def fit_line(per, key, what, unit, summary):
    pts = [(d["n"], d[key]) for d in per.values() if d.get(key) is not None]
    f = linear_fit([p[0] for p in pts], [p[1] for p in pts])
    if f is None:
        return "| %s | - | - | - | - |" % what
    logs = [(math.log(x), math.log(y)) for x, y in pts if x > 0 and y > 0]
    g = linear_fit([p[0] for p in logs], [p[1] for p in logs])
    cfg = "none" if key.startswith("none") else "daemon"
    summary.append(("fit", key + "_slope", cfg, f["b"], f["lo"], f["hi"], f["n"]))
    if g:
        summary.append(("fit", key + "_exponent", cfg, g["b"], g["lo"], g["hi"], g["n"]))
    return "| %s | %s %s per netns [%s to %s] | %s | %s | %s |" % (
        what, fmt(f["b"]), unit, fmt(f["lo"]), fmt(f["hi"]), fmt(f["a"]), fmt(f["r2"]),
        cell({"est": g["b"], "lo": g["lo"], "hi": g["hi"]}) if g else "-")


def verdict(per, steps):
    """The slope in words: what 1,000 more namespaces add to each figure,
    against its value at the smallest step."""
    out = []
    for key, what, unit in (("cpu_ns_conn", "daemon CPU per connection", "ns"),
                            ("rss_kb", "daemon VmRSS", "kB")):
        pts = [(d["n"], d[key]) for d in per.values() if d.get(key) is not None]
        f = linear_fit([p[0] for p in pts], [p[1] for p in pts])
        base = mean_interval([y for x, y in pts if x == steps[0]])
        if f is None or base is None or not base["est"]:
            continue
        out.append("- %s: %s %s per 1,000 namespaces [%s to %s], %s %% of its value at %d "
                   "namespaces (%s %s)." % (
                       what, fmt(f["b"] * 1000), unit, fmt(f["lo"] * 1000),
                       fmt(f["hi"] * 1000), fmt(100 * f["b"] * 1000 / base["est"]),
                       steps[0], fmt(base["est"]), unit))
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    raw, out = sys.argv[1:]
    per = derived(blocks(load(raw)))
    summary = []
    lines = info_lines(out)
    steps = sorted({d["n"] for d in per.values()})
    lines += table(per, "Rate", RATE, rate_extra(summary), summary)
    lines += table(per, "CPU", CPU, settle_extra, summary)
    lines += table(per, "Memory", MEMORY, known_extra, summary)
    lines += ["## Against the number of namespaces (every repetition)", "",
              "Least squares y = a + b N, b with its 95 % interval; exponent: the slope "
              "of log y against log N (1: linear growth, 0: none).", "",
              "| figure | slope b | a | r2 | exponent |", "|---|---|---|---|---|",
              fit_line(per, "cpu_ns_conn", "daemon CPU per connection", "ns", summary),
              fit_line(per, "cpu_pct", "daemon CPU %", "%", summary),
              fit_line(per, "rss_kb", "daemon VmRSS", "kB", summary),
              fit_line(per, "daemon_drv_ns", "driver CPU per connection, daemon", "ns",
                       summary),
              fit_line(per, "none_drv_ns", "driver CPU per connection, none", "ns",
                       summary)]
    if steps:
        lines += [""] + verdict(per, steps)
    write_summary(out + "-summary.csv", summary)
    write_report(out, lines)


if __name__ == "__main__":
    main()
