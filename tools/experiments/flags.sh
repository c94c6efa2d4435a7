#!/usr/bin/env bash
# One device call on 4 GPUs: how the ce flags are written, at 1 GiB and 8 GiB (direct/ce, nccl in
# each process) and for stragglar with an 8 ms straggler at 1 GiB: memop flags (a stream write
# plus a 4-byte peer copy, the default), kernel flags (AR_FLAGS=kernel: one-thread kernels), and
# kernel flags from the direct program's signal stream (AR_CE_DIRECT_SIGNAL=1); twice over, then
# a CUPTI timeline of the last. Output: $OUT/flags.log, $OUT/flags.tar.gz.
# AR_CE_DIRECT_SIGNAL was removed after this run (no gain); rerun it from git dd2e2ce.
# Usage (on the GPU machine): B=.carry/x OUT=$OUT bash tools/experiments/flags.sh
. "$(dirname "$0")/lib.sh"
L=$O/flags.log
d=(--algo nccl,direct --sizes 1G,8G --transport ce --pipeline 0 -n 30 -w 5)
s=(--algo nccl,stragglar --sizes 1G --transport ce --pipeline 4 --straggler 1:8ms -n 10 -w 3)
for rep in 1 2; do
  row "$L" 60 "memop flags ($rep)" "${d[@]}"
  AR_FLAGS=kernel row "$L" 60 "kernel flags ($rep)" "${d[@]}"
  AR_FLAGS=kernel AR_CE_DIRECT_SIGNAL=1 row "$L" 60 "kernel flags, signal stream ($rep)" "${d[@]}"
done
row "$L" 60 "stragglar memop flags" "${s[@]}"
AR_FLAGS=kernel row "$L" 60 "stragglar kernel flags" "${s[@]}"
AR_FLAGS=kernel AR_CE_DIRECT_SIGNAL=1 row "$L" 60 "timeline: kernel flags, signal stream" --algo direct --sizes 1G --transport ce --pipeline 2 -n 6 -w 2 --profile timeline
echo "elapsed $(( $(date +%s) - T0 )) s" | tee -a "$L"
tar -C "$W" -czf "$O/flags.tar.gz" . 2>/dev/null
