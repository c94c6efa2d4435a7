# Per size, in place: nccl-tests -G's median over its -N cycles beside arbench's graph-timed nccl
# (rotating) with the graph uploaded before the timed launch and without; python3 medians.py
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../..', 'tools', 'device'))
from nt_medians import nccl_tests_inplace as nt, arbench_medians
arb = arbench_medians
print('turn mode  size  nccl-tests  arbench-uploaded  arbench-not-uploaded  (us)')
for turn in (1, 2):
    for R, reg in ((0, 'none'), (1, 'registered')):
        n, on, off = nt(f'nt-R{R}-{turn}.log'), arb(f'arb-{reg}-on-{turn}.csv'), arb(f'arb-{reg}-off-{turn}.csv')
        for b in sorted(n):
            print(f'{turn} -R {R} {b:>8} {n[b]:8.2f} {on[b]:8.2f} {off[b]:8.2f}')
