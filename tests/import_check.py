#!/usr/bin/env python3
"""tests/import_check.py RUN_DIR LOG...: reads nccl-tests' logs (text or -J JSON) on its own,
nothing of harness/record/ used, and compares every row of RUN_DIR/results.csv and every line of
RUN_DIR/samples.csv with them. A log is read as nccl-tests prints it: mpirun's --tag-output
tags and srun's labels removed, NCCL's own lines skipped (also one written into the middle of a
result line, cut at its host name), a test ending at its "# Avg bus bandwidth" line, tests of
other binaries than all_reduce_perf* left out, results of 0 bytes left out. Every size listed
again in a test is another sample of its row. For each row, in the order the logs list them:
size, side (transport), dtype, redop (settings), the ranks (n_gpus), every sample's time, the
median, algbw and busbw (the log's own for one sample, else bytes / median and x 2(n-1)/n),
#wrong (empty for N/A and for the "error" column of tables before 2.13) and the status. Prints
one line per mismatch and "N rows equal" or "N rows, K wrong"; exit 1 when any is wrong."""
import csv
import json
import re
import statistics
import sys

TAG = re.compile(r'\[\d+,\d+\]<std(?:out|err)>:')
SRUN = re.compile(r'^\s*\d+: ')
TYPES = {'int8': 1, 'uint8': 1, 'int32': 4, 'uint32': 4, 'int64': 8, 'uint64': 8, 'half': 2,
         'float': 4, 'double': 8, 'bfloat16': 2, 'f8e4m3': 1, 'f8e5m2': 1, 'char': 1, 'int': 4}
DTYPE = {'float': 'float32', 'double': 'float64', 'half': 'fp16', 'bfloat16': 'bf16',
         'char': 'int8', 'int': 'int32', 'f8e4m3': 'fp8_e4m3', 'f8e5m2': 'fp8_e5m2'}
# nccl-tests' own pass mark for the "error" column before 2.13, per rank beyond the first
TOLERANCE = {'half': 1e-2, 'bfloat16': 1e-2, 'float': 1e-5, 'double': 1e-12}
NCCL_LINE = re.compile(r'^\S+:\d+:\d+ \[\d+\] ')
HELP = re.compile(r'more process(es)? ha(s|ve) sent help message')


class Test:
    def __init__(self):
        self.coll = 'all_reduce_perf'
        self.named = False
        self.results = []  # one dict per result line
        self.ranks = 0
        self.threads = self.gpus = 0
        self.devices = 0


def side_values(fields, twelve):
    time, algbw, busbw, wrong = fields
    out = {'time': float(time), 'algbw': float(algbw), 'busbw': float(busbw),
           'wrong': None, 'delta': None}
    if wrong != 'N/A':
        if twelve:
            out['delta'] = float(wrong)
        else:
            out['wrong'] = int(float(wrong))
    return out


def result(fields, twelve, per):
    at = 4 if twelve else 5
    r = {'bytes': int(fields[0]), 'count': int(fields[1]), 'type': fields[2],
         'redop': fields[3]}
    r['sides'] = [side_values(fields[at:at + 4], twelve),
                  side_values(fields[at + per:at + per + 4], twelve)]
    return r


