#!/usr/bin/env bash
# The sm transport's oneshot kernels with ranks placed on one GPU (correctness only): there the
# grid is capped at one block per SM of each rank's share, so from about 64 KiB threads carry
# several lines (ll_kernel's batched path) and below that each has one (ll_kernel_line); 2, 3, 4
# and 8 ranks, odd sizes up to the kernel's largest, three dtypes, and mpirun -np 4.
#   OUT=$OUT bash tools/device/sm_oneshot_colocated.sh      (carry .carry: ompi.tar.xz)
set -u
. tools/device/lib.sh
device_script 300 smoc mpi
g="--gpus 0 -T 60 --force --algo oneshot --transport sm"
sizes=1K,4100,65536,1000004,1M
for n in 2 3 4 8; do
  chk ranks_$n 60 $A run $g --ranks $n --sizes $sizes,$((1048576 / (n - 1) / 4 * 4)) -n 5 -w 2 -o $out/ranks_$n
done
for d in bf16 fp16; do
  chk dtype_$d 60 $A run $g --ranks 4 --sizes 1K,4098,1000002 --dtype $d -n 5 -w 2 -o $out/dtype_$d
done
chk mpi_np4 90 $mpirun -np 4 $A run -T 60 --force --gpus 0,0,0,0 --algo oneshot --transport sm --sizes $sizes -n 5 -w 2 -o $out/mpi_np4
echo "== total $SECONDS s"
(cd "$out" && tar czf /tmp/smoc.tgz . && rm -rf ./* && mv /tmp/smoc.tgz .)
