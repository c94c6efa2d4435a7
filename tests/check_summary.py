#!/usr/bin/env python3
"""tests/check_summary.py RUN_DIR [BASELINE_RUN_DIR]: reads what RUN_DIR/summary.md and
RUN_DIR/report.html print and recomputes every number from RUN_DIR/results.csv (samples.csv,
critical.csv, meta.txt, the baseline's results.csv and samples.csv), on its own: nothing of
plots/*.awk is used (tests/conclusions.py writes docs/statistics.md's rules again). Checks
results.csv's interval columns against the samples, then computes every interval from the
samples themselves (from the columns only where a run has no samples.csv); the run's counts, the
kind of run it says it is (measured, nothing could run, model mode), which nccl the ratios are
against (modes, version, NVLS) and where intervals are missing, the placement notes (co-located
only where ranks share a GPU, rehearsed hosts as such), the order of the sections (the answers
first, the search's probes last), every best-per-size table (the best group with its ties,
times, intervals, algbw, nccl's strongest mode and its numbers, vs nccl with its interval, tie
and few-samples words, OPTCC's bound and best / bound), the critical delays, the overlap table,
the regressions and the rule that decided each, the failed rows and the rows that could not
run; then that report.html shows the same tables cell for cell in the same order, its size
ranges, its settings and the words of its kind of run. Prints one line per mismatch and "N
checks, N wrong"; exit status 0 when nothing is wrong, 1 otherwise, 2 usage."""
import html
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import conclusions as C  # noqa: E402
from summary_pages import Tables, md_sections, md_table, read_csv, size_bytes, size_label  # noqa: E402

checks = 0
wrong = []


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        wrong.append(what)
    return cond


num = C.num


def near(printed, value, what, alt=None):
    """printed (a table cell) equals value (or alt, when given) to the decimals it shows"""
    if not check(printed is not None, "%s: no such cell (want %.6g)" % (what, value)):
        return
    t = printed.rstrip("x")
    if not check(re.fullmatch(r"-?[0-9]+(\.[0-9]+)?", t) is not None, "%s: '%s' is not a number (want %.6g)" % (what, printed, value)):
        return
    dec = len(t.split(".")[1]) if "." in t else 0
    ok = lambda v: abs(float(t) - v) <= 0.5 * 10 ** -dec + 1e-9 * abs(v)
    check(ok(value) or (alt is not None and ok(alt)),
          "%s: prints %s, results say %.6g" % (what, printed, value))


# ---- the rows as results.csv has them ----

SWEPT = set()  # (row identity but pipeline): measured at several pipeline values


def sweep_id(r):
    return (r["algorithm"], r.get("transport", ""), r.get("dtype", ""), r.get("n_gpus", ""), r.get("straggler_rank", ""),
            r.get("delay_us", ""), r.get("degraded_rank", ""), r.get("factor", ""), r.get("scenario", ""),
            r.get("stragglers", ""), r.get("degraded", ""), r["bytes"])


def label(r):
    a, t = r["algorithm"], r.get("transport", "")
    if a == "nccl":
        return "nccl"
    return a + ("/" + t if t not in ("", "-", "model") else "") + ("/p" + r.get("pipeline", "") if sweep_id(r) in SWEPT else "")


def short(x):
    return "%d" % x if x == int(x) else "%.4g" % x


def scen_label(r):
    """a row's scenario as the failed and could-not-run tables name it: its words (clean,
    straggler R +D ms, degraded R xF, and the further stragglers or slow GPUs), led by its
    scenario name where it has one"""
    sr, dr = fnum(r, "straggler_rank", -1), fnum(r, "degraded_rank", -1)
    def more(lst, d):
        e = [x.split(":") for x in lst.split(";")[1:] if x]
        return " (and %s)" % ", ".join(k + (" +%s ms" % short(float(v) / 1000) if d else " x" + v) for k, v in e) if e else ""
    if sr >= 0:
        w = "straggler %d +%s ms" % (sr, short(fnum(r, "delay_us", 0) / 1000)) + more(r.get("stragglers", ""), 1)
    elif dr >= 0:
        w = "degraded %d x%s" % (dr, short(fnum(r, "factor", 1))) + more(r.get("degraded", ""), 0)
    else:
        w = "clean"
    n = r.get("scenario", "")
    return w if n in ("", w) else "%s (%s)" % (n, w)


def fnum(r, k, d):
    v = num(r.get(k, ""))
    return d if v is None else v


def kind(r, crit_scen):
    if fnum(r, "straggler_rank", -1) >= 0:
        return "probe" if r.get("scenario", "") in crit_scen and r.get("scenario", "") else "straggler"
    return "degraded" if fnum(r, "degraded_rank", -1) >= 0 else "clean"


def group_key(r):
    return (r.get("placement") or "1 rank/GPU", r.get("n_gpus", ""), fnum(r, "straggler_rank", -1), fnum(r, "delay_us", 0),
            fnum(r, "degraded_rank", -1), fnum(r, "factor", 1), r.get("stragglers", ""), r.get("degraded", ""),
            r.get("scenario", ""), int(r["bytes"]), r.get("dtype", ""))


