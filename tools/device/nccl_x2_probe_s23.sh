#!/usr/bin/env bash
# 2 x H200, one call: why arbench's nccl and nccl-tests differ by 4-11% at some sizes (the first
# call of nccl_x2_s23.sh). nccl-tests in three builds: as released (2.19.6 sets the config field
# nvlinkCentricSched = 1 on NCCL 2.28+), V1 without that line, V2 also without ncclMemAlloc
# (cudaMalloc, as arbench's nccl.registration=none); each at -R 0 (V0, V1 also -R 2 and -G 1),
# 1 KiB-64 MiB, -N 10, twice in turn, beside arbench's nccl rows in the same call. Then the
# beside-compute table on 2 GPUs and direct/ll back to back (host against events timing).
set -u
deadline=${DEADLINE:-580}
out=/tmp/x2p
rm -rf "$out" && mkdir -p "$out"
. tools/device/lib.sh
export NCCL_NVLS_ENABLE=0
nvidia-smi -L
S=.carry/nt-src
for v in v0 v1 v2; do rm -rf /tmp/nt-$v; cp -r $S /tmp/nt-$v; done
sed -i '/config.nvlinkCentricSched = 1;/d' /tmp/nt-v1/src/common.cu /tmp/nt-v2/src/common.cu
sed -i 's/NCCLCHECK(ncclMemAlloc(\([a-z]*\), \([a-zA-Z]*\)));/CUDACHECK(cudaMalloc(\1, \2));/' /tmp/nt-v2/src/common.cu
sed -i "s/NCCLCHECK(ncclMemFree(\(.*\)));/CUDACHECK(cudaFree(\1));/" /tmp/nt-v2/src/common.cu
grep -c nvlinkCentricSched /tmp/nt-v*/src/common.cu; grep -n 'cudaMalloc(sendbuff\|ncclMemAlloc(sendbuff' /tmp/nt-v*/src/common.cu
for v in v0 v1 v2; do
  (make -C /tmp/nt-$v/src MPI=0 BUILDDIR=/tmp/nt-$v/build CUDA_HOME=/usr/local/cuda NCCL_HOME=/usr -j10 \
    NVCC_GENCODE=-gencode=arch=compute_90,code=sm_90 /tmp/nt-$v/build/all_reduce_perf >$out/build-$v.log 2>&1; echo "build $v: $?") &
done
wait
stamp built
nt() { # VARIANT NAME ARGS...
  local v=$1 name=$2; shift 2
  { echo "# command: NCCL_NVLS_ENABLE=0 all_reduce_perf($v) $*"; timeout 60 /tmp/nt-$v/build/all_reduce_perf "$@"; } >"$out/$name.log" 2>&1
  stamp "$name: exit $?"
}
common="-t 2 -g 1 -b 1K -e 64M -f 2 -n 20 -w 1 -N 10 -d float -o sum"
arb() { # NAME SETTINGS...
  local name=$1; shift
  timeout 90 build/arbench run --gpus 0,1 --algo nccl --min 1K --max 64M -n 20 -w 1 "$@" --out "$out/$name" >"$out/$name.log" 2>&1
  stamp "$name: exit $?, $(rows_said "$out/$name/results.csv")"
}
for rep in 1 2; do
  for v in v0 v1 v2; do nt $v nt-$v-R0-$rep $common -R 0; done
  for v in v0 v1; do nt $v nt-$v-R2-$rep $common -R 2; nt $v nt-$v-R0G-$rep $common -R 0 -G 1; done
  arb arb-none-$rep --set timing.mode=host --set timing.host_batches=10
  arb arb-sym-$rep --set timing.mode=host --set timing.host_batches=10 --set nccl.registration=symmetric
  arb arb-graph-$rep --set timing.mode=graph --set timing.host_batches=10
done
for k in gemm membw sm:16; do
  [ "$(left)" -gt 150 ] || break
  name=h200x2-compute-${k%%:*}
  timeout 120 build/arbench run --gpus 0,1 --algo ring,rhd,direct,async-ring,nccl --transport all --sizes 16M,64M,256M,1G \
    -n 10 -w 2 --compute $k --out "$out/$name" >"$out/$name.log" 2>&1
  stamp "$name: exit $?, $(rows_said "$out/$name/results.csv")"
done
for m in host events; do
  [ "$(left)" -gt 40 ] || break
  timeout 60 build/arbench run --gpus 0,1 --algo direct,ring --transport ll,ce --min 256M --max 8G -n 20 -w 1 \
    --set timing.mode=$m --out "$out/b2b-$m" >"$out/b2b-$m.log" 2>&1
  stamp "b2b $m: exit $?, $(rows_said "$out/b2b-$m/results.csv")"
done
rm -rf "$out"/*/plots
(cd "$out" && tar czf "$OUT/x2p.tgz" .)
