#!/usr/bin/env bash
# A sum that waits for its own inputs (ar_sum_wait_launch, tp_ce.cu enqueue_folding) against
# stream waits before it (AR_SUM_WAIT=0), one device call (4 x H200): tp_check's correctness
# checks on ce (healthy and degraded), then optcc-switch and ring with GPU 3 2x slower,
# stragglar with an 8 ms straggler, healthy ring/rhd/direct at 1 GiB and small sizes.
# Summary: $OUT/sumwait.log. Usage (on the GPU machine): B=.carry/x OUT=$OUT bash tools/experiments/sumwait.sh
. "$(dirname "$0")/lib.sh"
L="$O/sumwait.log"
T=${B:-build}/tp_check
timeout -k 5 150 "$T" gpu --transport ce --algos all --sizes 1K,12345e,1M,1000003e,16M --dtypes f32 \
  --pipelines 1,0,3 --timeout 20 >"$W/ce.log" 2>&1
echo "tp_check gpu ce: exit $?; $(grep -cE '^(FAIL|HANG|STALL|WRONG)' "$W/ce.log") bad; $(tail -n 1 "$W/ce.log")" | tee -a "$L"
grep -E '^(FAIL|HANG|STALL|WRONG)' "$W/ce.log" | head -5 | tee -a "$L"
timeout -k 5 90 "$T" gpu --transport ce --algos ring,optcc,optcc-switch,stragglar,direct --degrade 3:2 \
  --sizes 1K,1000003e,16M --dtypes f32 --pipelines 1,0 --timeout 20 >"$W/dg.log" 2>&1
echo "tp_check gpu ce degraded: exit $?; $(tail -n 1 "$W/dg.log")" | tee -a "$L"
grep -E '^(FAIL|HANG|STALL|WRONG)' "$W/dg.log" | head -5 | tee -a "$L"
d=(--sizes 1G --transport ce --pipeline 0 -n 20 -w 5)
for sw in 1 0 1; do
  AR_SUM_WAIT=$sw row "$L" 60 "sum wait $sw, 2x" --algo ring,optcc,optcc-switch --degrade 3:2.0 "${d[@]}"
  AR_SUM_WAIT=$sw row "$L" 60 "sum wait $sw, 8 ms straggler" --algo nccl,stragglar --straggler 1:8ms "${d[@]}"
  AR_SUM_WAIT=$sw row "$L" 60 "sum wait $sw, healthy" --algo ring,rhd,direct,optcc-switch "${d[@]}"
  AR_SUM_WAIT=$sw row "$L" 60 "sum wait $sw, small" --algo ring,rhd,direct,async-ring --sizes 1K,64K,1M,16M \
    --transport ce -n 50 -w 10
done
echo "done in $(( $(date +%s) - T0 )) s" | tee -a "$L"
