#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Report of bench/netem_effect.sh.

  netem_report.py RAW.csv OUT

Per configuration (small, static, observed, tuned, an A/B build): Mbit/s of the first
connection and of the later ones, against static; for the daemon phases the
final tcp_rmem max, the bandwidth-delay product the tuner measured and
their ratio.  Targets: connections from the second on >= 95 % of static,
final max <= 4 x BDP.  Writes OUT.md (also on stdout), OUT-summary.csv and
OUT.png (Mbit/s per connection; tcp_rmem max on the right axis).
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report_common import (fmt, gnuplot, info_lines, num, load as load_rows,  # noqa: E402
                           write_report, write_summary)

TARGET_LATER = 0.95
TARGET_MAX_BDP = 4.0


def mb(v):
    return "-" if v is None else "%.2f MB" % (v / 1e6)


def load(raw):
    rows = load_rows(raw)
    data = {}
    for r in rows:
        d = data.setdefault(r["config"], {}).setdefault(r["rep"], {"conns": {}, "end": {}})
        if r["conn"] == "-":
            d["end"][r["metric"]] = num(r["value"])
        else:
            d["conns"].setdefault(int(r["conn"]), {})[r["metric"]] = num(r["value"])
    return data


def conn_series(d):
    return [(c["start"], c.get("throughput"), c.get("rmem_max"))
            for _, c in sorted(d["conns"].items())]


def later_mean(reps):
    """Mean Mbit/s of every connection from the second on, over @reps."""
    v = [x for d in reps.values() for _, x, _ in conn_series(d)[1:] if x is not None]
    return statistics.mean(v) if v else None


def raises(end):
    """tcp_rmem raises, or those an observing daemon decided and did not write."""
    if end.get("would_raise") is not None:
        return "none (%s decided)" % fmt(end["would_raise"])
    return fmt(end.get("raises"))


def per_rep(cfg, rep, d, static_mean, per_cfg):
    """The table row of one phase; its figures added to @per_cfg."""
    s = conn_series(d)
    vals = [v for _, v, _ in s]
    later = [v for v in vals[1:] if v is not None]
    lm = statistics.mean(later) if later else None
    ratio = lm / static_mean if lm and static_mean else None
    worst = min(later) / static_mean if later and static_mean else None
    reached = "-"
    if static_mean:
        for i in range(len(vals)):
            if all(v is not None and v >= TARGET_LATER * static_mean for v in vals[i:]):
                reached = "conn %d (%s s)" % (i + 1, fmt(s[i][0]))
                break
    fin = d["end"].get("rmem_max_final")
    bdp = d["end"].get("tuner_bdp")
    over = fin / bdp if fin and bdp else None
    for metric, v in (("first_mbps", vals[0] if vals else None), ("later_mean_mbps", lm),
                      ("later_over_static", ratio), ("worst_later_over_static", worst),
                      ("rmem_max_final", fin), ("tuner_bdp", bdp), ("max_over_bdp", over),
                      ("wscale_notes", d["end"].get("wscale_notes"))):
        if v is not None:
            per_cfg.setdefault(metric, []).append(v)
    return "| %s | %s | %d | %s | %s (%s) | %s (worst %s) | %s | %s | %s | %s | %s | %s |" % (
        cfg, rep, len(vals), fmt(vals[0] if vals else None), fmt(lm),
        fmt(min(later) if later else None), fmt(ratio), fmt(worst), reached,
        mb(fin), raises(d["end"]), fmt(d["end"].get("wscale_notes")),
        mb(bdp), fmt(over))


