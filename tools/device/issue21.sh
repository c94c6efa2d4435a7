#!/usr/bin/env bash
# #21 on a single-GPU kind, in one device call: `make run` from a clean build (4 ranks on the
# GPU, quick.conf, pictures), the co-located self-tests, and `make gputest` (n = 2..8 on one
# GPU). Everything lands in $OUT: logs, and the run folders as tarballs.
#   OUT=$OUT bash tools/device/issue21.sh      (carry .carry: gp.tar.xz, gnuplot for pictures)
set -u
export NCCL_NVLS_ENABLE=0
deadline=${DEADLINE:-575} # seconds this script may take in all
out=${OUT:-/tmp/issue21}; mkdir -p "$out"
. tools/device/lib.sh
gnuplot_env
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } >"$out/gpu.txt" 2>&1
t0=$SECONDS
echo "== a clean build"
rm -rf build-dev
{ time make B=build-dev -j16 >"$out/build.log" 2>&1; } 2>&1 | grep real
echo "== make gputest"
t1=$SECONDS
GPUTEST_OUT=/tmp/gputest GPUTEST_TIMEOUT=${GPUTEST_TIMEOUT:-10} timeout $((deadline * 55 / 100)) \
  make B=build-dev gputest >"$out/gputest.log" 2>&1
echo "   exit $? after $((SECONDS - t1)) s"; grep -E "passed, |^FAIL" "$out/gputest.log" | head -20
echo "== make run (the same clean build)"
t1=$SECONDS
{ time timeout $((deadline - SECONDS - 45)) make B=build-dev run; } >"$out/make_run.log" 2>&1
echo "   exit $? after $((SECONDS - t1)) s ($((SECONDS - t0)) s with the build and gputest)"; tail -4 "$out/make_run.log"
run=$(ls -1d runs/*/ 2>/dev/null | grep -v reference | tail -1)
[ -n "$run" ] && tar czf "$out/make_run_folder.tgz" "$run" && echo "   folder $run: $(ls "$run"/plots 2>/dev/null | wc -l) picture files"
echo "== self-tests on co-located ranks"
timeout 15 build-dev/arbench run --self-test delay --gpus 0 >"$out/selftest_delay.log" 2>&1; echo "   delay: exit $?"
timeout $((deadline - SECONDS)) stdbuf -oL build-dev/arbench run --self-test degrade --gpus 0,0,0,0 >"$out/selftest_degrade.log" 2>&1; echo "   degrade (4 ranks on GPU 0): exit $?"
tar czf "$out/gputest_folders.tgz" -C /tmp gputest 2>/dev/null
