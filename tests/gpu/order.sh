#!/usr/bin/env bash
# The flow program's send order and streams for a degraded GPU's flows, one device call
# (4 x H200), optcc-switch at 1 GiB with GPU 3 2x slower: AR_FLOW_DEGRADED_STREAM=1 (copies
# with a degraded end on a copy-engine stream of their own), AR_FLOW_ORDER=degraded-first,
# against the default, at several segment counts; tp_check's correctness checks of each; a
# timeline of TL (env settings, default the degraded stream).
# Summary: $OUT/order.log. Usage: B=.carry/x OUT=$OUT bash tests/gpu/order.sh
. "$(dirname "$0")/lib.sh"
L="$O/order.log"
T=${B:-build}/tp_check
for v in "AR_FLOW_DEGRADED_STREAM=1" "AR_FLOW_ORDER=degraded-first"; do
  env $v timeout -k 5 90 "$T" gpu --transport ce --algos ring,optcc,optcc-switch,stragglar --degrade 3:2 \
    --sizes 1K,1000003e,16M --dtypes f32 --pipelines 1,0 --timeout 20 >"$W/dg.log" 2>&1
  echo "tp_check gpu ce degraded, $v: exit $?; $(tail -n 1 "$W/dg.log")" | tee -a "$L"
  grep -E '^(FAIL|HANG|STALL|WRONG)' "$W/dg.log" | head -5 | tee -a "$L"
done
d=(--sizes 1G --transport ce --degrade 3:2.0 --pipeline 0 -n 20 -w 5)
row "$L" 60 "default, k=12" --algo ring,optcc-switch --segments 12 "${d[@]}"
for rep in 1 2; do
  for v in "AR_FLOW_DEGRADED_STREAM=0" "AR_FLOW_DEGRADED_STREAM=1" "AR_FLOW_ORDER=degraded-first" \
    "AR_FLOW_DEGRADED_STREAM=1 AR_FLOW_ORDER=degraded-first"; do
    for k in 12 16; do
      export $v
      row "$L" 60 "$v, k=$k" --algo optcc-switch --segments $k "${d[@]}"
      unset AR_FLOW_DEGRADED_STREAM AR_FLOW_ORDER
    done
  done
done
export ${TL:-AR_FLOW_DEGRADED_STREAM=1}
row "$L" 60 "timeline ${TL:-AR_FLOW_DEGRADED_STREAM=1}" --algo optcc-switch --segments 12 --sizes 1G \
  --transport ce --degrade 3:2.0 --pipeline 0 -n 6 -w 2 --profile timeline
gzip -c "$W/r$i/timeline.csv" > "$O/timeline.csv.gz" 2>/dev/null
echo "done in $(( $(date +%s) - T0 )) s" | tee -a "$L"
