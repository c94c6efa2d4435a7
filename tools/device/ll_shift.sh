#!/usr/bin/env bash
# The ll program's peers in shift order (src/lower/ll.c emit_puts) on 4 GPUs: direct, oneshot
# and ring on ll from 1 MiB to 256 MiB beside nccl, and every algorithm's correctness with 4
# ranks on GPU 0.   OUT=$OUT bash tools/device/ll_shift.sh
set -u
. tools/device/lib.sh
device_script 150 llshift
chk shift 60 $A run --gpus 0,1,2,3 -T 60 --force --algo nccl,direct,oneshot,ring,rhd --transport ll -b 1M -e 256M -f 2 -n 10 -w 3 -o $out/shift
chk colocated 40 $A run --gpus 0 --ranks 4 -T 60 --force --algo all --transport ll --sizes 1K,1000004,64M -n 3 -w 1 -o $out/colocated
echo "== total $SECONDS s"
