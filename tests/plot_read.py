"""tests/plot_read.py: what tests/plot_points.py and its companions share: reading results.csv
and gnuplot's `set table` files (tests/plot_tables.sh writes one per picture) and the texts of
an SVG, comparing numbers to printing precision, and counting disagreements (Check)."""
import csv
import os
import re
import subprocess

REL = 2e-5


def num(s):
    try:
        v = float(s)
    except (TypeError, ValueError):
        return None
    return v if v == v and abs(v) != float("inf") else None


def close(a, b):
    return abs(a - b) <= REL * max(abs(a), abs(b)) + 1e-12


PANELS = {"reference": 0, "classic": 1, "swing": 2, "straggler-aware": 3, "optcc": 4}


def registry_families():
    """{algorithm: family} of the build's registry (arbench --list --format families, as plot.sh
    asks when the run's own binary is not at hand); {} without a build"""
    try:
        out = subprocess.run([os.path.join(os.environ.get("B", "build"), "arbench"), "--list", "--format", "families"],
                             capture_output=True, text=True, timeout=60)
    except OSError:
        return {}
    return dict(l.split() for l in out.stdout.splitlines() if len(l.split()) == 2) if out.returncode == 0 else {}


FAMILIES = registry_families()


def family(a):
    """the panel of algorithm a: 0 nccl (every panel), 1 classic, 2 Swing, 3 straggler-aware, 4 OPTCC:
    its registry family's, else (a name the registry does not know) by its name"""
    if a == "nccl":
        return 0
    if FAMILIES.get(a) in PANELS:
        return PANELS[FAMILIES[a]]
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
        k = "straggler_r%d_d%sms" % (sr, fmt_ms(num(r.get("delay_us")) or 0)) + others(r.get("stragglers", ""), "d")
    if dr >= 0:
        f = num(r.get("factor")) or 1
        k += ("_" if k else "") + "degraded_r%d_f%s" % (dr, "%d" % f if f == int(f) else "%g" % f) + others(r.get("degraded", ""), "f")
    return k


def others(lst, what):
    """the stragglers (what "d": RANK:DELAY_US) or degraded GPUs (what "f": RANK:FACTOR) after the
    first, as the pictures' names give them: "_and_r0_d2ms", "_and_r3_f2"; "" for none"""
    e = [x.split(":") for x in lst.split(";")[1:] if x]
    if not e:
        return ""
    return "_and" + "".join("_r%s_%s" % (x[0], "d" + fmt_ms(float(x[1])) + "ms" if what == "d" else "f" + x[1]) for x in e)


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


SIZE_RE = re.compile(r"^(\d+(?:\.\d+)?)(B|KiB|MiB|GiB|TiB)$")


def size_bytes(lab):
    m = SIZE_RE.match(lab)
    if not m:
        return None
    return float(m.group(1)) * 1024 ** ["B", "KiB", "MiB", "GiB", "TiB"].index(m.group(2))


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


def svg_texts(path):
    """the texts of an SVG with the x and y of the group that places each"""
    out = []
    if not os.path.exists(path):
        return out
    svg = open(path).read()
    for m in re.finditer(r'<g transform="translate\(([-0-9.]+),([-0-9.]+)\)[^>]*>\s*<text>([^<]*)</text>', svg):
        out.append((float(m.group(1)), float(m.group(2)), m.group(3).replace("&amp;", "&")))
    return out


def bar_curves(ck, pic, tables, pdir, names, ncurves, what, source):
    """the curves of bar picture pic: None (said) where it was not drawn (source has it), []
    (said) where it has not ncurves curves (what they are); its bars' tic labels in the SVG must
    be names, left to right"""
    if pic not in tables:
        ck.fail(pic, "not drawn (%s has it)" % source if not os.path.exists(os.path.join(pdir, pic + ".png"))
                else "drawn, but gnuplot wrote no table of it")
        return None
    ticks = [t for x, y, t in sorted(svg_texts(os.path.join(pdir, pic + ".svg"))) if t in names]
    if ticks != names:
        ck.fail(pic, "bars named %s from left to right, want %s" % (ticks, names))
    cmds = parse_table(os.path.join(pdir, pic + ".table"))
    cs = cmds[0] if cmds else []
    if len(cs) != ncurves:
        ck.fail(pic, "%d curves, want %d (%s)" % (len(cs), ncurves, what))
        return []
    return cs


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
