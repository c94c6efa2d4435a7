#!/usr/bin/env python3
"""tests/check_summary.py RUN_DIR [BASELINE_RUN_DIR]: reads what RUN_DIR/summary.md and
RUN_DIR/report.html print and recomputes every number from RUN_DIR/results.csv (critical.csv,
meta.txt, the baseline's results.csv), on its own: nothing of plots/*.awk is used. Checks the
run's counts, the kind of run it says it is (measured, nothing could run, model mode), every
best-per-size table (best, times, algbw, nccl, vs nccl, OPTCC's bound and best / bound), the
critical delays, the overlap table, the regressions, the failed rows and the rows that could not
run; then that report.html shows the same tables cell for cell, its size ranges, its settings
and the words of its kind of run. Prints one line per mismatch and "N checks, N wrong"; exit
status 0 when nothing is wrong, 1 otherwise, 2 usage."""
import csv
import html
import html.parser
import math
import os
import re
import sys

checks = 0
wrong = []


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        wrong.append(what)
    return cond


# ---- reading ----

def read_csv(path):
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return [{k.strip().lower(): (v or "").strip() for k, v in r.items() if k} for r in csv.DictReader(f)]


def num(s):
    try:
        v = float(s)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def md_sections(text):
    """summary.md as {heading: [lines]}, plus "" for the lines above the first heading"""
    out, cur = {"": []}, ""
    for line in text.splitlines():
        if line.startswith("## "):
            cur = line[3:]
            out[cur] = []
        else:
            out.setdefault(cur, []).append(line)
    return out


def md_table(lines):
    """the first pipe table of lines: (header, [rows]) of stripped cells"""
    rows = [l for l in lines if l.startswith("|")]
    if len(rows) < 2:
        return None, []
    cells = [[c.strip() for c in r.strip().strip("|").split("|")] for r in rows]
    return cells[0], cells[2:]


class Tables(html.parser.HTMLParser):
    """every <table> of a page with the id of the <section> it sits in; the text of each
    section; the class of each paragraph"""

    def __init__(self):
        super().__init__()
        self.tables, self.text, self.pclass = [], {}, []
        self.sec, self.row, self.cell, self.cur, self.inp = None, None, None, None, None

    def handle_starttag(self, tag, a):
        a = dict(a)
        if tag == "section":
            self.sec = a.get("id")
        elif tag == "table":
            self.cur = {"section": self.sec, "rows": []}
        elif tag == "tr" and self.cur is not None:
            self.row = []
        elif tag in ("td", "th") and self.row is not None:
            self.cell = ""
        elif tag == "p":
            self.inp = [a.get("class") or "", ""]

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None:
            self.row.append(self.cell.strip())
            self.cell = None
        elif tag == "tr" and self.row is not None:
            self.cur["rows"].append(self.row)
            self.row = None
        elif tag == "table" and self.cur is not None:
            self.tables.append(self.cur)
            self.cur = None
        elif tag == "p" and self.inp is not None:
            self.pclass.append((self.sec, self.inp[0], " ".join(self.inp[1].split())))
            self.inp = None
        elif tag == "section":
            self.sec = None

    def handle_data(self, d):
        if self.cell is not None:
            self.cell += d
        if self.inp is not None:
            self.inp[1] += d
        if self.sec:
            self.text[self.sec] = self.text.get(self.sec, "") + d


# ---- formats (what a reader sees) ----

UNITS = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}


def size_bytes(label):
    m = re.fullmatch(r"([0-9.]+) (B|KiB|MiB|GiB|TiB)", label)
    return round(float(m.group(1)) * UNITS[m.group(2)]) if m else None


