"""tests/conclusions.py: the rules of docs/statistics.md written again in Python, on their own
(nothing of plots/*.awk is used), for tests/check_summary.py: the confidence interval of a
median from its samples (samples.csv), the samples a row rests on, the best group at a size,
nccl at its strongest, a ratio with its interval and the regression verdict."""
import csv
import math
import os

MIN_EFFECT = 0.03  # the smallest change a regression must have, of the earlier median
FEW = 6            # below this many samples no interval reaches 95%


def num(s):
    try:
        v = float(s)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def ci_rank(n):
    """(l, coverage %): the interval [x(l), x(n+1-l)] of the sorted samples covers the median
    with 1 - 2 P(B <= l - 1), B ~ Binomial(n, 1/2); l is the largest rank covering 95%, else 1"""
    if n < 1:
        return 0, 0.0
    def cover(l):
        return 1 - 2 * sum(math.comb(n, k) for k in range(l)) / 2 ** n
    l = 1
    while 2 * (l + 1) <= n + 1 and cover(l + 1) >= 0.95:
        l += 1
    return l, 100 * cover(l)


def read_samples(run):
    """samples.csv as {row_key: [time_us in the order measured]}, or None where there is none"""
    path = os.path.join(run, "samples.csv")
    if not os.path.exists(path):
        return None
    out = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            out.setdefault(r["row_key"].strip(), []).append((int(r["sample"]), float(r["time_us"])))
    return {k: [t for _, t in sorted(v)] for k, v in out.items()}


def settings(r):
    out = {}
    for kv in (r.get("settings") or "").split(";"):
        if "=" in kv:
            k, v = kv.split("=", 1)
            out[k.strip()] = v.strip()
    return out


def timing(r):
    return settings(r).get("timing.mode", "events")


def mode(r):
    """nccl's registration mode of a row: its settings' nccl.registration, none when absent"""
    return settings(r).get("nccl.registration", "none")


def n_samples(r, has_col):
    """the samples a measured row's median rests on: n_samples where results.csv has the
    column; before it, the iterations (events timing) or the batches (host, graph: 5 unless
    timing.host_batches says otherwise)"""
    if r.get("source", "gpu").lower() == "model":
        return None
    if has_col:
        v = num(r.get("n_samples", ""))
        return int(v) if v is not None else None
    v = num(r.get("iters", "")) if timing(r) == "events" else num(settings(r).get("timing.host_batches", "5"))
    return int(v) if v is not None else None


def interval(r, samples):
    """(lo, hi) of a row: from its samples where samples.csv has them (not from the columns),
    else from the columns where they hold an interval, else (None, None)"""
    if samples is not None:
        xs = samples.get(r.get("row_key", ""))
        if not xs:
            return None, None
        s = sorted(xs)
        l, _ = ci_rank(len(s))
        return s[l - 1], s[len(s) - l]
    lo, hi = num(r.get("time_us_ci_lo", "")), num(r.get("time_us_ci_hi", ""))
    return (lo, hi) if lo is not None and hi is not None and lo <= hi else (None, None)


def check_columns(res, samples, check):
    """results.csv's n_samples, median and interval columns against the samples themselves"""
    keys = set()
    for r in res:
        k = r.get("row_key", "")
        check(k != "" and k not in keys, "row_key %r empty or not unique" % k)
        keys.add(k)
        xs = samples.get(k)
        n = num(r.get("n_samples", ""))
        if not n:
            check(not xs, "row %s: %d samples, n_samples '%s'" % (k, len(xs or []), r.get("n_samples", "")))
            continue
        if not check(xs is not None and len(xs) == n, "row %s: n_samples %s, samples.csv has %d" % (k, r["n_samples"], len(xs or []))):
            continue
        s = sorted(xs)
        l, cov = ci_rank(len(s))
        for col, want in (("time_us_median", median(s)), ("time_us_ci_lo", s[l - 1]), ("time_us_ci_hi", s[len(s) - l])):
            v = num(r.get(col, ""))
            check(v is not None and abs(v - want) <= 0.0015, "row %s: %s %s, its samples say %.3f" % (k, col, r.get(col), want))
        v = num(r.get("ci_level_pct", ""))
        check(v is not None and abs(v - cov) <= 0.05 + 1e-9, "row %s: ci_level_pct %s, %d samples cover %.2f%%" % (k, r.get("ci_level_pct"), n, cov))
    check(set(samples) <= keys, "samples.csv has rows results.csv lacks: %s" % sorted(set(samples) - keys)[:5])


def has(lo, hi):
    return lo is not None and hi is not None


def best_group(rows, label, info):
    """the best group of a size's schedule rows: the fastest, then every other whose interval
    overlaps its own, by median (labels once each); the fastest alone without its interval"""
    b = min(rows, key=lambda r: float(r["time_us_median"]))
    blo, bhi, _ = info(b)
    names = [label(b)]
    if not has(blo, bhi):
        return b, names
    others = sorted((r for r in rows if r is not b), key=lambda r: float(r["time_us_median"]))
    for r in others:
        lo, hi, _ = info(r)
        if has(lo, hi) and lo <= bhi and blo <= hi and label(r) not in names:
            names.append(label(r))
    return b, names


def ratio(nrow, brow, info):
    """nccl's median over the best's: (ratio, lo, hi, few) with the interval both intervals allow
    ((None, None) where either has none or either rests on fewer than FEW samples) and few the
    words for the sides below FEW samples ("best 5, nccl 1", or "")"""
    nt, bt = float(nrow["time_us_median"]), float(brow["time_us_median"])
    nlo, nhi, nn = info(nrow)
    blo, bhi, bn = info(brow)
    few = ", ".join("%s %d" % (w, n) for w, n in (("best", bn), ("nccl", nn)) if n is not None and n < FEW)
    if few or not has(nlo, nhi) or not has(blo, bhi):
        return nt / bt, None, None, few
    return nt / bt, nlo / bhi, nhi / blo, few


def verdict(was, blo, bhi, now, lo, hi):
    """slower, faster or same by the intervals and the minimum effect; None without intervals"""
    if not has(blo, bhi) or not has(lo, hi):
        return None
    if lo > bhi and now - was >= MIN_EFFECT * was:
        return "slower"
    if hi < blo and was - now >= MIN_EFFECT * was:
        return "faster"
    return "same"
