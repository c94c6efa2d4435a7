#!/usr/bin/env python3
"""tests/plot_points.py RUN_DIR: compares what gnuplot plotted for a run folder's pictures with
results.csv, recomputed here without plots/*.awk. tests/test_plot_points.sh draws the run
(plots/plot.sh with AR_PLOT_KEEP=1) and runs every driver again with `tables = 1`, so that
RUN_DIR/plots/NAME.table holds the points of each plot command (gnuplot's `set table`).

Checked, per scenario with enough sizes (clean 3+, others 4+):
  best_<key>     each size's fastest schedule that is not nccl, named by its series
                 (algorithm/transport), at its time_us_median; nccl's time; nccl / best
  algbw_<key>    four family panels: each series' algbw_gbps per size, nccl in every panel,
                 every other series in its family's panel only (each algorithm on its fastest
                 transport where the picture says so, "on <transport>" in its key)
  time_<key>     the same with time_us_median (scenarios without a straggler)
  arrival_<key>  the same with time_after_arrival_us (straggler scenarios)
  algbw_<key>_<transport>  that transport's series and nccl
and straggler_delay_<size>, degraded_factor_<size> (with OPTCC's bound), critical_delay
(critical.csv), model_vs_measured_<key> and pipeline_<key>_<size>; a run with no row to draw has
only no_data. From phases.csv and overlap.csv (check_phases, check_overlap): phases_* (every
rank's boxes, labels, key and chart titles) and overlap_* (bars, dots, values and the bars'
names, from the SVG's tic labels). Every point's x and y must be its row's (to printing
precision), no row lost, no series named after another. Prints one line per
disagreement and "N pictures checked"; exit status 1 on any disagreement.
"""
import csv
import os
import re
import sys

REL = 2e-5


def num(s):
    try:
        v = float(s)
    except (TypeError, ValueError):
        return None
    return v if v == v and abs(v) != float("inf") else None


def close(a, b):
    return abs(a - b) <= REL * max(abs(a), abs(b)) + 1e-12


def family(a):
    """the panel of algorithm a: 0 nccl (every panel), 1 classic, 2 Swing, 3 straggler-aware, 4 OPTCC"""
    if a == "nccl":
        return 0
    if a.startswith("swing-") or a.startswith("bucket") or a.endswith("-torus") or a == "ring-ham":
        return 2
    if a in ("stragglar", "bcast", "async-ring"):
        return 3
    if a.startswith("optcc") or a in ("r2ccl", "ring-rails"):
        return 4
    return 1


def has_tp(t):
    return t not in ("", "-", "model")


def fmt_ms(us):
    v = us / 1000.0
    return "%d" % v if v == int(v) else "%g" % v


def read_rows(path):
    """results.csv's rows, and those a picture can plot (ok, bytes and a time) with _b, _t, _src"""
    rows = read_csv(path)
    out = []
    for r in rows:
        if r.get("status", "").lower() != "ok":
            continue
        b = num(r.get("bytes"))
        if not b or b <= 0:
            continue
        src = r.get("source", "gpu").lower() or "gpu"
        a = r.get("algorithm", "")
        if src == "model" and a == "lower-bound":
            continue
        t = num(r.get("time_us_median"))
        if (t is None or t <= 0) and src == "model":
            t = num(r.get("model_time_us"))
        if t is None or t <= 0:
            continue
        r["_b"], r["_t"], r["_src"] = b, t, src
        out.append(r)
    return rows, out


def cond_key(r):
    sr = int(num(r.get("straggler_rank")) if num(r.get("straggler_rank")) is not None else -1)
    dr = int(num(r.get("degraded_rank")) if num(r.get("degraded_rank")) is not None else -1)
    if sr < 0 and dr < 0:
        return "clean"
    k = ""
    if sr >= 0:
        k = "straggler_r%d_d%sms" % (sr, fmt_ms(num(r.get("delay_us")) or 0))
    if dr >= 0:
        f = num(r.get("factor")) or 1
        k += ("_" if k else "") + "degraded_r%d_f%s" % (dr, "%d" % f if f == int(f) else "%g" % f)
    return k


def parse_table(path):
    """the plot commands of a `set table` file: a list of commands, each a list of curves
    {title, rows: every data line's fields (a quoted label one field; phases.gp's "rank N" tics
    read as N), n: their count, pts: (x, y) of the points gnuplot drew, type i}"""
    cmds, cur = [], None
    with open(path) as f:
        for line in f:
            m = re.match(r"# Curve (\d+) of \d+", line)
            if m:
                if m.group(1) == "0":
                    cmds.append([])
                cur = {"title": None, "rows": [], "pts": [], "n": 0}
                cmds[-1].append(cur)
                continue
            m = re.match(r'# Curve title: "(.*)', line.rstrip("\n"))
            if m and cur is not None:
                # a long key entry goes on several lines (families.gp's wrap): joined again
                t = m.group(1)
                while not t.endswith('"'):
                    t = t + " " + next(f).strip()
                cur["title"] = re.sub(r"\s+", " ", re.sub(r"\\n", " ", t[:-1]))
                continue
            if line.startswith("#") or not line.strip() or cur is None:
                continue
            w = [x[1:-1] if x.startswith('"') else x
                 for x in re.findall(r'"[^"]*"|\S+', line.replace("rank ", ""))]
            cur["rows"].append(w)
            cur["n"] += 1
            if len(w) >= 3 and w[-1] == "i":
                cur["pts"].append((float(w[0]), float(w[1])))
    return cmds


