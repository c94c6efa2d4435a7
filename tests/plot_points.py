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
names, from the SVG's tic labels); from results.csv's compute columns (check_compute) compute_*
(the three bars, their whiskers and the line above each schedule). Every point's x and y must be its row's (to printing
precision), no row lost, no series named after another. Prints one line per
disagreement and "N pictures checked"; exit status 1 on any disagreement.
"""
import os
import re
import sys

from plot_read import (Check, close, cond_key, curves, family, fmt_ms, has_tp, num, parse_table, read_csv,
                       read_rows,
                       size_bytes, svg_texts)
from plot_profiles import check_overlap, check_phases
from plot_compute import check_compute
from plot_conclusions import (REFS, annotate, check_best, check_critical, check_marks, check_placement, healthy_at,
                              probe_scenarios, references)


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
        checked += check_compute(run, tables, pdir, ck)
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
    nvls = annotate(run, rows, ck)
    probes = probe_scenarios(run)

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
        # ---- best_<key> (tests/plot_conclusions.py) ----
        pfx = "probes_" if probes is not None and strag and rs[0].get("scenario", "") in probes else ""
        pic = pfx + "best_" + key
        if all(r["_alg"] == "nccl" for r in rs):
            if pic in tables:
                ck.fail(pic, "drawn, but its scenario has only nccl rows")
        elif pic not in tables:
            ck.fail(pic, "not drawn")
        else:
            checked += 1
            check_best(pic, srows, rows, allrows, parse_table(os.path.join(pdir, pic + ".table")),
                       svg_texts(os.path.join(pdir, pic + ".svg")), nvls, "degraded" in cond_key(rs[0]), ck)
        # ---- family pictures ----
        # a straggler scenario's rate is bytes / time after the straggler's arrival
        kinds = [("algbw", (lambda r: r["_b"] / (r["_ta"] * 1e3) if r["_ta"] else None) if strag else (lambda r: r["_bw"]))]
        kinds.append(("arrival", lambda r: r["_ta"]) if strag else ("time", lambda r: r["_t"]))
        tps = sorted({r["_tp"] for r in srows if r["_alg"] != "nccl" and has_tp(r["_tp"])})
        for what, yof in kinds:
            for tp in [""] + tps:
                pic = pfx + what + "_" + key + ("_" + tp if tp else "")
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
                # a degraded scenario: OPTCC's bound and the healthy best in every panel
                if "degraded" in cond_key(rs[0]) and what != "arrival":
                    want.update(references(rs, rows, allrows, what))
                seen = set()
                for k, cmd in enumerate(cmds, 1):
                    for c in cmd:
                        t = c["title"]
                        if not t or t.startswith("on "):
                            continue
                        names = [t] if t in REFS else t.split(" = ")
                        for nm in names:
                            alg = "nccl" if nm in REFS else nm.split("/")[0].split(" ")[0]
                            if family(alg) not in (0, k):
                                ck.fail(pic, "%s drawn in panel %d, its family is %d" % (nm, k, family(alg)))
                            if nm not in want:
                                ck.fail(pic, "a series titled %s that results.csv does not have here" % nm)
                                continue
                            seen.add((nm, k))
                            ck.points(pic, "%s (panel %d)" % (nm, k), c["pts"], want[nm])
                for nm in want:
                    f = 0 if nm in REFS else family(nm.split("/")[0].split(" ")[0])
                    for k in ([1, 2, 3, 4] if f == 0 else [f]):
                        if (nm, k) not in seen:
                            ck.fail(pic, "%s missing from panel %d" % (nm, k))
    checked += check_sweeps(run, allrows, srows_all(rows, fastest), rows, tables, pdir, ck)
    check_placement(pdir, tables, rows, ck)
    checked += check_model(keys, modelrows, fastest, tables, pdir, ck)
    checked += check_phases(run, tables, pdir, ck)
    checked += check_overlap(run, tables, pdir, ck)
    checked += check_compute(run, tables, pdir, ck)
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


def check_sweeps(run, allrows, rows, every, tables, pdir, ck):
    """straggler_delay_<size>: each series' time (ms) against the delay (ms; delay 0 at half the
    smallest delay or critical delay marked, on a geometric sweep), one line per algorithm where
    there are more than 14 series, a profiled row only where no other has that point, every
    critical delay of the size on the axis; degraded_factor_<size>: time against the factor,
    OPTCC's lower bound and the healthy best (every: all measured rows); critical_delay
    (tests/plot_conclusions.py). Returns the pictures checked"""
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
            marks = [v for c in read_csv(os.path.join(run, "critical.csv")) if num(c.get("bytes")) == b
                     for v in (num(c.get("critical_delay_us")), num(c.get("model_critical_delay_us"))) if v]
            xzero = min(nz + marks) / 2000 if logx else 0
            labs = {r["_lab"] for r in rs}
            by = (lambda r: r["_bl"] if r["_alg"] != "nccl" else "nccl") if len(labs) > 14 else (lambda r: r["_lab"])
            want = {}
            for r in rs:
                d = num(r.get("delay_us")) or 0
                x = d / 1000 if d > 0 else xzero
                k = (by(r), x)
                if k not in want or (r["_prof"], r["_t"]) < (want[k]["_prof"], want[k]["_t"]):
                    want[k] = r
            cmds = parse_table(os.path.join(pdir, pic + ".table"))
            curves(ck, pic, cmds, {k: r["_t"] for k, r in want.items()}, lambda t: t / 1000, skip=("time = delay",))
            check_marks(pic, run, b, cmds, xzero, ck)
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
            h = healthy_at(every, rs[0], b)
            hname = "healthy best (%s, no degraded GPU)" % h["_lab"] if h else ""
            curves(ck, pic, cmds, want, lambda t: t / unit, skip=("OPTCC lower bound", hname))
            hc = [c for cmd in cmds for c in cmd if c["title"] and c["title"].startswith("healthy best")]
            if h and [c["title"] for c in hc] != [hname]:
                ck.fail(pic, "healthy best drawn as %s, want %s" % ([c["title"] for c in hc], hname))
            elif h:
                ck.points(pic, hname, hc[0]["pts"], {min(fs): [h["_t"] / unit], max(fs): [h["_t"] / unit]})
            lb = [c for cmd in cmds for c in cmd if c["title"] == "OPTCC lower bound"]
            if lb:
                ck.points(pic, "OPTCC lower bound", lb[0]["pts"],
                          {f: [v / unit for v in bounds[f]] for f in fs if f in bounds})
            continue
        if pic == "critical_delay":
            n += 1
            check_critical(pic, run, allrows, parse_table(os.path.join(pdir, pic + ".table")), ck)
    return n


if __name__ == "__main__":
    sys.exit(main())
