#!/usr/bin/env bash
# One H200, one call: the plan as a value (#47) on a GPU. make gputest (every algorithm x
# {ce, sm, ll}, 2..8 ranks on the one GPU), then three small runs whose rows the plan decides:
# a critical-delay search (rows by the plan's index), degraded links with ll and nccl (n/a
# rows from the executor table) and co-located nccl rows (n/a from the placement), each beside
# its --dry-run. Everything under $OUT in one archive. Carried: build/.
set -u
cd "$(dirname "$0")/../.."
export NCCL_NVLS_ENABLE=0
o=/tmp/plan
rm -rf "$o" && mkdir -p "$o"
t0=$(date +%s)
stamp() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
stamp "gputest"
GPUTEST_OUT=$o/gputest B=build bash tests/gpu/run.sh >"$o/gputest.log" 2>&1
stamp "gputest: exit $?, $(tail -n 1 "$o/gputest.log")"
rm -rf "$o/gputest"
runs=("crit:--gpus 0,0,0,0 --find-critical 1M,64M --algo ring,rhd,stragglar --transport ce,sm --critical-max 4ms -n 6 -w 2"
      "degr:--gpus 0,0,0,0 --algo ring,optcc,nccl --transport ce,sm,ll --degrade 1:2 -b 1M -e 64M -f 8 -n 6 -w 2"
      "nccl:--gpus 0,0 --algo ring,nccl --transport nccl-p2p,sm -b 1K -e 1M -f 32 -n 6 -w 2")
for r in "${runs[@]}"; do
  name=${r%%:*} args=${r#*:}
  build/arbench run $args --dry-run >"$o/$name.dry" 2>&1
  build/arbench run $args --out "$o/$name" >"$o/$name.log" 2>&1
  stamp "$name: exit $?, rows $(($(wc -l <"$o/$name/results.csv") - 1)), $(grep -c ',ok,' "$o/$name/results.csv") ok, wrong $(awk -F, 'NR==1{for(i=1;i<=NF;i++)if($i=="wrong")w=i} NR>1 && $w>0{c++} END{print c+0}' "$o/$name/results.csv"); dry: $(grep -m1 '^  rows' "$o/$name.dry")"
  rm -rf "$o/$name/plots"
done
(cd "$o" && tar czf "$OUT/plan.tgz" .)
