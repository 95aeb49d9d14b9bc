#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""No C file over 800 lines, no function over 80 (CONTRIBUTING.md, "The sealed library").

usage: check-size.py FILE...   (make check runs it on every C file:
src/, include/, sample_tuner/, tools/, test/, BPF programs too)

A function is counted from its opening brace in column 0 to its closing
brace in column 0, kernel style.  Exits 1 and names every offender.
"""
import sys

MAX_FILE = 800
MAX_FUNC = 80

def check(path):
    bad = []
    lines = open(path, encoding="utf-8").read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if len(lines) > MAX_FILE:
        bad.append(f"{path}: {len(lines)} lines (at most {MAX_FILE})")
    start = None
    for i, line in enumerate(lines):
        if line.startswith("{") and start is None:
            start = i
        elif line.startswith("}") and start is not None:
            body = i - start - 1
            if body > MAX_FUNC:
                k = start - 1
                while k > 0 and "(" not in lines[k]:
                    k -= 1
                bad.append(f"{path}:{k + 1}: function of {body} lines "
                           f"(at most {MAX_FUNC}): {lines[k].strip()}")
            start = None
    return bad


def main(paths):
    bad = []
    for p in paths:
        bad += check(p)
    for b in bad:
        print("check-size: " + b, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
