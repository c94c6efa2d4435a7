#!/usr/bin/env python3
"""check_history.py RUNS_DIR HISTORY_DIR: recomputes `arbench history`'s verdicts from the run
folders themselves (results.csv, samples.csv, critical.csv, meta.txt), without plots/, and
compares them with HISTORY_DIR/history.md: the groups (machine, GPU count, placement, source,
dtype, timing method), each group's nights, and per series the verdict and the rule that
decided it (docs/statistics.md, Regressions; docs/morning.md). The intervals are taken from
samples.csv (order statistics), and results.csv's interval columns are checked against them.
Prints one line per disagreement and a last line "checked S series in G groups, F flagged";
exit 1 on any disagreement."""
import csv, math, os, re, statistics, sys

MIN_EFFECT = 0.03  # docs/statistics.md: the smallest change that matters


def read_csv(path):
    with open(path, newline='') as fh:
        text = fh.read().replace('\r', '')
    rows = list(csv.reader(text.splitlines()))
    if not rows:
        return []
    head = [h.strip().lower() for h in rows[0]]
    return [dict(zip(head, [v.strip() for v in r])) for r in rows[1:] if any(v.strip() for v in r)]


def num(s):
    try:
        x = float(s)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def median_interval(xs):
    """[x(l), x(n+1-l)] of the sorted samples, l the largest rank covering at least 95% of the
    median; below 6 samples [min, max]; returns (lo, hi, coverage in percent)."""
    xs = sorted(xs)
    n = len(xs)
    best, level = 1, 100 * (1 - 2 * 0.5 ** n)
    for l in range(1, n // 2 + 1):
        cover = 1 - 2 * sum(math.comb(n, k) for k in range(l)) / 2 ** n
        if cover >= 0.95:
            best, level = l, 100 * cover
    return xs[best - 1], xs[n - best], level


def setting(row, name, dflt):
    for kv in row.get('settings', '').split(';'):
        if '=' in kv and kv.split('=', 1)[0].strip() == name:
            return kv.split('=', 1)[1].strip()
    return dflt


def size_words(b):
    units = ['B', 'KiB', 'MiB', 'GiB', 'TiB']
    i = 0
    while i < 4 and b >= 1024:
        b /= 1024
        i += 1
    return f'{b:g} {units[i]}'


problems = []


def nights(runs):
    """Every night: (time, dir, group, words, kind) per group the folder's rows belong to."""
    out = []
    for name in sorted(os.listdir(runs)):
        d = os.path.join(runs, name)
        res = os.path.join(d, 'results.csv')
        if not os.path.isfile(res) or os.path.exists(os.path.join(d, 'INCOMPLETE')) or os.path.exists(os.path.join(d, 'FAILED')):
            continue
        rows = [r for r in read_csv(res) if r.get('source', 'gpu').lower() != 'model']
        if not rows:
            continue
        meta = open(os.path.join(d, 'meta.txt')).read().replace('\r', '') if os.path.exists(os.path.join(d, 'meta.txt')) else ''
        m = re.search(r'^placement:[ \t]*([^(\n]*?)[ \t]*(\(|$)', meta, re.M)
        pl = m.group(1) if m else (rows[0].get('placement') or '1 rank/GPU')
        src = 'gpu' if any(r.get('source', 'gpu').lower() != 'nccl-tests' for r in rows) else 'nccl-tests'
        mine = [r for r in rows if (r.get('source', 'gpu').lower() == 'nccl-tests') == (src == 'nccl-tests')]
        first = mine[0]
        host, gpu, n = first['host'], first['gpu'], first['n_gpus']
        words = f'{host}: {gpu} x{n}, 1 rank/GPU' if pl == '1 rank/GPU' else f'{host}: {gpu}, ' + (
            f'{n} ranks on {int(n) // int(pl.split()[0])} GPU' + ('s' if int(n) // int(pl.split()[0]) > 1 else '')
            if re.match(r'^\d+ ranks?/GPU$', pl) else f'{n} ranks, {pl}')
        if src == 'nccl-tests':
            words += ', nccl-tests imports (dated when imported)'
        kinds = []
        for r in mine:
            k = (r.get('dtype') or 'float32', 'nccl-tests' if src == 'nccl-tests' else setting(r, 'timing.mode', 'events'))
            if k not in kinds:
                kinds.append(k)
        for k in kinds:
            w = words + (f', {k[0]}' if k[0] != 'float32' else '') + (f', {k[1]} timing' if k[1] not in ('events', 'nccl-tests') else '')
            out.append((first['timestamp'], d, (host, gpu, n, pl, src) + k, w, k))
    return sorted(out, key=lambda x: (x[0], x[1]))


def values(d, kind, src_kind):
    """{(metric, series, bytes): (value, cost, lo, hi, rel, ci_ok, never, ci_words)} of one night
    and kind: the better row where a series has two."""
    res = read_csv(os.path.join(d, 'results.csv'))
    samples = {}
    sp = os.path.join(d, 'samples.csv')
    if os.path.exists(sp):
        for s in read_csv(sp):
            samples.setdefault(s['row_key'], []).append(float(s['time_us']))
    out = {}
    scen_kind = {}

    def put(key, v):
        if key not in out or v[1] < out[key][1]:
            out[key] = v

    for r in res:
        src = r.get('source', 'gpu').lower()
        if src == 'model' or r.get('status', '').lower() != 'ok':
            continue
        k = (r.get('dtype') or 'float32', 'nccl-tests' if src == 'nccl-tests' else setting(r, 'timing.mode', 'events'))
        scen_kind.setdefault(r.get('scenario', ''), k)
        if k != kind or r.get('overlap_reduce_pct', ''):
            continue
        med, b = num(r['time_us_median']), int(float(r['bytes']))
        a, t = r['algorithm'], r.get('transport', '')
        lab = f'nccl-tests {t}' if src == 'nccl-tests' else 'nccl' if a == 'nccl' else f'{a}/{t}' if t not in ('', '-', 'model') else a
        if setting(r, 'nccl.registration', 'none') != 'none':
            lab += ' ' + setting(r, 'nccl.registration', 'none')
        rel = (num(r.get('time_us_stdev')) or 0) / med
        lo = hi = None
        ci_ok, ci_words = False, 'no interval'
        xs = samples.get(r.get('row_key', ''), [])
        if xs:
            lo, hi, level = median_interval(xs)
            got = (num(r.get('time_us_ci_lo')), num(r.get('time_us_ci_hi')), int(float(r.get('n_samples') or 0)))
            if got != (lo, hi, len(xs)) or abs(statistics.median(xs) - med) > 0.00051:
                problems.append(f'{d}: row {r["row_key"]}: results.csv says median {med} interval {got}, its samples {statistics.median(xs)} ({lo}, {hi}, {len(xs)})')
            ci_ok = level >= 95
            ci_words = f'covers {level:.1f}% ({len(xs)} samples)'
        straggled = int(float(r.get('straggler_rank') or -1)) >= 0 or r.get('stragglers', '')
        degraded = int(float(r.get('degraded_rank') or -1)) >= 0 or r.get('degraded', '')
        if not straggled and not degraded:
            put(('algbw', lab, b), (b / (med * 1e3), med, lo, hi, rel, ci_ok, False, ci_words))
        elif not straggled and int(float(r.get('degraded_rank') or -1)) >= 0 and num(r.get('lower_bound_us')):
            lb = num(r['lower_bound_us'])
            f = float(r.get('factor') or 1)
            put(('degraded', f'{lab} x{f:g}', b), (med / lb, med / lb, lo and lo / lb, hi and hi / lb, rel, ci_ok, False, ci_words))
    cp = os.path.join(d, 'critical.csv')
    if os.path.exists(cp):
        for c in read_csv(cp):
            if c.get('source', 'gpu').lower() == 'model':
                continue
            if scen_kind.get(c.get('scenario', ''), next(iter(scen_kind.values()), None)) != kind:
                continue
            v = num(c.get('critical_delay_us'))
            key = ('critical', c.get('algorithm') or 'stragglar', int(float(c['bytes'])))
            if v is not None and v >= 0 and c.get('status', 'found') != 'never':
                put(key, (v / 1000, v / 1000, None, None, 0, False, False, ''))
            else:
                m = re.search(r'up to ([0-9.]+) ms', c.get('note', ''))
                if m:
                    put(key, (float(m.group(1)), float(m.group(1)), None, None, 0, False, True, ''))
    return out


def chosen(metric, b):
    return metric != 'algbw' or b in (1024, 1 << 20, 64 << 20, 1 << 30)


def main():
    runs, hist = sys.argv[1], sys.argv[2]
    groups = {}
    for ts, d, g, w, k in nights(runs):
        groups.setdefault(g, {'words': w, 'nights': []})['nights'].append((ts, d, k))
    # history.md: its sections and their rows
    md = {}
    section = None
    for line in open(os.path.join(hist, 'history.md')):
        line = line.rstrip('\n')
        if line.startswith('## '):
            section = line[3:]
            md[section] = {'rows': {}, 'head': []}
        elif section and line.startswith('| ') and not line.startswith('| metric') and not line.startswith('|---'):
            f = [x.strip() for x in line.strip('|').split('|')]
            md[section]['rows'][(f[0], f[1], f[2])] = (f[7].strip('*'), f[8])
        elif section and line:
            md[section]['head'].append(line)
    words = {'algbw': 'algbw (GB/s)', 'critical': 'critical delay (ms)', 'degraded': 'time / OPTCC bound'}
    if sorted(md) != sorted(g['words'] for g in groups.values()):
        problems.append(f'groups: history.md has {sorted(md)}, the folders give {sorted(g["words"] for g in groups.values())}')
    nseries = nflag = 0
    for g in groups.values():
        ns = g['nights']
        sec = md.get(g['words'])
        if sec is None:
            continue
        want = f'{len(ns)} night{"s" if len(ns) > 1 else ""}: {ns[0][0][:10]} to {ns[-1][0][:10]}.'
        if not sec['head'] or sec['head'][0] != want:
            problems.append(f'{g["words"]}: history.md says {sec["head"][:1]}, want {want!r}')
        vals = [values(d, k, None) for _, d, k in ns]
        dates = [ts[:10] for ts, _, _ in ns]
        expect = {}
        if len(ns) >= 3:
            for key in sorted(set().union(*vals)):
                metric, series, b = key
                if not chosen(metric, b) or key not in vals[-1]:
                    continue
                earlier = [(i, vals[i][key]) for i in range(len(ns) - 2, -1, -1) if key in vals[i]][:14]
                if len(earlier) < 2:
                    continue
                L = vals[-1][key]
                pi, P = earlier[0]
                ev = [v[0] for _, v in earlier]
                m, sd = statistics.median(ev), statistics.stdev(ev)
                up = metric == 'algbw'
                if P[5] and L[5]:
                    rule = 'intervals'
                    if L[2] > P[3] and L[1] - P[1] >= MIN_EFFECT * P[1]:
                        worse = True
                    elif L[3] < P[2] and P[1] - L[1] >= MIN_EFFECT * P[1]:
                        worse = False
                    else:
                        worse = None
                    if worse is None:
                        word = 'within noise'
                    elif ((m - L[0]) if up == worse else (L[0] - m)) <= 3 * sd:
                        word = "within the nights' drift"
                    else:
                        word = None
                else:
                    if metric == 'critical':
                        why = 'a critical delay has no interval'
                    elif not L[5]:
                        why = f'no interval on {dates[-1]}' if L[2] is None else f'the interval of {dates[-1]} {L[7]}'
                    else:
                        why = f'no interval on {dates[pi]}' if P[2] is None else f'the interval of {dates[pi]} {P[7]}'
                    rule = f'spread ({why})'
                    rels = [v[4] for _, v in earlier] + [L[4]]
                    spread = max(sd, sum(rels) / len(rels) * m)
                    thr = max(3 * spread, 0.01 * m)
                    worse = (L[0] < m) if up else (L[0] > m)
                    word = None if abs(L[0] - m) > thr else 'within noise'
                if word is None:
                    word = {'algbw': ('slower', 'faster'), 'critical': ('later', 'earlier'),
                            'degraded': ('further from the bound', 'closer to the bound')}[metric][0 if worse else 1]
                    nflag += 1
                expect[(words[metric], series, size_words(b))] = (word, rule)
        nseries += len(expect)
        got = sec['rows']
        for k in sorted(set(expect) | set(got)):
            if expect.get(k) != got.get(k):
                problems.append(f'{g["words"]}: {" ".join(k)}: history.md says {got.get(k)}, recomputed {expect.get(k)}')
    for p in problems:
        print(p)
    print(f'checked {nseries} series in {len(groups)} groups, {nflag} flagged')
    sys.exit(1 if problems else 0)


main()