class Check:
    def __init__(self):
        self.bad = 0

    def fail(self, pic, msg):
        self.bad += 1
        print("FAIL %s: %s" % (pic, msg))

    def points(self, pic, title, got, want):
        """got [(x, y)], want {bytes: [acceptable y values]}: the same sizes, each y one of its row's"""
        gx = {}
        for x, y in got:
            b = next((w for w in want if close(w, x)), None)
            if b is None:
                self.fail(pic, "%s: a point at %g (y %g) that no row has" % (title, x, y))
                continue
            if b in gx:
                self.fail(pic, "%s: two points at %g" % (title, x))
            gx[b] = y
            if not any(close(y, v) for v in want[b]):
                self.fail(pic, "%s at x = %g: drawn %g, results.csv has %s" % (title, b, y, " or ".join("%g" % v for v in want[b])))
        for b in want:
            if b not in gx:
                self.fail(pic, "%s: row at x = %g (%s) not drawn" % (title, b, " or ".join("%g" % v for v in want[b])))


def main():
    run = sys.argv[1]
    allrows, rows = read_rows(os.path.join(run, "results.csv"))
    pdir = os.path.join(run, "plots")
    tables = sorted(f[:-6] for f in os.listdir(pdir) if f.endswith(".table")) if os.path.isdir(pdir) else []
    pngs = sorted(f[:-4] for f in os.listdir(pdir) if f.endswith(".png")) if os.path.isdir(pdir) else []
    ck = Check()
    checked = 0
    if not rows:
        if pngs != ["no_data"]:
            ck.fail("no_data", "a run with no row to draw: pictures %s, want no_data only" % pngs)
        else:
            svg = open(os.path.join(pdir, "no_data.svg")).read()
            want = "no row of results.csv has a time to draw: %d rows" % len(allrows)
            if want not in svg:
                ck.fail("no_data", "the picture does not say '%s'" % want)
            checked += 1
        checked += check_phases(run, tables, pdir, ck)
        checked += check_overlap(run, tables, pdir, ck)
        print("%d pictures checked" % checked)
        return 1 if ck.bad else 0

    measured = any(r["_src"] != "model" for r in rows)
    modelrows = [r for r in rows if r["_src"] == "model"] if measured else []
    if measured:
        rows = [r for r in rows if r["_src"] != "model"]
    dtypes = {r.get("dtype", "") for r in rows}
    placements = {r.get("placement", "") or "1 rank/GPU" for r in rows}
    # the scenario key of each row: the scenario's name (with the condition where the scenario
    # has several), else the condition; a placement prefix where the run has several
    conds = {}
    for r in rows:
        conds.setdefault(r.get("scenario", ""), set()).add(cond_key(r))
    for r in rows:
        s = re.sub(r"[^A-Za-z0-9._-]", "_", r.get("scenario", ""))
        c = cond_key(r)
        k = c if not s else (s if len(conds[r.get("scenario", "")]) == 1 else s + "_" + c)
        if len(placements) > 1:
            p = (r.get("placement", "") or "1 rank/GPU").replace(" ", "").replace("/", "-per-")
            k = re.sub(r"[^A-Za-z0-9._-]", "_", p) + "_" + k
        r["_key"] = k
        a, t = r.get("algorithm", ""), r.get("transport", "")
        r["_alg"] = a
        r["_tp"] = t
        lab = "nccl" if a == "nccl" else a + ("/" + t if has_tp(t) else "")
        r["_lab0"] = lab + (" " + r.get("dtype", "") if len(dtypes) > 1 else "")
        r["_bl"] = a + (" " + r.get("dtype", "") if len(dtypes) > 1 else "")
        bw = num(r.get("algbw_gbps"))
        r["_bw"] = bw if bw is not None else r["_b"] / (r["_t"] * 1e3)
        ta = num(r.get("time_after_arrival_us"))
        r["_ta"] = ta if ta is not None and ta > 0 else None
        sr = num(r.get("straggler_rank"))
        r["_strag"] = sr is not None and sr >= 0

    # a pipeline sweep (one algorithm, transport, dtype, scenario and size measured with several
    # pipeline values) names each series "/p<pipeline>"; a pipeline picked per size does not
    pipes = {}
    for r in rows:
        pipes.setdefault((r["_alg"], r["_tp"], r.get("dtype", ""), r["_key"], r["_b"]), set()).add(r.get("pipeline", ""))
    for r in rows:
        r["_sweep"] = len(pipes[(r["_alg"], r["_tp"], r.get("dtype", ""), r["_key"], r["_b"])]) > 1
        lab = "nccl" if r["_alg"] == "nccl" else r["_alg"] + ("/" + r["_tp"] if has_tp(r["_tp"]) else "")
        r["_lab"] = lab + ("/p" + r.get("pipeline", "") if r["_sweep"] else "") + \
            (" " + r.get("dtype", "") if len(dtypes) > 1 else "")
    for r in modelrows:
        r["_cond"], r["_alg"], r["_tp"] = cond_key(r), r.get("algorithm", ""), r.get("transport", "")

    keys = {}
    for r in rows:
        keys.setdefault(r["_key"], []).append(r)

    def fastest(rs, by):
        """per (by(r), bytes): the rows of least time (all of them where several tie)"""
        best = {}
        for r in rs:
            k = (by(r), r["_b"])
            if k not in best or r["_t"] < best[k][0]["_t"] - 1e-9:
                best[k] = [r]
            elif abs(r["_t"] - best[k][0]["_t"]) <= 1e-9:
                best[k].append(r)
        return best

    for key, rs in sorted(keys.items()):
        nsizes = len({r["_b"] for r in rs})
        strag = rs[0]["_strag"]
        clean = cond_key(rs[0]) == "clean"
        if nsizes < (3 if clean else 4):
            continue
        # a series measured twice at one size is drawn at its fastest row
        ser = fastest(rs, lambda r: r["_lab"])
        srows = [v for vs in ser.values() for v in vs]
        # ---- best_<key> ----
        pic = "best_" + key
        if pic not in tables:
            ck.fail(pic, "not drawn")
        else:
            checked += 1
            cmds = parse_table(os.path.join(pdir, pic + ".table"))
            nccl = fastest([r for r in srows if r["_alg"] == "nccl"], lambda r: "")
            others = fastest([r for r in srows if r["_alg"] != "nccl"], lambda r: "")
            nt = {b: g[0]["_t"] for (_, b), g in nccl.items()}
            top = cmds[0] if cmds else []
            if nt:
                c = [c for c in top if c["title"] == "nccl"]
                if len(c) != 1:
                    ck.fail(pic, "no curve titled nccl")
                else:
                    ck.points(pic, "nccl", c[0]["pts"], {b: [t] for b, t in nt.items()})
            want_best = {b: [g[0]["_t"]] for (_, b), g in others.items()}
            c = [c for c in top if c["title"] == "best schedule (line)"]
            if len(c) != 1:
                ck.fail(pic, "no line through the best schedules")
            else:
                ck.points(pic, "best schedule (line)", c[0]["pts"], want_best)
            scheds = [c for c in top if c["title"] not in ("nccl", "best schedule (line)")]
            named = {}
            for c in scheds:
                for x, y in c["pts"]:
                    b = next((w for w in want_best if close(w, x)), None)
                    if b is None:
                        ck.fail(pic, "%s: a point at %g that is no size" % (c["title"], x))
                        continue
                    if b in named:
                        ck.fail(pic, "two schedules named at %.0f bytes" % b)
                    named[b] = c["title"]
                    labs = {r["_lab"] for r in others[("", b)]}
                    if c["title"] not in labs:
                        ck.fail(pic, "%.0f bytes: named %s, the fastest row there is %s" % (b, c["title"], " or ".join(sorted(labs))))
                    if not close(y, want_best[b][0]):
                        ck.fail(pic, "%s at %.0f bytes: drawn %g, results.csv has %g" % (c["title"], b, y, want_best[b][0]))
            for b in want_best:
                if b not in named:
                    ck.fail(pic, "%.0f bytes: best schedule not named" % b)
            if nt:
                if len(cmds) < 2:
                    ck.fail(pic, "no nccl / best panel")
                else:
                    ratio = {b: [nt[b] / want_best[b][0]] for b in want_best if b in nt}
                    # the grey line first, then (after the dashed 1) the schedules in the key's order
                    line = cmds[1][0]
                    ck.points(pic, "nccl / best line", line["pts"], ratio)
                    pts = [p for c in cmds[1][2:] for p in c["pts"]]
                    ck.points(pic, "nccl / best points", pts, ratio)
        # ---- family pictures ----
        kinds = [("algbw", lambda r: r["_bw"])]
        kinds.append(("arrival", lambda r: r["_ta"]) if strag else ("time", lambda r: r["_t"]))
        tps = sorted({r["_tp"] for r in srows if r["_alg"] != "nccl" and has_tp(r["_tp"])})
        for what, yof in kinds:
            for tp in [""] + tps:
                pic = what + "_" + key + ("_" + tp if tp else "")
                if pic not in tables:
                    if not tp:
                        ck.fail(pic, "not drawn")
                    continue
                checked += 1
                cmds = parse_table(os.path.join(pdir, pic + ".table"))
                if len(cmds) != 4:
                    ck.fail(pic, "%d panels, want 4" % len(cmds))
                    continue
                titles = [c["title"] for cmd in cmds for c in cmd if c["title"]]
                bestof = any(t.startswith("on ") for t in titles)
                sel = [r for r in srows if not tp or r["_alg"] == "nccl" or r["_tp"] == tp or not has_tp(r["_tp"])]
                if bestof:
                    groups = fastest(sel, lambda r: "nccl" if r["_alg"] == "nccl" else r["_bl"])
                else:
                    groups = {(r["_lab"], r["_b"]): [r] for r in sel}
                want = {}
                for (name, b), g in groups.items():
                    ys = [yof(r) for r in g if yof(r) is not None]
                    if ys:
                        want.setdefault(name, {})[b] = ys
                seen = set()
                for k, cmd in enumerate(cmds, 1):
                    for c in cmd:
                        t = c["title"]
                        if not t or t.startswith("on "):
                            continue
                        names = t.split(" = ")
                        for nm in names:
                            alg = nm.split("/")[0].split(" ")[0]
                            if family(alg) not in (0, k):
                                ck.fail(pic, "%s drawn in panel %d, its family is %d" % (nm, k, family(alg)))
                            if nm not in want:
                                ck.fail(pic, "a series titled %s that results.csv does not have here" % nm)
                                continue
                            seen.add((nm, k))
                            ck.points(pic, "%s (panel %d)" % (nm, k), c["pts"], want[nm])
                for nm in want:
                    f = family(nm.split("/")[0].split(" ")[0])
                    for k in ([1, 2, 3, 4] if f == 0 else [f]):
                        if (nm, k) not in seen:
                            ck.fail(pic, "%s missing from panel %d" % (nm, k))
    checked += check_sweeps(run, allrows, srows_all(rows, fastest), tables, pdir, ck)
    checked += check_model(keys, modelrows, fastest, tables, pdir, ck)
    checked += check_phases(run, tables, pdir, ck)
    checked += check_overlap(run, tables, pdir, ck)
    print("%d pictures checked" % checked)
    return 1 if ck.bad else 0


