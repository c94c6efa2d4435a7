#!/usr/bin/env bash
# #22 on a single-GPU kind: `make gputest` (2..8 ranks on one GPU) on the redesigned lowering
# and settings, from a clean build, plus one run per execution setting (flags=kernel,
# ce.sum_wait=0) to show --set reaches the transports. Logs to $OUT.
set -u
export NCCL_NVLS_ENABLE=0
out=${OUT:-/tmp/redesign}; mkdir -p "$out"
rm -rf build-dev
{ time make B=build-dev -j16 >"$out/build.log" 2>&1; } 2>&1 | grep real
t0=$SECONDS
GPUTEST_OUT=/tmp/gputest GPUTEST_TIMEOUT=10 timeout 200 make B=build-dev gputest >"$out/gputest.log" 2>&1
echo "gputest: exit $? after $((SECONDS - t0)) s: $(tail -n 1 "$out/gputest.log")"
grep '^FAIL' "$out/gputest.log" | head
build-dev/arbench run --ranks 4 --algo ring,stragglar,direct --transport ce --sizes 1M,64M -n 3 -w 1 -T 10 \
  --set flags=kernel --set ce.sum_wait=0 --out /tmp/setrun >"$out/settings_run.log" 2>&1
echo "settings run: exit $?; $(awk -F, 'NR > 1 { print $31 }' /tmp/setrun/results.csv | sort | uniq -c | tr '\n' ' ')"
grep -E '^setting (flags|ce.sum_wait)' /tmp/setrun/meta.txt
cp /tmp/setrun/results.csv "$out/settings_results.csv"; cp /tmp/setrun/meta.txt "$out/settings_meta.txt"
(head -1 /tmp/gputest/co2_float32_ce/results.csv; for f in /tmp/gputest/*/results.csv; do tail -n +2 "$f"; done) >"$out/gputest_results.csv"
