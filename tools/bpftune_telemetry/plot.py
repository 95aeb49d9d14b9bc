# SPDX-License-Identifier: GPL-2.0-only
"""plot: per run, an overview PNG (tunables, the columns their declarations
mark for the overview, events) and one PNG per table with a graph for each
column its declaration says how to draw -- a counter as a rate, a gauge as
its value, a distribution as a CDF.  Nothing here knows a table: the
declarations come from the run file itself (schema.py)."""

import os
import re
import sqlite3

from .common import NO_LABEL, Sources, die, plotting
from .draw import MAX_NETNS_LINES, draw, grid, netns_label, netns_names, prepare
from .schema import declarations


def read_rows(db, table, rid, cache):
    """Every row of @table in run @rid, in seq order (memoised)."""
    import pandas as pd

    if table not in cache:
        try:
            cache[table] = pd.read_sql_query(
                'SELECT * FROM "%s" WHERE run_id = ? ORDER BY seq' % table, db,
                params=(rid,))
        except Exception:
            cache[table] = None
    return cache[table]


def tunable_lines(tb, rows, end):
    """[(netns cookie, [(xs, ys) of each value])] of one tunable: the
    daemon's (global) netns from the tunable's initial value, each other
    netns from the value its first change found there -- one line per
    (tunable, netns), so a change in one netns never looks like the global
    value moving."""
    n = min(int(tb["num_values"] or 1), 3)
    cookies = sorted({int(c) for c in rows["netns_cookie"].dropna()}) if len(rows) else []
    out = []
    for cookie in [0] + [c for c in cookies if c]:
        g = rows[rows["netns_cookie"] == cookie] if len(rows) else rows
        vals = []
        for i in range(n):
            if cookie == 0:
                xs, ys = [0.0], [tb.get("initial_%d" % i)]
            else:
                first = g.iloc[0]
                old = first.get("old_%d" % i)
                xs = [first["_x"]]
                ys = [old if old == old and old is not None else first["new_%d" % i]]
            for _, c in g.iterrows():
                xs.append(c["_x"])
                ys.append(c["new_%d" % i])
            xs.append(max(end, xs[-1]))
            ys.append(ys[-1])
            vals.append((xs, ys))
        out.append((cookie, vals))
    return out


def tunable_panel(ax, tb, changes, t0, end, observe, names):
    """A tunable's values over the run, one line per netns it has there."""
    rows = changes[changes["tunable"] == tb["tunable"]].copy() if len(changes) else changes
    if len(rows):
        rows["_x"] = (rows["ts_uptime_us"] - t0) / 1e6
    per_ns = tunable_lines(tb, rows, end)
    shown = per_ns[:MAX_NETNS_LINES]
    multi = len(shown[0][1]) > 1
    for k, (cookie, vals) in enumerate(shown):
        for i, (xs, ys) in enumerate(vals):
            label = netns_label(cookie, names) + (" [%d]" % i if multi else "")
            ax.step(xs, ys, where="post", color="C%d" % k,
                    linestyle=("-", "--", ":")[i], linewidth=1, label=label)
    hidden = len(per_ns) - len(shown)
    ax.set_title(tb["tunable"] + (" (observe-only: not written)" if observe else "") +
                 (" (+%d netns not drawn)" % hidden if hidden else ""), fontsize=9)
    ax.legend(fontsize=7, loc="best")


def events_panel(ax, ev, t0):
    """Events counted in bins of one width (a 60th of the run, at least
    0.1 s), a line per tuner."""
    x = (ev["ts_uptime_us"] - t0) / 1e6
    width = max(float(x.max()) / 60, 0.1) if len(x) else 1
    edges = [i * width for i in range(int(float(x.max()) / width) + 2)] if len(x) else [0, 1]
    for tuner, g in ev.groupby("tuner"):
        ax.hist((g["ts_uptime_us"] - t0) / 1e6, bins=edges, histtype="step",
                label=str(tuner))
    ax.set_title("events per %.3g s, by tuner" % width, fontsize=9)
    ax.legend(fontsize=7)


def mark_changes(ax, changes, t0):
    for _, c in changes.iterrows():
        ax.axvline((c["ts_uptime_us"] - t0) / 1e6, color="red", alpha=0.4,
                   linestyle="-" if c["applied"] else ":")