def check_model(keys, modelrows, fastest, tables, pdir, ck):
    """model_vs_measured_<key>[_<transport>]: the measured series at their rows' times and
    "<alg>[/<transport>] model" at a time results.csv gives for that algorithm (and transport),
    condition and size: a source=model row's, or model_time_us beside a measured row; every size
    the model prices. pipeline_<key>_<size>: each swept series' time against its pipeline value
    (ms where a time reaches 10 ms), nccl's a line across. Returns the pictures checked"""
    n = 0
    for pic in tables:
        m = re.match(r"^model_vs_measured_(.+)$", pic)
        if not m:
            continue
        key = m.group(1)
        tp = ""
        if key not in keys:
            key, _, tp = key.rpartition("_")
        if key not in keys:
            ck.fail(pic, "no scenario of results.csv is called %s" % m.group(1))
            continue
        n += 1
        rs = keys[key]
        cond, ng = cond_key(rs[0]), rs[0].get("n_gpus", "")
        cand = {}
        for r in modelrows:
            if r["_cond"] == cond and r.get("n_gpus", "") == ng:
                cand.setdefault((r["_alg"], r["_tp"] if has_tp(r["_tp"]) else "", r["_b"]), []).append(r["_t"])
        for r in rs:
            v = num(r.get("model_time_us"))
            if v and v > 0 and not cand.get((r["_alg"], "", r["_b"])) and not cand.get((r["_alg"], r["_tp"], r["_b"])):
                cand.setdefault((r["_alg"], "", r["_b"]), []).append(v)
                cand.setdefault(("_beside", r["_alg"], r["_b"]), []).append(v)
        ser = fastest(rs, lambda r: r["_lab"])
        cmds = parse_table(os.path.join(pdir, pic + ".table"))
        for c in (cmds[0] if cmds else []):
            t = c["title"]
            if not t:
                continue
            if t.endswith(" model"):
                name = t[:-6]
                alg, _, mtp = name.partition("/")
                want = {b: v for (a, x, b), v in ((k, v) for k, v in cand.items() if len(k) == 3) if a == alg and x == mtp}
                if not want:
                    ck.fail(pic, "%s: results.csv has no model time for it" % t)
                ck.points(pic, t, c["pts"], want)
            else:
                want = {b: [g[0]["_t"]] for (lab, b), g in ser.items() if lab == t}
                if not want:
                    ck.fail(pic, "a series titled %s that results.csv does not have here" % t)
                if tp and t != "nccl" and not t.split(" ")[0].endswith("/" + tp):
                    ck.fail(pic, "%s in the picture of transport %s" % (t, tp))
                # the sizes the model prices
                got = {x for x, _ in c["pts"]}
                ck.points(pic, t, c["pts"], {b: v for b, v in want.items() if any(close(b, x) for x in got)})
                if len(got) > len(want):
                    ck.fail(pic, "%s: more points than rows" % t)
    for pic in tables:
        m = re.match(r"^pipeline_(.+)_([0-9.]+[KMGT]?i?B)$", pic)
        if not m or m.group(1) not in keys:
            continue
        n += 1
        b = size_bytes(m.group(2))
        rs = [r for r in keys[m.group(1)] if r["_b"] == b]
        ser = fastest([r for r in rs if r["_sweep"]], lambda r: (r["_lab0"], num(r.get("pipeline"))))
        want = {}
        for ((lab, p), _), g in ser.items():
            want.setdefault(lab, {})[p] = g[0]["_t"]
        nccl = [r["_t"] for r in rs if r["_alg"] == "nccl" and not r["_sweep"]]
        top = max([t for w in want.values() for t in w.values()] + nccl)
        unit = 1000 if top >= 10000 else 1
        if nccl:
            ps = [p for w in want.values() for p in w]
            want["nccl"] = {min(ps): min(nccl), max(ps): min(nccl)}
        cmds = parse_table(os.path.join(pdir, pic + ".table"))
        got = [c for c in (cmds[0] if cmds else []) if c["title"]]
        if sorted(c["title"] for c in got) != sorted(want):
            ck.fail(pic, "series %s, results.csv has %s" % (sorted(c["title"] for c in got), sorted(want)))
        for c in got:
            if c["title"] in want:
                ck.points(pic, c["title"], c["pts"], {p: [t / unit] for p, t in want[c["title"]].items()})
    return n


