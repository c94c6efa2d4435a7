#!/usr/bin/env bash
# One H200, one call: make gputest on session 22's main (the lowering's one table, nccl-p2p's
# plan in src/lower, src/lower's one prefix, --compute merged), then one --compute run per
# load at 64 MiB on four co-located ranks. Carried: build/arbench. Everything under $OUT.
set -u
cd "$(dirname "$0")/../.."
export NCCL_NVLS_ENABLE=0
. tools/device/lib.sh # gputest, stamp, rows_said
nvidia-smi -L
gputest "$OUT/gputest.log" /tmp/gputest
for k in gemm membw sm:8; do
  build/arbench run --gpus 0,0,0,0 --algo ring,direct --transport ce,sm,ll --sizes 64M -n 6 -w 2 \
    --compute $k --out /tmp/c-${k%%:*} >"$OUT/compute-${k%%:*}.log" 2>&1
  stamp "compute $k: exit $?, $(rows_said /tmp/c-${k%%:*}/results.csv)"
done
