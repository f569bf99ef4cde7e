#!/usr/bin/env python3
"""Check an SVG the way a reader sees it.

usage: svg_check.py CHROMIUM FILE.svg PNG_OUT [--label TEXT]... [--color #rrggbb]...

1. The file is well-formed XML with an <svg> root and every --label among
   its <text> elements (exact text).
2. Headless Chromium renders it to PNG_OUT (kept, so a person can look).
3. The screenshot is not blank: at least 2 % of its pixels are not white,
   and every --color (a line's colour) covers at least 150 pixels: a
   legend swatch is about 50, so the curve itself must have been drawn.
The PNG is decoded here with zlib (no imaging library needed).
Exit 0 ok, 1 with one line per failed check.
"""
import collections
import os
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
import zlib

SVG_NS = "{http://www.w3.org/2000/svg}"


def read_png(path):
    """Counts of each (r, g, b) pixel value of an 8-bit RGB/RGBA PNG,
    and its width and height.

    Undoing the filters byte by byte in Python is the slow part of a
    check (seconds per screenshot): Up rows are added as one big integer
    (bytewise, no carry between lanes), and the counts let each colour
    test look at the few thousand distinct values, not every pixel."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, hdr = 8, [], None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    w, h, depth, ctype, _, _, interlace = hdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError("unsupported PNG (depth %d, type %d)" % (depth, ctype))
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = w * bpp
    if len(raw) < h * (stride + 1):
        raise ValueError("truncated PNG data")
    out = bytearray(h * stride)
    prev = bytes(stride)
    lo = int.from_bytes(b"\x7f" * stride, "little")
    hi = int.from_bytes(b"\x80" * stride, "little")
    for y in range(h):
        i = y * (stride + 1)
        f = raw[i]
        line = bytearray(raw[i + 1:i + 1 + stride])
        if f == 1:  # Sub: add the byte one pixel left
            for x in range(bpp, stride):
                line[x] = (line[x] + line[x - bpp]) & 255
        elif f == 2:  # Up: bytewise add of the row above, all lanes at once
            p = int.from_bytes(line, "little")
            q = int.from_bytes(prev, "little")
            s = ((p & lo) + (q & lo)) ^ ((p ^ q) & hi)
            line = bytearray(s.to_bytes(stride, "little"))
        elif f == 3:  # Average
            for x in range(stride):
                a = line[x - bpp] if x >= bpp else 0
                line[x] = (line[x] + ((a + prev[x]) >> 1)) & 255
        elif f == 4:  # Paeth
            for x in range(bpp):
                line[x] = (line[x] + prev[x]) & 255
            for x in range(bpp, stride):
                a = line[x - bpp]
                b = prev[x]
                c = prev[x - bpp]
                pa = b - c if b >= c else c - b
                pb = a - c if a >= c else c - a
                pc = a + b - c - c
                if pc < 0:
                    pc = -pc
                if pa <= pb and pa <= pc:
                    line[x] = (line[x] + a) & 255
                elif pb <= pc:
                    line[x] = (line[x] + b) & 255
                else:
                    line[x] = (line[x] + c) & 255
        elif f != 0:
            raise ValueError("bad PNG filter %d" % f)
        out[y * stride:(y + 1) * stride] = line
        prev = line
    counts = collections.Counter(bytes(out[i:i + 3])
                                 for i in range(0, len(out), bpp))
    return w, h, counts


def near(p, q, tol=40):
    return all(abs(a - b) <= tol for a, b in zip(p, q))


def main(argv):
    chromium, svg, png = argv[1:4]
    labels, colours, errors = [], [], []
    rest = argv[4:]
    while rest:
        opt, val, rest = rest[0], rest[1], rest[2:]
        (labels if opt == "--label" else colours).append(val)
    try:
        root = ET.parse(svg).getroot()
    except ET.ParseError as e:
        print("%s: not well-formed XML: %s" % (svg, e))
        return 1
    if root.tag != SVG_NS + "svg":
        errors.append("root element is %s, not svg" % root.tag)
    texts = {"".join(t.itertext()) for t in root.iter(SVG_NS + "text")}
    for want in labels:
        if want not in texts:
            errors.append("no <text> '%s'" % want)
    width = int(float(root.get("width", "800")))
    height = int(float(root.get("height", "600")))
    with tempfile.TemporaryDirectory() as profile:
        cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu",
               "--disable-quic", "--no-first-run",
               "--disable-background-networking",
               "--disable-component-update", "--disable-sync",
               "--hide-scrollbars", "--user-data-dir=" + profile,
               "--window-size=%d,%d" % (width, height),
               "--screenshot=" + os.path.abspath(png),
               "file://" + os.path.abspath(svg)]
        r = subprocess.run(cmd, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=120)
    if r.returncode or not os.path.exists(png):
        errors.append("chromium failed (%d): %s" % (r.returncode,
                      r.stderr.decode(errors="replace")[-300:]))
    else:
        w, h, counts = read_png(png)
        inked = w * h - counts[b"\xff\xff\xff"]
        if inked < 0.02 * w * h:
            errors.append("screenshot nearly blank: %d of %d pixels inked"
                          % (inked, w * h))
        for c in colours:
            rgb = tuple(int(c[i:i + 2], 16) for i in (1, 3, 5))
            n = sum(k for p, k in counts.items() if near(p, rgb))
            if n < 150:
                errors.append("colour %s: only %d pixels" % (c, n))
    for e in errors:
        print("%s: %s" % (svg, e))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
