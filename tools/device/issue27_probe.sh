#!/usr/bin/env bash
# #27's two open gaps on a 4-GPU kind, one call (STAGES, default colocated small fwd slices):
#  colocated: ll with forwarding (ll.forward: a TAKE sends each slice it sums on to the next
#    round's PUTs), 4 ranks on GPU 0 (ll_colocated.sh; correctness only);
#  smallcheck: sm's oneshot kernel's correctness, ranks on GPU 0 and 1 rank/GPU, threads and
#    mpirun -np 4 (no timing);
#  small: 1-16 KiB, sm's oneshot kernel as built and in variant builds (VARIANTS: name=nvcc
#    flags joined by commas, macros that a hook in the working tree reads: the tree keeps none,
#    runs/reference/h200x4-ll-forward/COMMAND and h200x4-oneshot-line/COMMAND say which were
#    tried; none by default) against nccl symmetric, in turn ROUNDS times (default 2);
#  smallsym: oneshot/sm beside nccl in one process, both on symmetric-window buffers, and
#    oneshot/sm on cudaMalloc, twice in turn;
#  fwd: ring, async-ring, direct, rhd, swing-bw on ll, forwarding on and off (lines128) and
#    signals of 4K and 16K, 32 MiB..1 GiB, beside nccl (none, registered);
#  slices: signals of 4K, 8K and 16K (SLICES), 64 MiB..2 GiB, beside nccl, twice in turn.
#   STAGES="small slices" DEADLINE=560 OUT=$OUT bash tools/device/issue27_probe.sh   (carry .carry)
set -u
. tools/device/lib.sh
device_script 560 probe27 mpi
g="--gpus 0,1,2,3 -T 60 --force"
algos=ring,async-ring,direct,rhd,swing-bw
for st in ${STAGES:-colocated small fwd slices}; do
  case $st in
  colocated)
    echo "== ll with forwarding, 4 ranks on GPU 0 (correctness)"
    STAGES="all proto dtype scen" DEADLINE=$(left) OUT=$out/colocated bash tools/device/ll_colocated.sh ;;
  smallcheck)
    echo "== sm's oneshot kernel, correctness: ranks on GPU 0 (2, 3, 4, 8), three dtypes, odd sizes; 1 rank/GPU"
    odd="--sizes 1K,4100,65538,1000002,1M -n 5 -w 2"
    for n in 2 3 4 8; do
      chk check_coloc_$n 40 $A run --gpus 0 --ranks $n -T 60 --force --algo oneshot --transport sm $odd -o $out/check_coloc_$n
    done
    for d in bf16 fp16; do
      chk check_$d 40 $A run $g --algo oneshot --transport sm $odd --dtype $d -o $out/check_$d
    done
    chk check_f32 40 $A run $g --algo oneshot --transport sm $odd -o $out/check_f32
    chk check_mpi_np4 60 $mpirun -np 4 $A run -T 60 --force --algo oneshot --transport sm $odd -o $out/check_mpi_np4
    chk check_mpi_coloc 60 $mpirun -np 4 $A run -T 60 --force --gpus 0,0,0,0 --algo oneshot --transport sm $odd --dtype bf16 -o $out/check_mpi_coloc ;;
  small)
    variants=${VARIANTS:-}
    for vf in $variants; do # the same objects but the oneshot kernel's
      v=${vf%%=*}
      rm -rf build-$v && cp -r build-dev build-$v && rm -f build-$v/obj/src/cuda/tp_ll.o build-$v/arbench
      make B=build-$v MPI=1 MPICC="$MPICC" NVCC="/usr/local/cuda/bin/nvcc $(echo "${vf#*=}" | tr , " ")" -j32 >"$out/build_$v.log" 2>&1 ||
        tail -3 "$out/build_$v.log"
    done
    echo "== 1-16 KiB: oneshot/sm as built and its variants; nccl symmetric"
    small="-b 1K -e 16K -f 2 -n 500 -w 50"
    for k in ${ROUNDS:-1 2}; do
      chk small_plain_$k 40 $A run $g --algo oneshot --transport sm $small -o $out/small_plain_$k
      for vf in $variants; do
        v=${vf%%=*}
        chk small_${v}_$k 40 build-$v/arbench run $g --algo oneshot --transport sm $small -o $out/small_${v}_$k
      done
      chk small_nccl_$k 40 $A run $g --algo nccl $small --set nccl.registration=symmetric -o $out/small_nccl_$k
    done ;;
  smallsym)
    echo "== 1-16 KiB: oneshot/sm and nccl in one process on symmetric-window buffers (ncclMemAlloc) and on cudaMalloc"
    small="-b 1K -e 16K -f 2 -n 500 -w 50"
    for k in 1 2; do
      chk smallsym_$k 60 $A run $g --algo nccl,oneshot --transport sm $small --set nccl.registration=symmetric -o $out/smallsym_$k
      chk smallnone_$k 60 $A run $g --algo oneshot --transport sm $small -o $out/smallnone_$k
    done ;;
  fwd)
    echo "== 32 MiB..1 GiB on ll: forwarding on and off; nccl"
    big="--sizes 32M,64M,128M,256M,1G -n 40 -w 5 --row-budget 200ms"
    l128="--set ll.protocol=lines128" # auto took lines128 at these sizes when this stage was run
    chk fwd_on 120 $A run $g --algo nccl,$algos --transport ll $big $l128 -o $out/fwd_on
    chk fwd_off 120 $A run $g --algo $algos --transport ll $big $l128 --set ll.forward=off -o $out/fwd_off
    chk nccl_reg 60 $A run $g --algo nccl $big --set nccl.registration=registered -o $out/nccl_reg
    for sl in 4K 16K; do
      chk sig_$sl 90 $A run $g --algo $algos --transport ll $big --set ll.protocol=signals --set ll.slice=$sl -o $out/sig_$sl
    done
    chk fwd_on2 120 $A run $g --algo nccl,$algos --transport ll $big $l128 -o $out/fwd_on2 ;;
  slices)
    echo "== signals' slice, 64 MiB..2 GiB; nccl"
    big="--sizes 64M,128M,256M,512M,1G,2G -n 40 -w 5 --row-budget 200ms"
    for k in 1 2; do
      chk slices_nccl_$k 60 $A run $g --algo nccl $big -o $out/slices_nccl_$k
      for sl in ${SLICES:-4K 8K 16K}; do
        chk slices_${sl}_$k 90 $A run $g --algo $algos --transport ll $big --set ll.protocol=signals --set ll.slice=$sl -o $out/slices_${sl}_$k
      done
    done ;;
  esac
done
echo "== total $SECONDS s"
(cd "$out" && tar czf /tmp/probe27.tgz --exclude='*.png' --exclude='*.svg' --exclude=report.html . && rm -rf ./* && mv /tmp/probe27.tgz .)