def srows_all(rows, fastest):
    """every drawn row: a series measured twice at one point of one scenario drawn at its fastest"""
    g = fastest(rows, lambda r: (r["_lab"], r["_key"]))
    return [v for vs in g.values() for v in vs]


SIZE_RE = re.compile(r"^(\d+(?:\.\d+)?)(B|KiB|MiB|GiB|TiB)$")


def size_bytes(lab):
    m = SIZE_RE.match(lab)
    if not m:
        return None
    return float(m.group(1)) * 1024 ** ["B", "KiB", "MiB", "GiB", "TiB"].index(m.group(2))


def check_sweeps(run, allrows, rows, tables, pdir, ck):
    """straggler_delay_<size>: each series' time (ms) against the delay (ms; delay 0 at
    smallest / 2 on a geometric sweep), one line per algorithm where there are more than 14
    series; degraded_factor_<size>: time against the factor and OPTCC's lower bound;
    critical_delay: critical.csv's delays (ms) against size. Returns the pictures checked"""
    n = 0
    for pic in tables:
        m = re.match(r"^straggler_delay_([0-9.]+[KMGT]?i?B)$", pic)
        if m:
            n += 1
            b = size_bytes(m.group(1))
            rs = [r for r in rows if r["_b"] == b and r["_strag"] and cond_key(r).startswith("straggler_")
                  and "degraded" not in cond_key(r) and ";" not in r.get("stragglers", "")]
            delays = sorted({num(r.get("delay_us")) or 0 for r in rs})
            nz = [d for d in delays if d > 0]
            logx = len(nz) >= 4 and max(nz) >= 16 * min(nz)
            xzero = min(nz) / 2000 if logx else 0
            labs = {r["_lab"] for r in rs}
            by = (lambda r: r["_bl"] if r["_alg"] != "nccl" else "nccl") if len(labs) > 14 else (lambda r: r["_lab"])
            want = {}
            for r in rs:
                d = num(r.get("delay_us")) or 0
                x = d / 1000 if d > 0 else xzero
                k = (by(r), x)
                if k not in want or r["_t"] < want[k]:
                    want[k] = r["_t"]
            curves(ck, pic, parse_table(os.path.join(pdir, pic + ".table")), want, lambda t: t / 1000, skip=("time = delay",))
            continue
        m = re.match(r"^degraded_factor_([0-9.]+[KMGT]?i?B)$", pic)
        if m:
            n += 1
            b = size_bytes(m.group(1))
            rs = [r for r in rows if r["_b"] == b and not r["_strag"] and "degraded" in cond_key(r)
                  and ";" not in r.get("degraded", "")]
            want = {}
            for r in rs:
                k = (r["_lab"], num(r.get("factor")))
                if k not in want or r["_t"] < want[k]:
                    want[k] = r["_t"]
            unit = 1000 if max(want.values()) >= 10000 else 1
            # OPTCC's bound at each measured factor: any bound results.csv gives there
            bounds = {}
            for r in allrows:
                if num(r.get("bytes")) != b or r.get("status", "").lower() != "ok":
                    continue
                f = num(r.get("factor")) or 1
                v = num(r.get("lower_bound_us"))
                if v and v > 0:
                    bounds.setdefault(f, []).append(v)
                if r.get("source", "").lower() == "model" and r.get("algorithm") == "lower-bound":
                    for c in ("time_us_median", "model_time_us"):
                        v = num(r.get(c))
                        if v and v > 0:
                            bounds.setdefault(f, []).append(v)
            fs = {f for (_, f) in want}
            cmds = parse_table(os.path.join(pdir, pic + ".table"))
            curves(ck, pic, cmds, want, lambda t: t / unit, skip=("OPTCC lower bound",))
            lb = [c for cmd in cmds for c in cmd if c["title"] == "OPTCC lower bound"]
            if lb:
                ck.points(pic, "OPTCC lower bound", lb[0]["pts"],
                          {f: [v / unit for v in bounds[f]] for f in fs if f in bounds})
            continue
        if pic == "critical_delay":
            n += 1
            want = {}
            with open(os.path.join(run, "critical.csv"), newline="") as f:
                for r in csv.DictReader(f):
                    r = {(k or "").strip().lower(): (v or "").strip() for k, v in r.items()}
                    b, a = num(r.get("bytes")), r.get("algorithm", "stragglar")
                    model = r.get("source", "gpu").lower() == "model"
                    for col, mod in (("critical_delay_us", model), ("model_critical_delay_us", True)):
                        v = num(r.get(col))
                        if v is not None and v >= 0 and b:
                            want.setdefault(a + (" (model)" if mod else " (measured)"), {})[b] = [v / 1000]
            cmds = parse_table(os.path.join(pdir, pic + ".table"))
            got = [c for c in cmds[0] if c["title"]] if cmds else []
            if {c["title"] for c in got} != set(want):
                ck.fail(pic, "series %s, critical.csv has %s" % (sorted(c["title"] for c in got), sorted(want)))
            for c in got:
                if c["title"] in want:
                    ck.points(pic, c["title"], c["pts"], want[c["title"]])
    return n


