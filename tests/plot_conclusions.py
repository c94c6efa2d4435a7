"""tests/plot_conclusions.py: the conclusions the pictures draw, recomputed here from results.csv,
samples.csv, critical.csv and meta.txt (docs/statistics.md) without plots/*.awk, for
tests/plot_points.py:
  annotate      each row's median interval from its samples (order statistics, exact binomial
                coverage; results.csv's interval columns must agree), its registration mode,
                settings, conditions and whether it was profiled
  check_best    best_<key>: per size the best group (the fastest and every schedule whose
                interval reaches the fastest's), filled alone or hollow with "~N", the groups
                listed under the key, the intervals' ends as bars; nccl at its strongest (the
                fastest registration mode under the same conditions, any scenario), its mode per
                size, version and NVLS state; nccl / best with its interval, "tie" where it
                holds 1; on a degraded scenario OPTCC's bound and the healthy best; the title
  references    OPTCC's bound and the healthy best of a degraded scenario's family pictures
  check_marks   straggler_delay_<size>: every critical delay marked (the model's too) on the axis
  check_critical  critical_delay: measured, model and "never" (at the largest delay tried,
                "none up to X ms")
  check_placement  titles: "co-located" only for ranks sharing a GPU, the placement named
"""
import math
import os
import re

from plot_read import close, cond_key, num, read_csv, size_label

REFS = ("OPTCC lower bound", "healthy best (no degraded GPU)")


def median_ci(xs):
    """[x(l), x(n+1-l)] of the sorted samples: l the largest rank whose coverage
    1 - 2 P(B <= l - 1), B ~ Binomial(n, 1/2), is at least 95%; 1 (min, max) where none is"""
    s = sorted(xs)
    n = len(s)
    l, cdf = 1, 0.0
    for k in range(n):
        if 2 * k >= n:
            break
        cdf += math.comb(n, k) / 2.0 ** n
        if 1 - 2 * cdf < 0.95:
            break
        l = k + 1
    return s[l - 1], s[n - l]


def rest(v):
    """a stragglers or degraded list without its first entry"""
    return ";".join(v.split(";")[1:]) if v else ""


def annotate(run, rows, ck):
    """adds _lo, _hi, _reg, _set, _cond, _hcond, _prof to every row; returns meta.txt's NVLS
    setting ("" where not given)"""
    meta = open(os.path.join(run, "meta.txt")).read() if os.path.exists(os.path.join(run, "meta.txt")) else ""
    meta = meta.split("\n---")[0]
    m = re.search(r"^setting nccl\.registration = (\S+)", meta, re.M)
    reg0 = m.group(1) if m else "none"
    m = re.search(r"^NCCL_NVLS_ENABLE:\s*(\S*)", meta, re.M)
    nvls = m.group(1) if m else ""
    samples = {}
    for s in read_csv(os.path.join(run, "samples.csv")):
        samples.setdefault(s.get("row_key"), []).append(num(s.get("time_us")))
    for r in rows:
        lo, hi = num(r.get("time_us_ci_lo")), num(r.get("time_us_ci_hi"))
        xs = samples.get(r.get("row_key"))
        if xs:
            slo, shi = median_ci(xs)
            if lo is None or hi is None or abs(lo - slo) > 1e-3 or abs(hi - shi) > 1e-3 or num(r.get("n_samples")) != len(xs):
                ck.fail("results.csv", "row %s: interval %s-%s of %s samples, samples.csv gives %g-%g of %d"
                        % (r.get("row_key"), r.get("time_us_ci_lo"), r.get("time_us_ci_hi"), r.get("n_samples"), slo, shi, len(xs)))
            lo, hi = slo, shi
        r["_lo"], r["_hi"] = (lo, hi) if lo is not None and hi is not None and lo <= hi else (None, None)
        sets = [x for x in r.get("settings", "").split(";") if x]
        regs = [x.split("=", 1)[1] for x in sets if x.startswith("nccl.registration=")]
        r["_reg"] = regs[0] if regs else reg0
        r["_set"] = ";".join(x for x in sets if not x.startswith("nccl.registration="))
        common = (r.get("n_gpus", ""), r.get("placement", "") or "1 rank/GPU", r.get("dtype", ""))
        r["_cond"] = (cond_key(r), rest(r.get("stragglers", "")), rest(r.get("degraded", ""))) + common + (r["_set"],)
        # a healthy row shares every setting with a degraded one but the degradation's
        r["_hcond"] = common + (";".join(x for x in r["_set"].split(";") if x and not x.startswith("degrade.")),)
        r["_prof"] = bool(r.get("overlap_reduce_pct", "") or r.get("overlap_delay_pct", ""))
        sr, dr, f = num(r.get("straggler_rank")), num(r.get("degraded_rank")), num(r.get("factor"))
        r["_healthy"] = (sr is None or sr < 0) and (dr is None or dr < 0 or f == 1)
    return nvls


