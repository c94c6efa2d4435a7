#!/usr/bin/env bash
# What docs/results.md's recommendations rest on (runs/reference/h100x4-issue27-final,
# h200x4-issue27-final2, h200x4-issue27-repeat), on a 4-GPU machine in one call: arbench's best
# per size against nccl's three registration modes (1 KiB..8 GiB, powers of 2), mpirun -np 4
# rows for nccl, nccl-p2p, ce, sm and ll, the ll transport's correctness with every rank on
# one GPU (colocated), the best stage again with every row on symmetric-window buffers beside
# nccl's symmetric kernels (bestsym), and
# #4/#7's figures on the current binary (the 8 ms straggler at 1 GiB, optcc at 2x on 1 GiB and
# 8 GiB, the critical delay 64 MiB..4 GiB as time allows). OpenMPI comes from .carry/ompi.tar.xz.
#   STAGES="colocated best issue4 mpi gate" DEADLINE=560 OUT=$OUT bash tools/device/best_vs_nccl.sh
# BEST_ITERS (default "-n 10 -w 3") sets the best stage's and the nccl modes' iterations.
# COLOC_STAGES (default "all proto dtype ranks"): the stages of ll_colocated.sh that colocated runs.
set -u
. tools/device/lib.sh
device_script 430 best_vs_nccl mpi
# okrun NAME TIMEOUT CMD...: run, then the ok rows of $out/NAME/results.csv
okrun() {
  run "$@"
  echo "     $(grep -c ',ok,' "$out/$1/results.csv" 2>/dev/null) ok rows"
}
g="--gpus 0,1,2,3 -T 60 --force"
iters=${BEST_ITERS:--n 10 -w 3} # the best stage's and the nccl modes' iterations
for st in ${STAGES:-best mpi issue4}; do
  case $st in
  best)
    echo "== arbench's best and nccl's three registration modes, 1K..8G"
    okrun best 300 $A run $g --algo ${BEST_ALGOS:-nccl,ring,rhd,direct,swing-bw} --transport ${BEST_TRANSPORTS:-ce,sm,ll} -b 1K -e 8G -f 2 $iters ${BEST_ARGS:-} -o $out/best
    for m in ${NCCL_MODES-registered symmetric}; do
      okrun nccl_$m 60 $A run $g --algo nccl -b 1K -e 8G -f 2 $iters --set nccl.registration=$m -o $out/nccl_$m
    done ;;
  bestsym)
    echo "== the best stage again in one process on symmetric-window buffers (ncclMemAlloc), nccl symmetric among its rows"
    okrun best_sym 300 $A run $g --algo ${BEST_ALGOS:-nccl,ring,rhd,direct,swing-bw} --transport ${BEST_TRANSPORTS:-ce,sm,ll} -b 1K -e 8G -f 2 $iters ${BEST_ARGS:-} --set nccl.registration=symmetric -o $out/best_sym ;;
  mpi)
    echo "== mpirun -np 4: nccl, nccl-p2p, ce, sm, ll"
    okrun mpi_np4 60 $mpirun -np 4 $A run -T 60 --force --algo nccl,ring,rhd,direct --transport nccl-p2p,ce,sm,ll --sizes 1K,1M,64M,1G -n 10 -w 3 -o $out/mpi_np4 ;;
  gate)
    echo "== optcc-ring on ce from 4 GiB (its launch gates used to time out: 30 s an iteration)"
    okrun gate 120 $A run $g --algo optcc-ring --transport ce --sizes 4G,8G --pipeline 0 -n 5 -w 2 -o $out/gate ;;
  colocated)
    echo "== the ll transport with 4 ranks on GPU 0 (correctness only)"
    STAGES="${COLOC_STAGES:-all proto dtype ranks}" DEADLINE=$(left) OUT=$out/colocated bash tools/device/ll_colocated.sh ;;
  issue4)
    echo "== #4/#7 on this binary: #4's own command lines (runs/reference/h200x4-issue4-all/COMMAND)"
    okrun straggler 60 $A run $g --sizes 1G --algo nccl,stragglar --transport ce --straggler 1:8ms --pipeline 0 -n 20 -w 5 -o $out/straggler
    okrun optcc_2x 90 $A run $g --sizes 1G,8G --algo ring,optcc,optcc-ring --transport ce --degrade 3:2.0 --pipeline 0 -n 20 -w 5 -o $out/optcc_2x
    okrun critical $(left) $A run $g --find-critical --algo nccl,ring,rhd,direct,swing-bw,stragglar --transport ce,sm --straggler 1:0 --pipeline 0 -n 5 -w 2 -o $out/critical ;;
  esac
done
echo "== total $SECONDS s"
(cd "$out" && tar czf /tmp/best_vs_nccl.tgz --exclude='*.png' --exclude='*.svg' --exclude=report.html . && rm -rf ./* && mv /tmp/best_vs_nccl.tgz .)