def curves(ck, pic, cmds, want, scale, skip=()):
    """want {(series, x): time}: the titled curves of the picture's first plot command are
    exactly these series, each at exactly these points (y = scale(time))"""
    series = {}
    for (name, x), t in want.items():
        series.setdefault(name, {})[x] = [scale(t)]
    got = [c for c in (cmds[0] if cmds else []) if c["title"] and c["title"] not in skip]
    if sorted(c["title"] for c in got) != sorted(series):
        ck.fail(pic, "series %s, results.csv has %s" % (sorted(c["title"] for c in got), sorted(series)))
    for c in got:
        if c["title"] in series:
            ck.points(pic, c["title"], c["pts"], series[c["title"]])


def read_csv(path):
    """the rows of a CSV file with lower-case column names, or [] when there is none"""
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return [{(k or "").strip().lower(): (v or "").strip() for k, v in r.items()} for r in csv.DictReader(f)]


def size_label(b):
    """bytes as the pictures' file names say them: 1MiB, 256MiB, 1GiB"""
    u = 0
    while u < 4 and b >= 1024:
        b, u = b / 1024.0, u + 1
    return "%g" % b + ["B", "KiB", "MiB", "GiB", "TiB"][u]


def safe_name(s):
    return re.sub(r"[^A-Za-z0-9.+-]", "-", s)


