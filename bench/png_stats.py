#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""What a PNG shows, in numbers (stdlib only: zlib).

  png_stats.py FILE.png [--min-coloured PCT] [--max-error-pink PCT]

Prints "WxH coloured=P% error_pink=Q% colours=N": the share of coloured
pixels (channels spread by more than 60: a flame graph's frames), the
share of the pale pink (about 255,221,221) of a browser's "This page
contains the following errors" box (Chromium's XML parse error page),
and the number of distinct colours.  With --min-coloured or
--max-error-pink it exits 1 when the picture is outside those bounds:
how test/bench_tools.bats tells a rendered flame graph from an error page.
Reads 8-bit grey, RGB, grey+alpha and RGBA PNGs, not interlaced.
"""
import argparse
import struct
import sys
import zlib

CHANNELS = {0: 1, 2: 3, 4: 2, 6: 4}


def chunks(data):
    pos = 8
    while pos + 8 <= len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        yield kind, data[pos + 8:pos + 8 + n]
        pos += 12 + n


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def unfilter(raw, width, height, bpp):
    stride = width * bpp
    rows, prev, pos = [], bytearray(stride), 0
    for _ in range(height):
        ftype, line = raw[pos], bytearray(raw[pos + 1:pos + 1 + stride])
        pos += 1 + stride
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 0xff
            elif ftype == 2:
                line[i] = (line[i] + b) & 0xff
            elif ftype == 3:
                line[i] = (line[i] + ((a + b) >> 1)) & 0xff
            elif ftype == 4:
                line[i] = (line[i] + paeth(a, b, c)) & 0xff
        rows.append(line)
        prev = line
    return rows


def read_png(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit("png_stats.py: %s is not a PNG" % path)
    idat, hdr = b"", None
    for kind, body in chunks(data):
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
    if not hdr:
        sys.exit("png_stats.py: %s has no IHDR" % path)
    width, height, depth, ctype, _, _, interlace = hdr
    if depth != 8 or ctype not in CHANNELS or interlace:
        sys.exit("png_stats.py: %s: only 8-bit, not interlaced grey/RGB(A) PNGs "
                 "(depth %d, colour type %d, interlace %d)" % (path, depth, ctype, interlace))
    bpp = CHANNELS[ctype]
    return width, height, bpp, unfilter(zlib.decompress(idat), width, height, bpp)


def stats(path):
    width, height, bpp, rows = read_png(path)
    coloured = pink = 0
    colours = set()
    for line in rows:
        for x in range(0, width * bpp, bpp):
            px = line[x:x + bpp]
            rgb = (px[0], px[0], px[0]) if bpp <= 2 else (px[0], px[1], px[2])
            if bpp in (2, 4) and px[-1] < 128:
                rgb = (255, 255, 255)       # transparent: the page behind it
            colours.add(rgb)
            if max(rgb) - min(rgb) > 60:
                coloured += 1
            if rgb[0] >= 245 and 205 <= rgb[1] <= 235 and abs(rgb[1] - rgb[2]) <= 8:
                pink += 1
    n = float(width * height) or 1.0
    return width, height, 100.0 * coloured / n, 100.0 * pink / n, len(colours)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("png")
    ap.add_argument("--min-coloured", type=float)
    ap.add_argument("--max-error-pink", type=float)
    a = ap.parse_args()
    w, h, col, pink, ncol = stats(a.png)
    print("%dx%d coloured=%.1f%% error_pink=%.1f%% colours=%d" % (w, h, col, pink, ncol))
    bad = []
    if a.min_coloured is not None and col < a.min_coloured:
        bad.append("coloured %.1f%% < %g%%" % (col, a.min_coloured))
    if a.max_error_pink is not None and pink > a.max_error_pink:
        bad.append("error-page pink %.1f%% > %g%%" % (pink, a.max_error_pink))
    if bad:
        print("%s: not a rendered flame graph: %s" % (a.png, ", ".join(bad)), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
