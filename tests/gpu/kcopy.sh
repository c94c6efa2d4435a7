#!/usr/bin/env bash
# The flow program's kernel copies (AR_FLOW_KERNEL_COPY: degraded = flows with a degraded end
# copied by SM-store kernels on a stream of their own, beside the copy engine's; all = every
# copy by kernel) against the copy engine, one device call (4 x H200): tp_check's correctness
# checks of each mode with GPU 3 2x slower, then optcc-switch and ring at 1 GiB on that link
# (modes x segments x kernel blocks), and one --profile timeline of the best guess.
# Summary: $OUT/kcopy.log, timeline under $OUT. Usage: B=.carry/x OUT=$OUT bash tests/gpu/kcopy.sh
. "$(dirname "$0")/lib.sh"
L="$O/kcopy.log"
T=${B:-build}/tp_check
for kc in degraded all; do
  timeout -k 5 90 "$T" gpu --transport ce --algos ring,optcc,optcc-switch,stragglar --degrade 3:2 \
    --sizes 1K,1000003e,16M --dtypes f32 --pipelines 1,0 --timeout 20 --kernel-copy $kc >"$W/dg_$kc.log" 2>&1
  echo "tp_check gpu ce degraded, kernel copy $kc: exit $?; $(tail -n 1 "$W/dg_$kc.log")" | tee -a "$L"
  grep -E '^(FAIL|HANG|STALL|WRONG)' "$W/dg_$kc.log" | head -5 | tee -a "$L"
done
d=(--sizes 1G --transport ce --degrade 3:2.0 --pipeline 0 -n 20 -w 5)
for kc in none degraded all none degraded; do
  AR_FLOW_KERNEL_COPY=$kc row "$L" 60 "kernel copy $kc, k=12" --algo ring,optcc-switch --segments 12 "${d[@]}"
done
for kc in degraded all; do
  for k in 8 16 24; do
    AR_FLOW_KERNEL_COPY=$kc row "$L" 60 "kernel copy $kc, k=$k" --algo optcc-switch --segments $k "${d[@]}"
  done
  for kb in 16 64; do
    AR_FLOW_KERNEL_BLOCKS=$kb AR_FLOW_KERNEL_COPY=$kc row "$L" 60 "kernel copy $kc, blocks $kb, k=12" \
      --algo optcc-switch --segments 12 "${d[@]}"
  done
done
AR_FLOW_KERNEL_COPY=${TL_MODE:-degraded} row "$L" 60 "timeline ${TL_MODE:-degraded}" --algo optcc-switch \
  --segments 12 --sizes 1G --transport ce --degrade 3:2.0 --pipeline 0 -n 6 -w 2 --profile timeline
gzip -c "$W/r$i/timeline.csv" > "$O/timeline.csv.gz" 2>/dev/null
echo "done in $(( $(date +%s) - T0 )) s" | tee -a "$L"
