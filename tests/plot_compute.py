"""check_compute for tests/plot_points.py: the pictures of --compute, recomputed from
results.csv alone (not plots/compute.awk)."""
import os
import re

from plot_read import bar_curves, close, multiset_diff, num, read_csv, size_label

TP_ORDER = {"ce": 1, "sm": 2, "ll": 3, "nccl-p2p": 4, "nccl": 5}


def check_compute(run, tables, pdir, ck):
    """compute_<size>[_<scenario>]: per (scenario, size) of the ok rows with span_us_median, per
    schedule at x = 1, 2, ... (its tic label; ordered by transport, ce, sm, ll, nccl-p2p, nccl,
    then by name) bars at x - 0.27, x and x + 0.27 with time_us_median, compute_us_median and
    span_us_median, each with its interval as a whisker, and above the tallest whisker (x 1.03)
    "AR xA, load xL, hidden H%" from the row's slowdowns and hidden share. Returns the pictures
    checked"""
    pics = {}
    path = os.path.join(run, "results.csv")
    for r in read_csv(path) if os.path.exists(path) else []:
        b, sp = num(r.get("bytes")), num(r.get("span_us_median"))
        if b is None or sp is None or r.get("status", "").lower() != "ok":
            continue
        pics.setdefault((r.get("scenario", ""), b), []).append(r)
    n, want_pics = 0, set()
    for (scen, b), rows in pics.items():
        pic = "compute_" + size_label(b) + ("_" + re.sub(r"[^A-Za-z0-9.+-]", "-", scen) if scen else "")
        want_pics.add(pic)
        name = lambda r: "nccl" if r["algorithm"] == "nccl" else r["algorithm"] + "/" + r["transport"]
        rows.sort(key=lambda r: (TP_ORDER.get(r["transport"], 6), name(r)))
        cs = bar_curves(ck, pic, tables, pdir, [name(r) for r in rows], 7,
                        "three bars, their whiskers, the line above", "results.csv")
        if cs is None:
            continue
        n += 1
        if not cs:
            continue
        eq = lambda g, x: all(close(a, c) for a, c in zip(g, x))
        for k, (off, col) in enumerate(((-0.27, "time_us"), (0, "compute_us"), (0.27, "span_us"))):
            med = [(i + off, float(r[col + "_median"])) for i, r in enumerate(rows, 1)]
            multiset_diff(ck, pic, col + " bars (x, median)", cs[k]["pts"], med, eq)
            got = [tuple(float(v) for v in w[:4]) for w in cs[3 + k]["rows"] if len(w) >= 5]
            want = [(i + off, float(r[col + "_median"]), float(r[col + "_ci_lo"]), float(r[col + "_ci_hi"]))
                    for i, r in enumerate(rows, 1)]
            multiset_diff(ck, pic, col + " whiskers (x, median, lo, hi)", got, want, eq)
        labs = [(float(w[0]), float(w[1]), w[2]) for w in cs[6]["rows"] if len(w) >= 3]
        want = [(i, 1.03 * max(float(r[c + "_ci_hi"]) for c in ("time_us", "compute_us", "span_us")),
                 "AR x%.2f, load x%.2f, hidden %.0f%%" % (float(r["allreduce_slowdown"]), float(r["compute_slowdown"]),
                                                          100 * float(r["hidden_share"])))
                for i, r in enumerate(rows, 1)]
        multiset_diff(ck, pic, "lines above (x, y, text)", labs, want, lambda g, x: eq(g[:2], x[:2]) and g[2] == x[2])
    for pic in tables:
        if pic.startswith("compute_") and pic not in want_pics:
            ck.fail(pic, "drawn, but results.csv has no rows with a load at that scenario and size")
    return n