def strongest(rs):
    """the reference row of rs: unprofiled first, then the fastest"""
    return min(rs, key=lambda r: (r["_prof"], r["_t"])) if rs else None


def nccl_at(rows, f):
    """nccl at its strongest under row f's conditions and size"""
    return strongest([r for r in rows if r["_alg"] == "nccl" and r["_b"] == f["_b"] and r["_cond"] == f["_cond"]])


def healthy_at(rows, f, b):
    """the fastest healthy schedule at size b under row f's GPU count, placement, dtype, settings"""
    return strongest([r for r in rows if r["_alg"] != "nccl" and r["_b"] == b and r["_healthy"] and r["_hcond"] == f["_hcond"]])


def bounds_at(allrows, f, b):
    """OPTCC's lower bounds results.csv gives for row f's GPU count and factor at size b"""
    out = []
    for r in allrows:
        if num(r.get("bytes")) != b or r.get("status", "").lower() != "ok" or r.get("n_gpus", "") != f.get("n_gpus", ""):
            continue
        if (num(r.get("factor")) or 1) != (num(f.get("factor")) or 1):
            continue
        v = num(r.get("lower_bound_us"))
        if v and v > 0:
            out.append(v)
        if r.get("source", "").lower() == "model" and r.get("algorithm") == "lower-bound":
            out += [v for v in (num(r.get("time_us_median")), num(r.get("model_time_us"))) if v and v > 0]
    return out


def groups(srows):
    """per size of the scenario's rows (each series once): the best group, fastest first"""
    out = {}
    for b in sorted({r["_b"] for r in srows if r["_alg"] != "nccl"}):
        rs = sorted((r for r in srows if r["_alg"] != "nccl" and r["_b"] == b), key=lambda r: r["_t"])
        f = rs[0]
        mem = [r for r in rs[1:] if f["_lo"] is not None and r["_lo"] is not None and r["_lo"] <= f["_hi"]]
        out[b] = [f] + mem
    return out


def rows_of(c, kind="i"):
    return [w for w in c["rows"] if w and w[-1] == kind]


