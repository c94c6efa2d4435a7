#!/usr/bin/env bash
# direct/ce back to back: old (main) and new (READY written at the start of an iteration, the first version) binaries at 256 MiB, 1 GiB, 4 GiB in
# events, host and graph timing; direct/ll, rhd/ce and nccl beside them; -n 20 -w 2
set -u
export NCCL_NVLS_ENABLE=0
C=$(dirname "$0"); out=${OUT:-/tmp/probe}; mkdir -p "$out/runs"
n=$(nvidia-smi -L | grep -c '^GPU'); g=$(seq -s, 0 $((n - 1)))
nvidia-smi > "$out/gpu.txt" 2>&1; nvidia-smi topo -m >> "$out/gpu.txt" 2>&1
i=0
row() { local bin=$1; shift; i=$((i+1)); local d=$out/runs/$i-$bin
  timeout -k 5 120 "$C/arbench-$bin" run --gpus $g --sizes 256M,1G,4G -n 20 -w 2 -T 60 "$@" --out "$d" >"$d.log" 2>&1
  rc=$?; awk -F, -v a="$bin $*" -v rc=$rc 'NR>1 {printf "%-80s rc=%d %s/%s p=%s %s med=%s min=%s wrong=%s\n", a, rc, $10,$11,$12,$14,$21,$22,$30}' "$d/results.csv"; }
for m in events host graph; do
  row old --algo direct,optcc,rhd --transport ce --pipeline 0 --set timing.mode=$m
  row new --algo direct,optcc,rhd --transport ce --pipeline 0 --set timing.mode=$m
done
for m in events host graph; do
  row old --algo direct,nccl --transport ll --pipeline 0 --set timing.mode=$m
done
row new --algo direct --transport ce --pipeline 4 --set timing.mode=host
row new --algo direct --transport ce --pipeline 1 --set timing.mode=host
cd "$out" && tar czf runs.tgz runs && rm -rf runs