def series_name(r):
    a, t = r.get("algorithm", "") or "?", r.get("transport", "") or "?"
    return "nccl" if a == "nccl" and t == "nccl" else a + "/" + t


def svg_texts(path):
    """the texts of an SVG with the x and y of the group that places each"""
    out = []
    if not os.path.exists(path):
        return out
    svg = open(path).read()
    for m in re.finditer(r'<g transform="translate\(([-0-9.]+),([-0-9.]+)\)[^>]*>\s*<text>([^<]*)</text>', svg):
        out.append((float(m.group(1)), float(m.group(2)), m.group(3).replace("&amp;", "&")))
    return out


def multiset_diff(ck, pic, what, got, want, eq):
    """got and want lists of tuples: every wanted one drawn once, nothing else"""
    left = list(want)
    for g in got:
        i = next((i for i, w in enumerate(left) if eq(g, w)), None)
        if i is None:
            ck.fail(pic, "%s: drawn %s, which %s does not give" % (what, g, "the CSV"))
        else:
            left.pop(i)
    for w in left:
        ck.fail(pic, "%s: %s not drawn" % (what, w))


# the phases' colours (the NVTX ranges', harness/nvtx.c); rounds alternate two greens
PHASE_RGB = {"delay": 0xd62728, "precondition": 0xff7f0e, "allreduce": 0x1f77b4, "reduce": 0x9467bd}


