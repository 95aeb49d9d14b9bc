# SPDX-License-Identifier: GPL-2.0-only
"""plot: one PNG per run, tunables and key signals over time."""

import os
import re
import sqlite3

from .common import NO_LABEL, Sources, columns_of, die, tables_of


# ---- plot -----------------------------------------------------------------------

# (table, column, title): counters are drawn as rates, gauges as they are
SIGNALS = [
    ("samples_tcp", "in_segs", "TCP segments in/s"),
    ("samples_tcp", "retrans_segs", "TCP retransmits/s"),
    ("samples_tcp", "srtt_mean_us", "sender srtt, mean (us)"),
    ("samples_tcp", "srtt_max_us", "sender srtt, max (us)"),
    ("samples_tcp", "rcvbuf_max", "largest autotuned rcvbuf (bytes)"),
    ("samples_tcp", "rcvbuf_near_max", "rcvbufs near tcp_rmem[2]"),
    ("samples_tcp", "sndbuf_near_max", "sndbufs near tcp_wmem[2]"),
    ("samples_tcp", "listen_overflows", "listen overflows/s"),
    ("samples_tcp", "mem_pages", "TCP memory (pages)"),
    ("samples_udp", "rcvbuf_errors", "UDP rcvbuf errors/s"),
    ("samples_netdev", "softnet_dropped", "backlog drops/s"),
    ("samples_netdev", "softnet_time_squeeze", "time squeezes/s"),
    ("samples_neigh", "arp_entries", "ARP entries"),
    ("samples_frag", "reasm_fails", "reassembly failures/s"),
    ("samples_system", "load1", "load (1 min)"),
    ("samples_system", "psi_cpu_some_avg10", "CPU pressure (some, avg10 %)"),
    ("samples_system", "mem_available_kb", "memory available (kB)"),
]
COUNTERS = {"in_segs", "retrans_segs", "listen_overflows", "rcvbuf_errors",
            "softnet_dropped", "softnet_time_squeeze", "reasm_fails"}


def per_tick(rows, col):
    """One value per sample interval from a per-netns table's rows: every
    interval starts with the daemon's netns (netns_cookie 0); counters and
    counts are summed over the namespaces, maxima maxed, means weighted."""
    if "netns_cookie" not in rows.columns:
        return rows[["ts_uptime_us", "v"]]
    rows = rows.copy()
    rows["tick"] = (rows["netns_cookie"] == 0).cumsum()
    if col.endswith("_max") or col.endswith("_max_us"):
        agg = rows.groupby("tick").agg(ts_uptime_us=("ts_uptime_us", "min"), v=("v", "max"))
    elif "_mean" in col:
        rows["w"] = rows["n"].fillna(0)
        rows["vw"] = rows["v"].fillna(0) * rows["w"]
        g = rows.groupby("tick").agg(ts_uptime_us=("ts_uptime_us", "min"),
                                     vw=("vw", "sum"), w=("w", "sum"))
        g["v"] = g["vw"] / g["w"].where(g["w"] > 0)
        agg = g[["ts_uptime_us", "v"]]
    else:
        agg = rows.groupby("tick").agg(ts_uptime_us=("ts_uptime_us", "min"),
                                       v=("v", lambda x: x.sum(min_count=1)))
    return agg.reset_index(drop=True)


