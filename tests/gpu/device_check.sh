#!/usr/bin/env bash
# One device call that checks the harness end to end on a lent GPU machine. MODE=main: a
# 2-GPU smoke run and the main 4-GPU table (nccl and ring on every transport, 1K..8G, to
# compare with /work/shared/reference/nccl-tests-h200x4.txt). MODE=sweep (default): `make
# gputest`'s sweep, the oom path (a size larger than the GPU) and straggler delays. Everything
# lands in $OUT/check.tgz. MODE=final: the ce transport's sweep and the main table to 1G.
# Usage: B=build-x MODE=sweep bash tests/gpu/device_check.sh
set -u
cd "$(dirname "$0")/../.."
export NCCL_NVLS_ENABLE=0
B=${B:-build}
A=$B/arbench
W=$(mktemp -d)
OUT=${OUT:-$W}
nvidia-smi -L > "$W/gpus.txt" 2>&1
ngpu=$(grep -c '^GPU' "$W/gpus.txt")
all=$(seq -s, 0 $((ngpu < 4 ? ngpu - 1 : 3)))
if [ "${MODE:-sweep}" = main ]; then
  echo "== smoke (2 GPUs)"
  timeout -s KILL 60 "$A" run --gpus 0,1 --algo nccl,ring --sizes 1K,1000003,1M -n 3 -w 1 -T 60 \
    --out "$W/smoke" > "$W/smoke.log" 2>&1
  echo "exit $?"; tail -n 12 "$W/smoke.log"
  echo "== main: GPUs $all, nccl and ring on every transport, 1K..8G"
  timeout -s KILL 180 "$A" run --gpus "$all" --algo nccl,ring --transport all -b 1K -e 8G \
    -n 20 -w 5 -T 60 --out "$W/main" > "$W/main.log" 2>&1
  echo "exit $?"
  (cd "$W" && tar czf "$OUT/check.tgz" --exclude='*.tgz' . 2>/dev/null)
  grep -v '^#  rank' "$W/main.log" | cut -c1-110
  exit 0
fi
if [ "${MODE:-sweep}" = final ]; then
  echo "== gputest, ce only"
  GPUTEST_OUT=$W/gputest GPUTEST_TRANSPORTS=ce B=$B timeout -s KILL 300 bash tests/gpu/run.sh \
    > "$W/gputest.log" 2>&1
  echo "exit $?"
  grep -E "^(==|FAIL|   |[0-9]+ passed)" "$W/gputest.log" | cut -c1-120 | tail -n 30
  echo "== main: GPUs $all, nccl and ring on every transport, 1K..1G"
  timeout -s KILL 120 "$A" run --gpus "$all" --algo nccl,ring --transport all -b 1K -e 1G \
    -n 20 -w 5 -T 60 --out "$W/main" > "$W/main.log" 2>&1
  echo "exit $?"
  (cd "$W" && tar czf "$OUT/check.tgz" --exclude='*.tgz' . 2>/dev/null)
  grep -v '^#  rank' "$W/main.log" | cut -c1-110
  exit 0
fi
echo "== oom: 1K and 200G on 2 GPUs (200G cannot fit: oom rows, exit 0)"
timeout -s KILL 90 "$A" run --gpus 0,1 --algo nccl,ring --sizes 1K,200G -n 2 -w 1 -T 60 \
  --out "$W/oom" > "$W/oom.log" 2>&1
echo "exit $?"; grep -E "^ +[0-9]|rror|oom" "$W/oom.log" | head
echo "== straggler: ring and nccl at 1M on $all, rank 3 late by 0, 100us, 1ms, 8ms"
for d in 0 100us 1ms 8ms; do
  st=(); [ "$d" = 0 ] || st=(--straggler "${all##*,}:$d")
  timeout -s KILL 60 "$A" run --gpus "$all" --algo nccl,ring,bcast --sizes 1M -n 10 -w 2 -T 30 \
    "${st[@]}" --out "$W/straggler_$d" > "$W/straggler_$d.log" 2>&1
  echo "delay $d: exit $?"
  awk -F, 'NR > 1 { printf "  %-6s median %9.2f us  delay %8.2f  after-arrival %9.2f  %s\n", $10, $21, $16, $26, $31 }' \
    "$W/straggler_$d/results.csv"
done
echo "== gputest"
GPUTEST_OUT=$W/gputest B=$B timeout -s KILL 400 bash tests/gpu/run.sh > "$W/gputest.log" 2>&1
echo "exit $?"
(cd "$W" && tar czf "$OUT/check.tgz" --exclude='*.tgz' . 2>/dev/null)
grep -E "^(==|FAIL|   |[0-9]+ passed|run folders)" "$W/gputest.log" | cut -c1-150 | tail -n 60