def check_best(pic, srows, rows, allrows, cmds, texts, nvls, degraded, ck):
    """best_<key> against the rows of its scenario (srows: each series at its fastest row)"""
    g = groups(srows)
    top = cmds[0] if cmds else []
    titles = [c["title"] for c in top]
    if "best schedule (line)" not in titles:
        return ck.fail(pic, "no line through the best schedules")
    L = titles.index("best schedule (line)")
    F = next((i for i in range(L + 1, len(top)) if top[i]["title"]), len(top))
    ns = F - L - 1
    vec, filled, hollow, labs = top[L + 1:F], top[F:F + ns], top[F + ns:F + 2 * ns], top[F + 2 * ns:F + 3 * ns]
    names = [c["title"] for c in filled]
    ck.points(pic, "best schedule (line)", top[L]["pts"], {b: [m[0]["_t"]] for b, m in g.items()})
    nc = {b: nccl_at(rows, m[0]) for b, m in g.items()}
    nc = {b: r for b, r in nc.items() if r}
    # each size: one point, its fastest schedule's, hollow where it ties, "~N" above it, its interval
    seen = {}
    for j, name in enumerate(names):
        for kind, c in (("filled", filled[j]), ("hollow", hollow[j])):
            for x, y in c["pts"]:
                b = next((w for w in g if close(w, x)), None)
                if b is None or b in seen:
                    ck.fail(pic, "%s: a %s point at %g that is no size or a second one" % (name, kind, x))
                    continue
                seen[b] = 1
                m = g[b]
                if name not in {r["_lab"] for r in m[:1] + [r for r in m if close(r["_t"], m[0]["_t"])]}:
                    ck.fail(pic, "%.0f bytes: named %s, the fastest row there is %s" % (b, name, m[0]["_lab"]))
                if not close(y, m[0]["_t"]):
                    ck.fail(pic, "%s at %.0f bytes: drawn %g, results.csv has %g" % (name, b, y, m[0]["_t"]))
                if (kind == "hollow") != (len(m) > 1):
                    ck.fail(pic, "%.0f bytes: drawn %s, its best group is %s" % (b, kind, " ~ ".join(r["_lab"] for r in m)))
        for w in labs[j]["rows"] if j < len(labs) else []:
            b = next((v for v in g if close(v, float(w[0]))), None)
            if b is None:
                continue
            want = "~%d" % len(g[b]) if len(g[b]) > 1 and g[b][0]["_lab"] == name else ""
            if w[2] != want:
                ck.fail(pic, "%s at %.0f bytes: labelled '%s', want '%s'" % (name, b, w[2], want))
        want = {b: (m[0]["_lo"], m[0]["_hi"]) for b, m in g.items() if m[0]["_lab"] == name and m[0]["_lo"] is not None}
        bars(ck, pic, name, vec[j] if j < len(vec) else None, want)
    for b in g:
        if b not in seen:
            ck.fail(pic, "%.0f bytes: best schedule not drawn" % b)
    # the groups in words, under the key
    want_text = tie_lines(g)
    got_text = svg_block(texts, "tied (intervals overlap):")
    if got_text != want_text:
        ck.fail(pic, "tied groups %s, want %s" % (got_text, want_text))
    # nccl at its strongest: its fastest mode per size, named with version and NVLS
    if nc:
        line = [c for c in top[:L] if c["title"] and c["title"].startswith("nccl ") and "fastest mode per size" in c["title"]]
        if len(line) != 1:
            return ck.fail(pic, "no nccl line naming its fastest mode per size")
        vers = {r.get("nccl", "") for r in nc.values()} - {""}
        for v in vers:
            if v not in line[0]["title"]:
                ck.fail(pic, "nccl's line '%s' does not name version %s" % (line[0]["title"], v))
        want_nvls = {"0": "NVLS off", "": "NVLS not recorded"}.get(nvls, "NVLS on" if nvls[:1] in "123456789" else "NVLS " + nvls)
        if want_nvls not in line[0]["title"]:
            ck.fail(pic, "nccl's line '%s' does not say %s" % (line[0]["title"], want_nvls))
        ck.points(pic, "nccl", line[0]["pts"], {b: [r["_t"]] for b, r in nc.items()})
        bars(ck, pic, "nccl", top[1] if L > 1 else None, {b: (r["_lo"], r["_hi"]) for b, r in nc.items() if r["_lo"] is not None})
        modes = {c["title"][len("nccl, registration "):]: c for c in top[:L] if c["title"] and c["title"].startswith("nccl, registration ")}
        want_modes = {}
        for b, r in nc.items():
            want_modes.setdefault(r["_reg"], {})[b] = [r["_t"]]
        if set(modes) != set(want_modes):
            ck.fail(pic, "nccl's modes drawn %s, the fastest per size are %s" % (sorted(modes), sorted(want_modes)))
        for m, c in modes.items():
            ck.points(pic, "nccl, registration " + m, c["pts"], want_modes.get(m, {}))
        check_ratio(pic, cmds, g, nc, names, ck)
    elif len(cmds) > 1:
        ck.fail(pic, "a ratio panel, but no nccl row of these conditions")
    if degraded:
        for ref in REFS:
            want = {}
            for b, m in g.items():
                vs = bounds_at(allrows, m[0], b) if ref == REFS[0] else [h["_t"] for h in [healthy_at(rows, m[0], b)] if h]
                if vs:
                    want[b] = vs
            c = [c for c in top if c["title"] == ref]
            if want and len(c) != 1:
                ck.fail(pic, "no line '%s'" % ref)
            elif c:
                ck.points(pic, ref, c[0]["pts"], want)
    # the title: the answer first
    title = " ".join(t for _, _, t in texts)
    ans = title_words(g, nc)
    if ans not in title:
        ck.fail(pic, "title '%s' does not say '%s'" % (title, ans))


