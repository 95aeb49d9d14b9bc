# SPDX-License-Identifier: GPL-2.0-only
"""Drawing a declared column: a counter as a rate, a gauge as its value, a
distribution as a CDF -- one line per network namespace for a per-netns
table.  The functions take pandas frames of a table's rows, so a graph
across runs (one line per label or category) can use them as they are."""

import math
import re

MAX_NETNS_LINES = 6


def rate(ts_us, values):
    """Per-second rate of a cumulative counter: differences over time.
    A counter that went back (a reset, a netns recreated) gives no point."""
    dv = values.astype(float).diff()
    dt = ts_us.astype(float).diff() / 1e6
    r = dv / dt.where(dt > 0)
    return r.where(dv >= 0)


def cdf(values):
    """(sorted values, cumulative fraction) of the non-NULL observations."""
    v = values.dropna().astype(float).sort_values().reset_index(drop=True)
    n = len(v)
    return v, [(i + 1) / n for i in range(n)]


def netns_names(db, run_id):
    """{cookie: name} of the namespaces the run's changes and states name."""
    names = {}
    for table in ("changes", "states"):
        try:
            rows = db.execute('SELECT DISTINCT netns_cookie, netns FROM "%s" '
                              "WHERE run_id = ?" % table, (run_id,)).fetchall()
        except Exception:
            continue
        for cookie, text in rows:
            m = re.match(r"netns (\S+) \(cookie", text or "")
            if cookie and m:
                names[int(cookie)] = m.group(1)
    return names


def netns_label(cookie, names):
    cookie = int(cookie)
    if cookie == 0:
        return "daemon's netns"
    return names.get(cookie, "netns %d" % cookie)


def moved(s, draw):
    """Worth a graph: a value that changed, a rate above 0, any observation."""
    s = s.dropna()
    if draw == "cdf":
        return len(s) > 0
    if draw == "rate":
        return len(s) > 0 and (s.abs() > 0).any()
    return len(s) > 1 and s.nunique() > 1


def netns_order(rows):
    """The netns cookies of a per-netns table's rows: the daemon's first,
    then the most sampled.  One order per table keeps a netns' line the
    same colour in every graph of the table."""
    if rows is None or "netns_cookie" not in rows.columns:
        return []
    counts = rows["netns_cookie"].value_counts()
    return sorted((int(c) for c in counts.index),
                  key=lambda c: (c != 0, -int(counts[c]), c))


def cpu_lines(rows, col):
    """A table with a row per CPU each interval (perf_counts, sched_stats):
    a line per CPU, or with more CPUs than lines their sum per interval
    (the rows of one interval share their timestamp).  Else the rows as
    they are, one line."""
    if "cpu" not in rows.columns:
        return [(None, "C0", rows)], 0
    cpus = sorted(int(c) for c in rows["cpu"].dropna().unique())
    if len(cpus) <= MAX_NETNS_LINES:
        return [("cpu %d" % c, "C%d" % i, rows[rows["cpu"] == c])
                for i, c in enumerate(cpus)], 0
    summed = rows.groupby("ts_uptime_us", as_index=False)[col].sum(min_count=1)
    return [("all %d CPUs" % len(cpus), "C0", summed)], 0


def lines(rows, col, per_netns, names):
    """[(label or None, colour, rows)] of one column: one per netns (at
    most MAX_NETNS_LINES, in netns_order()), or the rows as they are; and
    how many namespaces were left out."""
    if not per_netns or "netns_cookie" not in rows.columns:
        return cpu_lines(rows, col)
    order = netns_order(rows)
    out = []
    for i, cookie in enumerate(order[:MAX_NETNS_LINES]):
        g = rows[rows["netns_cookie"] == cookie]
        out.append((netns_label(cookie, names), "C%d" % i, g))
    return out, max(0, len(order) - MAX_NETNS_LINES)


def series(col, draw, g, t0):
    """(x, y) of one line of a column, or None if it says nothing."""
    if draw == "cdf":
        x, y = cdf(g[col])
        return (x, y) if len(x) else None
    x = (g["ts_uptime_us"] - t0) / 1e6
    y = rate(g["ts_uptime_us"], g[col]) if draw == "rate" else g[col].astype(float)
    return (x, y) if moved(y, draw) else None


def title(c):
    unit = c.unit or ""
    if c.draw == "rate":
        return "%s, %s/s" % (c.name, unit or "per")
    if c.draw == "cdf":
        return "%s: CDF%s" % (c.name, " (%s)" % unit if unit else "")
    return "%s%s" % (c.name, " (%s)" % unit if unit else "")


def prepare(table, c, rows, t0, names):
    """The lines of column @c of @table's @rows: ([(label, colour, x, y)],
    namespaces not drawn), or None if nothing in it moved."""
    if rows is None or not len(rows) or c.name not in rows.columns:
        return None
    groups, hidden = lines(rows, c.name, table.per_netns, names)
    out = []
    for label, colour, g in groups:
        xy = series(c.name, c.draw, g, t0)
        if xy is not None:
            out.append((label, colour, xy[0], xy[1]))
    return (out, hidden) if out else None


def draw(ax, table, c, prepared):
    """Draw what prepare() returned for column @c on @ax."""
    out, hidden = prepared
    for label, colour, x, y in out:
        if c.draw == "cdf":
            # few observations: mark each (a single one makes no step at all)
            ax.step(x, y, where="post", label=label, color=colour,
                    marker="o" if len(x) < 50 else None, markersize=3)
        elif c.draw == "value" and not getattr(table, "sampled", True):
            # a row per event: the value holds from one event to the next
            ax.step(x, y, where="post", label=label, color=colour, linewidth=1,
                    marker=".", markersize=4)
        else:
            ax.plot(x, y, label=label, color=colour, linewidth=1)
    ax.set_title(title(c) + (" (+%d netns not drawn)" % hidden if hidden else ""),
                 fontsize=9)
    if c.draw == "cdf":
        ax.set_ylim(0, 1.02)
        ax.set_xlabel(c.unit or "value", fontsize=8)
        ax.set_ylabel("fraction at or below", fontsize=7)
    if len(out) > 1 or out[0][0]:
        ax.legend(fontsize=6, loc="best")
    ax.tick_params(labelsize=7)
    # no "1e6+1e9" offsets: the values as they are, a power of ten if large
    ax.ticklabel_format(axis="y", style="sci", scilimits=(-3, 5), useOffset=False)


def grid(n, width=2):
    """(rows, cols) of a figure with n panels"""
    cols = 1 if n < 2 else width
    return int(math.ceil(n / cols)), cols
