#!/usr/bin/env bash
# The degraded-link emulation's GPU checks in one call (4 GPUs; build beforehand with
# `make B=build-degrade` and `bash tests/gpu/build_tp_check.sh build-degrade`):
#   1. arbench run --self-test degrade: 1-3 peers into / out of / both ways through a GPU
#      degraded x2, every transport, measured vs requested rate (within 5%);
#   2. correctness with the emulation on (tp_check gpu --degrade, ce and sm): the paces must
#      not change a single result (the healthy path: tools/experiments/tp_device.sh);
#   3. the done-when table: ring vs optcc at 1 GiB, one GPU x2, every transport, with the
#      lower bound (healthy table beside it), and OPTCC's k around the chosen one;
#   4. a small factor sweep (1, 1.5, 2, 3, 4) through configs/degraded.conf's shape.
# Logs and run folders go to $OUT (default degrade_out), a summary in $OUT/summary.txt; the
# steps share a budget of BUDGET seconds (default 540), the later ones skipped when it runs out.
#   B=build-degrade OUT=/tmp/x bash tools/experiments/degrade_device.sh
set -u
cd "$(dirname "$0")/../.."
export NCCL_NVLS_ENABLE=0
B=${B:-build-degrade}
OUT=${OUT:-degrade_out}
A=$B/arbench
T=$B/tp_check
mkdir -p "$OUT"
BUDGET=${BUDGET:-540} # seconds for the whole script (a device call has 600)
run() { # run LOG LIMIT_S CMD...: one step with a time limit (within BUDGET), appended to LOG
  local log=$1 lim=$2 left=$((BUDGET - SECONDS))
  shift 2
  echo "### $*" >>"$OUT/$log"
  if [ "$left" -le 10 ]; then echo "### skipped: out of time" >>"$OUT/$log"; return; fi
  [ "$lim" -gt "$left" ] && lim=$left
  local t0=$SECONDS
  timeout -k 5 "$lim" "$@" >>"$OUT/$log" 2>&1
  echo "### exit $? after $((SECONDS - t0)) s" >>"$OUT/$log"
}
nvidia-smi -L >"$OUT/gpus.txt" 2>&1
run selftest.log 180 "$A" run --self-test degrade --gpus 0,1,2,3
run correct.log 150 "$T" gpu --transport ce --algos ring,optcc,optcc-multi,direct,rhd,x-pair --sizes 1K,1000003e,16M \
  --pipelines 1,0 --degrade 3:2 --timeout 30
run correct.log 120 "$T" gpu --transport sm --algos ring,optcc,optcc-multi,direct,rhd,x-pair --sizes 1K,1000003e,16M \
  --degrade 3:2,0:1.5 --timeout 30
common="--gpus 0,1,2,3 --sizes 256M,1G -n 10 -w 3 -T 120"
run table.log 200 "$A" run $common --algo nccl,ring,optcc --transport nccl-p2p,ce,sm --degrade 3:2 --out "$OUT/x2"
run table.log 150 "$A" run $common --algo nccl,ring,optcc --transport nccl-p2p,ce,sm --out "$OUT/healthy"
for k in 8 32; do
  run table.log 120 "$A" run --gpus 0,1,2,3 --sizes 1G -n 10 -w 3 -T 120 --algo optcc --transport ce,sm \
    --degrade 3:2 --segments $k --out "$OUT/x2-k$k"
done
cat >"$OUT/sweep.conf" <<EOF
--gpus 0,1,2,3 --algo ring,optcc --transport ce,sm --sizes 1G -n 10 -w 3 -T 120
[scenario x1]
--degrade 1:1.0
[scenario x1.5]
--degrade 1:1.5
[scenario x2]
--degrade 1:2.0
[scenario x3]
--degrade 1:3.0
[scenario x4]
--degrade 1:4.0
EOF
run sweep.log 300 "$A" run --config "$OUT/sweep.conf" --out "$OUT/sweep"
{
  grep -h -E '^(FAIL|HANG|STALL|WRONG)|passed, .* failed|^### exit|^self-test degrade|^# healthy|pass$|FAIL$' \
    "$OUT"/selftest.log "$OUT"/correct.log
  for d in x2 healthy x2-k8 x2-k32 sweep; do
    [ -f "$OUT/$d/results.csv" ] || continue
    echo "== $d: algorithm transport bytes factor pipeline(optcc: k) median_us status [lower_bound_us]"
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
             { print "  " $c["algorithm"], $c["transport"], $c["bytes"], $c["factor"], $c["pipeline"],
               $c["time_us_median"], $c["status"], ("lower_bound_us" in c ? $c["lower_bound_us"] : "") }' \
      "$OUT/$d/results.csv"
    grep -h '^degrade_healthy_bw' "$OUT/$d/meta.txt" 2>/dev/null
  done
} >"$OUT/summary.txt" 2>&1
cat "$OUT/summary.txt"
