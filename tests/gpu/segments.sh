#!/usr/bin/env bash
# OPTCC's segment count on the ce flow program, one device call (4 x H200): optcc and
# optcc-switch at k = 8..32 with GPU 3 slowed 1.5..4x at 1 GiB, and 2x at 256 MiB and 4 GiB,
# to calibrate the automatic k (harness/sweep.c, SWEEP_ROUND_US). Summary: $OUT/segments.log
# (one line per row), all rows in $OUT/segments.csv. Usage: B=.carry/x OUT=$OUT bash tests/gpu/segments.sh
. "$(dirname "$0")/lib.sh"
L="$O/segments.log"
for k in ${KS:-8 12 16 20 24 32}; do
  factors_conf "$W/f$k.conf" "--gpus 0,1,2,3 --algo optcc,optcc-switch --transport ce --sizes 1G --segments $k --pipeline 0 -n 10 -w 3 -T 60" 1.5 2.0 2.5 3.0 4.0
  step "k$k" 120 "$A" run --config "$W/f$k.conf" --out "$W/k$k"
  step "s$k" 60 "$A" run --gpus 0,1,2,3 --algo optcc,optcc-switch --transport ce --sizes 256M,4G --segments $k \
    --degrade 3:2.0 --pipeline 0 -n 10 -w 3 -T 60 --out "$W/s$k"
  tail -n +2 "$W/s$k/results.csv" >>"$W/k$k/results.csv"
  awk -F, -v k=$k 'NR == 1 { for (j = 1; j <= NF; j++) c[$j] = j; next }
    { printf "k %-3s %-12s %11s factor %-4s median %10s lb %10s wrong %s %s\n", k, $c["algorithm"], $c["bytes"],
      $c["factor"], $c["time_us_median"], $c["lower_bound_us"], $c["wrong"], $c["status"] }' "$W/k$k/results.csv" | tee -a "$L"
  if [ -f "$O/segments.csv" ]; then tail -n +2 "$W/k$k/results.csv" >>"$O/segments.csv"; else cp "$W/k$k/results.csv" "$O/segments.csv"; fi
done
echo "done in $(( $(date +%s) - T0 )) s" | tee -a "$L"
