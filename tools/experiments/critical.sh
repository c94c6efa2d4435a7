#!/usr/bin/env bash
# One device call: the critical straggler delay for 64 MiB..4 GiB (--find-critical's default
# sizes) against the best of nccl and our schedules on ce and sm, then stragglar against nccl
# at 1 GiB with an 8 ms straggler on rank 1. Output: $OUT/critical.log, $OUT/critical.tgz.
# Usage (on the GPU machine): B=.carry/x OUT=$OUT DEADLINE=560 bash tools/experiments/critical.sh
. "$(dirname "$0")/lib.sh"
L="$O/critical.log"
step critical 500 "$A" run --gpus 0,1,2,3 --find-critical --algo nccl,ring,rhd,direct,swing-bw,stragglar \
  --transport ce,sm --straggler 1:0 --pipeline 0 -n 5 -w 2 -T 60 --out "$W/critical"
grep "critical delay" "$W/critical.log" | tee -a "$L"
cat "$W/critical/critical.csv" 2>/dev/null | tee -a "$L"
step straggler 60 "$A" run --gpus 0,1,2,3 --sizes 1G --algo nccl,stragglar --transport ce --straggler 1:8ms \
  --pipeline 0 -n 20 -w 5 -T 60 --out "$W/straggler"
cut -d, -f10,11,12,14,21,26,30,31 "$W/straggler/results.csv" 2>/dev/null | tee -a "$L"
(cd "$W" && tar czf "$O/critical.tgz" . 2>/dev/null)
echo "done in $(( $(date +%s) - T0 )) s" | tee -a "$L"
