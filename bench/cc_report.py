#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Report of bench/cc_experiment.sh (the learned congestion control).

  cc_report.py DIR

DIR holds eval.csv or eval.csv.gz (rep,category,draw,arm,conn,dest,metric,value), and
optionally paths.txt, info.txt, dests.csv with choices.csv (how the daemon
placed each connection), learn-*.txt and models/*.model.

A block is one repetition of one draw of a category: every arm ran its
connections there, in a random order, back to back.  Per block and arm
the geometric mean goodput of its connections; per arm the geometric mean
over blocks of its ratio to static cubic in the same block, with a
bootstrap 95 % interval (blocks resampled, seeded).  "best fixed" is the
static arm (cubic, bbr, htcp) of the highest ratio in the category, in
hindsight.  Harm: the share of an arm's connections whose goodput is more
than 10 % below cubic's block mean (cubic's own share is the noise floor).
p99: the 99th percentile of the time per RPC (a request cut by the cap
counts with the time it had), for the categories of several RPCs per
connection or a competing flow, with its ratio to cubic's.  The first
connections to a new destination: the model against the bandit, block by
block.  Writes DIR/report.md (also on stdout), DIR/summary.csv and
DIR/cc_experiment.png.
"""
import csv
import glob
import gzip
import math
import os
import random
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report_common import fmt, gnuplot, num, ordered, write_csv  # noqa: E402
from stats import bootstrap  # noqa: E402

STATIC = ("cubic", "bbr", "htcp")
ARM_ORDER = ("cubic", "bbr", "htcp", "random", "hand", "bandit", "model")
HARM = 0.9              # a connection below 90 % of cubic's block mean is harmed
FLOOR = 0.001           # Mbit/s: a connection that moved nothing
FIRST = 20
LATENCY_CATS = ("rpc", "compete")


def geomean(v):
    v = [max(x, FLOOR) for x in v]
    return math.exp(sum(math.log(x) for x in v) / len(v)) if v else None


def p99(v):
    if not v:
        return None
    v = sorted(v)
    return v[min(len(v) - 1, int(math.ceil(0.99 * len(v))) - 1)]


def load(d):
    """{(cat, rep, draw): {arm: {conn: {metric: value, 'rpc_ms': [..]}}}}"""
    blocks = {}
    path = os.path.join(d, "eval.csv")
    opener = open if os.path.exists(path) else gzip.open
    with opener(path if os.path.exists(path) else path + ".gz", "rt", newline="") as f:
        for r in csv.DictReader(f):
            b = blocks.setdefault((r["category"], r["rep"], r["draw"]), {})
            c = b.setdefault(r["arm"], {}).setdefault(int(r["conn"]), {"rpc_ms": []})
            c["dest"] = r["dest"]
            if r["metric"] == "rpc_ms":
                c["rpc_ms"].append(float(r["value"]))
            else:
                c[r["metric"]] = r["value"]
    return blocks


def goodputs(conns, first=None):
    return [num(c.get("goodput")) for i, c in sorted(conns.items())
            if num(c.get("goodput")) is not None and (first is None or i <= first)]


class Category:
    """The blocks of one category and what is computed from them."""

    def __init__(self, name, blocks):
        self.name = name
        self.blocks = [b for b in blocks if "cubic" in b]
        self.arms = [a for a in ARM_ORDER if any(a in b for b in self.blocks)]
        self.arms += sorted({a for b in self.blocks for a in b} - set(self.arms))

    def ratios(self, arm, over="cubic", first=None):
        """Per block: geomean goodput of arm / of @over, where both ran."""
        out = []
        for b in self.blocks:
            if arm in b and over in b:
                a, o = geomean(goodputs(b[arm], first)), geomean(goodputs(b[over], first))
                if a and o:
                    out.append(a / o)
        return out

    def harm(self, arm):
        """Per block (harmed connections, connections)."""
        out = []
        for b in self.blocks:
            if arm in b:
                ref = geomean(goodputs(b["cubic"]))
                g = goodputs(b[arm])
                out.append((sum(1 for x in g if x < HARM * ref), len(g)))
        return out

    def rpcs(self, arm):
        """Per block, the RPC times of the arm's connections."""
        return [[t for c in b[arm].values() for t in c["rpc_ms"]] for b in self.blocks
                if arm in b and "cubic" in b]


def gm_ratio(blocks_ratios):
    return geomean(blocks_ratios) if blocks_ratios else None


def harm_rate(hs):
    n = sum(t for _, t in hs)
    return sum(h for h, _ in hs) / n if n else None


def p99_ratio(pairs):
    """pairs: [(arm's rpc times, cubic's)] per block; p99 over all / cubic's."""
    a = [t for x, _ in pairs for t in x]
    c = [t for _, x in pairs for t in x]
    pa, pc = p99(a), p99(c)
    return pa / pc if pa and pc else None


def est(stat, data, seed):
    """(estimate, lo, hi) of stat over blocks, bootstrap interval."""
    if not data:
        return None, None, None
    v = stat(data)
    lo, hi = bootstrap(data, stat, seed=seed)
    return v, lo, hi


def ci(v, lo, hi, pct=False):
    if v is None:
        return "-"
    if pct:
        return "%.0f %% [%.0f, %.0f]" % (100 * v, 100 * (lo or 0), 100 * (hi or 0))
    return "%s [%s, %s]" % (fmt(v), fmt(lo), fmt(hi))


def model_share(d):
    """{(rep, cat, draw, arm): (model-placed, reported)} from choices.csv."""
    dests, placed = {}, {}
    pd, pc = os.path.join(d, "dests.csv"), os.path.join(d, "choices.csv")
    if not (os.path.exists(pd) and os.path.exists(pc)):
        return {}
    with open(pd) as f:
        for row in csv.reader(f):
            if len(row) == 5 and row[3] == "model":
                dests[row[4]] = tuple(row[:4])
    with open(pc) as f:
        for row in csv.reader(f):
            if len(row) == 4 and row[0].split("/")[0] in dests:
                m, n = placed.get(dests[row[0].split("/")[0]], (0, 0))
                placed[dests[row[0].split("/")[0]]] = (
                    m + (int(row[3]) if row[1] == "model" else 0), n + int(row[3]))
    return placed


def category_rows(cat, seed, summary):
    """The table rows of one category; targets met, as text."""
    rows, est_of = [], {}
    latency = cat.name in LATENCY_CATS
    for arm in cat.arms:
        r = cat.ratios(arm)
        g = est(gm_ratio, r, seed)
        h = est(harm_rate, cat.harm(arm), seed + 1)
        est_of[arm] = g[0]
        p = (None, None, None)
        p99ms = None
        if latency:
            pairs = list(zip(cat.rpcs(arm), cat.rpcs("cubic")))
            p = est(p99_ratio, pairs, seed + 2)
            p99ms = p99([t for x, _ in pairs for t in x])
        rows.append((arm, len(r), g, h, p99ms, p))
        summary.append((cat.name, "goodput_ratio", arm, g[0], g[1], g[2], len(r)))
        summary.append((cat.name, "harm_rate", arm, h[0], h[1], h[2], len(r)))
        if latency:
            summary.append((cat.name, "p99_ratio", arm, p[0], p[1], p[2], len(r)))
    best = max((a for a in STATIC if est_of.get(a)), key=lambda a: est_of[a], default=None)
    return rows, est_of, best


def targets(cat, est_of, best, rows, seed):
    """Issue 25's targets for the model on this held-out category, each on
    the model's paired ratio to the other arm (block by block), with its
    bootstrap interval; met or not on the estimate."""
    if est_of.get("model") is None:
        return ["no model arm (no model trained without %s)" % cat.name]
    out = []

    def said(ok, text):
        out.append("%s %s" % ("met:" if ok else "NOT met:", text))

    def paired(other, first=None, bound=1.0, name=""):
        v, lo, hi = est(gm_ratio, cat.ratios("model", other, first), seed + len(out))
        if v is not None:
            said(v >= bound, "goodput model / %s%s %s (>= %s)" % (
                name or other, " over the first %d connections to a new destination" % first
                if first else "", ci(v, lo, hi), fmt(bound)))
    for other in ("hand", "bandit", "cubic"):
        if est_of.get(other):
            paired(other)
    if best:
        paired(best, bound=0.95, name="best fixed (%s)" % best)
    row = {r[0]: r for r in rows}
    if cat.name in LATENCY_CATS and row["model"][5][0] is not None:
        said(row["model"][5][0] <= 1.05, "p99 RPC time model / cubic %s (<= 1.05)" % ci(
            *row["model"][5]))
    if "bandit" in est_of:
        paired("bandit", first=first_n(cat))
    hr = row["model"][3][0]
    if hr is not None:
        said(hr <= 0.05, "harm rate %s (<= 5 %%; cubic's own: %.0f %%)" % (
            ci(*row["model"][3], pct=True), 100 * (row["cubic"][3][0] or 0)))
    return out


def first_n(cat):
    """The first connections compared: 20, or as many as the bandit made."""
    return min([FIRST] + [max(b["bandit"]) for b in cat.blocks if "bandit" in b])


def learned(d):
    """The trees: 'held out' -> lines of learn's explanation."""
    out = {}
    for path in sorted(glob.glob(os.path.join(d, "learn-*.txt"))):
        name = os.path.basename(path)[6:-4]
        lines, keep, scores = [], False, False
        with open(path) as f:
            for line in f:
                if line.startswith("learn: the tree"):
                    keep = True
                elif line.startswith("learn: wrote"):
                    keep = False
                if line.startswith("held out"):
                    scores = True
                elif line.startswith("model=best"):
                    scores = False
                if keep or scores or line.startswith("learn: ") and "rows" in line:
                    lines.append(line.rstrip())
        if not keep and not lines:
            with open(path) as f:
                lines = [f.read().strip().splitlines()[-1:][0]] if os.path.getsize(path) else []
        model = os.path.join(d, "models", name + ".model")
        if os.path.exists(model):
            with open(model) as f:
                ranges = [l.split()[1:] for l in f if l.startswith("range ")]
            lines.append("training ranges (outside them the rules decide): " + ", ".join(
                "%s %s-%s" % tuple(r) for r in ranges))
        out[name] = lines
    return out


def first_curve(cat, arm):
    """Per connection index: geomean over blocks of goodput / cubic's block mean."""
    per = {}
    for b in cat.blocks:
        if arm not in b:
            continue
        ref = geomean(goodputs(b["cubic"]))
        for i, c in b[arm].items():
            g = num(c.get("goodput"))
            if g is not None and ref:
                per.setdefault(i, []).append(max(g, FLOOR) / ref)
    return [(i, geomean(v)) for i, v in sorted(per.items())]


def plot(d, cats, results):
    with tempfile.TemporaryDirectory() as tmp:
        return plot_in(d, tmp, cats, results)


def plot_in(d, tmp, cats, results):
    """The PNG, from data files in @tmp."""
    png = os.path.join(d, "cc_experiment.png")
    arms = ordered(a for c in cats for a in c.arms)
    dat = os.path.join(tmp, "cc_bars.dat")
    with open(dat, "w") as f:
        f.write("# category " + " ".join("%s %s_lo %s_hi" % (a, a, a) for a in arms) + "\n")
        for c in cats:
            rows = {r[0]: r for r in results[c.name][0]}
            vals = []
            for a in arms:
                g = rows[a][2] if a in rows else (None, None, None)
                vals += ["%.4f" % x if x is not None else "NaN" for x in g]
            f.write("%s %s\n" % (c.name, " ".join(vals)))
    curves = os.path.join(tmp, "cc_first.dat")
    with open(curves, "w") as f:
        for c in cats:
            for a in ("bandit", "model", "hand"):
                for i, v in first_curve(c, a):
                    f.write("%s %s %d %.4f\n" % (c.name, a, i, v))
                f.write("\n\n")
    n, w = len(cats), 0.8 / max(1, len(arms))
    bars = []
    for i, a in enumerate(arms):
        off = (i - (len(arms) - 1) / 2) * w
        bars.append('"%s" using ($0 + %.3f):%d:(%.3f) with boxes lc %d title "%s"' % (
            dat, off, 2 + 3 * i, w, i + 1, a))
        bars.append('"%s" using ($0 + %.3f):%d:%d:%d with yerrorbars lc rgb "black" '
                    'pt 0 notitle' % (dat, off, 2 + 3 * i, 3 + 3 * i, 4 + 3 * i))
    s = ['set terminal pngcairo size 1400,900 font ",10"', 'set output "%s"' % png,
         "set multiplot",
         "set origin 0,0.45", "set size 1,0.55",
         'set title "goodput per connection / static cubic in the same block '
         '(geometric mean over blocks, bootstrap 95 % interval)"',
         "set style fill solid 0.7 border -1", "set logscale y 2", "set grid y",
         "set key outside right", 'set ylabel "x cubic (log scale)"',
         "set xrange [-0.5:%.1f]" % (n - 0.5),
         "set xtics (%s)" % ", ".join('"%s" %d' % (c.name, k) for k, c in enumerate(cats)),
         "set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead lc rgb 'black'",
         "set datafile missing 'NaN'",
         "plot " + ", ".join(bars),
         "unset arrow 1", "set xtics autofreq", "set autoscale x",
         "set style data linespoints", "set key inside top left",
         'set ylabel "x cubic"', 'set xlabel "connection to the new destination"']
    for k, c in enumerate(cats):
        s += ["set origin %.3f,0" % (k / n), "set size %.3f,0.45" % (1 / n),
              'set title "%s: first connections"' % c.name,
              "set logscale y 2",
              "plot " + ", ".join('"%s" index %d using 3:4 title "%s"' % (curves, 3 * k + j, a)
                                  for j, a in enumerate(("bandit", "model", "hand")))
              + ", 1 with lines lc rgb 'black' notitle"]
    s.append("unset multiplot")
    return gnuplot("\n".join(s) + "\n", png)


def report(d):
    blocks = load(d)
    names = ordered(k[0] for k in sorted(blocks, key=lambda k: (k[0], int(k[1]), k[2])))
    if os.path.exists(os.path.join(d, "paths.txt")):
        with open(os.path.join(d, "paths.txt")) as f:
            names = ordered([l.split()[0] for l in f if l.strip()] + names)
    cats = [Category(n, [v for k, v in blocks.items() if k[0] == n]) for n in names]
    cats = [c for c in cats if c.blocks]
    if not cats:
        sys.exit("cc_report.py: no block with a static cubic arm in %s/eval.csv" % d)
    lines = ["<!-- SPDX-License-Identifier: GPL-2.0-only -->",
             "# The learned congestion control: results", ""]
    if os.path.exists(os.path.join(d, "info.txt")):
        with open(os.path.join(d, "info.txt")) as f:
            lines += [l.lstrip("# ").rstrip() + "  " for l in f] + [""]
    if os.path.exists(os.path.join(d, "paths.txt")):
        lines += ["| category | draw | RTT ms | loss % | Mbit/s | netem limit | RPCs x KiB "
                  "| cap s | competing flow |", "|---|---|---|---|---|---|---|---|---|"]
        with open(os.path.join(d, "paths.txt")) as f:
            for l in f:
                p = l.split()
                lines.append("| %s | %s | %s | %s | %s | %s | %s x %s | %s | %s |" % (
                    *p[:6], p[6], p[7], p[8], "yes" if p[9] == "1" else "no"))
        lines.append("")
    share = model_share(d)
    summary, results = [], {}
    for k, cat in enumerate(cats):
        seed = 1000 * (k + 1)
        rows, est_of, best = category_rows(cat, seed, summary)
        results[cat.name] = (rows, est_of, best)
        lat = cat.name in LATENCY_CATS
        lines += ["## %s (held out from the model)" % cat.name, "",
                  "%d blocks (repetitions x draws).  Best fixed choice in hindsight: %s." % (
                      len(cat.blocks), best or "-"), "",
                  "| arm | blocks | goodput x cubic [95 %% CI] | harm rate [95 %% CI] |%s" % (
                      " p99 RPC ms | p99 x cubic [95 % CI] |" if lat else ""),
                  "|---|---|---|---|%s" % ("---|---|" if lat else "")]
        for arm, n, g, h, pms, p in rows:
            label = arm + (" (= best fixed)" if arm == best else "")
            lines.append("| %s | %d | %s | %s |%s" % (
                label, n, ci(*g), ci(*h, pct=True),
                " %s | %s |" % (fmt(pms), ci(*p)) if lat else ""))
        sh = [v for k2, v in share.items() if k2[1] == cat.name]
        if sh:
            m, t = sum(x for x, _ in sh), sum(y for _, y in sh)
            lines += ["", "The model arm's connections the daemon reported: %d, placed by "
                      "the model %d (%.0f %%); the others fell back to the rules (features "
                      "outside the model's training ranges)." % (t, m, 100.0 * m / t if t else 0)]
        lines += [""] + ["- " + t for t in targets(cat, est_of, best, rows, seed)] + [""]
    trees = learned(d)
    if trees:
        lines += ["## What the models learned", ""]
        for name, tl in trees.items():
            lines += ["%s:" % ("all categories" if name == "all" else
                               "trained without %s" % name), "", "```"] + tl + ["```", ""]
    lines += ["## Plot", "", plot(d, cats, results), ""]
    write_csv(os.path.join(d, "summary.csv"),
              ["category", "metric", "arm", "value", "lo", "hi", "blocks"], summary)
    text = "\n".join(lines) + "\n"
    with open(os.path.join(d, "report.md"), "w") as f:
        f.write(text)
    sys.stdout.write(text)


def main():
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        sys.exit("usage: cc_report.py DIR (bench/cc_experiment.sh's results)")
    random.seed(25)
    report(sys.argv[1])


if __name__ == "__main__":
    main()
