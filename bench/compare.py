#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Compare two per-commit benchmark reports (bench/report.sh).

  compare.py NEW_DIR BASE_DIR [OUT.md]

Both directories hold summary.csv (source,case,metric,config,value,lo,hi,n:
one figure per line, lo-hi its interval: a 95 % confidence interval for the
cost ratios, the range over runs, blocks or starts for the rest).  Every
figure present in both is listed with its change; a figure is flagged
"moved" when its new interval and its base interval do not overlap (the
figure moved beyond what either run could tell apart), "moved?" when one
of the two has no interval and the values differ by more than 10 %.
Prints markdown and writes it to OUT.md (default NEW_DIR/compare.md).
"""
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report_common import fmt as fmt_digits, num  # noqa: E402

LOOSE = 0.10	# relative change flagged for figures without an interval


def load(d):
    path = os.path.join(d, "summary.csv")
    out = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            key = (r["source"], r["case"], r["metric"], r["config"])
            out[key] = (num(r["value"]), num(r["lo"]), num(r["hi"]))
    return out


def header(d):
    info = {}
    path = os.path.join(d, "info.txt")
    if os.path.exists(path):
        for line in open(path):
            k, _, v = line.partition(":")
            info[k.strip()] = v.strip()
    return info


def fmt(v):
    return fmt_digits(v, 4)


def verdict(new, base):
    v, lo, hi = new
    bv, blo, bhi = base
    if v is None or bv is None:
        return ""
    if None not in (lo, hi, blo, bhi) and (lo != hi or blo != bhi):
        return "**moved**" if hi < blo or lo > bhi else ""
    if bv and abs(v - bv) / abs(bv) > LOOSE:
        return "moved?"
    return ""


def interval(t):
    v, lo, hi = t
    if lo is None or hi is None:
        return fmt(v)
    return "%s [%s-%s]" % (fmt(v), fmt(lo), fmt(hi))


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    new_dir, base_dir = sys.argv[1:3]
    out = sys.argv[3] if len(sys.argv) == 4 else os.path.join(new_dir, "compare.md")
    new, base = load(new_dir), load(base_dir)
    hn, hb = header(new_dir), header(base_dir)
    lines = ["# Benchmark comparison: %s against %s" % (hn.get("commit", new_dir),
                                                       hb.get("commit", base_dir)), "",
             "| | new | base |", "|---|---|---|"]
    for k in ("commit", "date", "machine", "kernel", "mode"):
        lines.append("| %s | %s | %s |" % (k, hn.get(k, "-"), hb.get(k, "-")))
    lines += ["", "A figure is **moved** when its interval in the new run and in the base run "
              "do not overlap; moved? when one has no interval and it changed by more than "
              "%d %%.  Runs on different machines or kernels compare poorly." % (LOOSE * 100),
              "", "| source | case | metric | config | new [interval] | base [interval] | "
              "change | |", "|---|---|---|---|---|---|---|---|"]
    moved = 0
    for key in sorted(set(new) & set(base)):
        n, b = new[key], base[key]
        change = "-"
        if n[0] is not None and b[0]:
            change = "%+.1f %%" % (100 * (n[0] - b[0]) / abs(b[0]))
        v = verdict(n, b)
        moved += v == "**moved**"
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            key[0], key[1], key[2], key[3], interval(n), interval(b), change, v))
    only_new = sorted(set(new) - set(base))
    only_base = sorted(set(base) - set(new))
    lines += ["", "%d figures compared, %d moved beyond their intervals; %d only in the new "
              "run, %d only in the base run." % (len(set(new) & set(base)), moved,
                                                len(only_new), len(only_base))]
    text = "\n".join(lines) + "\n"
    with open(out, "w") as f:
        f.write(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