def size_label(b):
    for u in ("TiB", "GiB", "MiB", "KiB"):
        if b >= UNITS[u]:
            return "%g %s" % (b / UNITS[u], u)
    return "%g B" % b


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
            r.get("scenario", ""), int(r["bytes"]))


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

    # ---- best-per-size tables ----
    groups = {}
    for r in ranked:
        groups.setdefault(kind(r, crit_scen), {}).setdefault(group_key(r), []).append(r)
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
        if k in ("straggler", "probe"):
            order = sorted(g, key=lambda x: (x[0], x[1], x[9], x[3], x[2], x[6], x[8]))
        elif k == "degraded":
            order = sorted(g, key=lambda x: (x[0], x[1], x[4], x[5], x[7], x[8], x[9]))
        else:
            order = sorted(g, key=lambda x: (x[0], x[1], x[8], x[9]))
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
            if k in ("straggler", "probe"):
                check(cell("straggler").split(" ")[0] == "%d" % key[2], "%s: straggler %s" % (where, cell("straggler")))
                near(cell("delay (ms)"), key[3] / 1000, where + " delay (ms)")
            if k == "degraded":
                check(cell("slow GPU").split(" ")[0] == "%d" % key[4], "%s: slow GPU %s" % (where, cell("slow GPU")))
                near(cell("factor"), key[5], where + " factor")
            best = [r for r in g[key] if r["algorithm"] != "nccl"]
            nccl = [r for r in g[key] if r["algorithm"] == "nccl"]
            b = min(best, key=lambda r: float(r["time_us_median"])) if best else None
            if b:
                bt = float(b["time_us_median"])
                check(cell("best") == label(b), "%s: best %s, results say %s (%.4g us)" % (where, cell("best"), label(b), bt))
                near(cell(time_col), bt, where + " time")
                near(cell("algbw (GB/s)"), key[9] / (bt * 1e3), where + " algbw", num(b.get("algbw_gbps", "")))
            else:
                check(cell("best") == "-", "%s: a best %s where only nccl ran" % (where, cell("best")))
            if "vs nccl" in col:
                if nccl and b:
                    n0 = min(nccl, key=lambda r: float(r["time_us_median"]))
                    nt = float(n0["time_us_median"])
                    near(cell("nccl median (us)"), nt, where + " nccl median")
                    near(cell("nccl algbw (GB/s)"), key[9] / (nt * 1e3), where + " nccl algbw", num(n0.get("algbw_gbps", "")))
                    check(cell("vs nccl").endswith("x"), where + " vs nccl without its x")
                    near(cell("vs nccl"), nt / bt, where + " vs nccl")
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
            expect_rows[heading].append((key, label(b) if b else "-", cell("vs nccl")))
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
                check(row[3] == "not found (%s)" % (c["critical_delay_us"] or "empty"), "%s: delay %s for %s" % (where, row[3], c["critical_delay_us"]))
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
        def ident(r):
            return (r.get("scenario", ""), r.get("stragglers", ""), r.get("degraded", ""), r.get("n_gpus", ""),
                    fnum(r, "straggler_rank", -1), fnum(r, "delay_us", 0), fnum(r, "degraded_rank", -1), fnum(r, "factor", 1),
                    r["algorithm"], r.get("transport", ""), r.get("pipeline", ""), r.get("dtype", ""), int(r["bytes"]),
                    r.get("placement") or "1 rank/GPU")
        bm = {ident(r): r for r in brows if r.get("source", "gpu").lower() != "model" and r["status"].lower() == "ok"
              and (num(r.get("time_us_median", "")) or 0) > 0}
        reg, faster, ncmp = [], 0, 0
        for r in measured:
            o = bm.get(ident(r))
            if not o:
                continue
            ncmp += 1
            now, was = float(r["time_us_median"]), float(o["time_us_median"])
            sd = max(fnum(r, "time_us_stdev", 0), fnum(o, "time_us_stdev", 0))
            thr = max(3 * sd, 0.05 * was)
            if now - was > thr:
                reg.append((r, was, now, thr))
            elif was - now > thr:
                faster += 1
        sec = [h for h in S if h.startswith("Regressions against")]
        if check(len(sec) == 1, "no regressions section against a baseline"):
            text = "\n".join(S[sec[0]])
            if reg:
                check("**%d regressions** (%d rows compared, %d faster beyond noise)" % (len(reg), ncmp, faster) in text,
                      "regressions: want %d of %d compared, %d faster: %s" % (len(reg), ncmp, faster, text[:300]))
                hdr, rows = md_table(S[sec[0]])
                check(len(rows) == len(reg), "regressions: %d rows listed, %d regressed" % (len(rows), len(reg)))
                for r, was, now, thr in reg:
                    m = [x for x in rows if x[1] == label(r) and size_bytes(x[2]) == int(r["bytes"]) and x[0].split(" ")[0] == (r.get("scenario") or x[0].split(" ")[0])]
                    if check(len(m) == 1, "regression %s %s %s not listed once" % (r.get("scenario"), label(r), r["bytes"])):
                        near(m[0][3], was, "regression %s baseline" % label(r))
                        near(m[0][4], now, "regression %s now" % label(r))
                        near(m[0][5].lstrip("+").rstrip("%"), 100 * (now / was - 1), "regression %s change" % label(r))
                        near(m[0][6], thr, "regression %s threshold" % label(r))
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
    hsec = {"Clean": "best", "Straggler": "straggler", "Critical search probes": "critical", "Degraded link": "degraded",
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
    # the size ranges: consecutive clean sizes with the same winner (nccl where it was faster)
    if "Clean" in expect_rows and run_kind != "none":
        want = []
        for key, best, vs in expect_rows["Clean"]:
            v = num((vs or "").rstrip("x"))
            win = "nccl" if v is not None and v < 1 else best
            grp = key[8] or "-"
            if want and want[-1][0] == grp and want[-1][1] == win:
                want[-1][3] = size_label(key[9])
                if v is not None:
                    want[-1][4].append(v)
            else:
                want.append([grp, win, size_label(key[9]), size_label(key[9]), [v] if v is not None else []])
        rng = [t for t in p.tables if t["section"] == "best" and t["rows"] and "fastest" in t["rows"][0]]
        if check(len(rng) == 1, "report.html: no size-range table"):
            rows = rng[0]["rows"][1:]
            check(len(rows) == len(want), "size ranges: %d, want %d" % (len(rows), len(want)))
            for x, w in zip(rows, want):
                sz = w[2] if w[2] == w[3] else "%s to %s" % (w[2], w[3])
                check(x[-4:-2] == [sz, w[1]], "size range %s: %s, want %s %s" % (x, x[-4:-2], sz, w[1]))
                if w[4]:
                    lo, hi = min(w[4]), max(w[4])
                    check(x[-2] == ("%.2fx" % lo if lo == hi else "%.2fx to %.2fx" % (lo, hi)), "size range %s: vs nccl %s" % (sz, x[-2]))
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
