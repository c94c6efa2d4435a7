# The medians of probe/: per size, each nccl-tests build (v0 as released, v1 without nvlinkCentricSched, v2 also on cudaMalloc) and
# arbench, in-place, two turns (a/b); python3 medians.py > medians.txt
import sys, statistics, csv, glob
def nt(path):
    v = {}
    for line in open(path):
        f = line.split()
        if len(f) >= 13 and f[0].isdigit(): v.setdefault(int(f[0]), []).append(float(f[9]))
    return {k: statistics.median(x) for k, x in v.items()}
def arb(path):
    return {int(r['bytes']): float(r['time_us_median']) for r in csv.DictReader(open(path + '.csv'))}
cols = ['nt-v0-R0', 'nt-v1-R0', 'nt-v2-R0', 'arb-none', 'nt-v0-R2', 'nt-v1-R2', 'arb-sym', 'nt-v0-R0G', 'nt-v1-R0G', 'arb-graph']
d = {}
for c in cols:
    for r in (1, 2):
        d[c, r] = arb(f'{c}-{r}') if c.startswith('arb') else nt(f'{c}-{r}.log')
print('%-9s' % 'size' + ''.join('%13s' % c.replace('nt-', '') for c in cols))
for s in sorted(d['arb-none', 1]):
    print('%-9d' % s + ''.join('%13s' % ('%.1f/%.1f' % (d[c, 1].get(s, 0), d[c, 2].get(s, 0))) for c in cols))
