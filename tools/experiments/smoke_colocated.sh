#!/usr/bin/env bash
# One device call: co-located ranks on one GPU, quick: does every transport finish (no hang)
# at n = 2, 4 and 8, with a straggler, and do the self-tests run? Full logs to $OUT.
set -u
A=${B:-build}/arbench
export NCCL_NVLS_ENABLE=0
out=${OUT:-/tmp/smoke}; mkdir -p "$out/runs"
{
  nvidia-smi -L; head -2 /etc/os-release; ldd --version | head -1
  ls /usr/include/nccl.h /usr/lib/x86_64-linux-gnu/libnccl.so* 2>&1; command -v gnuplot nvcc
} >"$out/env.txt" 2>&1
step() { local name=$1; shift; echo "== $name: $*"; local t0=$SECONDS
  timeout 150 "$A" run "$@" --out "$out/runs/$name" >"$out/runs/$name.log" 2>&1; local rc=$?
  echo "   exit $rc in $((SECONDS - t0)) s; rows: $(awk -F, 'NR>1{print $31}' "$out/runs/$name/results.csv" 2>/dev/null | sort | uniq -c | tr '\n' ' ')"
  grep -E "timeout|FAIL|wrong elements|error" "$out/runs/$name.log" | head -5; }
step n2 --gpus 0,0 --algo ring,rhd,direct,oneshot --transport ce,sm --sizes 1K,1M,64M -n 3 -w 1 -T 20
step n8 --ranks 8 --algo all --transport ce,sm --sizes 1K,1000004,1M,64M -n 3 -w 1 -T 20
step n8_st --ranks 8 --algo nccl,ring,rhd,stragglar,bcast --transport ce,sm --sizes 1M,64M --straggler 7:2ms -n 3 -w 1 -T 20
step n8_big_sm --ranks 8 --algo ring,direct,rhd --transport sm --sizes 1G -n 3 -w 1 -T 30
step n4_dg --ranks 4 --algo ring,optcc,optcc-multi --transport ce,sm --sizes 1M,64M --degrade 3:2.0 -n 3 -w 1 -T 30
echo "== self-test delay"; timeout 60 "$A" run --self-test delay --gpus 0 2>&1 | tail -6
echo "== self-test degrade (4 ranks on GPU 0)"; timeout 200 "$A" run --self-test degrade --gpus 0,0,0,0 >"$out/selftest_degrade.log" 2>&1; echo "   exit $?"; tail -40 "$out/selftest_degrade.log"
tar czf "$out/runs.tgz" -C "$out" runs && rm -rf "$out/runs"