def check_ratio(pic, cmds, g, nc, names, ck):
    """the lower panel: nccl / best per size with its interval, hollow and "tie" where it holds 1"""
    if len(cmds) < 2:
        return ck.fail(pic, "no nccl / best panel")
    low = cmds[1]
    ns = len(names)
    ratio = {b: nc[b]["_t"] / m[0]["_t"] for b, m in g.items() if b in nc}
    ck.points(pic, "nccl / best line", low[0]["pts"], {b: [v] for b, v in ratio.items()})
    vec, filled, hollow, labs = low[2:2 + ns], low[2 + ns:2 + 2 * ns], low[2 + 2 * ns:2 + 3 * ns], low[2 + 3 * ns:2 + 4 * ns]
    for j, name in enumerate(names):
        want, bar, tie = {}, {}, {}
        for b, m in g.items():
            if b not in ratio or m[0]["_lab"] != name:
                continue
            want[b] = [ratio[b]]
            f, n = m[0], nc[b]
            if f["_lo"] is not None and n["_lo"] is not None:
                bar[b] = (n["_lo"] / f["_hi"], n["_hi"] / f["_lo"])
                tie[b] = bar[b][0] <= 1 <= bar[b][1]
        got = [(x, y, "filled") for x, y in filled[j]["pts"]] + [(x, y, "hollow") for x, y in hollow[j]["pts"]]
        ck.points(pic, name + " (nccl / best)", [(x, y) for x, y, _ in got], want)
        for x, y, kind in got:
            b = next((v for v in want if close(v, x)), None)
            if b is not None and (kind == "hollow") != tie.get(b, False):
                ck.fail(pic, "%s at %.0f bytes: ratio drawn %s, its interval %s" % (name, b, kind, bar.get(b)))
        for w in labs[j]["rows"]:
            b = next((v for v in want if close(v, float(w[0]))), None)
            if b is not None and w[2] != ("tie" if tie.get(b) else ""):
                ck.fail(pic, "%s at %.0f bytes: ratio labelled '%s', interval %s" % (name, b, w[2], bar.get(b)))
        bars(ck, pic, name + " (nccl / best)", vec[j], bar)


def bars(ck, pic, name, c, want):
    """c: a `vectors` curve (x y 0 dy): exactly the intervals want {bytes: (lo, hi)}"""
    got = {}
    for w in rows_of(c) if c else []:
        x, y, dy = float(w[0]), float(w[1]), float(w[3])
        b = next((v for v in want if close(v, x)), x)
        got[b] = (y, y + dy)
    for b, (lo, hi) in want.items():
        if b not in got:
            ck.fail(pic, "%s at %.0f bytes: no interval drawn (%g-%g)" % (name, b, lo, hi))
        elif not (close(got[b][0], lo) and abs(got[b][1] - hi) <= 2e-5 * hi + 1e-9):
            ck.fail(pic, "%s at %.0f bytes: interval drawn %g-%g, the samples give %g-%g" % (name, b, got[b][0], got[b][1], lo, hi))
    for b in got:
        if b not in want:
            ck.fail(pic, "%s at %g: an interval the rows do not have" % (name, b))


