# SPDX-License-Identifier: GPL-2.0-only
"""learn: a small, explainable model of tcp_conn's congestion control
choice per destination, trained from the tuner's own telemetry, written
as a model file the daemon runs inside its sockops program
([strategy tcp_conn] model = PATH; docs/learning.md).

Rows: tcp_conn_outcomes, one per connection the tuner heard the end of.
Features of a row: its destination's history before it (run, netns and
destination), exactly as the BPF side keeps it at each reported close:
connections so far, EWMA of srtt, lowest min RTT, EWMA of retransmits per
mille of the segments sent, EWMA of the delivery rate; an EWMA starts at
its first sample, then (3 * old + new) // 4.  Label: the algorithm of
least mean outcome cost at that destination, among those with outcomes
there (destinations where only one was tried teach nothing).  Model: a
depth-limited decision tree (scikit-learn).  With runs of several
workload categories each is held out in turn: trained on the others,
scored on it against the logged policy.
"""

import math
import os
import sys

from .common import Sources, die

MODEL_VERSION = 1
FEATURES = ("hist", "srtt_us", "min_rtt_us", "retrans_pm", "rate")
MAX_DEPTH = 8          # the daemon's TCP_CONN_MODEL_DEPTH
MAX_NODES = 255        # TCP_CONN_MODEL_NODES
TABLE = "tcp_conn_outcomes"


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
    return h


def ewma(old, x, n):
    return x if n == 0 else (3 * old + x) // 4


def num(v):
    """An INTEGER column's value, NULL as 0."""
    return int(v) if v is not None else 0


class Dest:
    """One destination's history in one run and netns, as BPF keeps it."""

    def __init__(self):
        self.f = [0] * len(FEATURES)
        self.costs = {}         # cc -> [cost, ...]

    def features(self):
        return list(self.f)

    def fold(self, row):
        f = self.f
        n = f[0]
        segs = num(row.get("segs_out"))
        pm = num(row.get("retrans")) * 1000 // segs if segs else 0
        f[1] = ewma(f[1], num(row.get("srtt_us")), n)
        f[3] = ewma(f[3], pm, n)
        f[4] = ewma(f[4], num(row.get("delivery_rate")), n)
        mrtt = num(row.get("min_rtt_us"))
        if mrtt and (not f[2] or mrtt < f[2]):
            f[2] = mrtt
        f[0] = n + 1

    def best(self):
        """(cc of least mean cost, {cc: mean}) or (None, means) if fewer
        than two algorithms have outcomes here."""
        means = {cc: sum(c) / len(c) for cc, c in self.costs.items() if c}
        if len(means) < 2:
            return None, means
        return min(sorted(means), key=lambda cc: means[cc]), means


def load_rows(sources):
    """[(category, dest key, features, logged cc, Dest)] for every row,
    in each run's order."""
    if TABLE not in sources.columns:
        die("learn: no %s table in %s: run the daemon with the tcp_conn tuner first"
            % (TABLE, ", ".join(sources.files)))
    need = {"dest", "cc", "cost", "srtt_us", "min_rtt_us", "retrans", "segs_out",
            "delivery_rate", "netns_cookie"}
    missing = need - set(sources.columns[TABLE])
    if missing:
        die("learn: %s lacks columns %s: a run file from another version?"
            % (TABLE, ", ".join(sorted(missing))))
    dests, out = {}, []
    for r in sources.rows(TABLE):
        run = sources.by_id.get(r.get("run_id"))
        if run is None or not r.get("dest") or not r.get("cc"):
            continue
        key = (r["run_id"], r["netns_cookie"], r["dest"])
        d = dests.setdefault(key, Dest())
        out.append((run["_category"], key, d.features(), r["cc"], d))
        d.fold(r)
        if r.get("cost") is not None:
            d.costs.setdefault(r["cc"], []).append(float(r["cost"]))
    if not out:
        die("learn: %s has no rows in %s" % (TABLE, ", ".join(sources.files)))
    return out


def labelled(rows):
    """The rows whose destination says which algorithm is best: (category,
    key, x, logged, best, means)."""
    out = []
    for cat, key, x, logged, d in rows:
        best, means = d.best()
        if best is not None:
            out.append((cat, key, x, logged, best, means))
    return out


def train(rows, depth, min_leaf, seed):
    try:
        from sklearn.tree import DecisionTreeClassifier
    except ImportError as e:
        die("learn needs python3-sklearn (apt-get install python3-sklearn): %s" % e)
    tree = DecisionTreeClassifier(max_depth=depth, min_samples_leaf=min_leaf,
                                  random_state=seed)
    tree.fit([r[2] for r in rows], [r[4] for r in rows])
    return tree


def score(tree, rows):
    """Per-row comparison of the model's pick with the logged choice."""
    picks = tree.predict([r[2] for r in rows])
    s = {"rows": len(rows), "dests": len({r[1] for r in rows}), "model_best": 0,
         "logged_best": 0, "model_cost": 0.0, "logged_cost": 0.0, "costed": 0}
    for r, pick in zip(rows, picks):
        means = r[5]
        s["model_best"] += pick == r[4]
        s["logged_best"] += r[3] == r[4]
        if pick in means and r[3] in means:
            s["costed"] += 1
            s["model_cost"] += means[pick]
            s["logged_cost"] += means[r[3]]
    return s


