#!/usr/bin/env bash
set -u
export NCCL_NVLS_ENABLE=0
n=$(nvidia-smi -L | grep -c '^GPU'); g=$(seq -s, 0 $((n - 1)))
i=0
row() { i=$((i+1)); timeout -k 5 60 build/arbench run --gpus $g --sizes 1G -n 20 -w 2 -T 30 --set timing.mode=host "$@" --out /tmp/r$i >/tmp/r$i.log 2>&1
  rc=$?; awk -F, -v a="$*" -v rc=$rc 'NR>1 {printf "%-60s rc=%d %s/%s p=%s %s med=%s min=%s wrong=%s\n", a, rc, $10,$11,$12,$14,$21,$22,$30}' /tmp/r$i/results.csv; }
row --algo nccl
for p in 4 12 16 32; do row --algo rhd,swing-bw,rd --transport ce --pipeline $p; done
row --algo rhd,swing-bw --transport ce --pipeline 8 --set ce.sum_blocks=1024
row --algo rhd,swing-bw --transport ce --pipeline 8 --set flags=kernel
row --algo nccl
