#!/usr/bin/env bash
# One H200, one call: --compute (issue 48) on four co-located ranks, after make gputest on the
# merged tree. Each load (gemm sized per row, membw, sm:16) beside ring, rhd and direct on ce,
# sm, ll and nccl-p2p, and NCCL itself, at 16 MiB-1 GiB; then --profile timeline beside a GEMM
# (trace.json: the load's kernels on their own stream's track). Everything under $OUT, the run
# folders whole but their pictures (drawn on the CPU machine), in compute.tgz. Carried:
# build/arbench. With --no-gputest, the runs only.
set -u
cd "$(dirname "$0")/../.."
export NCCL_NVLS_ENABLE=0
. tools/device/lib.sh # gputest, stamp, rows_said
nvidia-smi -L
if [ "${1:-}" != --no-gputest ]; then
  gputest "$OUT/gputest.log" /tmp/gputest
fi
o=/tmp/compute
rm -rf "$o" && mkdir -p "$o"
common="--gpus 0,0,0,0 --algo ring,rhd,direct,nccl --transport ce,sm,ll,nccl-p2p --sizes 16M,64M,256M,1G -n 10 -w 2"
for k in gemm membw sm:16; do
  name=h200x1-compute-${k%%:*}
  build/arbench run $common --compute $k --dry-run >"$o/$name.dry" 2>&1
  build/arbench run $common --compute $k --out "$o/$name" >"$o/$name.log" 2>&1
  rc=$?
  r=$o/$name/results.csv
  stamp "$name: exit $rc, $(rows_said "$r")"
  rm -rf "$o/$name/plots"
done
name=h200x1-compute-timeline
build/arbench run --gpus 0,0,0,0 --algo ring,nccl --transport ce,sm --sizes 64M -n 4 -w 1 \
  --compute gemm --profile timeline --out "$o/$name" >"$o/$name.log" 2>&1
stamp "$name: exit $?, timeline.csv $(wc -l <"$o/$name/timeline.csv") lines, trace.json $(wc -c <"$o/$name/trace.json") bytes"
rm -rf "$o/$name/plots"
(cd "$o" && tar czf "$OUT/compute.tgz" .)
