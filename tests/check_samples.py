#!/usr/bin/env python3
"""tests/check_samples.py RUN_DIR [-n N] [--first N] [--expect-stop WORDS]: reads RUN_DIR's
results.csv and samples.csv and recomputes, on its own (nothing of harness/ is used), what each
row says of its samples (docs/statistics.md):

- every row has a row_key, 1, 2, ... in the order written; samples.csv's keys are rows' keys
  (but the one after the last row: a row killed between its samples and its line), and a row's
  lines are numbered 1..n in order;
- a row with n_samples has exactly that many lines; a row without (n/a, oom, timeout, an
  imported row) has none and no interval or repeat_stop;
- time_us_median, time_us_min, time_us_max, time_us_mean, the interval's ends
  (time_us_ci_lo, time_us_ci_hi: [x(l), x(n+1-l)] with l the largest rank whose binomial
  coverage is at least 95%, [min, max] below 6 samples) and ci_level_pct, from the samples;
- events timing: iters == n_samples; host and graph: n_samples batches; imported rows
  (source=nccl-tests): one sample per line of nccl-tests' for the size, repeat_stop fixed;
- repeat_stop: fixed without stats.ci_target (then n_samples is the first count: --first, or
  -n / timing.host_batches), else the decision replayed on the first k samples at every step
  boundary (the first count, then -n or timing.host_batches more each time): the interval's
  larger half over the target at every boundary before the last; at the last, within it
  (target) or not (budget, max: max exactly at stats.max_iters).
--first N: a row's first count when the budget does not cut it (default -n, or
timing.host_batches); rows whose iters is below it are taken as budget-cut. --expect-stop: the
comma-separated repeat_stop values some row must have. Prints one line per mismatch and
"N rows, N checks, N wrong"; exit status 0 when nothing is wrong, 1 otherwise, 2 usage."""
import csv
import functools
import os
import sys
from fractions import Fraction

checks = 0
wrong = []


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        wrong.append(what)
    return cond


