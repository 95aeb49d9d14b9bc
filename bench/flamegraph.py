#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Flame graph SVG from perf script output or folded stacks (stdlib only).

  flamegraph.py [--title TEXT] [--width PX] [--folded] [--fold-out FILE] IN OUT.svg

IN is `perf script` output (bench/profile.sh), or with --folded one stack
a line, root first, frames joined by ';' and the sample count last
("comm;main;f;g 12").  --fold-out writes the folded stacks read from a
perf script input.  Each perf sample's stack is rooted at its thread's
name.  The SVG is built with xml.etree, so every name is escaped
(`&`, `<`, `"`, ...), characters XML cannot hold are replaced, and the
file is parsed back before it is written: it is well-formed or this
exits non-zero.  Every frame carries a <title> (name, samples, share)
that a browser shows as a tooltip; no script.
"""
import argparse
import hashlib
import os
import re
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from profile_report import samples  # noqa: E402

FRAME_H = 16
FONT_PX = 11
CHAR_W = FONT_PX * 0.6          # monospace advance, close enough to fit labels
PAD_TOP = 36
PAD_BOTTOM = 10
PAD_SIDE = 10
MIN_PX = 0.3                    # narrower frames are not drawn
# XML 1.0 Char production, less what needs a surrogate pair in narrow builds
_BAD_XML = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def clean(text):
    return _BAD_XML.sub("\ufffd", text)


def read_folded(path):
    """{tuple(frames root first): count}"""
    stacks = {}
    with open(path, errors="replace") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip():
                continue
            stack, _, count = line.rpartition(" ")
            if not stack or not count.isdigit():
                sys.exit("%s:%d: not a folded stack ('frame;frame N'): %r" % (path, n, line[:80]))
            key = tuple(stack.split(";"))
            stacks[key] = stacks.get(key, 0) + int(count)
    return stacks


def read_perf(path):
    stacks = {}
    for thread, frames in samples(path):
        key = (thread,) + tuple(reversed(frames or ["[unknown]"]))
        stacks[key] = stacks.get(key, 0) + 1
    return stacks


def tree(stacks):
    """nested nodes: [name, total, {child name: node}]"""
    root = ["all", 0, {}]
    for stack, count in stacks.items():
        node = root
        node[1] += count
        for name in stack:
            node = node[2].setdefault(name, [name, 0, {}])
            node[1] += count
    return root


def colour(name, depth):
    """warm colours, stable per name"""
    h = hashlib.md5(name.encode("utf-8", "replace")).digest()
    if name.startswith("[") or name.endswith("_[k]"):
        return "rgb(%d,%d,%d)" % (200 + h[0] % 55, 120 + h[1] % 60, 40 + h[2] % 40)
    return "rgb(%d,%d,%d)" % (205 + h[0] % 50, 60 + (h[1] + depth * 7) % 150, 30 + h[2] % 50)


def depth_of(node):
    return 1 + max((depth_of(c) for c in node[2].values()), default=0)


def draw(parent, node, x, depth, scale, height, total):
    w = node[1] * scale
    if w < MIN_PX:
        return
    y = height - PAD_BOTTOM - (depth + 1) * FRAME_H
    g = ET.SubElement(parent, "g")
    ET.SubElement(g, "title").text = clean("%s (%d samples, %.2f %%)" % (
        node[0], node[1], 100.0 * node[1] / total))
    ET.SubElement(g, "rect", x="%.2f" % x, y="%d" % y, width="%.2f" % max(w - 0.5, 0.1),
                  height="%d" % (FRAME_H - 1), fill=colour(node[0], depth), rx="2", ry="2")
    fit = int((w - 6) / CHAR_W)
    if fit >= 3:
        label = node[0] if len(node[0]) <= fit else node[0][:fit - 2] + ".."
        ET.SubElement(g, "text", x="%.2f" % (x + 3), y="%d" % (y + FRAME_H - 4)).text = clean(label)
    cx = x
    for child in sorted(node[2].values(), key=lambda c: c[0]):
        draw(parent, child, cx, depth + 1, scale, height, total)
        cx += child[1] * scale


def render(stacks, title, width):
    root = tree(stacks)
    height = PAD_TOP + PAD_BOTTOM + depth_of(root) * FRAME_H
    svg = ET.Element("svg", xmlns="http://www.w3.org/2000/svg", version="1.1",
                     width=str(width), height=str(height),
                     viewBox="0 0 %d %d" % (width, height))
    ET.SubElement(svg, "style").text = (
        "text { font-family: monospace; font-size: %dpx; fill: #000; }"
        " .title { font-size: 16px; } g:hover rect { stroke: #000; stroke-width: 0.5; }"
        % FONT_PX)
    ET.SubElement(svg, "rect", x="0", y="0", width=str(width), height=str(height), fill="#f8f8f0")
    ET.SubElement(svg, "text", x=str(width // 2), y="22", attrib={
        "class": "title", "text-anchor": "middle"}).text = clean(title)
    total = root[1]
    if total:
        draw(svg, root, PAD_SIDE, 0, (width - 2 * PAD_SIDE) / total, height, total)
    else:
        ET.SubElement(svg, "text", x=str(width // 2), y=str(PAD_TOP + 12),
                      attrib={"text-anchor": "middle"}).text = "no samples"
    return ET.tostring(svg, encoding="unicode")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--title", default="Flame graph")
    ap.add_argument("--width", type=int, default=1200)
    ap.add_argument("--folded", action="store_true", help="IN holds folded stacks")
    ap.add_argument("--fold-out", help="write the folded stacks here")
    ap.add_argument("input")
    ap.add_argument("output")
    a = ap.parse_args()
    if not os.path.exists(a.input):
        sys.exit("flamegraph.py: %s: no such file" % a.input)
    stacks = read_folded(a.input) if a.folded else read_perf(a.input)
    if a.fold_out:
        with open(a.fold_out, "w") as f:
            for stack in sorted(stacks):
                f.write("%s %d\n" % (";".join(stack), stacks[stack]))
    text = '<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n' + \
        render(stacks, a.title, a.width) + "\n"
    try:
        ET.fromstring(text.encode("utf-8"))
    except ET.ParseError as e:
        sys.exit("flamegraph.py: the SVG does not parse back (%s): not written" % e)
    tmp = a.output + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, a.output)


if __name__ == "__main__":
    main()
