#!/usr/bin/env python3
"""Checks that no key (legend) of a picture lies over its data: in each SVG that plots/plot.sh
drew, every key box (gnuplot draws it as a closed path in the key's grey, #bbbbbb) is compared
with every data vertex (each series' polyline and its points). A key sample (the short line,
swatch or point beside a series' name, wholly inside the box) is not data. Prints one line per overlap and exits
1 if there is any; usage: check_keys.py SVG...
"""
import re
import sys

BOX = re.compile(r"<path stroke='rgb\(187, 187, 187\)'\s+d='([^']*Z[^']*)'")
PLOT = re.compile(r'<g id="gnuplot_plot_[^"]*"\s*>(.*?)(?=<g id="gnuplot_plot_|\Z)', re.S)
PATH = re.compile(r"<path [^>]*d='([^']*)'")
USE = re.compile(r"<use [^>]*transform='translate\(([-\d.]+),([-\d.]+)\)")
NUM = re.compile(r"([-\d.]+),([-\d.]+)")


def boxes(svg):
    """The key boxes as (x0, y0, x1, y1)."""
    out = []
    for d in BOX.findall(svg):
        pts = [(float(x), float(y)) for x, y in NUM.findall(d)]
        if len(pts) >= 4:
            xs, ys = [p[0] for p in pts], [p[1] for p in pts]
            out.append((min(xs), min(ys), max(xs), max(ys)))
    return out


def inside(p, b, pad=0.5):
    return b[0] + pad < p[0] < b[2] - pad and b[1] + pad < p[1] < b[3] - pad


def check(path):
    svg = open(path, encoding="utf-8").read()
    keys = boxes(svg)
    bad, marks = [], []
    for group in PLOT.findall(svg):
        for d in PATH.findall(group):
            for sub in d.split("M")[1:]:
                pts = [(float(x), float(y)) for x, y in NUM.findall(sub)]
                # a key sample: a stroke or a filled swatch wholly inside one box (a series'
                # line runs over the plot, so part of it lies outside any box)
                if pts and any(all(inside(p, b) for p in pts) for b in keys):
                    continue
                bad += [p for p in pts if any(inside(p, b) for b in keys)]
        marks += [(float(x), float(y)) for x, y in USE.findall(group)]
    # the point marks inside a box: its key samples stand in one column (the most common x);
    # a mark elsewhere in the box is data under the key
    for b in keys:
        xs = [round(p[0] * 2) / 2 for p in marks if inside(p, b)]
        col = max(set(xs), key=xs.count) if xs else None
        bad += [p for p in marks if inside(p, b) and round(p[0] * 2) / 2 != col]
    for p in bad[:3]:
        print(f"{path}: a data point at ({p[0]:.1f}, {p[1]:.1f}) lies under a key box")
    return len(bad), len(keys)


def main():
    failed = 0
    for path in sys.argv[1:]:
        n, _ = check(path)
        failed += n > 0
    print(f"{len(sys.argv) - 1} pictures, {failed} with a key over data")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
