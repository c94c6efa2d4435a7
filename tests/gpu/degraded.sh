#!/usr/bin/env bash
# The degraded-link emulation and OPTCC in one device call (4 x H200), outputs in $OUT:
#   selftest  the degrade self-test with the ce flow program (AR_CE_PROGRAM=flow), and the
#             GPUs' clock offsets it prints
#   degraded  ring, optcc, optcc-switch at 1 GiB, GPU 3 2x slower, ce on the flow program, on
#             the per-round program, and sm
#   segments  optcc-switch on the flow program at k = 8, 12, 24, 32
#   straggler stragglar vs nccl at 1 GiB, 8 ms straggler on rank 1 (the flow program's order)
# Usage (on the GPU machine): B=.carry/x OUT=$OUT DEADLINE=500 bash tests/gpu/degraded.sh
. "$(dirname "$0")/lib.sh"
L="$O/degraded.log"
d=(--sizes 1G --degrade 3:2.0 --pipeline 0)
AR_CE_PROGRAM=flow step selftest 90 "$A" run --self-test degrade --gpus 0,1,2,3
grep -E "^(#|ce|sm|nccl)" "$W/selftest.log" | tee -a "$L"
AR_CE_PROGRAM=flow row "$L" 90 "flow program" --algo ring,optcc,optcc-switch --transport ce "${d[@]}" -n 20 -w 5
AR_CE_PROGRAM=round row "$L" 90 "per-round program" --algo optcc,optcc-switch --transport ce "${d[@]}" -n 20 -w 5
row "$L" 90 "sm" --algo ring,optcc,optcc-switch --transport sm "${d[@]}" -n 20 -w 5
for k in 8 12 24 32; do
  AR_CE_PROGRAM=flow row "$L" 60 "flow, k = $k" --algo optcc-switch --segments $k --transport ce "${d[@]}" -n 10 -w 3
done
row "$L" 90 "straggler" --algo nccl,stragglar --transport ce --sizes 1G --straggler 1:8ms --pipeline 0 -n 20 -w 5
cp "$W"/r*.log "$O/" 2>/dev/null
for x in "$W"/r*/results.csv; do cp "$x" "$O/$(basename "$(dirname "$x")").csv"; done
echo "done in $(( $(date +%s) - T0 )) s" | tee -a "$L"
