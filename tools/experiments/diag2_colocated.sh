#!/usr/bin/env bash
# One device call: co-located ce with CUDA_DEVICE_MAX_CONNECTIONS set before CUDA starts.
set -u
A=${B:-build}/arbench
export NCCL_NVLS_ENABLE=0
out=${OUT:-/tmp/diag}; mkdir -p "$out/runs"
try() { local name=$1; shift; local t0=$SECONDS
  env "$@" >"$out/runs/$name.log" 2>&1; local rc=$?
  printf '%-22s exit %3d %3ds  %s\n' "$name" "$rc" "$((SECONDS - t0))" \
    "$(grep -hoE '[0-9]+ streams|timeout: [^;]*|[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9]+ +(ok|error)' "$out/runs/$name.log" | sort | uniq -c | tr -s ' ' | tr '\n' '|')"; }
for n in 5 8; do
  for a in ring direct async-ring stragglar rhd; do
    try "c32_${a}_n$n" CUDA_DEVICE_MAX_CONNECTIONS=32 AR_DEBUG=info "$A" run --algo $a --transport ce --sizes 1K,1M,64M -n 3 -w 1 -T 6 --ranks $n --out "$out/runs/c32$a$n"
  done
done
try "c32_dg_n4" CUDA_DEVICE_MAX_CONNECTIONS=32 AR_DEBUG=info "$A" run --ranks 4 --algo ring,optcc --transport ce,sm --sizes 1M --degrade 3:2.0 -n 3 -w 1 -T 10 --out "$out/runs/dg"
tar czf "$out/runs.tgz" -C "$out" runs && rm -rf "$out/runs"
