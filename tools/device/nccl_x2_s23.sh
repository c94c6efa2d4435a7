#!/usr/bin/env bash
# 2 x H200, one call: arbench's nccl beside nccl-tests in every mode (-R 0/1/2, without and with
# -G, a thread per GPU) at every power of 2 from 1 KiB to 8 GiB: make compare-nccl-tests with
# nccl only (its rows rotating through the buffer as nccl-tests does, and on one buffer), -N 10
# cycles as samples. Carried: build/arbench and .carry/nt-src (nccl-tests' source, built here).
# Everything under $OUT in one archive.
set -u
out=/tmp/x2
rm -rf "$out" && mkdir -p "$out"
export NCCL_NVLS_ENABLE=0
{ nvidia-smi -L; nvidia-smi topo -m; } >"$out/gpu.txt" 2>&1; head -2 "$out/gpu.txt"
make -o build/arbench compare-nccl-tests NCCL_TESTS=.carry/nt-src GPUS=2 OUT="$out/compare" DEADLINE=${DEADLINE:-560} \
  SIZES="-b 1K -e 8G -f 2" SAMPLES=10 ARB_ALGOS=nccl >"$out/compare.log" 2>&1
echo "compare-nccl-tests: exit $?"; tail -n 12 "$out/compare.log"
rm -rf "$out"/compare/plots
(cd "$out" && tar czf "$OUT/x2.tgz" .)
