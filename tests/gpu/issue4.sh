#!/usr/bin/env bash
# Issue #4's runs in one device call (4 x H200), each into its own run folder under $W, all
# returned in $OUT/issue4.tgz, a summary in $OUT/issue4.log:
#   selftest  the degrade self-test (1..3 peers, in/out/both, ce and sm)
#   straggler stragglar vs nccl at 1 GiB, 8 ms straggler on rank 1, ce's choice of mini-batches
#   degraded  ring, optcc, optcc-switch at 1 GiB, GPU 3 2x slower, ce (k chosen per size)
#   segments  optcc-switch at k = 8, 12, 24 (the same link), and a timeline at the default k
#   (the factor sweep 1.0..4.0 moved to tests/gpu/degraded.sh, which runs every degraded run)
#   critical  the critical delay for 64 MiB..4 GiB against the best of nccl and our schedules
# Usage (on the GPU machine): B=.carry/x OUT=$OUT DEADLINE=560 bash tests/gpu/issue4.sh
. "$(dirname "$0")/lib.sh"
L="$O/issue4.log"
show() { awk -F, 'NR == 1 { for (k = 1; k <= NF; k++) c[$k] = k; next }
  { printf "  %-12s %-8s %11s delay %8s factor %-4s k %-3s median %10s after %10s lb %10s wrong %s %s\n",
    $c["algorithm"], $c["transport"], $c["bytes"], $c["delay_us"], $c["factor"], $c["pipeline"],
    $c["time_us_median"], $c["time_after_arrival_us"], $c["lower_bound_us"], $c["wrong"], $c["status"] }' "$1/results.csv" 2>/dev/null | tee -a "$L"; }
step selftest 60 "$A" run --self-test degrade --gpus 0,1,2,3
grep -E "^(ce|sm|nccl)" "$W/selftest.log" | tee -a "$L"
step straggler 60 "$A" run --gpus 0,1,2,3 --sizes 1G --algo nccl,stragglar --transport ce --straggler 1:8ms \
  --pipeline 0 -n 20 -w 5 -T 60 --out "$W/straggler"
show "$W/straggler"
step degraded 90 "$A" run --gpus 0,1,2,3 --sizes 1G --algo ring,optcc,optcc-switch --transport ce --degrade 3:2.0 \
  --pipeline 0 -n 20 -w 5 -T 60 --out "$W/degraded"
show "$W/degraded"
for k in 8 12 24; do
  step "segments$k" 60 "$A" run --gpus 0,1,2,3 --sizes 1G --algo optcc-switch --segments $k --transport ce \
    --degrade 3:2.0 --pipeline 0 -n 10 -w 3 -T 60 --out "$W/segments$k"
  show "$W/segments$k"
done
step timeline 60 "$A" run --gpus 0,1,2,3 --sizes 1G --algo optcc-switch --transport ce --degrade 3:2.0 \
  --pipeline 0 -n 10 -w 3 -T 60 --profile timeline --out "$W/timeline"
show "$W/timeline"
gzip -f "$W/timeline/timeline.csv" 2>/dev/null
step critical 200 "$A" run --gpus 0,1,2,3 --find-critical 64M,256M,1G,4G --algo nccl,ring,rhd,direct,swing-bw,stragglar \
  --transport ce --straggler 1:0 --pipeline 0 -n 5 -w 2 -T 60 --out "$W/critical"
cat "$W/critical/critical.csv" 2>/dev/null | tee -a "$L"
(cd "$W" && tar czf "$O/issue4.tgz" . 2>/dev/null)
echo "done in $(( $(date +%s) - T0 )) s" | tee -a "$L"
