#!/usr/bin/env python3
"""tests/check_compute.py RUN_DIR [--beside A:L] [--sized TOL] [--summary]: reads RUN_DIR's results.csv
and compute_samples.csv and recomputes, on its own (nothing of harness/ is used), every
--compute column (docs/csv.md):

- a row with a load (compute not empty) has compute_n_samples lines in each series of
  compute_samples.csv (compute, allreduce_loaded, compute_loaded), numbered 1..n, as many as
  its n_samples; a row without one has every compute column empty and no lines;
- compute_us_*, allreduce_loaded_us_* and compute_loaded_us_* (median, ci_lo, ci_hi) from
  their series, span_us_* from each iteration's later end (max of allreduce_loaded and
  compute_loaded), as tests/check_samples.py recomputes the AllReduce's own;
- allreduce_slowdown = allreduce_loaded_us_median / time_us_median, compute_slowdown =
  compute_loaded_us_median / compute_us_median, hidden_share = clamp(1 - (span_us_median -
  compute_us_median) / time_us_median, 0, 1), each within the 3 decimals' rounding;
- an ok row: compute_wrong 0.
--summary: summary.md's "Beside compute" table, per scenario and size: the schedule fastest
alone and the one with the shortest step (span_us_median), each with every row whose 95%
interval overlaps its own (a tie), the step's load, load alone, slowdowns and hidden share.
--beside A:L: the fake GPU's model (tests/sim/fake_load.c, no straggler, no jitter): both start
together, each A and L times slower while the other runs; the loaded medians must be what that
gives from the medians alone. --sized TOL: a load sized per row lasts the AllReduce alone's
median within TOL (a fraction). Prints one line per mismatch and "N rows, N checks, N wrong";
exit status 0 when nothing is wrong, 1 otherwise, 2 usage."""
import csv
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_samples import check, report, stats  # noqa: E402  (order statistics, on its own)

COLS = ["compute", "compute_us_median", "compute_us_ci_lo", "compute_us_ci_hi",
        "allreduce_loaded_us_median", "allreduce_loaded_us_ci_lo", "allreduce_loaded_us_ci_hi",
        "compute_loaded_us_median", "compute_loaded_us_ci_lo", "compute_loaded_us_ci_hi",
        "span_us_median", "span_us_ci_lo", "span_us_ci_hi", "allreduce_slowdown",
        "compute_slowdown", "hidden_share", "compute_wrong", "compute_n_samples"]
SERIES = {"compute": "compute_us", "allreduce_loaded": "allreduce_loaded_us",
          "compute_loaded": "compute_loaded_us"}
def shared(t, w, fa, fl):
    """Two lanes started together, of t and w us alone, each fa and fl times slower while both
    run: their ends (the first to end leaves the other its full speed)."""
    if t * fa <= w * fl:
        return t * fa, t * fa + (w - t * fa / fl)
    return w * fl + (t - w * fl / fa), w * fl


def fmt_t(x):
    return "%.2f" % x if x < 100 else "%.1f" % x if x < 10000 else "%.0f" % x