@functools.lru_cache(maxsize=None)
def median_ci_rank(n):
    """(l, coverage in percent): the largest l with 1 - 2 P(B <= l - 1) >= 0.95, B ~ Bin(n, 1/2);
    l = 1 with coverage 1 - 2^(1-n) where none reaches 95%. Exact, in integers: with
    C = sum of comb(n, k) for k < l, the coverage is (2^n - 2 C) / 2^n."""
    total = 2 ** n
    best, level, cdf, comb = 1, None, 0, 1
    for k in range((n + 1) // 2):
        cdf += comb  # comb(n, k)
        cover = total - 2 * cdf
        if 100 * cover < 95 * total:
            break
        best, level = k + 1, Fraction(cover, total)
        comb = comb * (n - k) // (k + 1)
    if level is None:
        level = 1 - Fraction(2) ** (1 - n) if n > 0 else Fraction(0)
    return best, float(level) * 100


def stats(x):
    s = sorted(x)
    n = len(s)
    med = s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2
    l, level = median_ci_rank(n)
    return {"median": med, "min": s[0], "max": s[-1], "mean": sum(s) / n,
            "lo": s[l - 1], "hi": s[n - l], "level": level}


def within(st, target):
    return st["median"] > 0 and max(st["median"] - st["lo"], st["hi"] - st["median"]) <= target * st["median"]


def setting(row, name, default):
    for kv in (row.get("settings") or "").split(";"):
        if kv.startswith(name + "="):
            return kv.split("=", 1)[1]
    return default


def f3(v):
    return "%.3f" % v


def main(argv):
    args = argv[1:]
    if not args:
        print(__doc__.split("\n")[0], file=sys.stderr)
        return 2
    d, n_opt, first_opt, want_stops = args[0], None, None, []
    i = 1
    while i < len(args):
        if args[i] == "-n" and i + 1 < len(args):
            n_opt = int(args[i + 1]); i += 2
        elif args[i] == "--first" and i + 1 < len(args):
            first_opt = int(args[i + 1]); i += 2
        elif args[i] == "--expect-stop" and i + 1 < len(args):
            want_stops = args[i + 1].split(","); i += 2
        else:
            print("check_samples.py: unknown argument %s" % args[i], file=sys.stderr)
            return 2
    with open(os.path.join(d, "results.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    samples = {}
    spath = os.path.join(d, "samples.csv")
    check(os.path.exists(spath), "%s: no samples.csv" % d)
    if os.path.exists(spath):
        with open(spath, newline="") as f:
            r = csv.reader(f)
            check(next(r, None) == ["row_key", "sample", "time_us"], "samples.csv: header")
            lines = list(r)
            if lines and len(lines[-1]) < 3:
                lines.pop()  # cut by a kill mid-write: the killed row's, whose line never came
            for line in lines:
                samples.setdefault(int(line[0]), []).append((int(line[1]), line[2]))
    keys = [int(r["row_key"]) for r in rows]
    check(keys == list(range(1, len(rows) + 1)), "row_key not 1..%d in order: %s" % (len(rows), keys[:8]))
    for k in samples:
        check(k in keys or k == len(rows) + 1, "samples.csv: key %d has no row" % k)
    stops = set()
    for r in rows:
        key = int(r["row_key"])
        what = "row %d (%s/%s %s B, %s)" % (key, r["algorithm"], r["transport"], r["bytes"], r["status"])
        lines = samples.get(key, [])
        if not r["n_samples"]:
            check(not lines, "%s: no n_samples but %d samples" % (what, len(lines)))
            check(not (r["time_us_ci_lo"] or r["time_us_ci_hi"] or r["ci_level_pct"] or r["repeat_stop"]),
                  "%s: an interval or repeat_stop without samples" % what)
            check(r["status"] != "ok" or r["source"] != "gpu", "%s: measured ok without samples" % what)
            continue
        n = int(r["n_samples"])
        check([s for s, _ in lines] == list(range(1, n + 1)),
              "%s: samples numbered %s, want 1..%d" % (what, [s for s, _ in lines][:5], n))
        x = [float(v) for _, v in lines]
        if not x:
            continue
        st = stats(x)
        for col, key2 in (("time_us_median", "median"), ("time_us_min", "min"), ("time_us_max", "max"),
                          ("time_us_ci_lo", "lo"), ("time_us_ci_hi", "hi")):
            check(r[col] == f3(st[key2]), "%s: %s %s, the samples give %s" % (what, col, r[col], f3(st[key2])))
        check(abs(float(r["time_us_mean"]) - st["mean"]) <= 0.0011,
              "%s: time_us_mean %s, the samples give %.4f" % (what, r["time_us_mean"], st["mean"]))
        check(abs(float(r["ci_level_pct"]) - st["level"]) <= 0.0011,
              "%s: ci_level_pct %s, want %.4f" % (what, r["ci_level_pct"], st["level"]))
        if r["source"] == "nccl-tests":
            # an imported sample is one of nccl-tests' lines for the size (a -N cycle, or one
            # test of several): a batch of iters AllReduces, never repeated by arbench
            check(r["repeat_stop"] == "fixed", "%s: imported, repeat_stop %s" % (what, r["repeat_stop"]))
            continue
        mode = setting(r, "timing.mode", "events")
        step = int(setting(r, "timing.host_batches", "5")) if mode != "events" else n_opt
        if mode == "events":
            check(int(r["iters"]) == n, "%s: iters %s, n_samples %d" % (what, r["iters"], n))
        target = float(setting(r, "stats.ci_target", "0"))
        cap = int(setting(r, "stats.max_iters", "1000"))
        stop = r["repeat_stop"]
        stops.add(stop)
        first = first_opt if first_opt is not None else step
        if first is not None and mode == "events" and n < first:
            first = n  # cut by --row-budget below -n
        if not target > 0:
            check(stop == "fixed", "%s: repeat_stop %s without a target" % (what, stop))
            if first is not None:
                check(n == first, "%s: %d samples without a target, want %d" % (what, n, first))
            continue
        if step is None or first is None:
            continue
        bounds = [first]
        while bounds[-1] < n:
            bounds.append(min(bounds[-1] + step, max(n, bounds[-1] + 1)))
        check(bounds[-1] == n, "%s: %d samples is no step boundary (%s)" % (what, n, bounds[:6]))
        for b in bounds[:-1]:
            check(not within(stats(x[:b]), target),
                  "%s: the target %g was met at %d samples, yet it went on to %d" % (what, target, b, n))
        met = within(st, target)
        if stop == "target":
            check(met, "%s: repeat_stop target, but the interval [%s, %s] around %s is over %g" %
                  (what, r["time_us_ci_lo"], r["time_us_ci_hi"], r["time_us_median"], target))
        elif stop in ("max", "budget"):
            check(not met, "%s: repeat_stop %s, but the target was met" % (what, stop))
            if stop == "max":
                check(n == max(cap, first), "%s: max at %d samples, stats.max_iters %d" % (what, n, cap))
            else:
                check(n <= cap, "%s: budget at %d samples, over stats.max_iters %d" % (what, n, cap))
        else:
            check(False, "%s: repeat_stop '%s' with a target" % (what, stop))
    for s in want_stops:
        check(s in stops, "no row stopped by %s (%s)" % (s, sorted(stops)))
    return report(d, len(rows))


def report(d, nrows):
    """Prints every mismatch of run folder d and the closing line; returns the exit status."""
    for w in wrong:
        print("FAIL: %s: %s" % (d, w))
    print("%d rows, %d checks, %d wrong" % (nrows, checks, len(wrong)))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
