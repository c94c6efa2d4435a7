#!/usr/bin/env bash
# One H200, one call: what the conclusions need from a GPU (#44, #45), everything under $OUT
# in one archive (the device returns at most 8 files).
#   1. make gputest (every algorithm x {ce, sm, ll}, 2..8 ranks on the one GPU);
#   2. tools/device/colocated_conclusions.sh (samples, intervals, repeats, ties; pictures are
#      drawn on the CPU machine afterwards);
#   3. nccl-tests' -N cycles with and without -G on one rank (carried
#      .carry/nccl-tests/build/all_reduce_perf, built on the CPU machine from nccl-tests
#      2.19.6): real output for the importer and the comparison to read;
#   4. two SIGINTs 10 ms apart into a run with CUDA threads busy (2 ranks on the GPU): exit
#      130, INCOMPLETE, summary.md, no cut row.
# Carried: build/arbench (gputest needs only it) and .carry/nccl-tests/build/all_reduce_perf.
set -u
cd "$(dirname "$0")/../.."
export NCCL_NVLS_ENABLE=0
o=/tmp/conclusions
rm -rf "$o" && mkdir -p "$o"
t0=$(date +%s)
stamp() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
stamp "gputest"
GPUTEST_OUT=$o/gputest B=build bash tests/gpu/run.sh >"$o/gputest.log" 2>&1
stamp "gputest: exit $?, $(tail -n 1 "$o/gputest.log")"
rm -rf "$o/gputest"/*/plots
stamp "colocated conclusions"
mkdir -p "$o/colocated" && OUT=$o/colocated bash tools/device/colocated_conclusions.sh >"$o/colocated.log" 2>&1
stamp "colocated: $(grep -E 'arbench exit|checks' "$o/colocated.log" | tr '\n' ' ')"
rm -rf "$o/colocated/run/plots"
P=.carry/nccl-tests/build/all_reduce_perf
if [ -x "$P" ]; then
  mkdir -p "$o/nccl-tests"
  for a in "-N 3 -R 0" "-N 3 -G 1 -R 2" "-N 3 -R 1"; do
    name=t1-$(echo "$a" | tr -d ' -' )
    { echo "# command: NCCL_NVLS_ENABLE=0 all_reduce_perf -t 1 -g 1 -b 1K -e 1M -f 4 $a"
      timeout -s KILL 60 "$P" -t 1 -g 1 -b 1K -e 1M -f 4 $a; } >"$o/nccl-tests/$name.log" 2>&1
    stamp "nccl-tests $a: exit $?"
  done
fi
stamp "signals"
build/arbench run --gpus 0,0 --algo ring,rhd --transport ce,sm -b 1M -e 1G -f 2 -n 200 --out "$o/sig2" >"$o/sig2.log" 2>&1 &
p=$!; sleep 4; kill -INT $p; sleep 0.01; kill -INT $p; wait $p
stamp "signals: exit $?; INCOMPLETE: $(head -c 200 "$o/sig2/INCOMPLETE" 2>&1); summary: $(grep -m1 -i incomplete "$o/sig2/summary.md"); cut rows: $(awk -F, 'NR==1{n=NF} NF!=n{c++} END{print c+0}' "$o/sig2/results.csv")"
rm -rf "$o/sig2/plots"
(cd "$o" && tar czf "$OUT/conclusions.tgz" .)
