#!/usr/bin/env bash
# 2 x H200, one short call: does uploading each graph before its timed launch explain why
# arbench's nccl is faster than nccl-tests -G below 1 MiB? nccl-tests -G (-R 0, -R 1) beside
# arbench's nccl in graph timing (rotating, as nccl-tests) with timing.graph_upload on and off,
# 1 KiB-1 MiB, -N 10 / 10 batches, twice in turn. Carried: build/arbench, .carry/nt-src.
set -u
out=/tmp/gu
rm -rf "$out" && mkdir -p "$out"
export NCCL_NVLS_ENABLE=0
nvidia-smi -L
make -C .carry/nt-src/src MPI=0 BUILDDIR=/tmp/nt/build CUDA_HOME=/usr/local/cuda NCCL_HOME=/usr -j16 \
  NVCC_GENCODE=-gencode=arch=compute_90,code=sm_90 /tmp/nt/build/all_reduce_perf >"$out/build.log" 2>&1 || { tail "$out/build.log"; exit 1; }
echo "[$SECONDS s] built"
for rep in 1 2; do
  for R in 0 1; do
    { echo "# command: NCCL_NVLS_ENABLE=0 all_reduce_perf -t 2 -g 1 -b 1K -e 1M -f 4 -n 20 -w 1 -N 10 -R $R -G 1"
      timeout 60 /tmp/nt/build/all_reduce_perf -t 2 -g 1 -b 1K -e 1M -f 4 -n 20 -w 1 -N 10 -R $R -G 1; } >"$out/nt-R$R-$rep.log" 2>&1
    echo "[$SECONDS s] nccl-tests -R $R -G 1: exit $?"
    reg=$([ $R = 0 ] && echo none || echo registered)
    for up in on off; do
      timeout 60 build/arbench run --gpus 0,1 --algo nccl --sizes 1K,4K,16K,64K,256K,1M -n 20 -w 1 --set timing.mode=graph \
        --set timing.host_batches=10 --set nccl.rotate=on --set nccl.registration=$reg --set timing.graph_upload=$up \
        --out "$out/arb-$reg-$up-$rep" >"$out/arb-$reg-$up-$rep.log" 2>&1
      echo "[$SECONDS s] arbench $reg upload $up: exit $?"
      rm -rf "$out/arb-$reg-$up-$rep/plots"
    done
  done
done
(cd "$out" && tar czf "$OUT/gu.tgz" .)
