#!/usr/bin/env bash
# One device call for issue #7's run on 4 GPUs: the direct program's sum-block knob at 1 GiB
# (AR_SUM_BLOCKS over the program's own cap), then the S-curve sweep (nccl and our schedules
# on every transport, 1 KiB..8 GiB, one process), then, when the binary has it, a CUPTI
# timeline of direct/ce at 1 GiB and of stragglar/ce with an 8 ms straggler.
# Output: $OUT/perf.log, $OUT/perf.tar.gz (the sweep's run folder is $W/sweep inside).
# Usage (on the GPU machine): B=.carry/x OUT=$OUT bash tools/experiments/perf.sh
. "$(dirname "$0")/lib.sh"
L=$O/perf.log
d=(--algo direct --sizes 1G --transport ce --pipeline 2 -n 40 -w 5)
row "$L" 60 "1G direct p2 (program's sum blocks)" "${d[@]}"
for sb in 8 16 24 48; do AR_SUM_BLOCKS=$sb row "$L" 60 "1G direct p2 AR_SUM_BLOCKS=$sb" "${d[@]}"; done
step sweep 300 "$A" run "${g[@]}" -b 1K -e 8G -f 2 --algo nccl,direct,oneshot,ring,rhd,async-ring \
  --transport ce,sm,nccl-p2p --pipeline 0 -n 20 -w 5 -T 120 --out "$W/sweep"
echo "sweep: $(cat "$W/sweep.COMMAND")" >> "$L"
tail -n 3 "$W/sweep.log" >> "$L"
awk -F, 'NR > 1 && ($14 == 1024 || $14 == 1073741824 || $14 == 8589934592) {
  printf "  %-11s %-8s p=%-3s %11s B  %10s us  wrong %s %s\n", $10, $11, $12, $14, $21, $30, $31 }' \
  "$W/sweep/results.csv" 2>/dev/null | tee -a "$L"
if "$A" run --help 2>&1 | grep -q timeline; then
  row "$L" 60 "timeline direct p2" --algo direct --sizes 1G --transport ce --pipeline 2 -n 6 -w 2 --profile timeline
  row "$L" 60 "timeline stragglar p4" --algo stragglar --sizes 1G --transport ce --pipeline 4 --straggler 1:8ms -n 4 -w 1 --profile timeline
  AR_CE_PROGRAM=flow row "$L" 60 "timeline stragglar flow p4" --algo stragglar --sizes 1G --transport ce --pipeline 4 --straggler 1:8ms -n 4 -w 1 --profile timeline
fi
echo "elapsed $(( $(date +%s) - T0 )) s" | tee -a "$L"
tar -C "$W" -czf "$O/perf.tar.gz" . 2>/dev/null