def print_scores(results):
    print("%-16s %6s %6s %11s %12s %11s %12s %7s" % (
        "held out", "rows", "dests", "model=best", "logged=best", "cost model",
        "cost logged", "costed"))
    for cat, s in results:
        n, c = s["rows"] or 1, s["costed"] or 1
        print("%-16s %6d %6d %10.1f%% %11.1f%% %11.3f %12.3f %7d" % (
            cat, s["rows"], s["dests"], 100.0 * s["model_best"] / n,
            100.0 * s["logged_best"] / n, s["model_cost"] / c,
            s["logged_cost"] / c, s["costed"]))
    print("model=best, logged=best: rows whose pick is the destination's "
          "cheapest algorithm; cost: the mean outcome cost of the algorithm "
          "picked at that destination (lower is better), over the rows where "
          "both picks were tried there (costed)")


def leave_one_out(rows, args):
    cats = sorted({r[0] for r in rows})
    if len(cats) < 2:
        print("learn: one workload category (%s): no held-out evaluation; in sample:"
              % cats[0])
        return [("(in sample)", score(train(rows, args.depth, args.min_leaf, args.seed),
                                      rows))]
    results = []
    for cat in cats:
        tr = [r for r in rows if r[0] != cat]
        te = [r for r in rows if r[0] == cat]
        results.append((cat, score(train(tr, args.depth, args.min_leaf, args.seed), te)))
    return results


def model_text(tree, rows, note):
    t = tree.tree_
    if t.node_count > MAX_NODES:
        die("learn: the tree has %d nodes; the daemon takes %d (lower --depth)"
            % (t.node_count, MAX_NODES))
    classes = list(tree.classes_)
    lines = ["# bpftune model: tcp_conn congestion control per destination",
             "# %s" % note,
             "bpftune-model %d" % MODEL_VERSION, "policy tcp_conn cc",
             "features %d %s" % (len(FEATURES), " ".join(FEATURES))]
    for i, name in enumerate(FEATURES):
        vals = [r[2][i] for r in rows]
        lines.append("range %s %d %d" % (name, min(vals), max(vals)))
    lines.append("nodes %d" % t.node_count)
    for i in range(t.node_count):
        if t.children_left[i] < 0:
            action = classes[int(t.value[i][0].argmax())]
            lines.append("node %d -1 0 -1 -1 %s" % (i, action))
        else:
            lines.append("node %d %d %d %d %d -" % (
                i, t.feature[i], max(0, math.floor(t.threshold[i])),
                t.children_left[i], t.children_right[i]))
    text = "\n".join(lines) + "\n"
    data = text.encode()
    return text + "checksum fnv1a64 %016x\n" % fnv1a64(data)


def explain(tree):
    """The tree, readable."""
    t, classes, out = tree.tree_, list(tree.classes_), []

    def walk(i, indent):
        if t.children_left[i] < 0:
            out.append("%s-> %s (%d rows)" % (indent, classes[int(t.value[i][0].argmax())],
                                              int(t.n_node_samples[i])))
            return
        name, thr = FEATURES[t.feature[i]], max(0, math.floor(t.threshold[i]))
        out.append("%sif %s <= %d:" % (indent, name, thr))
        walk(t.children_left[i], indent + "    ")
        out.append("%selse:  # %s > %d" % (indent, name, thr))
        walk(t.children_right[i], indent + "    ")
    walk(0, "")
    return "\n".join(out)


def cmd_learn(args):
    if not 1 <= args.depth <= MAX_DEPTH:
        die("learn: --depth takes 1 to %d, not %d" % (MAX_DEPTH, args.depth))
    if args.min_leaf < 1:
        die("learn: --min-leaf must be at least 1")
    sources = Sources(args.sources)
    rows = load_rows(sources)
    lab = labelled(rows)
    if not lab:
        die("learn: no destination has outcomes of two algorithms or more in %d rows: "
            "nothing says which is best (collect with exploration: the epsilon-greedy "
            "strategy tries each algorithm)" % len(rows))
    runs = len({r[1][0] for r in lab})
    cats = sorted({r[0] for r in lab})
    print("learn: %d rows, %d labelled (%d destinations, %d runs, categories: %s)" % (
        len(rows), len(lab), len({r[1] for r in lab}), runs, " ".join(cats)))
    print_scores(leave_one_out(lab, args))
    tree = train(lab, args.depth, args.min_leaf, args.seed)
    text = model_text(tree, lab, "trained by bpftune-telemetry learn on %d rows of %d runs "
                      "(categories: %s), depth <= %d, seed %d" % (
                          len(lab), runs, " ".join(cats), args.depth, args.seed))
    tmp = args.out + ".tmp"
    try:
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, args.out)
    except OSError as e:
        die("learn: cannot write %s: %s" % (args.out, e))
    print("learn: the tree (%d nodes, depth %d):" % (tree.tree_.node_count, tree.get_depth()))
    print(explain(tree))
    print("learn: wrote %s; run it with [strategy tcp_conn] model = %s "
          "(or bpftune --strategy tcp_conn.model=%s)" % (
              args.out, os.path.abspath(args.out), os.path.abspath(args.out)))


def add_parser(sub):
    p = sub.add_parser("learn", help="train tcp_conn's congestion control model "
                       "from runs, write a model file")
    p.add_argument("--out", metavar="FILE", required=True, help="the model file")
    p.add_argument("--depth", type=int, default=4,
                   help="tree depth limit (1..%d, default 4)" % MAX_DEPTH)
    p.add_argument("--min-leaf", type=int, default=5,
                   help="rows a leaf needs at least (default 5)")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("sources", nargs="*", help="run files or directories")
    p.set_defaults(fn=cmd_learn)
    return p


if __name__ == "__main__":
    sys.exit("run as bpftune-telemetry learn")
