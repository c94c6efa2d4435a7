#!/usr/bin/env bash
# One device call: stragglar/ce against nccl at 1 GiB with an 8 ms straggler on rank 1, over
# the knobs that decide its after-arrival time: the program (per-round, AR_CE_PROGRAM=flow),
# the flag mechanism (memop + 4-byte copy, AR_FLAGS=kernel), the sum kernels' blocks
# (AR_SUM_BLOCKS) and the mini-batches (--pipeline); nccl in every process. A CUPTI timeline of
# the flow program with kernel flags. Output: $OUT/straggler.log, $OUT/straggler.tar.gz.
# Usage (on the GPU machine): B=.carry/x OUT=$OUT bash tools/experiments/straggler.sh
. "$(dirname "$0")/lib.sh"
r() { row "$O/straggler.log" 90 "$@"; }
s=(--sizes 1G --algo nccl,stragglar --transport ce --straggler 1:8ms -n 20 -w 5)
r "per-round p4" "${s[@]}" --pipeline 4
AR_FLAGS=kernel r "per-round p4 kernel flags" "${s[@]}" --pipeline 4
AR_CE_PROGRAM=flow r "flow p4" "${s[@]}" --pipeline 4
AR_CE_PROGRAM=flow AR_FLAGS=kernel r "flow p4 kernel flags" "${s[@]}" --pipeline 4
for b in 132 66; do
  AR_CE_PROGRAM=flow AR_FLAGS=kernel AR_SUM_BLOCKS=$b r "flow p4 kernel flags, $b sum blocks" "${s[@]}" --pipeline 4
done
for p in 2 8; do
  AR_CE_PROGRAM=flow AR_FLAGS=kernel AR_SUM_BLOCKS=132 r "flow p$p kernel flags, 132 sum blocks" "${s[@]}" --pipeline $p
done
AR_CE_PROGRAM=flow AR_FLAGS=kernel AR_SUM_BLOCKS=132 r "flow p4 kernel flags 132 blocks, timeline" "${s[@]}" --pipeline 4 --profile timeline
cp "$W/r$i/timeline.csv" "$O/timeline_flow_kernel.csv" 2>/dev/null
AR_CE_PROGRAM=flow AR_FLAGS=kernel AR_SUM_BLOCKS=132 r "flow p4 kernel flags 132 blocks, sizes" --sizes 64M,256M,4G --algo nccl,direct,stragglar --transport ce --straggler 1:8ms -n 10 -w 3 --pipeline 0
tar -C "$W" -czf "$O/straggler.tar.gz" . 2>/dev/null
echo "done in $(( $(date +%s) - T0 )) s" | tee -a "$O/straggler.log"
