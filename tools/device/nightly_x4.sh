#!/usr/bin/env bash
# `make run` on the GPUs of this machine as a user runs it: a fresh build in build/, gnuplot
# carried from the CPU machine for the pictures (lib.sh), then nightly_fit.sh (the nightly with
# every output line stamped, the report and pictures listed).
#   OUT=$OUT bash tools/device/nightly_x4.sh      (carry .carry: gp.tar.xz)
set -u
out=${OUT:-/tmp/nightly_x4}; mkdir -p "$out"
deadline=${DEADLINE:-590}
. tools/device/lib.sh
gnuplot_env
t0=$SECONDS
make -j16 >"$out/build.log" 2>&1 || { tail "$out/build.log"; exit 1; }
echo "build: $((SECONDS - t0)) s"
if [ -n "${GATE_CHECK:-}" ]; then # optcc-ring on ce from 4 GiB first: its gates used to stall
  t1=$SECONDS
  NCCL_NVLS_ENABLE=0 timeout -k 5 90 build/arbench run --gpus 0,1,2,3 -T 60 --force --algo optcc-ring \
    --transport ce --sizes 4G,8G --pipeline 0 -n 5 -w 2 -o "$out/gate" >"$out/gate.log" 2>&1
  rc=$?
  echo "gate check: exit $rc after $((SECONDS - t1)) s: $(grep -c ',ok,' "$out/gate/results.csv" 2>/dev/null) ok rows"
  grep -i "gate" "$out/gate.log" | head -3
  [ $rc -eq 0 ] || exit 1
fi
OUT=$out DEADLINE=$((deadline - SECONDS - 15)) bash tools/device/nightly_fit.sh
