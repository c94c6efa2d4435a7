#!/usr/bin/env bash
# The conclusions' mechanics on one GPU: tools/device/colocated_conclusions.conf with 4 ranks
# on GPU 0 into $OUT/run, then tests/check_samples.py recomputes every row's samples, interval
# and repeat decision. Pictures are drawn afterwards on the CPU machine (plots/plot.sh).
#   OUT=/tmp/x bash tools/device/colocated_conclusions.sh
set -u
cd "$(dirname "$0")/../.."
export NCCL_NVLS_ENABLE=0
B=${B:-build}
nvidia-smi -L > "$OUT/gpu.txt" 2>&1
start=$(date +%s)
"$B"/arbench run --config tools/device/colocated_conclusions.conf --gpus 0,0,0,0 --out "$OUT/run" \
  > "$OUT/run.log" 2>&1
echo "arbench exit $? in $(( $(date +%s) - start )) s" | tee -a "$OUT/run.log"
python3 tests/check_samples.py "$OUT/run" 2>&1 | tail -5 | tee "$OUT/check_samples.txt"
tail -5 "$OUT/run.log"
