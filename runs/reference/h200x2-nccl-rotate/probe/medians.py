# The medians of probe/: per size, each nccl-tests build (v0 as released, v1 without nvlinkCentricSched, v2 also on cudaMalloc) and
# arbench, in-place, two turns (a/b); python3 medians.py > medians.txt
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../../..', 'tools', 'device'))
from nt_medians import nccl_tests_inplace as nt, arbench_medians

def arb(path):
    return arbench_medians(path + '.csv')


cols = ['nt-v0-R0', 'nt-v1-R0', 'nt-v2-R0', 'arb-none', 'nt-v0-R2', 'nt-v1-R2', 'arb-sym', 'nt-v0-R0G', 'nt-v1-R0G', 'arb-graph']
d = {}
for c in cols:
    for r in (1, 2):
        d[c, r] = arb(f'{c}-{r}') if c.startswith('arb') else nt(f'{c}-{r}.log')
print('%-9s' % 'size' + ''.join('%13s' % c.replace('nt-', '') for c in cols))
for s in sorted(d['arb-none', 1]):
    print('%-9d' % s + ''.join('%13s' % ('%.1f/%.1f' % (d[c, 1].get(s, 0), d[c, 2].get(s, 0))) for c in cols))
