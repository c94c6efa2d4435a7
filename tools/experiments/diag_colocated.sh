#!/usr/bin/env bash
# One device call: which co-located ce runs hang, and under which knobs (diagnosis).
set -u
A=${B:-build}/arbench
export NCCL_NVLS_ENABLE=0
out=${OUT:-/tmp/diag}; mkdir -p "$out/runs"
try() { local name=$1; shift; local t0=$SECONDS
  env "$@" >"$out/runs/$name.log" 2>&1; local rc=$?
  printf '%-28s exit %3d %3ds  %s\n' "$name" "$rc" "$((SECONDS - t0))" \
    "$(grep -hoE 'ce: [a-z-]+, [0-9]+ elements: [a-z ]+|timeout: [^;]*' "$out/runs/$name.log" | head -2 | tr '\n' '|')"; }
R() { echo "$A" run --algo ring --transport ce --sizes 1K -n 3 -w 1 -T 6; }
for n in 3 4 8; do
  try "ring_n${n}" AR_DEBUG=info $(R) --ranks $n --out "$out/runs/r$n"
  try "ring_n${n}_flagk" AR_FLAGS=kernel AR_DEBUG=info $(R) --ranks $n --out "$out/runs/rk$n"
  try "ring_n${n}_conn8" CUDA_DEVICE_MAX_CONNECTIONS=8 AR_DEBUG=info $(R) --ranks $n --out "$out/runs/rc$n"
  try "ring_n${n}_round" AR_CE_PROGRAM=round AR_DEBUG=info $(R) --ranks $n --out "$out/runs/rr$n"
done
for a in $("$A" --list | awk 'NR > 1 && $1 != "nccl" { print $1 }'); do
  try "n8_$a" AR_DEBUG=info "$A" run --algo "$a" --transport ce --sizes 1K,1M -n 3 -w 1 -T 6 --ranks 8 --out "$out/runs/a_$a"
done
try n4_dg AR_DEBUG=info "$A" run --ranks 4 --algo ring,optcc --transport ce,sm --sizes 1M --degrade 3:2.0 -n 3 -w 1 -T 15 --out "$out/runs/dg"
echo "== self-test degrade (4 ranks on GPU 0)"; timeout 150 stdbuf -oL "$A" run --self-test degrade --gpus 0,0,0,0 >"$out/selftest_degrade.log" 2>&1; echo "   exit $?"; tail -30 "$out/selftest_degrade.log"
tar czf "$out/runs.tgz" -C "$out" runs && rm -rf "$out/runs"
