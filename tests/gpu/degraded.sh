#!/usr/bin/env bash
# The degraded-link emulation and OPTCC in one device call (4 x H200); everything goes into
# $OUT/degraded.tgz, the summary into $OUT/degraded.log:
#   selftest  the degrade self-test with the ce flow program (AR_CE_PROGRAM=flow and the knobs
#             below), and the GPUs' clock offsets it prints
#   knobs     optcc-switch and optcc at 1 GiB, GPU 3 2x slower, flow program, k in KS, over the
#             settings in SETS ("GATE/COPY_STREAMS/INPUT_FIRST" for AR_CE_FLOW_GATE,
#             AR_CE_FLOW_COPY_STREAMS, AR_CE_FLOW_INPUT_FIRST)
#   degraded  ring, optcc, optcc-switch with the first setting (k chosen per size)
#   timeline  optcc-switch with the first setting at the first k
#   straggler stragglar vs nccl at 1 GiB, 8 ms straggler on rank 1 (the default program)
# Usage (on the GPU machine):
#   B=.carry/x OUT=$OUT DEADLINE=500 SETS="1/2/0 1/1/0" KS="8 12 16" bash tests/gpu/degraded.sh
. "$(dirname "$0")/lib.sh"
L="$O/degraded.log"
SETS=${SETS:-1/1/0}
KS=${KS:-12 16}
d=(--sizes 1G --degrade 3:2.0 --pipeline 0)
knobs() { # knobs GATE/COPY_STREAMS/INPUT_FIRST CMD...: runs CMD with the flow program and those
  local kg kc kf; IFS=/ read -r kg kc kf <<< "$1"; shift
  AR_CE_PROGRAM=flow AR_CE_FLOW_GATE=$kg AR_CE_FLOW_COPY_STREAMS=$kc AR_CE_FLOW_INPUT_FIRST=$kf "$@"
}
first=${SETS%% *}
kfirst=${KS%% *}
knobs "$first" step selftest 90 "$A" run --self-test degrade --gpus 0,1,2,3
grep -E "^(#|ce)" "$W/selftest.log" | tee -a "$L"
for set in $SETS; do
  for k in $KS; do
    knobs "$set" row "$L" 60 "knobs $set k $k" --algo optcc-switch,optcc --segments "$k" --transport ce \
      "${d[@]}" -n 10 -w 3
  done
done
knobs "$first" row "$L" 90 "knobs $first, k per size" --algo ring,optcc,optcc-switch --transport ce "${d[@]}" -n 20 -w 5
knobs "$first" row "$L" 60 "timeline, knobs $first k $kfirst" --algo optcc-switch --segments "$kfirst" \
  --transport ce "${d[@]}" -n 10 -w 3 --profile timeline
row "$L" 90 "straggler" --algo nccl,stragglar --transport ce --sizes 1G --straggler 1:8ms --pipeline 0 -n 20 -w 5
(cd "$W" && tar czf "$O/degraded.tgz" . 2>/dev/null)
echo "done in $(( $(date +%s) - T0 )) s" | tee -a "$L"