def overview(plt, ctx, out):
    """The run at a glance; returns the PNG written, or None."""
    changes, tunables, events = ctx["changes"], ctx["tunables"], ctx["events"]
    drawers = []
    changed = set(changes["tunable"]) if len(changes) else set()
    # a tunable nothing changed is a flat line: the title counts the changes
    for _, tb in tunables.iterrows():
        if tb["tunable"] in changed:
            drawers.append(("tunable", tb))
    for t in ctx["decls"].values():
        for c in t.drawn():
            # a signal that never moved says nothing about this run
            p = prepare(t, c, ctx["rows"](t.name), ctx["t0"], ctx["names"]) \
                if c.overview else None
            if p:
                drawers.append(("column", (t, c, p)))
    if len(events):
        drawers.append(("events", events))
    if not drawers:
        return None
    fig, axes = plt.subplots(len(drawers), 1, sharex=True,
                             figsize=(10, 1.8 * len(drawers) + 1), squeeze=False)
    for ax, (kind, data) in zip(axes[:, 0], drawers):
        if kind == "tunable":
            tunable_panel(ax, data, changes, ctx["t0"], ctx["end"], ctx["observe"],
                          ctx["names"])
        elif kind == "events":
            events_panel(ax, data, ctx["t0"])
        else:
            draw(ax, *data)
        mark_changes(ax, changes, ctx["t0"])
    axes[-1, 0].set_xlabel("seconds since the daemon started")
    fig.suptitle("run %s  label %s  %s  (%s)" % (
        ctx["rid"][:8], ctx["label"], ctx["kernel"],
        "%d change%s of %d tunable%s, red lines" % (
            len(changes), "" if len(changes) == 1 else "s",
            len(changed), "" if len(changed) == 1 else "s") if len(changes)
        else "no tunable changed"), fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    fig.savefig(out, dpi=90)
    plt.close(fig)
    return out


def table_figure(plt, ctx, t, out):
    """Every drawn column of table @t that moved: (PNG, columns) or None."""
    rows = ctx["rows"](t.name)
    drawn = []
    for c in t.drawn():
        p = prepare(t, c, rows, ctx["t0"], ctx["names"])
        if p:
            drawn.append((c, p))
    if not drawn:
        return None
    nr, nc = grid(len(drawn))
    fig, axes = plt.subplots(nr, nc, figsize=(6 * nc, 2.4 * nr + 0.8), squeeze=False)
    for i, (c, p) in enumerate(drawn):
        ax = axes[i // nc, i % nc]
        draw(ax, t, c, p)
        if c.draw != "cdf":
            ax.set_xlabel("seconds since the daemon started", fontsize=7)
            mark_changes(ax, ctx["changes"], ctx["t0"])
    for i in range(len(drawn), nr * nc):
        fig.delaxes(axes[i // nc, i % nc])
    fig.suptitle("%s (%s)  run %s  label %s" % (t.name, t.owner, ctx["rid"][:8], ctx["label"]),
                 fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    fig.savefig(out, dpi=80)
    plt.close(fig)
    return out, [c for c, _ in drawn]


def run_context(db, run, pd):
    rid = run["run_id"]
    cache = {}

    def q(sql):
        try:
            return pd.read_sql_query(sql, db, params=(rid,))
        except Exception:
            return pd.DataFrame()

    t0 = run["ts_uptime_us"]
    return {
        "rid": rid, "t0": t0, "label": run.get("label") or "-",
        "kernel": run.get("kernel_release") or "",
        "observe": run.get("observe_only"),
        "end": ((run["end_ts_uptime_us"] - t0) / 1e6 if run.get("end_ts_uptime_us")
                else 0.0),
        "changes": q("SELECT * FROM changes WHERE run_id = ? ORDER BY seq"),
        "tunables": q("SELECT * FROM tunables WHERE run_id = ? ORDER BY seq"),
        "events": q("SELECT ts_uptime_us, tuner FROM events WHERE run_id = ?"),
        "decls": declarations(db),
        "names": netns_names(db, rid),
        "rows": lambda table: read_rows(db, table, rid, cache),
    }


def plot_run(plt, pd, run, out_dir):
    db = sqlite3.connect("file:%s?mode=ro" % run["_file"], uri=True)
    ctx = run_context(db, run, pd)
    base = "%s-%s" % (re.sub(r"[^A-Za-z0-9_.-]", "_", run.get("label") or NO_LABEL),
                      ctx["rid"][:8])
    written = overview(plt, ctx, os.path.join(out_dir, base + ".png"))
    print(written or "run %s: nothing to plot in the overview" % ctx["rid"])
    tdir = os.path.join(out_dir, base)
    for t in ctx["decls"].values():
        if not t.drawn():
            continue
        os.makedirs(tdir, exist_ok=True)
        res = table_figure(plt, ctx, t, os.path.join(tdir, t.name + ".png"))
        if res:
            print("%s: %s" % (res[0], ", ".join("%s (%s)" % (c.name, c.draw)
                                                for c in res[1])))
    db.close()


def cmd_plot(args):
    plt, pd = plotting("plot")
    src = Sources(args.sources)
    os.makedirs(args.out, exist_ok=True)
    runs = [r for r in src.runs if not args.run or r["run_id"].startswith(args.run)]
    if not runs:
        die("plot: no such run")
    for run in runs:
        plot_run(plt, pd, run, args.out)
