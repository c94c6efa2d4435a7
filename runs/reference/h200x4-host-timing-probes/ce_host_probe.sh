#!/usr/bin/env bash
# direct/ce and ring/ce at 1 GiB on every GPU: events vs host vs graph timing, mini-batches 1/2/4,
# and the ce settings that change how ranks wait on each other
set -u
export NCCL_NVLS_ENABLE=0
out=${OUT:-/tmp/probe}; mkdir -p "$out"
n=$(nvidia-smi -L | grep -c '^GPU'); g=$(seq -s, 0 $((n - 1)))
i=0
row() { i=$((i+1)); timeout -k 5 60 build/arbench run --gpus $g --sizes 256M,1G -n 10 -w 2 -T 30 "$@" --out /tmp/p$i >/tmp/p$i.log 2>&1
  rc=$?; awk -F, -v a="$*" -v rc=$rc 'NR>1 {printf "%-70s rc=%d %s/%s p=%s %s %s med=%s min=%s wrong=%s\n", a, rc, $10,$11,$12,$14,$33,$21,$22,$30}' /tmp/p$i/results.csv; }
for m in events host graph; do
  for p in 1 2 4; do row --algo direct,ring,async-ring --transport ce --pipeline $p --set timing.mode=$m; done
done
row --algo direct --transport ce --pipeline 2 --set timing.mode=host --set ce.sum_wait=0
row --algo direct --transport ce --pipeline 2 --set timing.mode=host --set flags=kernel
row --algo direct --transport ce --pipeline 2 --set timing.mode=host --set timing.host_batches=20 -n 1
row --algo direct --transport ce --pipeline 2 --set timing.mode=host -n 2
row --algo direct --transport ll,sm --pipeline 1 --set timing.mode=host
