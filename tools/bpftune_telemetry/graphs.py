# SPDX-License-Identifier: GPL-2.0-only
"""graphs: one PNG per signal across runs, a line per category (or label).

KernMLOps' rate and cumulative perf graphs, for every sampled column:

  counter       left: rate per second; right: total since the start
  gauge         left: the value; right: its CDF over the samples
  distribution  the CDF of its values

Time is seconds since the workload started (collect_runs), or since the
daemon started for runs collect did not make.  Rows of one sample interval
are summed over their keys (network namespaces, CPUs; maxima maxed, means
averaged); a line is the median of the category's runs at each interval,
the band around it their minimum and maximum.  CDFs pool the samples of
every run of the category.  Column kinds come from kinds.py.
"""

import os
import re

from .common import NO_LABEL, Sources, connect, die, give_back, make_dirs, plotting, \
    tables_of
from .kinds import DRAWN, column_kinds, column_units


# ---- per run: one series per signal ----------------------------------------------

def start_us(db, run):
    if "collect_runs" in tables_of(db):
        r = db.execute("SELECT workload_start_us FROM collect_runs WHERE run_id = ?",
                       (run["run_id"],)).fetchone()
        if r and r[0]:
            return r[0], "the workload started"
    return run["ts_uptime_us"], "the daemon started"


def combine(col):
    if col.endswith("_max") or "_max_" in col:
        return "max"
    if "_mean" in col:
        return "mean"
    return "sum"


def counter_series(df, col, keys):
    """(rate per s, total since the first sample) per interval, summed over keys."""
    import pandas as pd
    parts = []
    groups = (df.groupby(keys[0] if len(keys) == 1 else keys, dropna=False) if keys
              else [(None, df)])
    for _, g in groups:
        g = g.sort_values("ts_uptime_us")
        d = g[col].astype(float).diff()
        dt = g["ts_uptime_us"].diff() / 1e6
        d = d.where(d >= 0)		# a reset (netns gone, counter wrapped)
        parts.append(pd.DataFrame({"tick": g["tick"], "d": d, "rate": d / dt.where(dt > 0)}))
    if not parts:
        return None, None
    p = pd.concat(parts).dropna(subset=["d"])
    if p.empty:
        return None, None
    per = p.groupby("tick").agg(d=("d", "sum"), rate=("rate", "sum"))
    return per["rate"], per["d"].cumsum()


def gauge_series(df, col, keys):
    v = df.dropna(subset=[col])
    if v.empty:
        return None
    how = combine(col) if keys else "mean"
    return v.groupby("tick")[col].agg(how).astype(float)


def run_signals(db, run, kinds, want):
    """{(table, column): (kind, time series, second series or values)}."""
    import pandas as pd
    t0, since = start_us(db, run)
    interval_us = (run.get("sample_interval_ms") or 1000) * 1000
    out = {}
    for table, cols in kinds.items():
        if table not in tables_of(db) or not want(table, None):
            continue
        df = pd.read_sql_query('SELECT * FROM "%s" WHERE run_id = ?' % table, db,
                               params=(run["run_id"],))
        if df.empty:
            continue
        df["tick"] = ((df["ts_uptime_us"] - t0) / interval_us).round().astype(int)
        keys = [c for c, k in cols.items() if k == "key" and c in df]
        for col, kind in cols.items():
            if kind not in DRAWN or col not in df or not want(table, col):
                continue
            df[col] = pd.to_numeric(df[col], errors="coerce")
            if kind == "counter":
                rate, total = counter_series(df, col, keys)
                if rate is not None:
                    out[(table, col)] = (kind, rate, total)
            elif kind == "gauge":
                v = gauge_series(df, col, keys)
                if v is not None:
                    out[(table, col)] = (kind, v, v.values)
            else:
                v = df[col].dropna().astype(float)
                if not v.empty:
                    out[(table, col)] = (kind, None, v.values)
    return out, since, interval_us / 1e6


# ---- across runs -------------------------------------------------------------------

def collect_signals(src, args):
    tables = set(args.table or [])
    columns = set(args.column or [])

    def want(t, c):
        return (not tables or t in tables) and (c is None or not columns or c in columns)

    signals, sinces, interval, units = {}, set(), {}, {}
    for run in src.runs:
        db = connect(run["_file"])
        try:
            sig, since, iv = run_signals(db, run, column_kinds(db), want)
            units.update(column_units(db))
        finally:
            db.close()
        sinces.add(since)
        group = run["_category"] if args.by == "category" else (run.get("label") or NO_LABEL)
        for key, val in sig.items():
            signals.setdefault(key, {}).setdefault(group, []).append(val)
            interval[key] = min(interval.get(key, iv), iv)
    return signals, sinces, interval, units


