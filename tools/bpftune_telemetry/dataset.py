# SPDX-License-Identifier: GPL-2.0-only
"""dataset build: runs merged and split by run into train/test_seen/test_unseen."""

import json
import os
import random
import shutil

from .common import NO_LABEL, SPLITS, Sources, die, write_csv


# ---- dataset ----------------------------------------------------------------

def split_runs(runs, seed, test_fraction, holdout=None, unseen=True):
    """Assign each run to a split; whole runs only, never rows of a run.

    With >= 3 labels (or --holdout) every run of one label goes to
    test_unseen; the runs of each other label are shuffled and divided
    between train and test_seen, each label keeping at least one run in
    train.  Deterministic for a given seed: runs are sorted by run_id
    before the seeded generator touches them."""
    rng = random.Random(seed)
    by_label = {}
    for r in sorted(runs, key=lambda r: r["run_id"]):
        by_label.setdefault(r.get("label") or NO_LABEL, []).append(r["run_id"])
    labels = sorted(by_label)
    held = None
    if holdout is not None:
        if holdout not in by_label:
            die("dataset: no run has label '%s' (labels: %s)" % (holdout, ", ".join(labels)))
        held = holdout
    elif unseen and len(labels) >= 3:
        held = rng.choice(labels)
    split = {s: [] for s in SPLITS}
    for label in labels:
        ids = list(by_label[label])
        if label == held:
            split["test_unseen"] += ids
            continue
        rng.shuffle(ids)
        n_test = 0
        if len(ids) >= 2:
            n_test = min(len(ids) - 1, max(1, round(len(ids) * test_fraction)))
        split["test_seen"] += ids[:n_test]
        split["train"] += ids[n_test:]
    for s in SPLITS:
        split[s].sort()
    return split, held, {l: len(by_label[l]) for l in labels}


def cmd_dataset(args):
    if args.action != "build":
        die("dataset: the only action is build")
    if not 0 <= args.test_fraction < 1:
        die("dataset: --test-fraction must be in [0, 1)")
    src = Sources(args.sources)
    if not src.runs:
        die("dataset: no runs found")
    split, held, labels = split_runs(src.runs, args.seed, args.test_fraction,
                                     args.holdout, not args.no_unseen)
    label_of = {r["run_id"]: r.get("label") or NO_LABEL for r in src.runs}
    os.makedirs(args.out, exist_ok=True)
    meta = {
        "created_by": "bpftune-telemetry dataset build",
        "seed": args.seed,
        "test_fraction": args.test_fraction,
        "split_by": "run",
        "holdout_label": held,
        "labels": labels,
        "schema_versions": sorted({r.get("schema_version") for r in src.runs
                                   if r.get("schema_version") is not None}),
        "sources": src.files,
        "splits": {},
    }
    for s in SPLITS:
        d = os.path.join(args.out, s)
        if os.path.isdir(d):
            shutil.rmtree(d)
        os.makedirs(d)
        ids = set(split[s])
        counts = {}
        for t in src.tables:
            counts[t] = write_csv(os.path.join(d, t + ".csv"), src.columns[t],
                                  src.rows(t, ids))
        meta["splits"][s] = {
            "runs": split[s],
            "labels": sorted({label_of[i] for i in split[s]}),
            "counts": counts,
        }
        print("%-12s %3d run(s), labels: %s" % (s, len(split[s]),
              ", ".join(meta["splits"][s]["labels"]) or "-"))
    with open(os.path.join(args.out, "dataset_meta.json"), "w") as f:
        json.dump(meta, f, indent=2, sort_keys=True)
        f.write("\n")
    print("held out: %s; seed %d -> %s" % (held or "none", args.seed, args.out))
