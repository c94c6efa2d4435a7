"""tests/plot_profiles.py: the pictures of phases.csv (phases_*) and overlap.csv (overlap_*),
read back for tests/plot_points.py (check_phases, check_overlap)."""
import os
import re

from plot_read import bar_curves, close, num, parse_table, read_csv, size_label, svg_texts, multiset_diff


def safe_name(s):
    return re.sub(r"[^A-Za-z0-9.+-]", "-", s)


def series_name(r):
    a, t = r.get("algorithm", "") or "?", r.get("transport", "") or "?"
    return "nccl" if a == "nccl" and t == "nccl" else a + "/" + t


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
    share a dot on its bar; a fused kernel (copy_us == reduce_us on every rank that copied) no
    reduction bar or dots but "fused kernel" there. Returns the pictures checked"""
    pics, fused = {}, {}
    for r in read_csv(os.path.join(run, "overlap.csv")):
        b = num(r.get("bytes"))
        rp, dp = num(r.get("overlap_reduce_pct")), num(r.get("overlap_delay_pct"))
        if b is None or (rp is None and dp is None):
            continue
        ser = pics.setdefault((r.get("scenario", ""), b), {}).setdefault(series_name(r), ([], []))
        cp, rd = num(r.get("copy_us")), num(r.get("reduce_us"))
        if cp:
            f = fused.setdefault((r.get("scenario", ""), b, series_name(r)), [])
            f.append(rd is not None and abs(cp - rd) < 5e-4)
        if rp is not None:
            ser[0].append(rp)
        if dp is not None:
            ser[1].append(dp)
    for (scen, b, name), f in fused.items():
        if all(f):
            pics[(scen, b)][name][0].clear()
    # the data file holds 4 significant digits
    near = lambda a, b: abs(a - b) <= 6e-4 * max(abs(a), abs(b)) + 1e-6
    n = 0
    want_pics = set()
    for (scen, b), sers in pics.items():
        pic = "overlap_" + size_label(b) + ("_" + safe_name(scen) if scen else "")
        want_pics.add(pic)
        names = list(sers)
        cs = bar_curves(ck, pic, tables, pdir, names, 7, "two bars, two dots, two labels, fused kernels",
                        "overlap.csv")
        if cs is None:
            continue
        n += 1
        if not cs:
            continue
        fu = [(k - 0.19, 2.0, "fused kernel") for k, name in enumerate(names, 1) if all(fused.get((scen, b, name), [False]))]
        got = [(float(r[0]), float(r[1]), r[2]) for r in cs[6]["rows"] if len(r) >= 3 and r[2]]
        multiset_diff(ck, pic, "fused kernels (x, y, text)", got, fu, lambda g, x: close(g[0], x[0]) and g[1:] == x[1:])
        for w, off, what in ((0, -0.19, "reduction"), (1, 0.19, "delay")):
            means = [(k + off, sum(v[w]) / len(v[w])) for k, v in enumerate(sers.values(), 1) if v[w]]
            pts = lambda c: [(float(r[0]), float(r[1])) for r in c["rows"] if r[-1] == "i"]
            eq = lambda g, x: near(g[0], x[0]) and near(g[1], x[1])
            multiset_diff(ck, pic, what + " bars (x, mean)", pts(cs[w]), means, eq)
            dots = [(k + off, v) for k, s in enumerate(sers.values(), 1) for v in s[w]]
            multiset_diff(ck, pic, what + " dots (x, rank's share)", pts(cs[2 + w]), dots, eq)
            labs = [(float(r[0]), float(r[1]), r[2]) for r in cs[4 + w]["rows"] if len(r) >= 3 and num(r[1]) is not None]
            multiset_diff(ck, pic, what + " values (x, y, text)", labs, [(x, m + 3, "%.0f" % m) for x, m in means],
                          lambda g, x: eq(g, x) and g[2] in (x[2], "%.0f" % float("%.4g" % (x[1] - 3))))
    for pic in tables:
        if pic.startswith("overlap_") and pic not in want_pics:
            ck.fail(pic, "drawn, but overlap.csv has no such scenario and size")
    return n
