#!/usr/bin/env bash
# The degraded-link emulation and OPTCC in one device call (4 x H200): every run folder goes
# into $OUT/degraded.tgz, a summary into $OUT/degraded.log.
#   selftest  the degrade self-test (ce runs the flow program's budgets) and the clock offsets
#   degraded  ring, optcc (on GPUs the switch form), optcc-ring at 1 GiB, GPU 3 2x slower, ce
#             (k chosen per size), 50 iterations; REPEAT more runs of it (default 2), each a process
#   segments  with KS set (e.g. "8 12 16 20 24 32"): optcc and optcc-ring at each k, GPU 3 1.5-4x
#             slower at 1 GiB, 2x at 256 MiB, 4 GiB
#   ab        with OLD set (another build dir): optcc at 2x, k = 12, 16 on both binaries
#   factors   the factor sweep 1.0..4.0 (ring, optcc, optcc-ring)
#   straggler stragglar vs nccl at 1 GiB, 8 ms straggler on rank 1 (unchanged by the above)
#   multi     correctness of optcc and optcc-multi on 2, 3 and 4 GPUs, one and two degraded
#             GPUs, every transport, odd and mid sizes (the wrong column)
# Usage (on the GPU machine): B=.carry/x OUT=$OUT DEADLINE=500 bash tools/experiments/degraded.sh
. "$(dirname "$0")/lib.sh"
L="$O/degraded.log"
step selftest 90 "$A" run --self-test degrade --gpus 0,1,2,3
grep -E "^(#|ce|sm|nccl)" "$W/selftest.log" | tee -a "$L"
for r in "" $(seq -s ' ' 1 "${REPEAT:-2}"); do
  step "degraded$r" 90 "$A" run --gpus 0,1,2,3 --sizes 1G --algo ring,optcc,optcc-ring --transport ce \
    --degrade 3:2.0 --pipeline 0 -n 50 -w 5 -T 60 --out "$W/degraded$r"
  show "$W/degraded$r"
done
for k in ${KS:-}; do # every factor at 1 GiB, and 2x at 256 MiB and 4 GiB
  factors_conf "$W/seg$k.conf" "--gpus 0,1,2,3 --algo optcc,optcc-ring --transport ce --sizes 1G --segments $k --pipeline 0 -n 10 -w 3 -T 60" 1.5 2.0 2.5 3.0 4.0
  printf '[scenario x2-sizes]\n--degrade 3:2.0 --sizes 256M,4G\n' >>"$W/seg$k.conf"
  step "segments$k" 120 "$A" run --config "$W/seg$k.conf" --out "$W/segments$k"
  show "$W/segments$k"
done
if [ -n "${OLD:-}" ]; then # the same link on another binary (OLD: its build dir), interleaved
  for k in 12 16 12 16; do
    for b in "$OLD" "${B:-build}"; do
      step "ab" 60 "$b/arbench" run --gpus 0,1,2,3 --sizes 1G --algo optcc --segments $k \
        --transport ce --degrade 3:2.0 --pipeline 0 -n 20 -w 5 -T 60 --out "$W/ab"
      echo "  binary $b k $k: $(tail -n 1 "$W/ab/results.csv" | cut -d, -f21) us" | tee -a "$L"
      rm -rf "$W/ab"
    done
  done
fi
factors_conf "$W/factors.conf" "--gpus 0,1,2,3 --algo ring,optcc,optcc-ring --transport ce --sizes 1G --pipeline 0 -n 20 -w 3 -T 60" 1.0 1.5 2.0 2.5 3.0 4.0
step factors 150 "$A" run --config "$W/factors.conf" --out "$W/factors"
show "$W/factors"
step straggler 60 "$A" run --gpus 0,1,2,3 --sizes 1G --algo nccl,stragglar --transport ce --straggler 1:8ms \
  --pipeline 0 -n 20 -w 5 -T 60 --out "$W/straggler"
show "$W/straggler"
for gp in 0,1 0,1,2 0,1,2,3; do # GPU 1 3x and the last GPU 2x slower; GPU 1 alone on 2 GPUs
  dg=1:3; [ "$gp" != 0,1 ] && dg="1:3,${gp##*,}:2"
  step "multi${gp//,/}" 60 "$A" run --gpus "$gp" --sizes 1K,1000004,64M --algo optcc,optcc-multi \
    --transport ce,sm,nccl-p2p --degrade "$dg" -n 5 -w 1 -T 30 --out "$W/multi${gp//,/}"
  show "$W/multi${gp//,/}"
done
(cd "$W" && tar czf "$O/degraded.tgz" . 2>/dev/null)
echo "done in $(( $(date +%s) - T0 )) s" | tee -a "$L"