def phase_rgb(ph):
    w = ph.split()
    if w and w[0] == "round":
        return 0x98df8a if len(w) > 1 and w[1].isdigit() and int(w[1]) % 2 else 0x2ca02c
    return PHASE_RGB.get(w[0] if w else "", 0x8c564b)


def phase_level(ph):
    """0: the collective's box (delay, allreduce); 1: the precondition inside it; 2: rounds and
    reduce kernels"""
    return 1 if ph.startswith("precondition") else 2 if ph.startswith("round") or ph.startswith("reduce") else 0


def check_phases(run, tables, pdir, ck):
    """phases_<size>[_<scenario>][_d<delay>ms][_<part>]: per (scenario, size, delay) of
    phases.csv a Gantt chart per algorithm/transport (at most 6 per picture, in the CSV's
    order, each chart's title naming it and its last rank's end): every row one box at its rank,
    from start_us to end_us (ms where the picture passes 20 ms), as tall as its level, in its
    phase's colour; each outer box labelled with its phase and length where the text fits (a
    character about 1/115 of the axis) and no inner box covers it; the key the phases in order.
    Returns the pictures checked"""
    pics = {}
    for r in read_csv(os.path.join(run, "phases.csv")):
        b, rk, a, e = (num(r.get(c)) for c in ("bytes", "rank", "start_us", "end_us"))
        if None in (b, rk, a, e) or e < a:
            continue
        d = num(r.get("delay_us")) or 0
        p = pics.setdefault((r.get("scenario", ""), b, d), {"panels": {}, "rows": []})
        p["panels"].setdefault(series_name(r), []).append((int(rk), a, e, r.get("phase", "")))
        p["rows"].append(r)
    n = 0
    want_pics = set()
    for (scen, b, d), p in pics.items():
        base = "phases_" + size_label(b) + ("_" + safe_name(scen) if scen else "") + \
            ("_d%sms" % safe_name(("%d" % (d / 1000)) if d % 1000 == 0 else "%.4g" % (d / 1000)) if d > 0 else "")
        names = list(p["panels"])
        xmax = max(e for rs in p["panels"].values() for _, _, e, _ in rs)
        sc = 1000.0 if xmax > 20000 else 1.0
        legend = []
        for r in p["rows"]:
            ph = r.get("phase", "")
            lg = "round (alternating shades)" if ph.startswith("round") else ph
            if lg not in legend:
                legend.append(lg)
        parts = [names[i:i + 6] for i in range(0, len(names), 6)]
        for q, part in enumerate(parts):
            pic = base + ("_%d" % (q + 1) if len(parts) > 1 else "")
            want_pics.add(pic)
            if pic not in tables:
                ck.fail(pic, "not drawn (phases.csv has it)" if not os.path.exists(os.path.join(pdir, pic + ".png"))
                        else "drawn, but gnuplot wrote no table of it")
                continue
            n += 1
            cmds = parse_table(os.path.join(pdir, pic + ".table"))
            if len(cmds) != len(part):
                ck.fail(pic, "%d charts, phases.csv has %d algorithm/transport pairs here" % (len(cmds), len(part)))
                continue
            # the charts' titles, top to bottom
            tt = sorted((y, t) for x, y, t in svg_texts(os.path.join(pdir, pic + ".svg")) if ": last rank done at " in t)
            got_names = [t.split(": last rank done at ")[0] for _, t in tt]
            if got_names != part:
                ck.fail(pic, "charts titled %s, phases.csv has %s" % (got_names, part))
            for (_, t), name in zip(tt, part):
                end = max(e for _, _, e, _ in p["panels"][name])
                m = re.search(r"done at ([0-9.]+) (ms|us)$", t)
                if not m or abs(float(m.group(1)) * (1000 if m.group(2) == "ms" else 1) - end) > (0.6 if m.group(2) == "ms" else 0.06):
                    ck.fail(pic, "%s: title '%s', its last rank ends at %.3f us" % (name, t, end))
            key = [c["title"] for c in cmds[0] if c["title"]]
            if key != legend:
                ck.fail(pic, "key %s, phases.csv's phases are %s" % (key, legend))
            for name, cmd in zip(part, cmds):
                rs = p["panels"][name]
                want = []
                for rk, a, e, ph in rs:
                    w = (0.36, 0.25, 0.13)[phase_level(ph)]
                    want.append((rk, a / sc, e / sc, rk - w, rk + w, phase_rgb(ph)))
                got = []
                for row in cmd[0]["rows"] if cmd else []:
                    # x y xlow xhigh ylow yhigh colour type (x = xlow = start)
                    try:
                        got.append((int(float(row[1])), float(row[2]), float(row[3]), float(row[4]), float(row[5]), int(row[6], 16)))
                    except (ValueError, IndexError):
                        ck.fail(pic, "%s: a box line '%s'" % (name, " ".join(row)))
                multiset_diff(ck, pic, name + " boxes (rank, start, end, bottom, top, colour)", got, want,
                              lambda g, w: g[0] == w[0] and g[5] == w[5] and all(close(g[i], w[i]) or abs(g[i] - w[i]) < 1e-3 for i in (1, 2, 3, 4)))
                wl = []
                for rk, a, e, ph in rs:
                    if phase_level(ph):
                        continue
                    lab = "%s %.2f ms" % (ph, (e - a) / 1000) if e - a >= 1000 else "%s %.1f us" % (ph, e - a)
                    c, hw = (a + e) / 2, (len(lab) + 2) * xmax / 115 / 2
                    if e - a < 2 * hw:
                        continue
                    if any(r2 == rk and phase_level(ph2) and a2 < c + hw and e2 > c - hw for r2, a2, e2, ph2 in rs):
                        continue
                    wl.append((c / sc, rk, lab))
                gl = [(float(r[0]), int(float(r[1])), r[2]) for r in (cmd[1]["rows"] if len(cmd) > 1 else []) if len(r) >= 3 and r[2]]
                multiset_diff(ck, pic, name + " labels (x, rank, text)", gl, wl,
                              lambda g, w: g[1:] == w[1:] and (close(g[0], w[0]) or abs(g[0] - w[0]) < 1e-3))
    for pic in tables:
        if pic.startswith("phases_") and pic not in want_pics:
            ck.fail(pic, "drawn, but phases.csv has no such scenario, size and delay")
    return n


