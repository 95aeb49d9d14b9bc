#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Per-function table of a perf script output (bench/profile.sh).

  profile_report.py PERF.txt OUT TITLE NOTE

Each sample's stack (perf script: the event line, then one frame per line,
leaf first) counts once for its leaf function (self) and once for every
distinct function on its stack (total).  Writes OUT.md (markdown: thread
split and the top functions, the way a CI perf report lists them) and
OUT-functions.csv (function, self, total, self_pct, total_pct).  With
samples, OUT.md links OUT-flame.svg and shows OUT-flame.png (drawn by
bench/profile.sh), whether or not they exist: bench/report_md.py checks.
"""
import csv
import os
import sys

TOP = 25


def samples(path):
    """yields (thread, [frames leaf first])"""
    thread, frames = None, []
    with open(path, errors="replace") as f:
        for line in f:
            if not line.strip():
                if thread is not None:
                    yield thread, frames
                thread, frames = None, []
                continue
            if not line.startswith((" ", "\t")):
                thread = line.split()[0] if line.split() else "?"
                frames = []
                continue
            parts = line.split(None, 1)
            if len(parts) == 2:
                sym = parts[1].rsplit(" (", 1)[0].strip()
                sym = sym.split("+0x")[0] or "[unknown]"
                frames.append(sym)
    if thread is not None:
        yield thread, frames


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    path, out, title, note = sys.argv[1:]
    self_n, total_n, threads = {}, {}, {}
    n = 0
    if os.path.exists(path):
        for thread, frames in samples(path):
            n += 1
            threads[thread] = threads.get(thread, 0) + 1
            if not frames:
                frames = ["[unknown]"]
            self_n[frames[0]] = self_n.get(frames[0], 0) + 1
            for fn in set(frames):
                total_n[fn] = total_n.get(fn, 0) + 1
    lines = ["## %s" % title, "", note + ".", ""]
    svg = os.path.basename(out + "-flame.svg")
    if n:
        # promised whether or not they were drawn: bench/report_md.py fails
        # on a picture that is not there, rather than leaving it out quietly
        lines += ["Flame graph: [%s](%s)" % (svg, svg), "",
                  "![flame graph](%s)" % os.path.basename(out + "-flame.png"), ""]
    if not n:
        lines.append("No samples: the daemon used no CPU while the load ran.")
    else:
        lines += ["Samples per thread: " + ", ".join(
            "%s %d (%.0f %%)" % (t, c, 100.0 * c / n)
            for t, c in sorted(threads.items(), key=lambda x: -x[1])), "",
            "| function | self | self % | total | total % |", "|---|---|---|---|---|"]
        rows = sorted(total_n, key=lambda fn: (-self_n.get(fn, 0), -total_n[fn]))
        for fn in rows[:TOP]:
            lines.append("| `%s` | %d | %.1f | %d | %.1f |" % (
                fn.replace("|", "\\|")[:80], self_n.get(fn, 0), 100.0 * self_n.get(fn, 0) / n,
                total_n[fn], 100.0 * total_n[fn] / n))
    with open(out + "-functions.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["function", "self", "total", "self_pct", "total_pct"])
        for fn in sorted(total_n, key=lambda fn: -total_n[fn]):
            w.writerow([fn, self_n.get(fn, 0), total_n[fn],
                        "%.2f" % (100.0 * self_n.get(fn, 0) / n),
                        "%.2f" % (100.0 * total_n[fn] / n)])
    text = "\n".join(lines) + "\n"
    with open(out + ".md", "w") as f:
        f.write(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
