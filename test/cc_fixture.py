#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""A results directory of bench/cc_experiment.sh with known effects, for
test/cc_report.bats:  cc_fixture.py DIR

Three categories, 2 draws, 6 repetitions, seeded noise (+-5 %):
- loss: bbr moves 4x cubic, htcp 1.2x; random picks one of the three per
  connection; the hand rule 3x; the bandit is cubic for its first 8
  connections, then bbr; the model bbr from the second connection on.
- longrtt: everything as cubic but the model at 0.8x (it loses there).
- rpc: 8 RPCs per connection; bbr's and the model's RPC times 1.5x
  cubic's, the others' as cubic's; goodputs all as cubic.
The model's destinations are in choices.csv: 90 % of its connections
placed by the model.
"""
import os
import random
import sys

ARMS = ("cubic", "bbr", "htcp", "random", "hand", "bandit", "model")
LEARNING = ("bandit", "model")


def goodput(cat, arm, conn, rng):
    base = {"loss": 5.0, "longrtt": 20.0, "rpc": 10.0}[cat]
    if arm == "random":
        arm = rng.choice(("cubic", "bbr", "htcp"))
    f = 1.0
    if cat == "loss":
        f = {"bbr": 4.0, "htcp": 1.2, "hand": 3.0}.get(arm, 1.0)
        if arm == "bandit" and conn > 8 or arm == "model" and conn > 1:
            f = 4.0
    elif cat == "longrtt" and arm == "model":
        f = 0.8
    return base * f * rng.uniform(0.95, 1.05)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = random.Random(25)
    cats = ("loss", "longrtt", "rpc")
    with open(os.path.join(out, "paths.txt"), "w") as f:
        for cat in cats:
            for d in (1, 2):
                rpcs = 8 if cat == "rpc" else 1
                f.write("%s %d 40 %s 20 5000 %d %d 3.0 0\n" % (
                    cat, d, "1.0" if cat == "loss" else "0.0", rpcs, 32 if rpcs > 1 else 512))
    rows, dests, choices, n = [], [], [], 10
    for rep in range(1, 7):
        for cat in cats:
            for draw in (1, 2):
                for arm in ARMS:
                    conns = 20 if arm in LEARNING else 5
                    dest = "10.80.0.%d" % (n % 250)
                    n += 1
                    tag = "%d,%s,%d,%s" % (rep, cat, draw, arm)
                    dests.append("%s,%s" % (tag, dest))
                    if arm == "model":
                        choices.append("%s/32,model,bbr,%d" % (dest, conns - 2))
                        choices.append("%s/32,default,cubic,2" % dest)
                    for c in range(1, conns + 1):
                        g = goodput(cat, arm, c, rng)
                        rows.append("%s,%d,%s,goodput,%.3f" % (tag, c, dest, g))
                        rows.append("%s,%d,%s,cc,cubic" % (tag, c, dest))
                        if cat == "rpc":
                            slow = 1.5 if arm in ("bbr", "model") else 1.0
                            for _ in range(8):
                                rows.append("%s,%d,%s,rpc_ms,%.2f" % (
                                    tag, c, dest, 40 * slow * rng.uniform(0.9, 1.1)))
    with open(os.path.join(out, "eval.csv"), "w") as f:
        f.write("rep,category,draw,arm,conn,dest,metric,value\n")
        f.write("\n".join(rows) + "\n")
    with open(os.path.join(out, "dests.csv"), "w") as f:
        f.write("\n".join(dests) + "\n")
    with open(os.path.join(out, "choices.csv"), "w") as f:
        f.write("\n".join(choices) + "\n")
    with open(os.path.join(out, "learn-loss.txt"), "w") as f:
        f.write("learn: 300 rows, 280 labelled (20 destinations, 2 runs, categories: "
                "longrtt rpc)\nheld out           rows  dests\nlongrtt     150    10\n"
                "rpc         130    10\nmodel=best, logged=best: rows whose pick...\n"
                "learn: the tree (3 nodes, depth 1):\nif retrans_pm <= 4:\n"
                "    -> cubic (200 rows)\nelse:  # retrans_pm > 4\n    -> bbr (80 rows)\n"
                "learn: wrote m.model; run it with ...\n")


if __name__ == "__main__":
    main()
