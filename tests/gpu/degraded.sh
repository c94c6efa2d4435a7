#!/usr/bin/env bash
# The degraded-link emulation and OPTCC in one device call (4 x H200): every run folder goes
# into $OUT/degraded.tgz, a summary into $OUT/degraded.log.
#   selftest  the degrade self-test (ce runs the flow program's budgets) and the clock offsets
#   degraded  ring, optcc, optcc-switch at 1 GiB, GPU 3 2x slower, ce (k chosen per size)
#   segments  optcc-switch and optcc at k = 8, 16, 24 on the same link
#   factors   the factor sweep 1.0..4.0 (ring, optcc, optcc-switch)
#   straggler stragglar vs nccl at 1 GiB, 8 ms straggler on rank 1 (unchanged by the above)
# Usage (on the GPU machine): B=.carry/x OUT=$OUT DEADLINE=500 bash tests/gpu/degraded.sh
. "$(dirname "$0")/lib.sh"
L="$O/degraded.log"
show() { awk -F, 'NR == 1 { for (k = 1; k <= NF; k++) c[$k] = k; next }
  { printf "  %-12s %-8s %11s factor %-4s k %-3s median %10s lb %10s wrong %s %s\n", $c["algorithm"],
    $c["transport"], $c["bytes"], $c["factor"], $c["pipeline"], $c["time_us_median"],
    $c["lower_bound_us"], $c["wrong"], $c["status"] }' "$1/results.csv" 2>/dev/null | tee -a "$L"; }
step selftest 90 "$A" run --self-test degrade --gpus 0,1,2,3
grep -E "^(#|ce|sm|nccl)" "$W/selftest.log" | tee -a "$L"
step degraded 90 "$A" run --gpus 0,1,2,3 --sizes 1G --algo ring,optcc,optcc-switch --transport ce \
  --degrade 3:2.0 --pipeline 0 -n 20 -w 5 -T 60 --out "$W/degraded"
show "$W/degraded"
for k in 8 16 24; do
  step "segments$k" 60 "$A" run --gpus 0,1,2,3 --sizes 1G --algo optcc-switch,optcc --segments $k \
    --transport ce --degrade 3:2.0 --pipeline 0 -n 10 -w 3 -T 60 --out "$W/segments$k"
  show "$W/segments$k"
done
factors_conf "$W/factors.conf" "--gpus 0,1,2,3 --algo ring,optcc,optcc-switch --transport ce --sizes 1G --pipeline 0 -n 10 -w 3 -T 60" 1.0 1.5 2.0 2.5 3.0 4.0
step factors 150 "$A" run --config "$W/factors.conf" --out "$W/factors"
show "$W/factors"
step straggler 60 "$A" run --gpus 0,1,2,3 --sizes 1G --algo nccl,stragglar --transport ce --straggler 1:8ms \
  --pipeline 0 -n 20 -w 5 -T 60 --out "$W/straggler"
show "$W/straggler"
(cd "$W" && tar czf "$O/degraded.tgz" . 2>/dev/null)
echo "done in $(( $(date +%s) - T0 )) s" | tee -a "$L"
