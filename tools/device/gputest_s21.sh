#!/usr/bin/env bash
# One H200, one call: make gputest on session 21's merged main (the plan as a value, executors
# taking their settings, rooms one way, the registry's families), then one co-located run per
# n/a source the plan decides (degraded links with ll and nccl; nccl rows on a shared GPU)
# beside its --dry-run; everything under $OUT (the sweep's results.csv rows gzipped).
set -u
cd "$(dirname "$0")/../.."
export NCCL_NVLS_ENABLE=0
t0=$(date +%s)
stamp() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
GPUTEST_OUT=/tmp/gputest GPUTEST_TIMEOUT=20 B=build bash tests/gpu/run.sh >"$OUT/gputest.log" 2>&1
stamp "gputest: exit $?, $(tail -n 1 "$OUT/gputest.log")"
find /tmp/gputest -name results.csv | sort | xargs awk 'FNR == 1 && NR > 1 { next } { print }' | gzip >"$OUT/gputest_results.csv.gz"
for r in "degr:--gpus 0,0,0,0 --algo ring,optcc,nccl --transport ce,sm,ll --degrade 1:2 -b 1M -e 64M -f 8 -n 6 -w 2" \
         "nccl:--gpus 0,0 --algo ring,nccl --transport nccl-p2p,sm -b 1K -e 1M -f 32 -n 6 -w 2"; do
  name=${r%%:*} args=${r#*:}
  build/arbench run $args --dry-run >"$OUT/$name.dry" 2>&1
  build/arbench run $args --out "/tmp/$name" >"$OUT/$name.log" 2>&1
  stamp "$name: exit $?, rows $(($(wc -l <"/tmp/$name/results.csv") - 1)), $(grep -c ',ok,' "/tmp/$name/results.csv") ok, $(grep -c ',n/a,' "/tmp/$name/results.csv") n/a; dry: $(grep -m1 '^  rows' "$OUT/$name.dry")"
  cp "/tmp/$name/results.csv" "$OUT/$name.results.csv"
done