def moves(runs_of_groups):
    """Whether a signal is worth a figure: a counter that counted something
    in some run, a gauge or distribution whose value was not always the same
    (a constant such as mem_total_kb says nothing about the workloads)."""
    import numpy as np
    runs = [v for rs in runs_of_groups.values() for v in rs]
    if runs and runs[0][0] == "counter":
        return any(v[1] is not None and np.nanmax(np.abs(v[1].values)) > 0 for v in runs)
    vals = [np.asarray(v[2], dtype=float) for v in runs]
    vals = np.concatenate([v[np.isfinite(v)] for v in vals]) if vals else np.array([])
    return vals.size > 0 and np.nanmax(vals) != np.nanmin(vals)


# lines of categories that coincide stay visible: a dash pattern each
STYLES = ("-", "--", ":", "-.")


def band(ax, series_list, interval, style, label):
    """Median of the runs per interval, and their min-max band."""
    import pandas as pd
    color, dash = style
    df = pd.concat([s.rename(i) for i, s in enumerate(series_list)], axis=1).sort_index()
    x = df.index.values * interval
    # a run of one or two samples is a point or two: marked, or it is not seen
    ax.plot(x, df.median(axis=1), color=color, linestyle=dash, label=label, linewidth=1.6,
            marker="o" if len(x) < 3 else None, markersize=4)
    if df.shape[1] > 1:
        ax.fill_between(x, df.min(axis=1), df.max(axis=1), color=color, alpha=0.18,
                        linewidth=0)


def cdf(ax, values_list, style, label):
    """The empirical CDF, from 0 at the smallest value to 1 at the largest."""
    import numpy as np
    v = np.sort(np.concatenate([np.asarray(x, dtype=float) for x in values_list]))
    v = v[np.isfinite(v)]
    if v.size:
        y = np.arange(0, v.size + 1) / v.size
        ax.step(np.concatenate([v[:1], v]), y, where="post", color=style[0],
                linestyle=style[1], label=label, linewidth=1.6)


def draw(plt, key, groups, since, interval, out, unit=None):
    table, col = key
    kind = next(iter(groups.values()))[0][0]
    ncols = 1 if kind == "distribution" else 2
    fig, axes = plt.subplots(1, ncols, figsize=(6.2 * ncols, 4.2), squeeze=False)
    colors = plt.get_cmap("tab10")
    for i, (g, runs) in enumerate(sorted(groups.items())):
        color = (colors(i % 10), STYLES[i % len(STYLES)])
        label = "%s (%d run%s)" % (g, len(runs), "" if len(runs) == 1 else "s")
        if kind == "counter":
            band(axes[0, 0], [r[1] for r in runs], interval, color, label)
            band(axes[0, 1], [r[2] for r in runs], interval, color, label)
        elif kind == "gauge":
            band(axes[0, 0], [r[1] for r in runs], interval, color, label)
            cdf(axes[0, 1], [r[2] for r in runs], color, label)
        else:
            cdf(axes[0, 0], [r[2] for r in runs], color, label)
    xlabel = "seconds since %s" % since
    named = "%s (%s)" % (col, unit) if unit else col
    titles = {"counter": [("rate", "%s/s" % (unit or "count"), xlabel),
                          ("total since the first sample", unit or "count", xlabel)],
              "gauge": [("value", named, xlabel),
                        ("CDF over the samples", "fraction of samples <= x", named)],
              "distribution": [("CDF", "fraction of rows <= x", named)]}[kind]
    for ax, (title, ylabel, xl) in zip(axes[0], titles):
        ax.set_title(title, fontsize=10)
        ax.set_ylabel(ylabel, fontsize=9)
        ax.set_xlabel(xl, fontsize=9)
        ax.grid(alpha=0.3)
        ax.ticklabel_format(axis="y", style="sci", scilimits=(-3, 5), useOffset=False)
    axes[0, 0].legend(fontsize=8)
    spread = "" if kind == "distribution" else "; line: median of the runs, band: min-max"
    fig.suptitle("%s.%s (%s)%s" % (table, col, kind, spread), fontsize=11)
    fig.tight_layout(rect=(0, 0, 1, 0.94))
    path = os.path.join(out, "%s.%s.png" % (table, re.sub(r"[^A-Za-z0-9_]", "_", col)))
    fig.savefig(path, dpi=80)
    plt.close(fig)
    return path


def cmd_graphs(args):
    plt, _pd = plotting("graphs")
    src = Sources(args.sources)
    if not src.runs:
        die("graphs: no runs found")
    signals, sinces, interval, units = collect_signals(src, args)
    since = sinces.pop() if len(sinces) == 1 else "the workload or the daemon started"
    made = make_dirs(args.out)
    written, still = [], 0
    for key in sorted(signals):
        if not moves(signals[key]):
            still += 1
            continue
        written.append(draw(plt, key, signals[key], since, interval[key], args.out,
                            units.get(key)))
        print(written[-1])
    give_back(made[:1] or written)
    print("%d figure(s) in %s; %d signal(s) never moved in any run: not drawn" % (
        len(written), args.out, still))