def fmt_t(x):
    """a time as the tables print it"""
    return "%.2f" % x if x < 100 else "%.1f" % x if x < 10000 else "%.0f" % x


def row_info(samples, has_ncol):
    """info(r): (lo, hi, n) of a row: its interval (None, None where it has none) and samples"""
    memo = {}
    def info(r):
        if id(r) not in memo:
            lo, hi = C.interval(r, samples) if r.get("source", "gpu").lower() != "model" else (None, None)
            memo[id(r)] = (lo, hi, C.n_samples(r, has_ncol))
        return memo[id(r)]
    return info


def interval_cell(printed, inf, what):
    """an interval cell: "lo-hi", "(N samples)" after it below 6, "-" without an interval"""
    lo, hi, n = inf
    if not C.has(lo, hi):
        check(printed == "-", "%s: '%s' where the row has no interval" % (what, printed))
        return
    m = re.fullmatch(r"([0-9.]+)-([0-9.]+)(?: \((\d+) samples?\))?", printed or "")
    if check(m, "%s: '%s' is no interval (want %.6g-%.6g)" % (what, printed, lo, hi)):
        near(m.group(1), lo, what + " lo")
        near(m.group(2), hi, what + " hi")
        want = n if n is not None and n < C.FEW else None
        check((int(m.group(3)) if m.group(3) else None) == want, "%s: '%s', the row has %s samples" % (what, printed, n))


def ratio_cell(printed, rt, lo, hi, few, where):
    """a vs nccl cell: "tie 1.01x (0.98-1.03)" where the interval holds 1, "1.48x (1.41-1.55)",
    "1.48x" without an interval, "3.00x (few samples: nccl 1)"; returns whether it is a tie"""
    printed = printed or ""
    if few:
        m = re.fullmatch(r"([0-9.]+x) \(few samples: (.*)\)", printed)
        if check(m, "%s: vs nccl '%s', want the ratio with 'few samples: %s'" % (where, printed, few)):
            check(m.group(2) == few, "%s: vs nccl '%s', the rows rest on %s" % (where, printed, few))
            near(m.group(1), rt, where + " vs nccl")
        return False
    if lo is None:
        check(re.fullmatch(r"[0-9.]+x", printed), "%s: vs nccl '%s', want a ratio without an interval" % (where, printed))
        near(printed, rt, where + " vs nccl")
        return False
    tie = lo <= 1 <= hi
    m = re.fullmatch(r"(tie )?([0-9.]+x) \(([0-9.]+)-([0-9.]+)\)", printed)
    if check(m, "%s: vs nccl '%s', want %s%.2fx (%.2f-%.2f)" % (where, printed, "tie " if tie else "", rt, lo, hi)):
        check(bool(m.group(1)) == tie, "%s: vs nccl '%s': the interval %.4f-%.4f %s 1" % (where, printed, lo, hi, "holds" if tie else "does not hold"))
        near(m.group(2), rt, where + " vs nccl")
        near(m.group(3), lo, where + " vs nccl lo")
        near(m.group(4), hi, where + " vs nccl hi")
    return tie


def meta_lines(run, measured, head, any_ci, n_noci, n_meas):
    """the lines under the title: which nccl the ratios are against (modes, version, NVLS) and
    where intervals are missing"""
    modes = []
    for r in measured:
        if r["algorithm"] == "nccl" and C.mode(r) not in modes:
            modes.append(C.mode(r))
    canon = ["none", "registered", "symmetric"]
    modes = [m for m in canon if m in modes] + [m for m in modes if m not in canon]
    line = [l for l in head.splitlines() if l.startswith("- vs nccl: ")]
    if not modes:
        check(not line, "a 'vs nccl' line without nccl rows: %s" % line)
    elif check(len(line) == 1, "no '- vs nccl:' line naming nccl's modes %s" % modes):
        if len(modes) == 1:
            check(line[0].startswith("- vs nccl: against nccl %s only (NCCL " % modes[0]), "one mode %s: %s" % (modes[0], line[0]))
        else:
            check("the fastest of the registration modes measured (%s)" % ", ".join(modes) in line[0], "modes %s: %s" % (modes, line[0]))
        meta = os.path.join(run, "meta.txt")
        nv = None
        if os.path.exists(meta) and os.path.getsize(meta) > 0:
            nv = ""
            for l in open(meta, errors="replace"):
                if l.startswith("NCCL_NVLS_ENABLE:"):
                    nv = l.split(":", 1)[1].strip()
                    break
        want = ("NVLS unknown (no meta.txt)" if nv is None else "NVLS unknown (meta.txt has no NCCL_NVLS_ENABLE line)" if nv == ""
                else "NVLS off (meta.txt: NCCL_NVLS_ENABLE=0)" if nv == "0" else "NVLS NCCL's default" if nv == "(unset)"
                else "NVLS on (meta.txt: NCCL_NVLS_ENABLE=%s)" % nv)
        check(want in line[0], "the vs nccl line does not say '%s': %s" % (want, line[0]))
    if not any_ci:
        check("- intervals: none in this results.csv" in head, "no line saying the rows have no interval")
    elif n_noci:
        check("- intervals: %d of the %d measured rows have none" % (n_noci, n_meas) in head, "no line saying %d rows lack an interval" % n_noci)
    else:
        check("- intervals:" not in head, "an intervals line where every measured row has one")


