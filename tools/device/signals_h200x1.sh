#!/usr/bin/env bash
# Two SIGINTs 10 ms apart into a run with CUDA threads busy (2 ranks on one GPU), and a run
# whose stdout is a pipe closed after one line (SIGPIPE): each leaves INCOMPLETE, a summary.md
# that says so, whole rows, and an exit status that is not 0. Archive in $OUT/sig.tgz.
set -u
export NCCL_NVLS_ENABLE=0
o=/tmp/sig; rm -rf $o; mkdir -p $o
build/arbench run --gpus 0,0 --algo ring,rhd --transport ce,sm -b 1M -e 1G -f 2 -n 200 --out "$o/sig2" >"$o/sig2.log" 2>&1 &
p=$!; sleep 4; kill -INT $p; sleep 0.01; kill -INT $p; wait $p; rc=$?
echo "signals: exit $rc"; echo "INCOMPLETE: $(cat $o/sig2/INCOMPLETE)"; echo "summary: $(grep -m2 -i incomplete $o/sig2/summary.md)"
echo "rows: $(($(wc -l < $o/sig2/results.csv) - 1)), cut rows: $(awk -F, 'NR==1{n=NF} NF!=n{c++} END{print c+0}' $o/sig2/results.csv)"
python3 tests/check_samples.py $o/sig2 -n 200 | tail -2
tail -4 $o/sig2.log
build/arbench run --gpus 0,0 --algo ring --transport ce -b 1M -e 1G -f 2 -n 200 --out "$o/sig3" 2>&1 | head -n 1; echo "pipe: exit ${PIPESTATUS[0]}"; ls $o/sig3; cat $o/sig3/INCOMPLETE
(cd $o && tar czf $OUT/sig.tgz .)