def read_text(path):
    command_coll_reset()
    lines = []
    with open(path, encoding='utf-8', errors='replace') as f:
        for raw in f:
            lines.append(SRUN.sub('', TAG.sub('', raw.rstrip('\r\n'))))
    hosts = set()
    for l in lines:
        m = re.match(r'\s*#\s*Rank\s+\d+.* on\s+(\S+)\s+device', l)
        if m:
            hosts.add(m.group(1))
        m = re.match(r'\s*([^\s:]+):\d+:\d+ \[\d+\]', l)
        if m:
            hosts.add(m.group(1))
    tests, cur, pending, columns = [], None, None, None
    for l in lines:
        s = l.strip()
        if not s:
            continue
        if s.startswith('#'):
            c = s.lstrip('#').strip()
            if cur is None or cur.ended:
                if re.match(r'(nccl-tests version|Collective test starting|nThread |Rank |size )', c):
                    cur = Test()
                    cur.ended = False
                    tests.append(cur)
                    columns = None
                    if command_coll:
                        cur.coll, cur.named = command_coll, True
            m = re.match(r'Collective test (starting|concluded): (\S+)', c)
            if m and cur is not None:
                cur.coll, cur.named = m.group(2), True
            m = re.match(r'nThread (\d+) nGpus (\d+)', c)
            if m:
                cur.threads, cur.gpus = int(m.group(1)), int(m.group(2))
            m = re.match(r'Rank\s+(\d+)', c)
            if m and cur is not None and not cur.ended:
                cur.ranks = max(cur.ranks, int(m.group(1)) + 1)
            if c.startswith('size ') and cur is not None:
                columns = c.split()
                if 'redop' not in columns and not cur.named:  # not AllReduce's table
                    cur.coll = 'a table without redop'
            if c.startswith('Avg bus bandwidth') and cur is not None:
                cur.ended = True
                command_coll_reset()
            m = re.search(r'(?:^|\s|/)([a-z_]+_perf\w*)(\s+-|$)', c)
            if m and not c.startswith('Collective'):
                set_command(m.group(1), cur)
            continue
        if NCCL_LINE.match(s) or HELP.search(s):
            continue
        if s[0].isdigit():
            glued = False
            for h in sorted(hosts, key=len, reverse=True):
                m = re.search(re.escape(h) + r':\d+:\d+ \[\d+\]', s)
                if m and m.start() > 0:
                    s, glued = s[:m.start()], True
                    break
            fields = (pending or []) + s.split()
            twelve = columns is not None and 'root' not in columns
            want = len(columns) + (1 if columns and columns[-1] == 'timestamp' else 0) \
                if columns else 12 if twelve else 13
            if columns is None and len(fields) == 12:
                twelve, want = True, 12
            if glued and len(fields) < want:
                pending = fields
                continue
            pending = None
            if cur is None or cur.ended:
                cur = Test()
                cur.ended = False
                tests.append(cur)
                if command_coll:
                    cur.coll, cur.named = command_coll, True
            if not cur.coll.startswith('all_reduce_perf'):
                continue  # another collective's row
            per = 8 if columns is not None and 'i_min' in columns else 4  # -I: 4 more a side
            cur.results.append(result(fields, twelve, per))
            continue
        m = re.search(r'(?:^|\s|/)([a-z_]+_perf\w*)\s+-', s)
        if m:
            set_command(m.group(1), cur)
    return tests


command_coll = None


def set_command(name, cur):
    global command_coll
    command_coll = name
    if cur is not None and not cur.ended and not cur.results:
        cur.coll, cur.named = name, True


def command_coll_reset():
    global command_coll
    command_coll = None


def read_json(path):
    with open(path) as f:
        doc = json.load(f)
    t = Test()
    t.ended = True
    t.coll = doc['args'][0].rsplit('/', 1)[-1]
    cfg = doc['config']
    devices = cfg.get('devices', doc.get('devices', []))
    t.ranks = len(devices) * cfg['nthreads'] * cfg['ngpus']
    for res in doc['results']:
        r = {'bytes': res['size'], 'count': res['count'], 'type': res['type'],
             'redop': res['redop'], 'sides': []}
        for side in ('out_of_place', 'in_place'):
            o = res[side]
            r['sides'].append({'time': o.get('time', o.get('cpu_time')), 'algbw': o['alg_bw'],
                               'busbw': o['bus_bw'], 'delta': None,
                               'wrong': None if o['nwrong'] is None else int(o['nwrong'])})
        t.results.append(r)
    return [t]


