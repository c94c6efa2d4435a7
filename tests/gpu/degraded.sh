#!/usr/bin/env bash
# The degraded-link emulation and OPTCC in one device call (4 x H200), outputs in $OUT:
#   selftest  the degrade self-test with the ce flow program (AR_CE_PROGRAM=flow; GATE as
#             AR_CE_FLOW_GATE), and the GPUs' clock offsets it prints
#   knobs     optcc-switch at 1 GiB, GPU 3 2x slower, flow program, k = 12 and 16, over
#             AR_CE_FLOW_INPUT_FIRST x AR_CE_FLOW_GATE
#   degraded  ring, optcc, optcc-switch on the flow program (GATE), the per-round program, sm
#   timeline  optcc-switch, flow program (GATE), k = 16
#   straggler stragglar vs nccl at 1 GiB, 8 ms straggler on rank 1
# Usage (on the GPU machine): B=.carry/x OUT=$OUT DEADLINE=500 GATE=1 bash tests/gpu/degraded.sh
. "$(dirname "$0")/lib.sh"
L="$O/degraded.log"
G=${GATE:-1}
d=(--sizes 1G --degrade 3:2.0 --pipeline 0)
AR_CE_PROGRAM=flow AR_CE_FLOW_GATE=$G step selftest 90 "$A" run --self-test degrade --gpus 0,1,2,3
grep -E "^(#|ce)" "$W/selftest.log" | tee -a "$L"
for fi in 0 1; do
  for ga in 0 1; do
    for k in 12 16; do
      AR_CE_PROGRAM=flow AR_CE_FLOW_INPUT_FIRST=$fi AR_CE_FLOW_GATE=$ga row "$L" 60 \
        "input-first $fi gate $ga k $k" --algo optcc-switch --segments $k --transport ce "${d[@]}" -n 10 -w 3
    done
  done
done
AR_CE_PROGRAM=flow AR_CE_FLOW_GATE=$G row "$L" 90 "flow program, gate $G" --algo ring,optcc,optcc-switch --transport ce "${d[@]}" -n 20 -w 5
AR_CE_PROGRAM=round row "$L" 90 "per-round program" --algo optcc --transport ce "${d[@]}" -n 20 -w 5
row "$L" 90 "sm" --algo ring,optcc --transport sm "${d[@]}" -n 20 -w 5
AR_CE_PROGRAM=flow AR_CE_FLOW_GATE=$G row "$L" 60 "timeline, gate $G" --algo optcc-switch --transport ce "${d[@]}" -n 10 -w 3 --profile timeline
row "$L" 90 "straggler" --algo nccl,stragglar --transport ce --sizes 1G --straggler 1:8ms --pipeline 0 -n 20 -w 5
cp "$W/selftest.log" "$O/" 2>/dev/null
for x in "$W"/r*/results.csv; do cp "$x" "$O/$(basename "$(dirname "$x")").csv"; done
for x in "$W"/r*/timeline.csv; do [ -f "$x" ] && gzip -c "$x" > "$O/timeline.csv.gz"; done
(cd "$W" && tar czf "$O/logs.tgz" r*.log 2>/dev/null)
echo "done in $(( $(date +%s) - T0 )) s" | tee -a "$L"
