#!/usr/bin/env bash
# One H200, one call: make gputest on session 24's main (nccl.rotate and timing.graph_upload,
# added on 2 x H200 in session 23, had no gputest on the final tree), then every transport's
# rows on two co-located ranks in host timing with nccl.rotate=on (nccl is n/a co-located; the
# schedules never rotate) and in graph timing without upload. Carried: build/arbench.
# Everything under $OUT.
set -u
cd "$(dirname "$0")/../.."
export NCCL_NVLS_ENABLE=0
. tools/device/lib.sh # gputest, stamp, rows_said
nvidia-smi -L
gputest "$OUT/gputest.log" /tmp/gputest
for mode in host graph; do
  set_=(--set timing.mode=$mode)
  [ $mode = host ] && set_+=(--set nccl.rotate=on) || set_+=(--set timing.graph_upload=off)
  build/arbench run --gpus 0,0 --algo ring,direct,nccl --transport nccl-p2p,ce,sm,ll \
    --sizes 4K,1M,16M -n 10 "${set_[@]}" --out "$OUT/colocated-$mode" >"$OUT/colocated-$mode.log" 2>&1
  stamp "co-located, $mode ${set_[*]}: exit $?, $(rows_said "$OUT/colocated-$mode/results.csv")"
done
