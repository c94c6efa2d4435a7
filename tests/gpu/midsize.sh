#!/usr/bin/env bash
# One device call: stragglar/ce after the straggler's arrival at 64 MiB..1 GiB (8 ms straggler on
# rank 1) over the flow program's mini-batches (--pipeline) and its sum kernels' blocks
# (AR_FLOW_SUM_BLOCKS), nccl beside it; CUPTI timelines at 64 MiB. Output: $OUT/midsize.log,
# $OUT/midsize.tgz. Usage (on the GPU machine): B=.carry/x OUT=$OUT bash tests/gpu/midsize.sh
. "$(dirname "$0")/lib.sh"
r() { row "$O/midsize.log" 90 "$@"; }
s=(--sizes ${SIZES:-64M,128M,256M,512M,1G} --transport ce --straggler 1:8ms -n 10 -w 3)
r "nccl" "${s[@]}" --algo nccl
for sb in ${BLOCKS:-64 132}; do
  for p in ${PIPES:-1 2 4 8}; do
    AR_FLOW_SUM_BLOCKS=$sb r "stragglar p$p, $sb sum blocks" "${s[@]}" --algo stragglar --pipeline $p
  done
done
for p in 1 4; do
  r "timeline 64M p$p" --sizes 64M --algo stragglar --transport ce --straggler 1:8ms -n 3 -w 1 \
    --pipeline $p --profile timeline
done
(cd "$W" && tar czf "$O/midsize.tgz" . 2>/dev/null)
echo "done in $(( $(date +%s) - T0 )) s" | tee -a "$O/midsize.log"