def aggregate(data, static_mean, observed_mean, per_cfg):
    """Per configuration over its repetitions: the summary rows (mean, min,
    max, n) and the table that states them."""
    summary = []
    lines = ["", "## Per configuration, over the repetitions (mean [min-max])", "",
             "Observed: static buffers with the daemon in --observe (decides, writes "
             "nothing): tuned / observed is what the tuning buys with the daemon's own "
             "cost on both sides.", "",
             "| config | reps | later / static | later / observed | final max / BDP | "
             "window-scale notes |", "|---|---|---|---|---|---|"]

    def ivl(vals):
        if not vals:
            return "-"
        m = statistics.mean(vals)
        if min(vals) == max(vals):
            return fmt(m)
        return "%s [%s-%s]" % (fmt(m), fmt(min(vals)), fmt(max(vals)))

    for cfg, reps in data.items():
        m = per_cfg.get(cfg, {})
        obs = []
        if observed_mean:
            obs = [r * static_mean / observed_mean for r in m.get("later_over_static", [])]
            m["later_over_observed"] = obs
        lines.append("| %s | %d | %s | %s | %s | %s |" % (
            cfg, len(reps), ivl(m.get("later_over_static")), ivl(obs),
            ivl(m.get("max_over_bdp")), ivl(m.get("wscale_notes"))))
        for metric, vals in m.items():
            if vals:
                summary.append(("netem", metric, cfg, statistics.mean(vals), min(vals),
                                max(vals), len(vals)))
    return lines, summary


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    raw, out = sys.argv[1:]
    data = load(raw)
    lines = info_lines(out)
    static = [v for d in data.get("static", {}).values() for _, v, _ in conn_series(d)
              if v is not None]
    static_mean = statistics.mean(static) if static else None
    observed_mean = later_mean(data.get("observed", {}))
    lines += ["## Throughput per connection (Mbit/s) and tcp_rmem growth", "",
              "Later: connections from the second on (mean, and the worst one) against the "
              "static mean %s Mbit/s (target >= %d %%).  BDP: the largest rate x RTT the tuner "
              "measured itself; final max / BDP target <= %g.  Window-scale notes: the log's 'is bound "
              "by its window scale' lines (a connection set up before a raise)."
              % (fmt(static_mean), TARGET_LATER * 100, TARGET_MAX_BDP), "",
              "| config | rep | conns | first | later mean (worst) | later / static | "
              "first at >= 95 % of static | final tcp_rmem max | raises | window-scale notes | "
              "BDP measured | max / BDP |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    per_cfg = {}
    for cfg, reps in data.items():
        for rep, d in sorted(reps.items()):
            lines.append(per_rep(cfg, rep, d, static_mean, per_cfg.setdefault(cfg, {})))
    agg, summary = aggregate(data, static_mean, observed_mean, per_cfg)
    lines += agg
    lines += ["", plot(data, out)]
    write_summary(out + "-summary.csv", summary)
    write_report(out, lines)


def plot(data, out):
    plots, dats = [], []
    nrep = max(len(reps) for reps in data.values())
    for i, (cfg, reps) in enumerate(data.items()):
        d = reps[sorted(reps)[0]]
        dat = "%s-%s.dat" % (out, cfg)
        with open(dat, "w") as f:
            for t, v, m in conn_series(d):
                f.write("%s %s %s\n" % (fmt(t), "NaN" if v is None else v,
                                        "NaN" if m is None else m / 1e6))
        dats.append(dat)
        plots.append("'%s' using 1:2 with linespoints lw 2 lc %d title '%s Mbit/s'"
                     % (dat, i + 1, cfg))
        if cfg not in ("small", "static"):
            plots.append("'%s' using 1:3 axes x1y2 with steps dt 2 lw 2 lc %d "
                         "title '%s tcp_rmem max (MB)'" % (dat, i + 1, cfg))
    script = """set terminal pngcairo size 1100,520 noenhanced
set output '%s'
set title "netem path (20 ms RTT): throughput of each new connection, and tcp_rmem max\\n(repetition 1 of %d)"
set xlabel 's since the phase began (connection start)'
set ylabel 'Mbit/s'
set y2label 'tcp_rmem max, MB (log)'
set logscale y2
set y2tics
set ytics nomirror
set grid
set key outside right
set yrange [0:*]
plot %s
""" % (out + ".png", nrep, ", ".join(plots))
    img = gnuplot(script, out + ".png")
    for d in dats:
        os.unlink(d)
    return img


if __name__ == "__main__":
    main()
