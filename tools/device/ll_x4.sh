#!/usr/bin/env bash
# The ll transport on a 4-GPU kind, one call per STAGE list:
#   explore: ll's every algorithm 1K..1G, its protocols 1K..4M, its grid 4M..1G, sm's
#            oneshot and nccl's three registration modes beside it;
#   mpi:     mpirun -np 4, one process per GPU: nccl, ce and ll rows.
#   STAGES="explore" DEADLINE=300 OUT=$OUT bash tools/device/ll_x4.sh
set -u
export NCCL_NVLS_ENABLE=0
deadline=${DEADLINE:-300}
out=${OUT:-/tmp/llx4}; mkdir -p "$out"
. tools/device/lib.sh
ompi_env || exit 1
{ nvidia-smi -L; nvidia-smi topo -m; } >"$out/gpu.txt" 2>&1; head -4 "$out/gpu.txt"
make B=build-dev -j32 MPI=1 MPICC=$MPICC >"$out/build.log" 2>&1 || { tail "$out/build.log"; exit 1; }
A=build-dev/arbench
g="--gpus 0,1,2,3 -T 60 --force"
for st in ${STAGES:-explore}; do
  case $st in
  explore)
    chk ll 90 $A run $g --algo oneshot,ring,rhd,direct,swing-bw,stragglar,optcc --transport ll -b 1K -e 1G -f 2 -n 10 -w 3 -o $out/ll
    chk oneshot_sm 30 $A run $g --algo oneshot --transport sm -b 1K -e 1M -f 2 -n 10 -w 3 -o $out/oneshot_sm
    for p in lines lines128; do
      chk proto_$p 60 $A run $g --algo oneshot,ring,rhd,direct --transport ll -b 1K -e 4M -f 2 -n 10 -w 3 --set ll.protocol=$p -o $out/proto_$p
    done
    for b in 132 264; do
      chk blocks_$b 40 $A run $g --algo ring,rhd,direct --transport ll -b 4M -e 1G -f 4 -n 10 -w 3 --set ll.blocks=$b -o $out/blocks_$b
    done
    for m in none registered symmetric; do
      chk nccl_$m 40 $A run $g --algo nccl -b 1K -e 256M -f 2 -n 10 -w 3 --set nccl.registration=$m -o $out/nccl_$m
    done ;;
  colocated) STAGES="all proto dtype ranks scen mpi" DEADLINE=$(left) OUT=$out/colocated bash tools/device/ll_colocated.sh ;;
  mpi) chk mpi_np4 90 $mpirun -np 4 $A run -T 60 --force --algo nccl,ring,rhd,direct --transport ce,ll --sizes 1K,1M,64M,1G -n 10 -w 3 -o $out/mpi_np4 ;;
  esac
done
echo "== total $SECONDS s"