def expected_rows(tests):
    rows = []
    for t in tests:
        if not t.coll.startswith('all_reduce_perf'):
            continue
        n = t.ranks or t.threads * t.gpus
        if not n:  # no rank lines nor header: what busbw / algbw = 2(n-1)/n says at the top
            top = max((v for r in t.results for v in r['sides']), key=lambda v: v['algbw'])
            n = round(2 / (2 - top['busbw'] / top['algbw']))
        order, got = [], {}
        for r in t.results:
            if r['bytes'] == 0:
                continue
            for side, v in enumerate(r['sides']):
                key = (r['type'], r['redop'], r['bytes'], side)
                if key not in got:
                    got[key] = {'bytes': r['bytes'], 'type': r['type'], 'redop': r['redop'],
                                'side': side, 'n': n, 'samples': [], 'first': v, 'wrong': None,
                                'failed': False}
                    order.append(key)
                e = got[key]
                e['samples'].append(v['time'])
                if v['wrong'] is not None:
                    e['wrong'] = max(e['wrong'] or 0, v['wrong'])
                    e['failed'] |= v['wrong'] > 0
                if v['delta'] is not None:
                    e['failed'] |= v['delta'] > TOLERANCE.get(r['type'], 0) * (n - 1)
        rows += [got[k] for k in order]
    return rows


def near(a, b):
    return abs(a - b) <= 0.0005 + 1e-9 * abs(b)


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    run, logs = sys.argv[1], sys.argv[2:]
    tests = []
    for log in logs:
        with open(log, 'rb') as f:
            head = f.read(4096).lstrip()
        tests += read_json(log) if head.startswith(b'{') else read_text(log)
    want = expected_rows(tests)
    with open(run + '/results.csv', newline='') as f:
        got = list(csv.DictReader(f))
    samples = {}
    with open(run + '/samples.csv', newline='') as f:
        for s in csv.DictReader(f):
            samples.setdefault(s['row_key'], []).append((int(s['sample']), float(s['time_us'])))
    bad = []
    if len(got) != len(want):
        bad.append('%d rows in results.csv, %d in the logs' % (len(got), len(want)))
    for i, (e, g) in enumerate(zip(want, got)):
        where = 'row %d (%s %d B %s)' % (i + 1, e['type'], e['bytes'],
                                         'in-place' if e['side'] else 'out-of-place')
        med = statistics.median(e['samples'])
        one = len(e['samples']) == 1
        algbw = e['first']['algbw'] if one else e['bytes'] / med / 1e3
        busbw = e['first']['busbw'] if one else algbw * 2 * (e['n'] - 1) / e['n']
        checks = [
            ('bytes', int(g['bytes']) == e['bytes']),
            ('transport', g['transport'] == ('in-place' if e['side'] else 'out-of-place')),
            ('dtype', g['dtype'] == DTYPE.get(e['type'], e['type'])),
            ('settings', g['settings'] == ('' if e['redop'] == 'sum' else 'redop=' + e['redop'])),
            ('n_gpus', int(g['n_gpus']) == e['n']),
            ('time_us_median', near(float(g['time_us_median']), med)),
            ('algbw_gbps', near(float(g['algbw_gbps']), algbw)),
            ('busbw_gbps', near(float(g['busbw_gbps']), busbw)),
            ('wrong', g['wrong'] == ('' if e['wrong'] is None else str(e['wrong']))),
            ('status', g['status'] == ('error' if e['failed'] else 'ok')),
            ('source', g['source'] == 'nccl-tests' and g['algorithm'] == 'nccl'),
            ('n_samples', g['n_samples'] == str(len(e['samples']))),
        ]
        s = sorted(samples.get(g['row_key'], []))
        checks.append(('samples.csv', [k for k, _ in s] == list(range(1, len(e['samples']) + 1))
                       and all(near(x, y) for (_, x), y in zip(s, e['samples']))))
        for name, ok in checks:
            if not ok:
                bad.append('%s: %s %s, want %s' % (where, name, g.get(name, s),
                                                   {'time_us_median': med, 'algbw_gbps': algbw,
                                                    'busbw_gbps': busbw, 'n_gpus': e['n'],
                                                    'wrong': e['wrong']}.get(name, '?')))
    for b in bad[:20]:
        print(b)
    if bad:
        print('%d rows, %d wrong' % (len(want), len(bad)))
        return 1
    print('%d rows equal' % len(want))
    return 0


if __name__ == '__main__':
    sys.exit(main())