def check_overlap(run, tables, pdir, ck):
    """overlap_<size>[_<scenario>]: per (scenario, size) of overlap.csv, per algorithm/transport
    at x = 1, 2, ... (its tic label, in the CSV's order) a bar at x - 0.19 with the mean of its
    ranks' overlap_reduce_pct and one at x + 0.19 with overlap_delay_pct (an empty field left
    out; a series with neither not drawn), each value written 3 above its bar, each rank's
    share a dot on its bar. Returns the pictures checked"""
    pics = {}
    for r in read_csv(os.path.join(run, "overlap.csv")):
        b = num(r.get("bytes"))
        rp, dp = num(r.get("overlap_reduce_pct")), num(r.get("overlap_delay_pct"))
        if b is None or (rp is None and dp is None):
            continue
        ser = pics.setdefault((r.get("scenario", ""), b), {}).setdefault(series_name(r), ([], []))
        if rp is not None:
            ser[0].append(rp)
        if dp is not None:
            ser[1].append(dp)
    # the data file holds 4 significant digits
    near = lambda a, b: abs(a - b) <= 6e-4 * max(abs(a), abs(b)) + 1e-6
    n = 0
    want_pics = set()
    for (scen, b), sers in pics.items():
        pic = "overlap_" + size_label(b) + ("_" + safe_name(scen) if scen else "")
        want_pics.add(pic)
        if pic not in tables:
            ck.fail(pic, "not drawn (overlap.csv has it)" if not os.path.exists(os.path.join(pdir, pic + ".png"))
                    else "drawn, but gnuplot wrote no table of it")
            continue
        n += 1
        names = list(sers)
        ticks = [t for x, y, t in sorted(svg_texts(os.path.join(pdir, pic + ".svg"))) if t in sers]
        if ticks != names:
            ck.fail(pic, "bars named %s from left to right, overlap.csv has %s" % (ticks, names))
        cmds = parse_table(os.path.join(pdir, pic + ".table"))
        cs = cmds[0] if cmds else []
        if len(cs) != 6:
            ck.fail(pic, "%d curves, want 6 (two bars, two dots, two labels)" % len(cs))
            continue
        for w, off, what in ((0, -0.19, "reduction"), (1, 0.19, "delay")):
            means = [(k + off, sum(v[w]) / len(v[w])) for k, v in enumerate(sers.values(), 1) if v[w]]
            pts = lambda c: [(float(r[0]), float(r[1])) for r in c["rows"] if r[-1] == "i"]
            eq = lambda g, x: near(g[0], x[0]) and near(g[1], x[1])
            multiset_diff(ck, pic, what + " bars (x, mean)", pts(cs[w]), means, eq)
            dots = [(k + off, v) for k, s in enumerate(sers.values(), 1) for v in s[w]]
            multiset_diff(ck, pic, what + " dots (x, rank's share)", pts(cs[2 + w]), dots, eq)
            labs = [(float(r[0]), float(r[1]), r[2]) for r in cs[4 + w]["rows"] if len(r) >= 3]
            multiset_diff(ck, pic, what + " values (x, y, text)", labs, [(x, m + 3, "%.0f" % m) for x, m in means],
                          lambda g, x: eq(g, x) and g[2] in (x[2], "%.0f" % float("%.4g" % (x[1] - 3))))
    for pic in tables:
        if pic.startswith("overlap_") and pic not in want_pics:
            ck.fail(pic, "drawn, but overlap.csv has no such scenario and size")
    return n


if __name__ == "__main__":
    sys.exit(main())
