#!/usr/bin/env bash
# One device call: stragglar/ce (ALGO: another) after the straggler's arrival (8 ms straggler on
# rank 1; SIZES, default 64 MiB..1 GiB) over the flow program's mini-batches (PIPES: --pipeline
# values) and its sum kernels' blocks (BLOCKS: AR_FLOW_SUM_BLOCKS values), nccl beside it; with
# OLD (another build dir) the same at 2 and automatic batches on that binary; CUPTI timelines
# at 64 MiB (TIMELINES: --pipeline values). Output: $OUT/midsize.log, $OUT/midsize.tgz.
# Usage (on the GPU machine): B=.carry/x OUT=$OUT bash tools/experiments/midsize.sh
. "$(dirname "$0")/lib.sh"
r() { row "$O/midsize.log" 90 "$@"; }
a=${ALGO:-stragglar}
s=(--sizes ${SIZES:-64M,128M,256M,512M,1G} --transport ce --straggler 1:8ms -n 10 -w 3)
r "nccl" "${s[@]}" --algo nccl
for sb in ${BLOCKS:-64}; do
  for p in ${PIPES:-0 1 2 4}; do
    AR_FLOW_SUM_BLOCKS=$sb r "$a p$p, $sb sum blocks" "${s[@]}" --algo "$a" --pipeline $p
  done
done
if [ -n "${OLD:-}" ]; then # A/B: the same rows on another binary (OLD: its build dir)
  for p in 2 0; do
    A=$OLD/arbench r "$a p$p, binary $OLD" "${s[@]}" --algo "$a" --pipeline $p
  done
fi
for p in ${TIMELINES-0}; do
  r "timeline 64M p$p" --sizes 64M --algo "$a" --transport ce --straggler 1:8ms -n 3 -w 1 \
    --pipeline $p --profile timeline
done
(cd "$W" && tar czf "$O/midsize.tgz" . 2>/dev/null)
echo "done in $(( $(date +%s) - T0 )) s" | tee -a "$O/midsize.log"