def tie_lines(g):
    """the tied groups as the picture lists them: runs of sizes with one group"""
    out, run = [], []
    for b in sorted(g):
        grp = " ~ ".join(r["_lab"] for r in g[b])
        if len(g[b]) > 1 and run and run[-1][1] == grp:
            run[-1][0].append(b)
        elif len(g[b]) > 1:
            run.append(([b], grp))
        else:
            run.append(([], ""))
    for bs, grp in run:
        if bs:
            rng = size_label(bs[0]).replace("KiB", " KiB").replace("MiB", " MiB").replace("GiB", " GiB")
            if len(bs) > 1:
                rng += "-" + size_label(bs[-1]).replace("KiB", " KiB").replace("MiB", " MiB").replace("GiB", " GiB")
            out.append(rng + ": " + grp)
    return out


def svg_block(texts, head):
    """the lines of a multi-line label that starts with head (continuations joined)"""
    at = [i for i, t in enumerate(texts) if t[2] == head]
    if not at:
        return []
    x = texts[at[0]][0]
    out = []
    for tx, _, t in texts[at[0] + 1:]:
        if tx != x:
            break
        if t.startswith("    ") and out:
            out[-1] += " " + t.strip()
        else:
            out.append(t)
    return out


def title_words(g, nc):
    """what the title of best_<key> says first"""
    if not nc:
        return "(no nccl rows"
    n = {"faster": 0, "a tie": 0, "slower": 0}
    for b, m in g.items():
        if b not in nc:
            continue
        f, c = m[0], nc[b]
        r = c["_t"] / f["_t"]
        tie = f["_lo"] is not None and c["_lo"] is not None and c["_lo"] / f["_hi"] <= 1 <= c["_hi"] / f["_lo"]
        n["a tie" if tie else "faster" if r > 1 else "slower"] += 1
    return ", ".join("%s at %d" % (k, v) for k, v in n.items() if v) + " of %d sizes" % len(nc)


def references(key_rows, rows, allrows, what):
    """{ref: {bytes: [values]}} of a degraded scenario's family picture (what: time or algbw)"""
    out = {}
    f0 = key_rows[0]
    for b in sorted({r["_b"] for r in key_rows}):
        vs = bounds_at(allrows, f0, b)
        h = healthy_at(rows, f0, b)
        for ref, v in ((REFS[0], vs), (REFS[1], [h["_t"]] if h else [])):
            if v:
                out.setdefault(ref, {})[b] = [t if what == "time" else b / (t * 1e3) for t in v]
    return out


def probe_scenarios(run):
    """the scenarios critical.csv names (its probes' pictures are probes_*), None without it or
    without its scenario column (an older one)"""
    rs = read_csv(os.path.join(run, "critical.csv"))
    return {r["scenario"] for r in rs} if rs and "scenario" in rs[0] else None


def check_marks(pic, run, b, cmds, xzero, ck):
    """straggler_delay_<size>: every critical delay of critical.csv at size b (measured and the
    model's) an in-range point of the marks' curve (the last one, after "time = delay")"""
    want = []
    for r in read_csv(os.path.join(run, "critical.csv")):
        if num(r.get("bytes")) != b:
            continue
        for c in ("critical_delay_us", "model_critical_delay_us"):
            v = num(r.get(c))
            if v is not None and v >= 0:
                want.append(v / 1000 if v > 0 else xzero)
    top = cmds[0] if cmds else []
    i = next((k for k, c in enumerate(top) if c["title"] == "time = delay"), None)
    got = [w for c in top[i + 1:] for w in c["rows"]] if i is not None else []
    for x in want:
        # (the data file holds x to 4 significant digits)
        w = next((w for w in got if abs(float(w[0]) - x) <= 5e-4 * x + 1e-9), None)
        if w is None:
            ck.fail(pic, "critical delay %g ms not marked" % x)
        elif w[-1] != "i":
            ck.fail(pic, "critical delay %g ms marked off the axis" % x)


