#!/usr/bin/env bash
# #4's OPTCC figure again on a fresh machine (4 x H200): ring, optcc, optcc-switch at 1 GiB with
# GPU 3 2x slower (k chosen per size), three times, and optcc-switch at k = 12..20.
# Summary: $OUT/confirm.log, rows in $OUT/confirm.csv. Usage: B=.carry/x OUT=$OUT bash tools/experiments/confirm.sh
. "$(dirname "$0")/lib.sh"
L="$O/confirm.log"
d=(--sizes 1G --transport ce --degrade 3:2.0 --pipeline 0 -n 20 -w 5)
keep() { if [ -f "$O/confirm.csv" ]; then tail -n +2 "$W/r$i/results.csv" >>"$O/confirm.csv"; else cp "$W/r$i/results.csv" "$O/confirm.csv"; fi; }
for rep in 1 2 3; do
  row "$L" 60 "2x, k per size, rep $rep" --algo ring,optcc,optcc-switch "${d[@]}"; keep
done
for k in 12 14 16 18 20; do
  row "$L" 60 "2x, k=$k" --algo optcc-switch --segments $k "${d[@]}"; keep
done
echo "done in $(( $(date +%s) - T0 )) s" | tee -a "$L"
