#!/usr/bin/env bash
# ring and async-ring at 512M/1G/2G in host timing on every GPU: what moves the 1 GiB time
set -u
export NCCL_NVLS_ENABLE=0
n=$(nvidia-smi -L | grep -c '^GPU'); g=$(seq -s, 0 $((n - 1)))
i=0
row() { i=$((i+1)); timeout -k 5 60 build/arbench run --gpus $g --sizes 512M,1G,2G -n 10 -w 2 -T 30 --set timing.mode=host "$@" --out /tmp/q$i >/tmp/q$i.log 2>&1
  rc=$?; awk -F, -v a="$*" -v rc=$rc 'NR>1 {printf "%-60s rc=%d %s/%s p=%s %s med=%s wrong=%s\n", a, rc, $10,$11,$12,$14,$21,$30}' /tmp/q$i/results.csv; tail -n 2 /tmp/q$i.log | grep -i error; }
row --algo nccl
row --algo ring,async-ring --transport ce --pipeline 8
row --algo ring,async-ring --transport ce --pipeline 16
row --algo ring,async-ring --transport ce --pipeline 0 --set ce.ring_streams=2
row --algo ring,async-ring --transport ce --pipeline 0 --set ce.ring_streams=4
row --algo ring,async-ring --transport ll --set ll.protocol=lines128
row --algo ring,async-ring --transport ll --set ll.slice=8192
row --algo ring,async-ring --transport ll --set ll.slice=16384 --set ll.forward=off
row --algo ring --transport ll --set ll.blocks=64
row --algo ring --transport ll --set ll.blocks=256
row --algo ring --transport sm --pipeline 0
row --algo swing-bw,rhd --transport ll,ce --pipeline 0