def never_bound(r, allrows, probes):
    """the largest delay (us) tried at critical.csv row r's size: its note, else the probes'"""
    m = re.search(r"up to ([0-9.]+) ms", r.get("note", ""))
    if m:
        return float(m.group(1)) * 1000
    b = num(r.get("bytes"))
    ds = [num(x.get("delay_us")) or 0 for x in allrows if num(x.get("bytes")) == b and x.get("scenario", "") in (probes or ())
          and (num(x.get("straggler_rank")) or -1) >= 0]
    return max(ds) if ds else None


def check_critical(pic, run, allrows, cmds, ck):
    """critical_delay: critical.csv's delays (ms) against size, measured and model; every size
    where none was found an open triangle at the largest delay tried, "none up to X ms" """
    want, labels = {}, {}
    probes = probe_scenarios(run)
    for r in read_csv(os.path.join(run, "critical.csv")):
        b, a = num(r.get("bytes")), r.get("algorithm", "stragglar")
        model = r.get("source", "gpu").lower() == "model"
        v = num(r.get("critical_delay_us"))
        if b and v is not None and v >= 0:
            want.setdefault(a + (" (model)" if model else " (measured)"), {})[b] = [v / 1000]
        elif b and not model and r.get("status", "never" if r.get("critical_delay_us") == "inf" else "") == "never":
            nb = never_bound(r, allrows, probes)
            if nb:
                name = a + " (measured): never won up to the delay shown"
                want.setdefault(name, {})[b] = [nb / 1000]
                labels[(name, b)] = "none up to %s ms" % ("%g" % (nb / 1000))
        v = num(r.get("model_critical_delay_us"))
        if b and v is not None and v >= 0:
            want.setdefault(a + " (model)", {})[b] = [v / 1000]
    top = cmds[0] if cmds else []
    got = [c for c in top if c["title"]]
    if {c["title"] for c in got} != set(want):
        ck.fail(pic, "series %s, critical.csv has %s" % (sorted(c["title"] for c in got), sorted(want)))
    for c in got:
        if c["title"] in want:
            ck.points(pic, c["title"], c["pts"], want[c["title"]])
    # the labels: one curve per block, in the blocks' order
    lab = [c for c in top if not c["title"]]
    for k, c in enumerate(got):
        for w in lab[k]["rows"] if k < len(lab) else []:
            b = next((v for v in want.get(c["title"], {}) if close(v, float(w[0]))), None)
            if (c["title"], b) in labels and w[2] != labels[(c["title"], b)]:
                ck.fail(pic, "%s at %.0f bytes: labelled '%s', want '%s'" % (c["title"], b, w[2], labels[(c["title"], b)]))
    for (name, b), t in labels.items():
        if not any(w[2] == t for c in lab for w in c["rows"]):
            ck.fail(pic, "%.0f bytes: '%s' not written" % (b, t))


def check_placement(pdir, tables, rows, ck):
    """every picture of results.csv says where its ranks ran: "co-located" only where ranks share
    a GPU; a single placement other than 1 rank/GPU named in the title"""
    pls = {r.get("placement", "") or "1 rank/GPU" for r in rows}
    shared = {p for p in pls if not p.startswith("1 rank/GPU")}
    measured = any(r.get("source", "gpu").lower() != "model" for r in rows)
    n = 0
    for pic in tables:
        if pic.startswith(("phases_", "overlap_")):
            continue
        n += 1
        title = open(os.path.join(pdir, pic + ".svg")).read() if os.path.exists(os.path.join(pdir, pic + ".svg")) else ""
        title = re.sub(r"<[^>]*>", " ", title)
        if not shared and "co-located" in title:
            ck.fail(pic, "says co-located; the ranks ran %s" % " and ".join(sorted(pls)))
        if len(pls) == 1 and shared and "co-located" not in title:
            ck.fail(pic, "does not say co-located (%s)" % next(iter(pls)))
        # (a run of the model alone names a modelled node, no placement)
        if len(pls) == 1 and not shared and measured and next(iter(pls)) not in title:
            ck.fail(pic, "does not name the placement %s" % next(iter(pls)))
    return n