def placement_notes(res, head):
    """the co-located note only where ranks share a GPU; rows on several hosts said as such"""
    pls = {r.get("placement") or "1 rank/GPU" for r in res}
    def shared(p):
        m = re.match(r"(\d+)(?:-(\d+))? ranks?/GPU", p)
        return bool(m) and int(m.group(2) or m.group(1)) > 1
    co = any(shared(p) for p in pls)
    hosts = [p for p in pls if re.search(r" on \d+ hosts", p)]
    check(("**Co-located ranks**" in head) == co, "co-located note %s, placements %s" % ("**Co-located ranks**" in head, sorted(pls)))
    rehearsed = any("rehearsed" in p for p in hosts)
    check(("**Hosts rehearsed**" in head) == rehearsed, "rehearsed-hosts note %s, placements %s" % ("**Hosts rehearsed**" in head, sorted(pls)))
    check(("**Several hosts**" in head) == bool(hosts and not rehearsed), "several-hosts note, placements %s" % sorted(pls))


def main():
    if len(sys.argv) not in (2, 3):
        print("usage: tests/check_summary.py RUN_DIR [BASELINE_RUN_DIR]", file=sys.stderr)
        return 2
    run = sys.argv[1]
    base = sys.argv[2] if len(sys.argv) == 3 else None
    res = read_csv(os.path.join(run, "results.csv"))
    crit = read_csv(os.path.join(run, "critical.csv"))
    md = open(os.path.join(run, "summary.md")).read()
    page = open(os.path.join(run, "report.html")).read()
    S = md_sections(md)
    head = "\n".join(S[""])

    gpu_rows = [r for r in res if r.get("source", "gpu").lower() != "model"]
    def good(r):
        w = num(r.get("wrong", "0") or "0")
        m = num(r.get("time_us_median", ""))
        return r["status"].lower() == "ok" and not (w is not None and w > 0) and m is not None and m > 0
    measured = [r for r in gpu_rows if good(r)]
    model_rows = [r for r in res if r.get("source", "gpu").lower() == "model" and good(r) and r["algorithm"] != "lower-bound"]
    ranked = measured if measured else model_rows
    pipes = {}
    for r in measured:
        pipes.setdefault(sweep_id(r), set()).add(r.get("pipeline", ""))
    SWEPT.update(k for k, v in pipes.items() if len(v) > 1)
    run_kind = "measured" if measured else ("none" if gpu_rows else "model")
    crit_scen = {c.get("scenario", "") for c in crit if c.get("scenario", "")}

    # ---- the run's lines: counts and what kind of run it was ----
    st = {}
    for r in res:
        st[r["status"].lower()] = st.get(r["status"].lower(), 0) + 1
    if run_kind == "model":
        check(re.search(r"^- model mode: a modelled node of \S+ GPUs", head, re.M), "model: no 'model mode' line")
        check(("- rows: %d, every one modelled (source=model): nothing ran on a GPU and nothing was checked" % len(res)) in head,
              "model: the rows line does not say %d modelled rows, nothing ran" % len(res))
    else:
        check("model mode" not in md, "%s run: summary.md says model mode" % run_kind)
        m = re.search(r"^- rows: (\d+), (\d+) ok((?:, \d+ [^,\n]+)*)$", head, re.M)
        if check(m, "no '- rows: N, N ok' line"):
            got = {"ok": int(m.group(2))}
            for part in m.group(3).split(", ")[1:]:
                k, v = part.split(" ", 1)
                got[v] = int(k)
            check(int(m.group(1)) == len(res), "rows: prints %s, results.csv has %d" % (m.group(1), len(res)))
            check(got == {**{"ok": 0}, **st}, "row counts by status: prints %s, results.csv has %s" % (got, st))
    if run_kind == "none":
        words = "**Nothing could run: not one of the %d rows to be measured was timed or checked**" % len(gpu_rows)
        check(words in head, "nothing ran: summary.md lacks '%s'" % words)
        check("no measured rows: everything below is the model" not in md, "nothing ran: says everything below is the model's")
    else:
        check("Nothing could run" not in md, "%s run: says nothing could run" % run_kind)

    # ---- the rows' intervals and samples (docs/statistics.md): from samples.csv where the run
    # has one (its columns checked against it), else from the columns ----
    samples = C.read_samples(run)
    if samples is not None:
        C.check_columns(res, samples, check)
    info = row_info(samples, bool(res) and "n_samples" in res[0])
    any_ci = any(C.has(*info(r)[:2]) for r in measured)
    n_noci = sum(1 for r in measured if not C.has(*info(r)[:2]))
    if measured:
        meta_lines(run, measured, head, any_ci, n_noci, len(measured))
    placement_notes(res, head)
    order = [h for h in S if h]
    seq = [h for h in order if h.startswith("Regressions against")] + [h for h in ("Clean", "Critical straggler delay",
           "Degraded link", "Straggler", "Rows that failed", "Rows that could not run", "Critical search probes", "Pictures") if h in S]
    check([h for h in order if h in seq] == seq, "summary.md's sections in the order %s, want the answers first: %s" % (order, seq))

    # ---- best-per-size tables ----
    groups = {}
    for r in ranked:
        groups.setdefault(kind(r, crit_scen), {}).setdefault(group_key(r), []).append(r)
    # nccl at its strongest for clean rows: the fastest nccl row under the same conditions (size,
    # GPU count, placement, dtype, timing), whatever scenario measured it
    cond = lambda r: (r.get("placement") or "1 rank/GPU", r.get("n_gpus", ""), r.get("dtype", ""), C.timing(r), int(r["bytes"]))
    strongest, sched_cond = {}, set()
    for r in groups.get("clean", {}).values():
        for x in r:
            if x["algorithm"] != "nccl":
                sched_cond.add(cond(x))
            elif cond(x) not in strongest or float(x["time_us_median"]) < float(strongest[cond(x)]["time_us_median"]):
                strongest[cond(x)] = x
    for key in [k for k, rows in groups.get("clean", {}).items() if all(x["algorithm"] == "nccl" for x in rows) and cond(rows[0]) in sched_cond]:
        del groups["clean"][key]
    lbound = {}
    for r in res:
        if r["status"].lower() != "ok":
            continue
        v = num(r.get("lower_bound_us", ""))
        if r.get("source", "gpu").lower() == "model" and r["algorithm"] == "lower-bound":
            v = num(r.get("time_us_median", "")) or num(r.get("model_time_us", ""))
        if v is not None and v > 0:
            lbound[(r.get("n_gpus", ""), int(r["bytes"]), fnum(r, "factor", 1))] = v
    time_col = "median (us)" if measured else "model time (us)"
    if run_kind == "model":
        check("median (us)" not in md and "median (us)" not in page, "model: a table says 'median (us)' of modelled times")
    tables = {"clean": "Clean", "straggler": "Straggler", "probe": "Critical search probes", "degraded": "Degraded link"}
    expect_rows = {}
    for k, heading in tables.items():
        g = groups.get(k, {})
        if not g:
            check(heading not in S, "%s: a table, but no such rows" % heading)
            continue
        if not check(heading in S, "no table %s for %d groups of rows" % (heading, len(g))):
            continue
        hdr, rows = md_table(S[heading])
        check(time_col in hdr, "%s: no column '%s' (%s)" % (heading, time_col, hdr))
        check(("interval (us)" in hdr) == any_ci, "%s: an interval column %s, measured rows with an interval: %s" % (heading, "interval (us)" in hdr, any_ci))
        if k in ("straggler", "probe"):
            order = sorted(g, key=lambda x: (x[0], x[1], x[9], x[3], x[2], x[6], x[8], x[10]))
        elif k == "degraded":
            order = sorted(g, key=lambda x: (x[0], x[1], x[4], x[5], x[7], x[8], x[10], x[9]))
        else:
            order = sorted(g, key=lambda x: (x[0], x[1], x[8], x[10], x[9]))
        check(len(rows) == len(order), "%s: %d rows, results.csv has %d groups" % (heading, len(rows), len(order)))
        col = {h: i for i, h in enumerate(hdr)}
        lat = {}
        if k == "degraded":
            for key in order:
                best = [r for r in g[key] if r["algorithm"] != "nccl"]
                if best and key[9] <= 65536:
                    t = min(fnum(r, "time_us_median", 0) for r in best)
                    lat[key[:2]] = min(lat.get(key[:2], t), t)
        expect_rows[heading] = []
        for key, row in zip(order, rows):
            where = "%s %s %s" % (heading, key[8] or "-", size_label(key[9]))
            cell = lambda name: row[col[name]] if name in col and col[name] < len(row) else None
            check(size_bytes(cell("size") or "") == key[9], "%s: size cell %s (rows out of order?)" % (where, cell("size")))
            if "scenario" in col:
                check(cell("scenario") == (key[8] or "-"), "%s: scenario cell %s" % (where, cell("scenario")))
            # several dtypes (nccl-tests -d all): a column, each dtype its own line
            check(("dtype" in col) == (len({r.get("dtype", "") for r in ranked}) > 1), "%s: a dtype column %s" % (where, "dtype" in col))
            if "dtype" in col:
                check(cell("dtype") == key[10], "%s: dtype cell %s, want %s" % (where, cell("dtype"), key[10]))
            if k in ("straggler", "probe"):
                check(cell("straggler").split(" ")[0] == "%d" % key[2], "%s: straggler %s" % (where, cell("straggler")))
                near(cell("delay (ms)"), key[3] / 1000, where + " delay (ms)")
            if k == "degraded":
                check(cell("slow GPU").split(" ")[0] == "%d" % key[4], "%s: slow GPU %s" % (where, cell("slow GPU")))
                near(cell("factor"), key[5], where + " factor")
            best = [r for r in g[key] if r["algorithm"] != "nccl"]
            nccl = [r for r in g[key] if r["algorithm"] == "nccl"]
            b, names = C.best_group(best, label, info) if best else (None, ["-"])
            if b:
                bt = float(b["time_us_median"])
                check(cell("best") == " ~ ".join(names), "%s: best %s, results say %s (%.4g us)" % (where, cell("best"), " ~ ".join(names), bt))
                near(cell(time_col), bt, where + " time")
                near(cell("algbw (GB/s)"), key[9] / (bt * 1e3), where + " algbw", num(b.get("algbw_gbps", "")))
                if any_ci:
                    interval_cell(cell("interval (us)"), info(b), where + " interval")
            else:
                check(cell("best") == "-", "%s: a best %s where only nccl ran" % (where, cell("best")))
            n0 = strongest.get(cond(g[key][0])) if k == "clean" and b else min(nccl, key=lambda r: float(r["time_us_median"])) if nccl else None
            rt = few = tie = None
            if "vs nccl" in col:
                if n0:
                    nt = float(n0["time_us_median"])
                    # an imported row names its side of the nccl-tests test too
                    side = n0.get("transport", "")
                    want = C.mode(n0) + (" " + side if side in ("in-place", "out-of-place") else "")
                    check(cell("nccl mode") == want, "%s: nccl mode %s, its fastest is %s (%.4g us)" % (where, cell("nccl mode"), want, nt))
                    near(cell("nccl median (us)"), nt, where + " nccl median")
                    near(cell("nccl algbw (GB/s)"), key[9] / (nt * 1e3), where + " nccl algbw", num(n0.get("algbw_gbps", "")))
                    if any_ci:
                        interval_cell(cell("nccl interval (us)"), info(n0), where + " nccl interval")
                if n0 and b:
                    rt, lo, hi, few = C.ratio(n0, b, info)
                    tie = ratio_cell(cell("vs nccl"), rt, lo, hi, few, where)
                else:
                    check(cell("vs nccl") == "-", "%s: vs nccl %s without nccl" % (where, cell("vs nccl")))
            if "best / bound" in col:
                lb = lbound.get((key[1], key[9], key[5]))
                if lb is None or not b:
                    check(cell("best / bound") == "-", "%s: best / bound %s without a bound" % (where, cell("best / bound")))
                else:
                    near(cell("lower bound (us)"), lb, where + " lower bound")
                    if key[:2] in lat and lb < lat[key[:2]]:
                        check(cell("best / bound") == "latency-bound",
                              "%s: best / bound %s where the bound (%.4g us) is below the latency floor %.4g us" % (where, cell("best / bound"), lb, lat[key[:2]]))
                    else:
                        near(cell("best / bound"), bt / lb, where + " best / bound")
            expect_rows[heading].append((key, names, n0 and C.mode(n0), rt, few, tie))
        if k == "degraded" and "best / bound" in col:
            for fl in lat.values():
                check(re.search(r"below the fastest time of this table at 64 KiB or less \(.*%s us at" % re.escape(
                    ("%.2f" % fl) if fl < 100 else ("%.1f" % fl) if fl < 10000 else "%.0f" % fl), " ".join(S[heading])),
                    "degraded: the note does not name the latency floor %.4g us" % fl)
        if k == "probe":
            for key in order:
                check(key[8] in crit_scen, "probe table: a row of scenario %s, not the search's" % key[8])

    # ---- critical delays ----
    cm = [c for c in crit if c.get("source", "gpu").lower() != "model"]
    if cm:
        hdr, rows = md_table(S.get("Critical straggler delay", []))
        cm.sort(key=lambda c: (int(c["bytes"]), c["algorithm"]))
        check(len(rows) == len(cm), "critical: %d rows, critical.csv has %d" % (len(rows), len(cm)))
        for c, row in zip(cm, rows):
            where = "critical %s" % size_label(int(c["bytes"]))
            check(size_bytes(row[0]) == int(c["bytes"]) and row[1] == c["algorithm"] and row[2] == c.get("baseline", "-"),
                  "%s: %s" % (where, row[:3]))
            d = num(c["critical_delay_us"])
            if d is not None and d >= 0:
                near(row[3], d / 1000, where + " delay")
            else:
                m = re.search(r"up to ([0-9.]+) ms", c.get("note", ""))
                want = ("none up to %s ms" % short(float(m.group(1))) if m else "none (bound unknown)") if c.get("status") == "never" \
                    else "not found (%s)" % (c["critical_delay_us"] or "empty")
                check(row[3] == want, "%s: delay %s for %s, want %s" % (where, row[3], c["critical_delay_us"], want))
            mv = num(c.get("model_critical_delay_us", ""))
            if mv is not None and mv >= 0:
                near(row[4], mv / 1000, where + " model")
    else:
        check("Critical straggler delay" not in S, "critical delays without a critical.csv")

    # ---- overlap ----
    ov = [r for r in measured if num(r.get("overlap_reduce_pct", "")) is not None or num(r.get("overlap_delay_pct", "")) is not None]
    if ov:
        hdr, rows = md_table(S.get("Overlap (--profile overlap)", []))
        check(len(rows) == min(len(ov), 80), "overlap: %d rows, results.csv has %d" % (len(rows), len(ov)))
        for row in rows:
            m = [r for r in ov if size_label(int(r["bytes"])) == row[1] and label(r) == row[2] and row[0].split(" ")[0] == r.get("scenario", "")]
            if check(len(m) == 1, "overlap: %s matches %d rows" % (row[:3], len(m))):
                for i, k in ((3, "overlap_reduce_pct"), (4, "overlap_delay_pct")):
                    v = num(m[0].get(k, ""))
                    if v is None:
                        check(row[i] == "-", "overlap %s: %s without a value" % (row[:3], row[i]))
                    else:
                        near(row[i], v, "overlap %s %s" % (row[:3], k))

    # ---- regressions ----
    if base:
        brows = read_csv(os.path.join(base, "results.csv"))
        binfo = row_info(C.read_samples(base), bool(brows) and "n_samples" in brows[0])
        def ident(r):
            return (r.get("scenario", ""), r.get("stragglers", ""), r.get("degraded", ""), r.get("n_gpus", ""),
                    fnum(r, "straggler_rank", -1), fnum(r, "delay_us", 0), fnum(r, "degraded_rank", -1), fnum(r, "factor", 1),
                    r["algorithm"], r.get("transport", ""), r.get("pipeline", ""), r.get("dtype", ""), int(r["bytes"]),
                    r.get("placement") or "1 rank/GPU")
        bm = {ident(r): r for r in brows if r.get("source", "gpu").lower() != "model" and r["status"].lower() == "ok"
              and (num(r.get("time_us_median", "")) or 0) > 0}
        reg, faster, ncmp, nci, show_ci = [], 0, 0, 0, False
        for r in measured:
            o = bm.get(ident(r))
            if not o:
                continue
            ncmp += 1
            now, was = float(r["time_us_median"]), float(o["time_us_median"])
            (blo, bhi, bn), (lo, hi, n) = binfo(o), info(r)
            show_ci = show_ci or C.has(blo, bhi) or C.has(lo, hi)
            # an interval decides only where it covers 95%: 6 samples or more
            v = None if (bn is not None and bn < C.FEW) or (n is not None and n < C.FEW) else C.verdict(was, blo, bhi, now, lo, hi)
            thr = None
            if v is not None:
                nci += 1
            else:
                sd = max(fnum(r, "time_us_stdev", 0), fnum(o, "time_us_stdev", 0))
                thr = max(3 * sd, 0.05 * was)
                v = "slower" if now - was > thr else "faster" if was - now > thr else "same"
            if v == "slower":
                reg.append((r, was, now, thr, (blo, bhi, bn), (lo, hi, n)))
            faster += v == "faster"
        sec = [h for h in S if h.startswith("Regressions against")]
        if check(len(sec) == 1, "no regressions section against a baseline"):
            text = "\n".join(S[sec[0]])
            if ncmp:
                check("Decided by intervals: %d rows; by 3 sd / 5%%: %d rows" % (nci, ncmp - nci) in text,
                      "regressions: want %d decided by intervals, %d by 3 sd / 5%%: %s" % (nci, ncmp - nci, text[:400]))
            if reg:
                check("**%d regression%s** (%d rows compared, %d faster beyond noise)" % (len(reg), "s" if len(reg) > 1 else "", ncmp, faster) in text,
                      "regressions: want %d of %d compared, %d faster: %s" % (len(reg), ncmp, faster, text[:300]))
                hdr, rows = md_table(S[sec[0]])
                hdr = hdr or []
                check(("now interval (us)" in hdr) == show_ci, "regressions: interval columns %s, rows with an interval %s" % (hdr, show_ci))
                col = {h: i for i, h in enumerate(hdr)}
                check(len(rows) == len(reg), "regressions: %d rows listed, %d regressed" % (len(rows), len(reg)))
                for r, was, now, thr, binf, inf in reg:
                    m = [x for x in rows if x[1] == label(r) and size_bytes(x[2]) == int(r["bytes"]) and x[0].split(" ")[0] == (r.get("scenario") or x[0].split(" ")[0])]
                    if not check(len(m) == 1, "regression %s %s %s not listed once" % (r.get("scenario"), label(r), r["bytes"])):
                        continue
                    cell = lambda name: m[0][col[name]] if name in col else None
                    near(cell("baseline (us)"), was, "regression %s baseline" % label(r))
                    near(cell("now (us)"), now, "regression %s now" % label(r))
                    near(cell("change").lstrip("+").rstrip("%"), 100 * (now / was - 1), "regression %s change" % label(r))
                    if show_ci:
                        interval_cell(cell("baseline interval (us)"), binf, "regression %s baseline interval" % label(r))
                        interval_cell(cell("now interval (us)"), inf, "regression %s now interval" % label(r))
                    if thr is None:
                        check(cell("rule") == "intervals", "regression %s: rule '%s', both rows have intervals" % (label(r), cell("rule")))
                    elif check(re.fullmatch(r"3 sd / 5%: > [0-9.]+ us", cell("rule") or ""), "regression %s: rule '%s', want 3 sd / 5%%" % (label(r), cell("rule"))):
                        near(cell("rule").split("> ")[1].split(" ")[0], thr, "regression %s threshold" % label(r))
            elif ncmp:
                check("None: %d rows compared, %d faster beyond noise." % (ncmp, faster) in text, "regressions: want none of %d, %d faster: %s" % (ncmp, faster, text[:300]))
            else:
                check("No rows in common with the baseline." in text, "regressions: want no rows in common")

    # ---- failed rows, rows that could not run ----
    failed = [r for r in res if r["status"].lower() not in ("ok", "n/a", "oom") or (num(r.get("wrong", "")) or 0) > 0]
    ftext = "\n".join(S.get("Rows that failed", []))
    check("Rows that failed" in S, "no 'Rows that failed' section")
    if failed:
        hdr, rows = md_table(S["Rows that failed"])
        got = sorted((x[0], x[1], x[2], x[3], x[4], x[5]) for x in rows)
        want = sorted((r["algorithm"], r.get("transport", "") or "-", size_label(int(r["bytes"])), scen_label(r), r["status"].lower(),
                       r.get("wrong", "")) for r in failed)
        check(got == want[:50], "failed rows: %s, results.csv %s" % (got, want))
    elif run_kind == "model":
        check(ftext.strip().startswith("Nothing ran: in model mode"), "model: failed rows say '%s'" % ftext.strip()[:80])
    elif run_kind == "none":
        check(ftext.strip().startswith("Nothing ran: no row was timed"), "nothing ran: failed rows say '%s'" % ftext.strip()[:80])
    else:
        checked = [r for r in measured if (num(r.get("wrong", "")) if r.get("wrong", "") else 0) is not None and num(r.get("wrong", "0") or "0") >= 0]
        if len(checked) == len(measured):
            check("None: all %d rows that ran were checked, with 0 wrong elements." % len(measured) in ftext,
                  "failed rows: want 'None: all %d rows ... checked': %s" % (len(measured), ftext.strip()[:120]))
        else:
            check(ftext.strip().startswith("None failed, but only %d of the %d" % (len(checked), len(measured))),
                  "failed rows: want %d of %d checked: %s" % (len(checked), len(measured), ftext.strip()[:120]))
    unrun = {}
    for r in res:
        s = r["status"].lower()
        if s in ("n/a", "oom") and not (num(r.get("wrong", "")) or 0) > 0:
            k = (scen_label(r), r["algorithm"], r.get("transport", "") or "-", s)
            unrun.setdefault(k, []).append(int(r["bytes"]))
    if unrun:
        hdr, rows = md_table(S.get("Rows that could not run", []))
        got = {}
        for x in rows:
            got[(x[0], x[1], x[2], x[3])] = (int(x[4]), x[5])
        want = {}
        for (sc, a, t, s), bs in unrun.items():
            lo, hi = min(bs), max(bs)
            want[(sc, a, t, s)] = (len(bs), size_label(lo) if lo == hi else "%s to %s" % (size_label(lo), size_label(hi)))
        check(got == want, "rows that could not run: prints %s, results.csv %s" % (got, want))
    else:
        check("Rows that could not run" not in S, "rows that could not run, but every row ran")

    # ---- report.html: the same tables, cell for cell, and the same words ----
    p = Tables()
    p.feed(page)
    hsec = {"Clean": "best", "Straggler": "straggler", "Critical search probes": "probes", "Degraded link": "degraded",
            "Critical straggler delay": "critical", "Rows that failed": "failed", "Rows that could not run": "failed"}
    for h in list(hsec) + [h for h in S if h.startswith("Regressions against")]:
        if h not in S:
            continue
        hdr, rows = md_table(S[h])
        if hdr is None:
            continue
        sid = hsec.get(h, "regressions")
        want = [[html.unescape(re.sub(r"[*`]", "", c)) for c in x] for x in [hdr] + rows]
        found = any(t["section"] == sid and t["rows"] == want for t in p.tables)
        check(found, "report.html: section %s lacks the table %s as summary.md has it" % (sid, h))
    # the answers first, the critical search's probes after every other table
    ids = re.findall(r'<section id="([a-z-]+)">', page)
    want = ["regressions", "best", "nccl-tests", "critical", "degraded", "straggler", "failed", "probes", "pictures", "overlap",
            "phases", "settings", "meta"]
    check([i for i in ids if i in want] == [i for i in want if i in ids] and "probes" in ids, "report.html: sections in the order %s" % ids)
    # the size ranges (docs/statistics.md): a range runs while some winner (the best group, with
    # "nccl MODE" where vs nccl is a tie, or nccl alone where it was faster) wins at every size
    if "Clean" in expect_rows and run_kind != "none":
        chdr, _ = md_table(S["Clean"])
        gcols = [h for h in ("placement", "scenario", "n") if h in chdr]
        grp = lambda key: [{"placement": key[0], "scenario": key[8] or "-", "n": key[1]}[h] for h in gcols]
        want = []
        for key, names, mode, rt, few, tie in expect_rows["Clean"]:
            counted = rt is not None and not few
            win = names + ["nccl " + mode] if counted and tie else ["nccl " + mode] if counted and float("%.2f" % rt) < 1 else list(names)
            cur = want[-1] if want and want[-1]["grp"] == grp(key) else None
            keep = [w for w in cur["win"] if w in win] if cur else []
            if not keep:
                cur = {"grp": grp(key), "win": win, "lo": key[9], "vals": [], "ties": 0, "few": 0, "modes": [], "fastest": []}
                want.append(cur)
            else:
                cur["win"] = keep
            cur["hi"] = key[9]
            if counted:
                cur["vals"].append(float("%.2f" % rt))
                cur["ties"] += tie
            cur["few"] += bool(few)
            if rt is not None and mode not in cur["modes"]:
                cur["modes"].append(mode)
            if names[0] != "-" and names[0] not in cur["fastest"]:
                cur["fastest"].append(names[0])
        plural = lambda n: "%d size%s" % (n, "s" if n > 1 else "")
        rng = [t for t in p.tables if t["section"] == "best" and t["rows"] and "best at every size" in t["rows"][0]]
        if check(len(rng) == 1, "report.html: no size-range table"):
            rows = rng[0]["rows"][1:]
            check(len(rows) == len(want), "size ranges: %d, want %d" % (len(rows), len(want)))
            for x, w in zip(rows, want):
                lo, hi = size_label(w["lo"]), size_label(w["hi"])
                v = w["vals"]
                vs = "-" if not v else "%.2fx" % v[0] if min(v) == max(v) else "%.2fx to %.2fx" % (min(v), max(v))
                if v and w["ties"] == len(v):
                    vs = "tie " + vs
                elif w["ties"]:
                    vs += " (tie at %s)" % plural(w["ties"])
                if w["few"]:
                    vs += " (%s on few samples left out)" % plural(w["few"])
                row = w["grp"] + [lo if lo == hi else "%s to %s" % (lo, hi), " ~ ".join(w["win"]), vs,
                                  ", ".join(w["modes"]) or "-", ", ".join(w["fastest"]) or "-"]
                check(x == row, "size range %s, want %s" % (x, row))
    ok_ps = [t for s, c, t in p.pclass if s == "failed" and c == "ok"]
    if run_kind == "model":
        check("model mode" in p.text.get("regressions", "").lower() or "Model mode" in page, "report.html: never says model mode")
        check(not ok_ps, "report.html, model mode: a green line in Rows that failed: %s" % ok_ps)
        check("Nothing ran" in p.text.get("failed", ""), "report.html, model mode: Rows that failed does not say nothing ran")
    elif run_kind == "none":
        check("model mode" not in page.lower(), "report.html: a run where nothing could run says model mode")
        check("Nothing could run" in page, "report.html: does not say nothing could run")
        check(not ok_ps, "report.html, nothing ran: a green line in Rows that failed: %s" % ok_ps)
    else:
        check("model mode" not in page.lower(), "report.html: a measured run says model mode")
        check(bool(ok_ps) == (not failed), "report.html: green 'None' in Rows that failed %s, %d failed rows" % (ok_ps, len(failed)))
    # every "key: value" line of meta.txt (before its first "---" block) in Settings in effect
    meta = os.path.join(run, "meta.txt")
    if os.path.exists(meta):
        st_rows = [r for t in p.tables if t["section"] == "settings" for r in t["rows"][1:]]
        for line in open(meta, errors="replace"):
            if line.startswith("---"):
                break
            m = re.match(r"([A-Za-z_][^:\t]*): (.*)$", line.rstrip("\n"))
            if m:
                check(any(r and r[0] == m.group(1) for r in st_rows), "report.html: setting '%s' missing from Settings in effect" % m.group(1))

    for w in wrong:
        print("WRONG:", w)
    print("%d checks, %d wrong" % (checks, len(wrong)))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
