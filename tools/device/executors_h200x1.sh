#!/usr/bin/env bash
# One H200, one call: executors that take their settings as arguments (#47). make gputest,
# then the settings the executors read (ce.sum_blocks, ce.sum_wait, flags, ll.blocks,
# ce.program, sm.oneshot_max_bytes) each on a co-located sweep, checked on every rank, and the
# degrade self-test with --set; their logs and results under $OUT in one archive.
set -u
cd "$(dirname "$0")/../.."
export NCCL_NVLS_ENABLE=0
o=/tmp/executors
rm -rf "$o" && mkdir -p "$o"
t0=$(date +%s)
stamp() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
GPUTEST_OUT=$o/gputest B=build bash tests/gpu/run.sh >"$o/gputest.log" 2>&1
stamp "gputest: exit $?, $(tail -n 1 "$o/gputest.log")"
rm -rf "$o/gputest"
for set in ce.sum_blocks=8 ce.sum_wait=0 flags=kernel ll.blocks=4 ce.program=flow sm.oneshot_max_bytes=4096; do
  d=$o/set-${set%%=*}
  build/arbench run --gpus 0,0,0,0 --algo ring,rhd,optcc,stragglar --transport ce,sm,ll -b 1K -e 64M -f 16 \
    -n 6 -w 2 --degrade 2:2 --set "$set" --out "$d" >"$d.log" 2>&1
  stamp "$set: exit $?, $(awk -F, 'NR==1{for(i=1;i<=NF;i++){if($i=="status")s=i; if($i=="settings")g=i}} NR>1{n[$s]++; set=$g} END{for(k in n) printf "%s %d; ", k, n[k]; print "settings column: " set}' "$d/results.csv")"
  rm -rf "$d/plots"
done
build/arbench run --gpus 0,0,0,0 --self-test degrade --set flags=kernel >"$o/selftest.log" 2>&1
stamp "self-test degrade --set flags=kernel: exit $?, $(tail -n 1 "$o/selftest.log")"
(cd "$o" && tar czf "$OUT/executors.tgz" .)
