# Per size, in place: nccl-tests -G's median over its -N cycles beside arbench's graph-timed nccl
# (rotating) with the graph uploaded before the timed launch and without; python3 medians.py
import csv, statistics
def nt(path):
    v = {}
    for line in open(path):
        f = line.split()
        if len(f) >= 13 and f[0].isdigit(): v.setdefault(int(f[0]), []).append(float(f[9]))
    return {k: statistics.median(x) for k, x in v.items()}
def arb(path):
    return {int(r['bytes']): float(r['time_us_median']) for r in csv.DictReader(open(path))}
print('turn mode  size  nccl-tests  arbench-uploaded  arbench-not-uploaded  (us)')
for turn in (1, 2):
    for R, reg in ((0, 'none'), (1, 'registered')):
        n, on, off = nt(f'nt-R{R}-{turn}.log'), arb(f'arb-{reg}-on-{turn}.csv'), arb(f'arb-{reg}-off-{turn}.csv')
        for b in sorted(n):
            print(f'{turn} -R {R} {b:>8} {n[b]:8.2f} {on[b]:8.2f} {off[b]:8.2f}')
