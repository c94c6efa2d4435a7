#!/usr/bin/env bash
# One device call for the session-4 experiments on 4 GPUs (docs/performance.md v5): the dataflow
# direct program at 1 GiB and 8 GiB under its experiment knobs (AR_SUM_BLOCKS: the sum kernel's
# blocks; AR_CE_DIRECT_AGWAIT=1: the allgather waits until every reduce-scatter copy landed;
# the mini-batch count), nccl in the same process for each group; then stragglar with an 8 ms
# straggler at 1 GiB under the same knobs. Output: $OUT/knobs.log, $OUT/knobs.tar.gz.
# AR_CE_DIRECT_AGWAIT was removed after this run (no gain); rerun it from git ad9348e.
# Usage (on the GPU machine): B=.carry/x OUT=$OUT bash tools/experiments/knobs.sh
. "$(dirname "$0")/lib.sh"
L=$O/knobs.log
k() { row "$L" 100 "$@"; }
d=(--sizes 1G --transport ce -n 40 -w 5)
k "1G nccl + direct p2 (default)" --algo nccl,direct --pipeline 2 "${d[@]}"
for sb in 264 132 66 33; do
  AR_SUM_BLOCKS=$sb k "1G direct p2 sum blocks $sb" --algo direct --pipeline 2 "${d[@]}"
done
AR_CE_DIRECT_AGWAIT=1 k "1G direct p2 agwait" --algo direct --pipeline 2 "${d[@]}"
for p in 2 3 4 6; do
  AR_CE_DIRECT_AGWAIT=1 AR_SUM_BLOCKS=66 k "1G direct p$p agwait blocks 66" --algo direct --pipeline $p "${d[@]}"
done
k "1G nccl + direct p1" --algo nccl,direct --pipeline 1 "${d[@]}"
AR_CE_DIRECT_AGWAIT=1 k "8G nccl + direct auto agwait" --algo nccl,direct --pipeline 0 --sizes 8G --transport ce -n 10 -w 2
s=(--sizes 1G --transport ce --straggler 1:8ms -n 10 -w 3)
k "straggler nccl + stragglar p4" --algo nccl,stragglar --pipeline 4 "${s[@]}"
for sb in 132 33; do
  AR_SUM_BLOCKS=$sb k "straggler stragglar p4 blocks $sb" --algo stragglar --pipeline 4 "${s[@]}"
done
for p in 2 3 6; do
  k "straggler stragglar p$p" --algo stragglar --pipeline $p "${s[@]}"
done
AR_CE_PROGRAM=flow k "straggler stragglar flow p4" --algo stragglar --pipeline 4 "${s[@]}"
AR_CE_PROGRAM=flow AR_SUM_BLOCKS=66 k "straggler stragglar flow p4 blocks 66" --algo stragglar --pipeline 4 "${s[@]}"
echo "elapsed $(( $(date +%s) - T0 )) s" | tee -a "$L"
tar -C "$W" -czf "$O/knobs.tar.gz" . 2>/dev/null
