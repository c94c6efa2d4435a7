#!/usr/bin/env bash
# #37: the round program's automatic mini-batch count, measured: rhd and swing-bw on ce with
# 1..8 mini-batches (and the automatic choice), 64 MiB..8 GiB, in host, events and graph timing.
set -u
export NCCL_NVLS_ENABLE=0
n=$(nvidia-smi -L | grep -c '^GPU'); g=$(seq -s, 0 $((n - 1)))
nvidia-smi -L > $OUT/gpu.txt
i=0
row() { i=$((i+1)); local mode=$1; shift
  timeout -k 5 120 build/arbench run --gpus $g -b 64M -e 8G -f 2 -n 20 -w 1 -T 30 --set timing.mode=$mode --set timing.host_batches=1 "$@" --out $OUT/r$i >$OUT/r$i.log 2>&1
  rc=$?; echo "$mode $* rc=$rc" >> $OUT/calls.txt
  awk -F, -v m=$mode -v rc=$rc 'NR>1 {printf "%s %s/%s p=%s %s med=%s wrong=%s status=%s\n", m, $10,$11,$12,$14,$21,$30,$31}' $OUT/r$i/results.csv >> $OUT/probe.txt; }
for mode in host graph events; do
  row $mode --algo nccl
  for p in 0 1 2 3 4 6; do row $mode --algo rhd,swing-bw --transport ce --pipeline $p; done
done
cd $OUT && tar czf runs.tgz r* && rm -rf r[0-9]*/ 
