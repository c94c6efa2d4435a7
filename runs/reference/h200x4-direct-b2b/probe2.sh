#!/usr/bin/env bash
# direct/ce (and optcc/ce, the same program) at 256 MiB, 1 GiB, 4 GiB: main's binary and the
# READY-at-the-end one (new2) alternating in events timing, new2 in host and graph; -n 20 -w 2
set -u
export NCCL_NVLS_ENABLE=0
C=$(dirname "$0"); out=${OUT:-/tmp/probe}; mkdir -p "$out/runs"
n=$(nvidia-smi -L | grep -c '^GPU'); g=$(seq -s, 0 $((n - 1)))
nvidia-smi -L > "$out/gpu.txt" 2>&1
i=0
row() { local bin=$1; shift; i=$((i+1)); local d=$out/runs/$i-$bin
  timeout -k 5 60 "$C/arbench-$bin" run --gpus $g --sizes 256M,1G,4G -n 20 -w 2 -T 30 "$@" --out "$d" >"$d.log" 2>&1
  rc=$?; awk -F, -v a="$bin $*" -v rc=$rc 'NR>1 {printf "%-80s rc=%d %s/%s p=%s %s med=%s min=%s wrong=%s\n", a, rc, $10,$11,$12,$14,$21,$22,$30}' "$d/results.csv"; }
for k in 1 2; do
  row old --algo direct,optcc --transport ce --pipeline 0 --set timing.mode=events
  row new2 --algo direct,optcc --transport ce --pipeline 0 --set timing.mode=events
done
row new2 --algo direct,optcc --transport ce --pipeline 0 --set timing.mode=host
row new2 --algo direct,optcc --transport ce --pipeline 0 --set timing.mode=graph
cd "$out" && tar czf runs.tgz runs && rm -rf runs