def check_summary(d, rows):
    """summary.md's "Beside compute" rows (less their scenario cell) against results.csv's"""
    groups = {}
    for r in rows:
        if r.get("span_us_median") and r["status"] == "ok":
            groups.setdefault((r.get("scenario", ""), int(r["bytes"])), []).append(r)
    name = lambda r: "nccl" if r["algorithm"] == "nccl" else r["algorithm"] + "/" + r["transport"]
    ci = lambda r, p: (float(r[p + "_ci_lo"]), float(r[p + "_ci_hi"])) if r[p + "_ci_lo"] and r[p + "_ci_hi"] else None

    def best(g, p):
        b = min(g, key=lambda r: float(r[p + "_median"]))
        lo_hi, ties = ci(b, p), [name(b)]
        for r in g:
            o = ci(r, p)
            if r is not b and lo_hi and o and o[0] <= o[1] and o[0] <= lo_hi[1] and lo_hi[0] <= o[1]:
                ties.append(name(r))
        return b, ", ".join(ties) + (" (tie)" if len(ties) > 1 else "")
    want = []
    for (scen, b), g in groups.items():
        a, an = best(g, "time_us")
        st, sn = best(g, "span_us")
        unit = next(u for u, k in (("GiB", 30), ("MiB", 20), ("KiB", 10), ("B", 0)) if b % (1 << k) == 0)
        size = "%d %s" % (b >> {"GiB": 30, "MiB": 20, "KiB": 10, "B": 0}[unit], unit)
        want.append([size, an, fmt_t(float(a["time_us_median"])), sn, fmt_t(float(st["span_us_median"])),
                     st["compute"], fmt_t(float(st["compute_us_median"])), "%.2f" % float(st["allreduce_slowdown"]),
                     "%.2f" % float(st["compute_slowdown"]), "%.0f%%" % (100 * float(st["hidden_share"]))])
    text = open(os.path.join(d, "summary.md")).read()
    got = []
    if "\n## Beside compute (--compute)\n" in text:
        sec = text.split("\n## Beside compute (--compute)\n", 1)[1].split("\n## ", 1)[0]
        got = [[c.strip() for c in line.strip().strip("|").split("|")][1:] for line in sec.split("\n")
               if line.startswith("| ") and not line.startswith("| scenario ")]
    check(sorted(got) == sorted(want), "summary.md's Beside compute rows %s, want %s" % (sorted(got), sorted(want)))


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    d, beside, sized, summary = argv[1], None, None, False
    args = argv[2:]
    while args:
        if args[0] == "--summary":
            summary, args = True, args[1:]
            continue
        if args[0] == "--beside" and len(args) > 1:
            beside = [float(x) for x in args[1].split(":")]
        elif args[0] == "--sized" and len(args) > 1:
            sized = float(args[1])
        else:
            print(__doc__)
            return 2
        args = args[2:]
    rows = list(csv.DictReader(open(os.path.join(d, "results.csv"), newline="")))
    samples = defaultdict(lambda: defaultdict(list))
    path = os.path.join(d, "compute_samples.csv")
    if os.path.exists(path):
        for s in csv.DictReader(open(path, newline="")):
            samples[s["row_key"]][s["series"]].append((int(s["sample"]), float(s["time_us"])))
    for r in rows:
        key, what = r["row_key"], "row %s (%s/%s %s B)" % (r["row_key"], r["algorithm"],
                                                          r["transport"], r["bytes"])
        if not r.get("compute"):
            check(all(not r.get(c) for c in COLS), "%s: no load, yet %s" %
                  (what, [c for c in COLS if r.get(c)]))
            check(key not in samples, "%s: no load, yet compute_samples.csv lines" % what)
            continue
        n = int(r["compute_n_samples"])
        check(str(n) == r["n_samples"], "%s: %d load samples, %s of the AllReduce alone" %
              (what, n, r["n_samples"]))
        xs = {}
        for name, col in SERIES.items():
            got = samples[key][name]
            if not check([i for i, _ in got] == list(range(1, n + 1)),
                         "%s: %s samples numbered %s" % (what, name, [i for i, _ in got][:8])):
                return report(d, len(rows))
            xs[name] = [x for _, x in got]
        xs["span"] = [max(a, b) for a, b in zip(xs["allreduce_loaded"], xs["compute_loaded"])]
        for name, col in list(SERIES.items()) + [("span", "span_us")]:
            st = stats(xs[name])
            for end, k in (("median", "median"), ("ci_lo", "lo"), ("ci_hi", "hi")):
                check(r[col + "_" + end] == "%.3f" % st[k], "%s: %s_%s %s, from its samples %.3f" %
                      (what, col, end, r[col + "_" + end], st[k]))
        f = {c: float(r[c]) for c in COLS[1:16]}
        t = float(r["time_us_median"])
        want = {"allreduce_slowdown": f["allreduce_loaded_us_median"] / t,
                "compute_slowdown": f["compute_loaded_us_median"] / f["compute_us_median"],
                "hidden_share": min(max(1 - (f["span_us_median"] - f["compute_us_median"]) / t, 0), 1)}
        for c, v in want.items():
            check(abs(f[c] - v) <= 0.0011, "%s: %s %s, recomputed %.4f" % (what, c, r[c], v))
        if r["status"] == "ok":
            check(r["compute_wrong"] == "0", "%s: ok, compute_wrong %s" % (what, r["compute_wrong"]))
        if beside:
            a, l = shared(t, f["compute_us_median"], beside[0], beside[1])
            for c, v in (("allreduce_loaded_us_median", a), ("compute_loaded_us_median", l)):
                check(abs(f[c] - v) <= 0.002 + 1e-5 * v, "%s: %s %.3f, the fake's model %.3f" %
                      (what, c, f[c], v))
        if sized is not None:
            check(abs(f["compute_us_median"] / t - 1) <= sized, "%s: %s lasts %.3f us, the AllReduce %.3f" %
                  (what, r["compute"], f["compute_us_median"], t))
    if summary:
        check_summary(d, rows)
    return report(d, len(rows))


if __name__ == "__main__":
    sys.exit(main(sys.argv))
