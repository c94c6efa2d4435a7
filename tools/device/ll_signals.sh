#!/usr/bin/env bash
# The ll transport's signals protocol with a flag raised after each pair of slices (was: after
# the whole round's sends): correctness with 4 ranks on GPU 0, then signals (4K, 16K, 64K
# slices) against lines128 and nccl at 32M..1G on 4 GPUs. One call on a 4-GPU kind.
#   OUT=$OUT bash tools/device/ll_signals.sh
set -u
. tools/device/lib.sh
device_script 400 llsig
for sl in 512 4K 64K; do
  chk col_$sl 60 $A run --gpus 0 --ranks 4 -T 60 --force --algo ring,rhd,direct,swing-bw,stragglar,optcc,oneshot,async-ring --transport ll --sizes 4100,1000004,16M --set ll.protocol=signals --set ll.slice=$sl -n 5 -w 2 -o $out/col_$sl
done
g="--gpus 0,1,2,3 -T 60 --force"
s="--sizes 32M,64M,128M,256M,512M,1G -n 40 -w 5 --row-budget 200ms"
chk lines128 60 $A run $g --algo nccl,ring,async-ring,rhd,direct --transport ll $s --set ll.protocol=lines128 -o $out/lines128
for sl in 4K 16K 64K; do
  chk sig_$sl 60 $A run $g --algo ring,async-ring,rhd,direct --transport ll $s --set ll.protocol=signals --set ll.slice=$sl -o $out/sig_$sl
done
echo "== total $SECONDS s"
for d in "$out"/*/; do
  [ -f "$d/results.csv" ] && awk -F, -v d="$(basename "$d")" 'NR>1 {printf "%-9s %-14s %12.0f med %9s min %9s p95 %9s %s\n", d, $10"/"$11, $14, $21, $22, $24, $31}' "$d/results.csv"
done | sort -k3,3n -k5,5n > "$out/summary.txt"
(cd "$out" && tar czf /tmp/llsig.tgz . && cp summary.txt /tmp/ && rm -rf ./* && mv /tmp/llsig.tgz /tmp/summary.txt .)
