#!/usr/bin/env bash
# The ll transport's correctness on one GPU with every rank placed on it (any number of
# ranks): every algorithm, both protocols, three dtypes, odd sizes, a straggler, --phases,
# host timing, and mpirun -np 4 (one process per rank). Timings on one GPU mean nothing here.
#   STAGES="all proto dtype ranks scen mpi" OUT=$OUT bash tools/device/ll_colocated.sh
set -u
. tools/device/lib.sh
device_script 420 llcol mpi
g="--gpus 0 -T 60 --force"
for st in ${STAGES:-all proto dtype ranks scen mpi}; do
  case $st in
  all) chk all 150 $A run $g --ranks 4 --algo all --transport ll --sizes 1K,4100,1000004,1M,4M,64M -n 5 -w 2 -o $out/all ;;
  proto)
    for p in lines lines128 signals; do
      chk proto_$p 60 $A run $g --ranks 4 --algo ring,rhd,direct,swing-bw,stragglar,optcc,oneshot --transport ll --sizes 4100,1000004,16M -n 5 -w 2 --set ll.protocol=$p -o $out/proto_$p
    done
    chk blocks1 40 $A run $g --ranks 4 --algo ring,rhd --transport ll --sizes 4100,1M --set ll.blocks=1 -n 3 -w 1 -o $out/blocks1 ;;
  dtype)
    for d in bf16 fp16; do
      chk dtype_$d 60 $A run $g --ranks 4 --algo ring,rhd,direct,oneshot,stragglar --transport ll --sizes 1K,1000002,4M --dtype $d -n 5 -w 2 -o $out/dtype_$d
    done ;;
  ranks)
    for n in 2 3 8; do
      chk ranks_$n 60 $A run $g --ranks $n --algo all --transport ll --sizes 4100,1M -n 3 -w 1 -o $out/ranks_$n
    done ;;
  scen)
    chk straggler 60 $A run $g --ranks 4 --algo ring,stragglar,bcast --transport ll --sizes 1M,16M --straggler 1:1ms -n 5 -w 2 -o $out/straggler
    chk phases 60 $A run $g --ranks 4 --algo ring,stragglar --transport ll --sizes 1M --phases -n 3 -w 1 -o $out/phases
    chk host 60 $A run $g --ranks 4 --algo ring,direct --transport ll --sizes 4100,1M --set timing.mode=host -n 5 -w 1 -o $out/host ;;
  mpi) chk mpi_np4 90 $mpirun -np 4 $A run -T 60 --force --gpus 0,0,0,0 --algo ring,rhd,direct,stragglar --transport ll --sizes 4100,1M,16M -n 5 -w 2 -o $out/mpi_np4 ;;
  esac
done
echo "== total $SECONDS s"
