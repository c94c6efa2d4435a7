#!/usr/bin/env python3
"""compare.md of tools/compare_nccl_tests.sh recomputed from its inputs (tests/test_compare.sh),
independently of tools/compare_nccl_tests.awk and tools/nccl_tests_log.awk:

  check_compare.py check COMPARE_MD RUN_DIR LOG...
      reads nccl-tests' logs (every all_reduce_perf test, its -R and -G from the command line
      before it, each result line of a size one sample), arbench's results.csv (and samples.csv
      when there is one: its intervals are recomputed from the samples), computes every median,
      95% interval (order statistics, docs/statistics.md), verdict and ratio, and compares them
      with compare.md's tables and counting lines, cell by cell. Prints "FAIL: ..." lines and
      "kinds: ..." (the verdicts seen); exit 1 on any failure.
  check_compare.py make-run LOG_DIR OUT_DIR
      writes OUT_DIR/results.csv and samples.csv: an arbench run folder on the logs' GPUs whose
      rows are placed around the logs' medians so that every kind of verdict occurs (same,
      slower, faster, tie, one sample, an interval under 95%, a tie group, rows that must not be
      ranked)."""
import csv, math, os, random, re, sys

fails = []


def fail(msg):
    fails.append(msg)


# ---- the statistics (docs/statistics.md) ----
def ci_rank(n):
    """l of the interval [x(l), x(n+1-l)]: the largest with coverage >= 95%, 1 below 6 samples"""
    l = 1
    for k in range(0, (n + 1) // 2):
        cover = 1 - 2 * sum(math.comb(n, j) for j in range(k + 1)) / 2 ** n
        if cover >= 0.95:
            l = k + 1
        else:
            break
    return l


def stats(xs):
    s = sorted(xs)
    n = len(s)
    med = s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2
    l = ci_rank(n)
    return {'med': med, 'lo': s[l - 1], 'hi': s[n - l], 'n': n}


# ---- nccl-tests' logs ----
CMD = re.compile(r'^#.*?(?:^|\s)((?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)*)(\S*all_reduce_perf\S*|\S*_perf)(\s.*)?$')


def read_logs(paths):
    """modes in order of appearance: label -> dict(T, G, R, graph, env, tests, x[(side, bytes)],
    bad[(side, bytes)], unchecked); and the tests' ranks, GPU models, dtypes"""
    modes, facts = {}, {'ranks': set(), 'model': set(), 'dtype': set()}
    for p in paths:
        with open(p, errors='replace') as fh:
            lines = fh.read().splitlines()
        t = None
        tests = []

        def new():
            d = {'T': 1, 'G': 1, 'R': None, 'graph': 0, 'env': [], 'coll': '', 'rows': [],
                 'closed': False, 'ranks': 0, 'model': '', 'cmd': False}
            tests.append(d)
            return d
        for line in lines:
            if t is None:
                t = new()
            if line.startswith('#'):
                body = line.lstrip('#').strip()
                if body.startswith(('Out of bounds values', 'Avg bus bandwidth', 'Collective test concluded')):
                    t['closed'] = True
                    continue
                if body.startswith(('nccl-tests version', 'Collective test starting', 'nThread ')):
                    if t['rows'] or t['closed'] or (body.startswith('nThread') and 'hdr' in t):
                        t = new()
                    m = re.match(r'Collective test starting: (\S+)', body)
                    if m:
                        t['coll'] = m.group(1)
                    m = re.match(r'nThread (\d+) nGpus (\d+) .* graph: (\d+)', body)
                    if m:
                        t['T'], t['G'], t['graph'], t['hdr'] = int(m.group(1)), int(m.group(2)), int(m.group(3)), 1
                    continue
                m = re.match(r'Rank\s+\d+\s+Group.*\] (.*\S)\s*$', body)
                if m:
                    t['ranks'] += 1
                    t['model'] = m.group(1)
                    continue
                if 'Collective test' in body:
                    continue
                toks = body.split()
                b = next((i for i, w in enumerate(toks) if re.fullmatch(r'\S*[a-z_]+_perf[a-z_]*', w)), None)
                if b is None:
                    continue
                if t['cmd'] or t['rows'] or t['closed']:
                    t = new()
                t['cmd'] = True
                t['coll'] = toks[b].split('/')[-1]
                t['env'] = [w for w in toks[:b] if re.match(r'[A-Za-z_][A-Za-z0-9_]*=', w) and not w.startswith('NCCL_NVLS_ENABLE=')]
                t['R'] = 0
                opts = toks[b + 1:]
                for i, w in enumerate(opts):
                    val = opts[i + 1] if i + 1 < len(opts) else ''
                    for flag, key in (('-t', 'T'), ('-g', 'G'), ('-R', 'R'), ('-G', 'graph')):
                        if w == flag:
                            t[key] = int(val)
                continue
            f = line.split()
            if len(f) in (12, 13) and f[0].isdigit() and f[1].isdigit() and re.fullmatch(r'[a-z][a-z0-9_]*', f[2]):
                if t['closed']:
                    t = new()
                o = 5 if len(f) == 13 else 4
                t['rows'].append((f[0], f[2], f[o], f[o + 3], f[o + 4], f[o + 7]))
        for t in tests:
            if not (t['rows'] and t['closed'] and (t['coll'] == '' or t['coll'].startswith('all_reduce_perf'))):
                continue
            facts['ranks'].add(t['ranks'] or t['T'] * t['G'])
            if t['model']:
                facts['model'].add(t['model'])
            label = ' '.join(t['env'] + ['-t %d -g %d -R %s' % (t['T'], t['G'], '?' if t['R'] is None else t['R'])])
            if t['graph']:
                label += ' -G %d' % t['graph']
            m = modes.setdefault(label, {'G': t['G'], 'R': t['R'], 'graph': t['graph'], 'env': t['env'], 'tests': 0,
                                         'x': {}, 'bad': {}, 'unchecked': 0})
            m['tests'] += 1
            for size, typ, t1, w1, t2, w2 in t['rows']:
                facts['dtype'].add({'float': 'float32', 'half': 'fp16', 'bfloat16': 'bf16'}.get(typ, typ))
                for side, tm, w in (('out-of-place', t1, w1), ('in-place', t2, w2)):
                    try:
                        v = float(tm)
                    except ValueError:
                        continue
                    if not v > 0:
                        continue
                    m['x'].setdefault((side, size), []).append(v)
                    if w == 'N/A':
                        m['unchecked'] += 1
                    elif w != '0':
                        m['bad'][(side, size)] = m['bad'].get((side, size), 0) + 1
    return modes, facts


# ---- arbench's run folder ----
def setting(s, name):
    for kv in (s or '').split(';'):
        if kv.startswith(name + '='):
            return kv[len(name) + 1:]
    return ''


def read_run(d):
    rows = list(csv.DictReader(open(os.path.join(d, 'results.csv'))))
    samples = {}
    sp = os.path.join(d, 'samples.csv')
    if os.path.exists(sp):
        for r in csv.DictReader(open(sp)):
            samples.setdefault(r['row_key'], []).append(float(r['time_us']))
    out = []
    for r in rows:
        g = lambda k, dflt='': (r.get(k) or dflt).strip()
        if g('source', 'gpu') != 'gpu' or g('stragglers') or g('degraded') or g('straggler_rank', '-1') != '-1' \
                or float(g('factor', '1')) != 1 or g('overlap_reduce_pct') or g('placement', '1 rank/GPU') != '1 rank/GPU':
            continue
        row = {'tm': setting(g('settings'), 'timing.mode') or 'events', 'reg': setting(g('settings'), 'nccl.registration') or 'none',
               'alg': g('algorithm'), 'tp': g('transport'), 'b': g('bytes'), 'status': g('status'), 'wrong': g('wrong', '0'),
               'rot': setting(g('settings'), 'nccl.rotate') == 'on'}
        # run as nccl-tests runs it: rotating, and in graph timing launched without an upload
        row['rot'] = row['rot'] and (row['tm'] != 'graph' or setting(g('settings'), 'timing.graph_upload') == 'off')
        bad = row['status'] in ('error', 'timeout') or (row['wrong'] not in ('', '0') and float(row['wrong']) > 0)
        row['bad'] = bad
        row['ok'] = not bad and row['status'] == 'ok' and g('time_us_median') != ''
        if row['ok']:
            row['med'] = float(g('time_us_median'))
            row['n'], row['lo'], row['hi'] = g('n_samples'), g('time_us_ci_lo'), g('time_us_ci_hi')
            key = g('row_key')
            if key in samples:  # the interval from the samples themselves, and the columns checked
                st = stats(samples[key])
                for k, v in (('lo', st['lo']), ('hi', st['hi']), ('med', st['med'])):
                    col = {'lo': row['lo'], 'hi': row['hi'], 'med': row['med']}[k]
                    if abs(float(col) - v) > 0.0015:
                        fail('results.csv row %s: %s %s, its samples give %.3f' % (key, k, col, v))
                if int(row['n'] or 0) != st['n']:
                    fail('results.csv row %s: n_samples %s, samples.csv has %d' % (key, row['n'], st['n']))
        out.append(row)
    return out


# ---- what compare.md prints (the rules, written again) ----
def us(t):
    return '%.1f' % t if t >= 1000 else '%.2f' % t


def has_iv(s):
    return s is not None and s['n'] not in ('', None) and int(s['n']) >= 2 and s['lo'] not in ('', None) \
        and float(s['lo']) <= float(s['hi'])


def cell(s):
    if s is None:
        return '-'
    if has_iv(s):
        return '%s [%s-%s]' % (us(s['med']), us(float(s['lo'])), us(float(s['hi'])))
    return us(s['med']) + (' (1 sample)' if s['n'] not in ('', None) and int(s['n']) == 1 else ' (no interval)')


def size_label(b):
    b, u = float(b), 0
    while u < 4 and b >= 1024:
        b /= 1024
        u += 1
    return '%g %s' % (b, ['B', 'KiB', 'MiB', 'GiB', 'TiB'][u])


def ratio_words(r, lo, hi):
    return '%s%.2fx (%.2f-%.2f)' % ('tie ' if lo <= 1 <= hi else '', r, lo, hi)


def pct(x):
    return '%.0f%%' % (100 * x)


def overlap(a, b):
    return float(a['lo']) <= float(b['hi']) and float(b['lo']) <= float(a['hi'])


def verdict(a, c):
    """a beside c, as a table cell: '-', 'no interval', 'same' or '**slower|faster N%**'"""
    if a is None or c is None:
        return '-'
    if not has_iv(a) or not has_iv(c):
        return 'no interval'
    if overlap(a, c):
        return 'same'
    d = a['med'] / c['med'] - 1
    return '**%s**' % ('slower ' + pct(d) if d > 0 else 'faster ' + pct(-d))


def tally(pairs):
    """(compared, same, slower by, faster by, lacking an interval) over (a, c) pairs measured by both"""
    cmp = nsame = nflag = 0
    slow, fast = [], []
    for a, c in pairs:
        if not has_iv(a) or not has_iv(c):
            nflag += 1
            continue
        cmp += 1
        d = a['med'] / c['med'] - 1
        if overlap(a, c):
            nsame += 1
        elif d > 0:
            slow.append(d)
        else:
            fast.append(-d)
    return cmp, nsame, slow, fast, nflag


def by_range(v):
    return ' (by ' + (pct(min(v)) if pct(min(v)) == pct(max(v)) else pct(min(v)) + '-' + pct(max(v))) + ')' if v else ''


def group(cands):
    """the fastest candidate (first of equals) and how many others have an interval overlapping its"""
    if not cands:
        return None
    best = min(range(len(cands)), key=lambda i: (cands[i]['med'], i))
    b = dict(cands[best])
    b['more'] = 0
    if has_iv(b):
        b['more'] = sum(1 for i, c in enumerate(cands) if i != best and has_iv(c) and float(c['lo']) <= float(b['hi']))
    return b


def nt_stat(m, side, b):
    x = m['x'].get((side, b))
    if not x or m['bad'].get((side, b)):
        return None
    return stats(x)


def table(md, heading):
    """the rows of the table under a heading: size -> cells (without the size)"""
    lines = md.splitlines()
    try:
        i = lines.index(heading)
    except ValueError:
        fail('compare.md has no heading %r' % heading)
        return {}
    rows = {}
    for line in lines[i + 1:]:
        if line.startswith('#'):
            break
        if line.startswith('| ') and not line.startswith('| size') and not line.startswith('|--'):
            c = [x.strip() for x in line.strip().strip('|').split('|')]
            rows[c[0]] = c[1:]
    return rows


def check(md_path, run_dir, logs):
    md = open(md_path).read()
    modes, facts = read_logs(logs)
    rows = read_run(run_dir)
    order = list(modes)
    sizes = sorted({r['b'] for r in rows if r['ok']} | {b for m in modes.values() for (_, b) in m['x']}, key=int)
    an, best = {}, {}
    one = {}  # the nccl rows on one buffer (nccl.rotate off), apart from the rotating ones (an)
    rowsn = {}
    for r in rows:
        rowsn.setdefault(r['tm'], [0, 0])
        rowsn[r['tm']][0] += 1
        rowsn[r['tm']][1] += r['bad']
        if not r['ok']:
            continue
        s = {'med': r['med'], 'lo': r['lo'], 'hi': r['hi'], 'n': r['n']}
        if r['alg'] == 'nccl':
            k = (r['tm'], r['reg'], r['b'])
            d = an if r['rot'] else one
            if k not in d or s['med'] < d[k]['med']:
                d[k] = s
        else:
            s['lab'] = r['alg'] + '/' + r['tp'] + ('' if r['reg'] == 'none' else ' (%s)' % r['reg'])
            best.setdefault((r['tm'], r['b']), []).append(s)
    kinds = set()
    regs = ['none', 'registered', 'symmetric']
    # same mode: rotating rows where a timing and registration has any, else those on one buffer
    rotating = {k[:2] for k in an}
    both = sorted({tr for tr in rotating & {k[:2] for k in one} if tr[0] == 'host'}, key=lambda tr: regs.index(tr[1]))
    fixed = [tr for tm in ('host', 'graph') for tr in [(tm, reg) for reg in regs] if tr not in rotating and any(k[:2] == tr for k in one)]
    rot_an = dict(an)
    for k, v in one.items():
        if k[:2] not in rotating:
            an[k] = v
    note = ' (`nccl.rotate=on`), as nccl-tests shifts every iteration, and in graph timing launch each graph without uploading it first (`timing.graph_upload=off`), as nccl-tests `-G` does%s.' % (
        '; **not so** in ' + ', '.join('%s %s' % tr for tr in fixed) +
        ' (rows run otherwise: on one buffer, whose data the L2 cache may still hold, or in graph timing with the graph uploaded before its launch)' if fixed else '')
    if note not in md:
        fail('same-mode text: want it to end %r' % note)
    kinds.add('one-buffer fallback' if fixed else 'all rotating')
    # NCCL on one buffer against rotating
    if both:
        got = table(md, '## NCCL on one buffer against rotating')
        for tm, reg in both:
            cmp, nsame, slow, fast, _ = tally((one[k], rot_an[k]) for k in ((tm, reg, b) for b in sizes)
                                              if k in one and k in rot_an)
            line = '- %s timing, %s: one buffer faster at %d of %d sizes%s, same at %d, slower at %d%s' % (
                tm, reg, len(fast), cmp, by_range(fast), nsame, len(slow), by_range(slow))
            if line not in md.splitlines():
                fail('one-buffer line: want %r' % line)
            kinds.add('one buffer faster' if fast else 'one buffer not faster')
        for b in sizes:
            want = []
            for tm, reg in both:
                a, c = one.get((tm, reg, b)), rot_an.get((tm, reg, b))
                want += [cell(a), cell(c), verdict(a, c)]
            if got.get(size_label(b)) != want:
                fail('one buffer at %s: compare.md %s, want %s' % (size_label(b), got.get(size_label(b)), want))
    elif '## NCCL on one buffer against rotating' in md:
        fail('a one-buffer section without both kinds of nccl rows')

    def same(reg, graph):
        for lab in order:
            m = modes[lab]
            if m['G'] == 1 and m['R'] == regs.index(reg) and (m['graph'] > 0) == graph and not m['env']:
                return lab
        return None
    for tm in ('host', 'graph'):
        got = table(md, '### %s timing (nccl-tests %s `-G`)' % (tm, 'with' if tm == 'graph' else 'without'))
        for b in sizes:
            want = []
            for reg in regs:
                a = an.get((tm, reg, b))
                lab = same(reg, tm == 'graph')
                c = nt_stat(modes[lab], 'in-place', b) if lab else None
                v = verdict(a, c)
                kinds.add(v.strip('*').split(' ')[0])
                want += [cell(a), cell(c), v]
            if got.get(size_label(b)) != want:
                fail('%s same mode at %s: compare.md %s, want %s' % (tm, size_label(b), got.get(size_label(b)), want))
            # the counting line
        for reg in regs:
            lab = same(reg, tm == 'graph')
            if not lab or not any(k[:2] == (tm, reg) for k in an):
                continue
            pairs = ((an.get((tm, reg, b)), nt_stat(modes[lab], 'in-place', b)) for b in sizes)
            cmp, nsame, slow, fast, nflag = tally((a, c) for a, c in pairs if a is not None and c is not None)
            line = '- %s timing, %s (`%s`): ' % (tm, reg, lab)
            if not cmp and not nflag:
                line += 'no size measured by both'
            elif not cmp:
                line += 'no size with an interval on both sides'
            else:
                line += 'same at %d of %d sizes, arbench slower at %d%s, faster at %d%s' % (nsame, cmp, len(slow), by_range(slow), len(fast), by_range(fast))
            if nflag:
                line += '; %d size%s with one side lacking an interval, not counted' % (nflag, '' if nflag == 1 else 's')
            if line not in md.splitlines():
                fail('same-mode line: want %r' % line)
    for tm in ('host', 'events', 'graph'):
        if not any(r['tm'] == tm and r['ok'] for r in rows):
            continue
        g = tm == 'graph'
        got = table(md, '### %s timing' % tm)
        cmp = nfl = nfa = nti = nsl = 0
        low = None
        for b in sizes:
            a = group(best.get((tm, b), []))
            cands = []
            for lab in order:
                m = modes[lab]
                if (m['graph'] > 0) != g:
                    continue
                for side in ('out-of-place', 'in-place'):
                    s = nt_stat(m, side, b)
                    if s:
                        s['lab'] = lab + ', ' + side
                        cands.append(s)
            c = group(cands)
            if a is None and c is None:
                if size_label(b) in got:
                    fail('%s best at %s: a row where neither side has one' % (tm, size_label(b)))
                continue
            v = '-'
            samp = '-'
            if a and c:
                r = c['med'] / a['med']
                if has_iv(a) and has_iv(c):
                    lo, hi = float(c['lo']) / float(a['hi']), float(c['hi']) / float(a['lo'])
                    v = ratio_words(r, lo, hi)
                    cmp += 1
                    if lo > 1:
                        nfa += 1
                        kinds.add('faster-best')
                    elif hi < 1:
                        nsl += 1
                        kinds.add('slower-best')
                    else:
                        nti += 1
                        kinds.add('tie')
                    if low is None or r < low[0]:
                        low = (r, size_label(b) + ' ' + v)
                else:
                    v = '%.2fx' % r
                    nfl += 1
                na, nc = a['n'] or '?', c['n'] or '?'
                samp = '%s / %s' % (na, nc)
                if not has_iv(a) or not has_iv(c):
                    samp += ', not counted'
                    kinds.add('not counted')
                elif int(na) < 6 or int(nc) < 6:
                    samp += ', interval under 95%'
                    kinds.add('under 95%')
            lab = lambda s: '-' if s is None else s['lab'] + (' ~ %d more' % s['more'] if s['more'] else '')
            if a and a['more']:
                kinds.add('group')
            want = [lab(a), cell(a), lab(c), cell(c), v, samp]
            if got.get(size_label(b)) != want:
                fail('%s best at %s: compare.md %s, want %s' % (tm, size_label(b), got.get(size_label(b)), want))
        line = '- %s timing: ' % tm
        if not cmp and not nfl:
            line += 'nccl-tests did not run with `-G`: nothing to set beside graph timing' if g and not any(m['graph'] for m in modes.values()) else 'no size measured by both'
        elif not cmp:
            line += 'no size with an interval on both sides'
        else:
            line += "arbench's best faster at %d of %d sizes, tie at %d, slower at %d (lowest: %s)" % (nfa, cmp, nti, nsl, low[1])
        if nfl:
            line += '; %d size%s with one side lacking an interval, not counted' % (nfl, '' if nfl == 1 else 's')
        line += '; %d rows, %d with wrong elements or errors' % tuple(rowsn.get(tm, [0, 0]))
        if line not in md.splitlines():
            fail('best line: want %r' % line)
    # the logs' table
    got = {}
    for line in md.splitlines():
        m = re.match(r'^\| `(.*)` \| (\d+) \| ([\d-]+) \| (\d+) \| (\d+) \| (\d+) \|$', line)
        if m:
            got[m.group(1)] = list(m.group(2, 3, 4, 5, 6))
    want = {}
    for lab, m in modes.items():
        ns = [len(v) for v in m['x'].values()]
        want[lab] = [str(m['tests']), str(min(ns)) if min(ns) == max(ns) else '%d-%d' % (min(ns), max(ns)),
                     str(len({b for (s, b) in m['x'] if s == 'out-of-place'})), str(sum(m['bad'].values())), str(m['unchecked'])]
    if got != want:
        fail("the logs' table: compare.md %s, want %s" % (got, want))
    print('kinds: ' + ' '.join(sorted(kinds)))


# ---- a run folder around the logs ----
def make_run(log_dir, out):
    logs = sorted(os.path.join(log_dir, f) for f in os.listdir(log_dir) if os.path.isfile(os.path.join(log_dir, f)))
    modes, facts = read_logs(logs)
    rnd = random.Random(7)
    os.makedirs(out, exist_ok=True)
    cols = ['run_id', 'gpu', 'n_gpus', 'nccl', 'source', 'algorithm', 'transport', 'dtype', 'bytes', 'straggler_rank', 'factor',
            'time_us_median', 'wrong', 'status', 'scenario', 'stragglers', 'degraded', 'overlap_reduce_pct', 'placement',
            'settings', 'row_key', 'n_samples', 'time_us_ci_lo', 'time_us_ci_hi', 'ci_level_pct', 'repeat_stop']
    res = csv.writer(open(os.path.join(out, 'results.csv'), 'w', newline=''))
    smp = csv.writer(open(os.path.join(out, 'samples.csv'), 'w', newline=''))
    res.writerow(cols)
    smp.writerow(['row_key', 'sample', 'time_us'])
    key = [0]
    gpu, ranks = sorted(facts['model'])[0] if facts['model'] else 'NVIDIA H200', sorted(facts['ranks'])[0]

    def row(alg, tp, b, tm, reg, base, n, status='ok', wrong='0', extra=None, rot=False, up=False):
        key[0] += 1
        xs = [round(base * (1 + 0.004 * (rnd.random() - 0.5)), 3) for _ in range(n)]
        st = stats(xs) if n and status == 'ok' else None
        settings = ';'.join(x for x in (reg != 'none' and 'nccl.registration=' + reg, rot and 'nccl.rotate=on',
                                        tm != 'events' and 'timing.mode=' + tm, up and 'timing.graph_upload=off') if x)
        r = {'run_id': 'made', 'gpu': gpu, 'n_gpus': ranks, 'nccl': '2.28.3', 'source': 'gpu', 'algorithm': alg,
             'transport': tp, 'dtype': 'float32', 'bytes': b, 'straggler_rank': -1, 'factor': 1, 'wrong': wrong,
             'status': status, 'scenario': tm + ('' if reg == 'none' else '-' + reg), 'placement': '1 rank/GPU',
             'settings': settings, 'row_key': key[0], 'repeat_stop': 'fixed'}
        if st:
            r.update({'time_us_median': '%.3f' % st['med'], 'n_samples': n, 'time_us_ci_lo': '%.3f' % st['lo'],
                      'time_us_ci_hi': '%.3f' % st['hi'], 'ci_level_pct': '%.1f' % (100 * (1 - 2 * sum(math.comb(n, j) for j in range(ci_rank(n))) / 2 ** n))})
            for i, x in enumerate(xs):
                smp.writerow([key[0], i + 1, '%.3f' % x])
        r.update(extra or {})
        res.writerow([r.get(c, '') for c in cols])
    sizes = sorted({b for m in modes.values() for (_, b) in m['x']}, key=int)
    regs = ['none', 'registered', 'symmetric']
    for tm in ('host', 'events', 'graph'):
        for i, b in enumerate(sizes):
            # nccl-tests' best of this method at b, and its in-place median in each registration
            ref = [stats(x)['med'] for lab, m in modes.items() if (m['graph'] > 0) == (tm == 'graph')
                   for (side, bb), x in m['x'].items() if bb == b] or [10.0]
            nt = min(ref)
            for reg in (regs if tm != 'events' else ['none']):
                lab = [l for l, m in modes.items() if m['G'] == 1 and m['R'] == regs.index(reg) and (m['graph'] > 0) == (tm == 'graph')]
                x = modes[lab[0]]['x'].get(('in-place', b)) if lab else None
                med = stats(x)['med'] if x else nt
                f, n = [(1.0, 10), (1.5, 10), (0.6, 10), (1.0, 1), (1.0, 4)][i % 5]
                # rotating (as nccl-tests), on one buffer (a few % faster below 64 MiB, as the
                # L2 cache makes it), or both; host symmetric on one buffer only (a run from
                # before nccl.rotate); events timing never rotates
                kinds = {'events': 'one'}.get(tm, {('host', 'symmetric'): 'one', ('graph', 'registered'): 'rot'}.get((tm, reg), 'both'))
                if kinds != 'one':  # graph symmetric rotates but uploads: not as nccl-tests
                    row('nccl', 'nccl', b, tm, reg, med * f, n, rot=True, up=tm == 'graph' and reg != 'symmetric')
                if kinds != 'rot':
                    row('nccl', 'nccl', b, tm, reg, med * f * (0.93 if int(b) < 64 << 20 else 1.0), n)
            f, n = [(0.5, 10), (1.0, 10), (1.6, 10), (0.5, 1), (0.5, 4)][i % 5]
            row('ring', 'ce', b, tm, 'none', nt * f, n)
            row('ring', 'sm', b, tm, 'none', nt * f * 1.0005, n)         # within ring/ce's interval
            row('rhd', 'll', b, tm, 'none', nt * f * 3, n)
            row('ring', 'll', b, tm, 'none', nt * f * 0.1, n, status='error', wrong='3')   # never ranked
            row('rhd', 'ce', b, tm, 'none', nt * f * 0.1, 0, status='n/a')
            row('ring', 'nccl-p2p', b, tm, 'none', nt * f * 0.1, n, extra={'placement': '2 ranks/GPU'})
            row('rhd', 'sm', b, tm, 'none', nt * f * 0.1, n, extra={'stragglers': '1:8000', 'straggler_rank': 1})


if __name__ == '__main__':
    if len(sys.argv) >= 4 and sys.argv[1] == 'check':
        check(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif len(sys.argv) == 4 and sys.argv[1] == 'make-run':
        make_run(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
    for f in fails[:20]:
        print('FAIL: ' + f)
    sys.exit(1 if fails else 0)