def cmd_plot(args):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import pandas as pd
    except ImportError as e:
        die("plot needs python3-matplotlib and python3-pandas (%s)" % e)
    src = Sources(args.sources)
    os.makedirs(args.out, exist_ok=True)
    runs = [r for r in src.runs if not args.run or r["run_id"].startswith(args.run)]
    if not runs:
        die("plot: no such run")
    for run in runs:
        db = sqlite3.connect("file:%s?mode=ro" % run["_file"], uri=True)
        rid = run["run_id"]
        t0 = run["ts_uptime_us"]

        def q(sql):
            try:
                return pd.read_sql_query(sql, db, params=(rid,))
            except Exception:
                return pd.DataFrame()

        end = ((run["end_ts_uptime_us"] - t0) / 1e6 if run.get("end_ts_uptime_us")
               else 0.0)
        changes = q("SELECT * FROM changes WHERE run_id = ? ORDER BY seq")
        tunables = q("SELECT * FROM tunables WHERE run_id = ? ORDER BY seq")
        events = q("SELECT ts_uptime_us, tuner FROM events WHERE run_id = ?")
        panels = []
        # one panel per tunable that was changed, or all tunables if none was
        changed = set(changes["tunable"]) if len(changes) else set()
        for _, tb in tunables.iterrows():
            if changed and tb["tunable"] not in changed:
                continue
            panels.append(("tunable", tb))
        for table, col, title in SIGNALS:
            cols = columns_of(db, table) if table in tables_of(db) else []
            if col not in cols:
                continue
            extra = ""
            if "netns_cookie" in cols:
                extra = ", netns_cookie"
                if "_mean" in col:
                    extra += ', "%s" AS n' % col.replace("_mean_us", "_n").replace("_mean", "_n")
            s = q('SELECT ts_uptime_us, "%s" AS v%s FROM "%s" WHERE run_id = ? ORDER BY seq'
                  % (col, extra, table))
            if len(s):
                s = per_tick(s, col)
            # a signal that never moved says nothing about this run
            if len(s) and s["v"].notna().any() and s["v"].nunique() > 1:
                panels.append(("signal", (s, col, title)))
        if len(events):
            panels.append(("events", events))
        if not panels:
            print("run %s: nothing to plot" % rid)
            continue
        fig, axes = plt.subplots(len(panels), 1, sharex=True,
                                 figsize=(10, 1.8 * len(panels) + 1), squeeze=False)
        for ax, (kind, data) in zip(axes[:, 0], panels):
            if kind == "tunable":
                tb = data
                n = int(tb["num_values"] or 1)
                rows = changes[changes["tunable"] == tb["tunable"]] if len(changes) else changes
                for i in range(min(n, 3)):
                    xs = [0.0]
                    ys = [tb.get("initial_%d" % i)]
                    for _, c in rows.iterrows():
                        xs.append((c["ts_uptime_us"] - t0) / 1e6)
                        ys.append(c["new_%d" % i])
                    xs.append(max(end, xs[-1]))
                    ys.append(ys[-1])
                    ax.step(xs, ys, where="post", label="value %d" % i if n > 1 else None)
                ax.set_title(tb["tunable"] + (" (observe-only: not written)"
                                              if run.get("observe_only") else ""), fontsize=9)
                if n > 1:
                    ax.legend(fontsize=7)
            elif kind == "signal":
                s, col, title = data
                x = (s["ts_uptime_us"] - t0) / 1e6
                y = s["v"].astype(float)
                if col in COUNTERS:
                    y = y.diff() / x.diff()
                ax.plot(x, y)
                ax.set_title(title, fontsize=9)
            else:
                ev = data
                x = (ev["ts_uptime_us"] - t0) / 1e6
                width = max(float(x.max()) / 60, 0.1) if len(x) else 1
                for tuner, g in ev.groupby("tuner"):
                    gx = (g["ts_uptime_us"] - t0) / 1e6
                    ax.hist(gx, bins=max(1, int((gx.max() - gx.min()) / width) + 1),
                            histtype="step", label=str(tuner))
                ax.set_title("events (per bin)", fontsize=9)
                ax.legend(fontsize=7)
            for _, c in changes.iterrows():
                ax.axvline((c["ts_uptime_us"] - t0) / 1e6, color="red", alpha=0.4,
                           linestyle="-" if c["applied"] else ":")
        axes[-1, 0].set_xlabel("seconds since the daemon started")
        fig.suptitle("run %s  label %s  %s  (%d changes, red lines)" % (
            rid[:8], run.get("label") or "-", run.get("kernel_release") or "",
            len(changes)), fontsize=10)
        fig.tight_layout(rect=(0, 0, 1, 0.97))
        out = os.path.join(args.out, "%s-%s.png" % (
            re.sub(r"[^A-Za-z0-9_.-]", "_", run.get("label") or NO_LABEL), rid[:8]))
        fig.savefig(out, dpi=90)
        plt.close(fig)
        db.close()
        print(out)
