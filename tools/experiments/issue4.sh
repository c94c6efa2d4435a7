#!/usr/bin/env bash
# Issue #4's runs in one device call (4 x H200), each into its own run folder under $W, all
# returned in $OUT/issue4.tgz, a summary in $OUT/issue4.log:
#   selftests the delay self-test (100 us, 1 ms, 8 ms) and the degrade self-test (1..3 peers,
#             in/out/both, every transport)
#   straggler stragglar vs nccl at 1 GiB, 8 ms straggler on rank 1, ce's choice of mini-batches
#   degraded  ring, optcc (on GPUs the switch form), optcc-ring at 1 GiB, GPU 3 2x slower, ce
#             (k chosen per size), 50 iterations, in 1 + REPEAT processes (default 2)
#   factors   the same three at GPU 3 1.0..4.0x slower
#   critical  the critical delay for 64 MiB..4 GiB against the best of nccl and our schedules,
#             ce and sm
#   checks    every algorithm on ce with GPU 1 2x slower, and optcc/optcc-multi on 2, 3 and 4
#             GPUs with one and two degraded GPUs on every transport: the wrong column
# Usage (on the GPU machine): B=.carry/x OUT=$OUT DEADLINE=580 bash tools/experiments/issue4.sh
. "$(dirname "$0")/lib.sh"
L="$O/issue4.log"
step selftest_delay 60 "$A" run --self-test delay --gpus 0,1,2,3
grep -vE "^\s*$" "$W/selftest_delay.log" | tail -n 8 | tee -a "$L"
step selftest 90 "$A" run --self-test degrade --gpus 0,1,2,3
grep -E "^(#|ce|sm|nccl)" "$W/selftest.log" | tee -a "$L"
step straggler 60 "$A" run --gpus 0,1,2,3 --sizes 1G --algo nccl,stragglar --transport ce --straggler 1:8ms \
  --pipeline 0 -n 20 -w 5 -T 60 --out "$W/straggler"
show "$W/straggler"
for r in "" $(seq -s ' ' 1 "${REPEAT:-2}"); do
  step "degraded$r" 90 "$A" run --gpus 0,1,2,3 --sizes 1G --algo ring,optcc,optcc-ring --transport ce \
    --degrade 3:2.0 --pipeline 0 -n 50 -w 5 -T 60 --out "$W/degraded$r"
  show "$W/degraded$r"
done
factors_conf "$W/factors.conf" "--gpus 0,1,2,3 --algo ring,optcc,optcc-ring --transport ce --sizes 1G --pipeline 0 -n 20 -w 3 -T 60" 1.0 1.5 2.0 2.5 3.0 4.0
step factors 150 "$A" run --config "$W/factors.conf" --out "$W/factors"
show "$W/factors"
step critical 200 "$A" run --gpus 0,1,2,3 --find-critical --algo nccl,ring,rhd,direct,swing-bw,stragglar \
  --transport ce,sm --straggler 1:0 --pipeline 0 -n 5 -w 2 -T 60 --out "$W/critical"
cat "$W/critical/critical.csv" 2>/dev/null | tee -a "$L"
step allalgos 90 "$A" run --gpus 0,1,2,3 --sizes 1K,1000004,64M --algo all --transport ce --degrade 1:2 \
  -n 3 -w 1 -T 30 --out "$W/allalgos"
tally allalgos "$W/allalgos"
for gp in 0,1 0,1,2 0,1,2,3; do # GPU 1 3x and the last GPU 2x slower; GPU 1 alone on 2 GPUs
  dg=1:3; [ "$gp" != 0,1 ] && dg="1:3,${gp##*,}:2"
  step "multi${gp//,/}" 60 "$A" run --gpus "$gp" --sizes 1K,1000004,64M --algo optcc,optcc-multi \
    --transport ce,sm,nccl-p2p --degrade "$dg" -n 5 -w 1 -T 30 --out "$W/multi${gp//,/}"
  tally "multi $gp" "$W/multi${gp//,/}"
done
(cd "$W" && tar czf "$O/issue4.tgz" . 2>/dev/null)
echo "done in $(( $(date +%s) - T0 )) s" | tee -a "$L"
