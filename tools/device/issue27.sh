#!/usr/bin/env bash
# #27 on two GPUs: the nccl baseline in its registration modes (none, registered, symmetric)
# under both timings (events, host) at 1 KiB..1 GiB by powers of 4 (tools/device/issue27.conf),
# and nccl-tests' all_reduce_perf on the same machine at the same sizes with -R 0/1/2, as
# `-g 2` (one thread, both GPUs: the usual command) and as `-t 2 -g 1` (a thread per GPU, as
# arbench's ranks); whether ncclMemAlloc's memory has a CUDA IPC handle (issue27_ipc.cu); the
# transports on ncclMemAlloc'd memory and back to back (host timing); NCCL's INFO lines about
# symmetric windows. Run from an unpacked tree of the branch, the nccl-tests sources in
# $CARRY/nccl-tests:
#   CARRY=/path/.carry/issue27 REV=<commit> OUT=$OUT bash tools/device/issue27.sh
# Everything lands in $OUT/issue27.tgz.
set -u
export NCCL_NVLS_ENABLE=0
out=${OUT:-/tmp/issue27}; mkdir -p "$out"
carry=${CARRY:?CARRY names the folder with nccl-tests}
deadline=${DEADLINE:-400}
t0=$SECONDS
. tools/device/lib.sh
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
  nvidia-smi topo -m; } >"$out/gpu.txt" 2>&1
head -4 "$out/gpu.txt"
echo "== builds: arbench (make B=build-dev -j16) and nccl-tests (sm_90), side by side"
nt=$carry/nccl-tests
make B=build-dev -j16 ${REV:+GIT_REV=$REV} >"$out/build.log" 2>&1 & # REV: an unpacked tree has no .git
build_nccl_tests "$nt" "$out/nccl-tests-build.log" &
wait
echo "   built in $((SECONDS - t0)) s"
A=build-dev/arbench P=$nt/build/all_reduce_perf
[ -x $A ] || { tail -20 "$out/build.log"; exit 1; }
[ -x "$P" ] || tail -5 "$out/nccl-tests-build.log"
echo "== does ncclMemAlloc's memory have a CUDA IPC handle?"
nvcc -o /tmp/ipc tools/device/issue27_ipc.cu -lnccl >"$out/ipc.log" 2>&1 && /tmp/ipc >>"$out/ipc.log" 2>&1
cat "$out/ipc.log"
echo "== arbench: nccl, 3 registration modes x 2 timings"
run arbench 200 $A run --gpus 0,1 --config tools/device/issue27.conf --out "$out/nccl-modes"
echo "== nccl-tests all_reduce_perf, -R 0/1/2, -g 2 and -t 2 -g 1"
if [ -x "$P" ]; then
  for R in 0 1 2; do
    run nccl-tests-g2-R$R 60 "$P" -g 2 -b 1K -e 1G -f 4 -R $R
    run nccl-tests-t2-R$R 60 "$P" -t 2 -g 1 -b 1K -e 1G -f 4 -R $R
  done
fi
echo "== checks: the transports on ncclMemAlloc'd memory, and back to back (host timing)"
chk=(--gpus 0,1 --algo ring,rhd,direct --transport nccl-p2p,ce,sm --sizes 4K,1M,64M -n 10 -w 3 -T 30)
run checks-symmetric 60 $A run "${chk[@]}" --set nccl.registration=symmetric --out "$out/checks-symmetric"
run checks-host 60 $A run "${chk[@]}" --set timing.mode=host --out "$out/checks-host"
grep -hE "^ +[0-9]+ .*(ok|error|n/a|timeout)|^n/a|^arbench" "$out/checks-symmetric.log" "$out/checks-host.log" | head -60
echo "== NCCL's own words on the symmetric window (NCCL_DEBUG=INFO, 1 MiB)"
NCCL_DEBUG=INFO timeout 60 $A run --gpus 0,1 --algo nccl --sizes 1M -n 2 -w 1 \
  --set nccl.registration=symmetric --out "$out/debug" 2>&1 |
  grep -iE "version|symmetric|window|regist|nvls|cumem" | head -40 >"$out/nccl-debug.txt"
cat "$out/nccl-debug.txt"
echo "== total $((SECONDS - t0)) s"
(cd "$out" && tar czf /tmp/issue27.tgz --exclude='*.png' --exclude='*.svg' --exclude=report.html \
  --exclude=plots . && rm -rf ./* && mv /tmp/issue27.tgz .)
