#!/usr/bin/env bash
# One device call that checks and times the ce flow program (src/cuda/tp_flow.cu) on 4 GPUs:
# the link probe, the correctness sweep on ce (2, 3 and 4 GPUs), then large sizes against nccl
# in the same process (the flow program at the transport's choice and at set mini-batches, the
# older per-round program beside it), mid sizes, and an 8 ms straggler at 1 GiB.
# Output: $OUT/flow.log, $OUT/flow.tar.gz (every run folder and log).
# Usage (on the GPU machine): B=.carry/x OUT=$OUT bash tests/gpu/flow.sh
set -u
cd "$(dirname "$0")/../.."
export NCCL_NVLS_ENABLE=0
A=${B:-build}/arbench
O=${OUT:-$(mktemp -d)}
W=$(mktemp -d)
g=(--gpus "${GPUS:-0,1,2,3}")
i=0
# row LABEL ARGS...: one arbench run; prints algorithm/transport/pipeline/bytes/median/wrong/status
row() {
  local label=$1; shift
  i=$((i + 1))
  timeout -s KILL 150 "$A" run "${g[@]}" "$@" -T 60 --out "$W/r$i" >"$W/r$i.log" 2>&1
  echo "== $label (rc=$?): $*" | tee -a "$O/flow.log"
  awk -F, 'NR > 1 { printf "  %-11s %-8s p=%-3s %11s B  %10s us  after %10s  wrong %s %s\n", $10, $11, $12, $14, $21, $26, $30, $31 }' \
    "$W/r$i/results.csv" 2>/dev/null | tee -a "$O/flow.log"
}
"${B:-build}/linkprobe" $((256 << 20)) 5 ce,perm,gap,gapflag >"$W/linkprobe.txt" 2>&1
cat "$W/linkprobe.txt" >>"$O/flow.log"
GPUTEST_TRANSPORTS=ce GPUTEST_SIZES=1K,1000003,64M GPUTEST_OUT="$W/gputest" \
  timeout -s KILL 200 bash tests/gpu/run.sh >"$W/gputest.log" 2>&1
echo "== gputest ce (rc=$?): $(tail -n 1 "$W/gputest.log")" | tee -a "$O/flow.log"
grep -E "^(FAIL|fail)" "$W/gputest.log" | head -20 | tee -a "$O/flow.log"
row "flow, transport's choice" --sizes 1G,8G --algo nccl,ring,rhd,direct,swing-bw --transport ce --pipeline 0 -n 20 -w 5
AR_CE_PROGRAM=round row "per-round program" --sizes 1G,8G --algo nccl,rhd,direct --transport ce --pipeline 0 -n 10 -w 3
for p in 3 4 8; do
  row "flow p$p" --sizes 1G,8G --algo nccl,rhd,direct --transport ce --pipeline $p -n 10 -w 3
done
row "mid sizes" --sizes 256K,1M,4M,16M,64M,256M --algo nccl,ring,rhd,direct,oneshot --transport ce --pipeline 0 -n 20 -w 5
for p in 0 4; do
  row "straggler 8 ms p$p" --sizes 1G --algo nccl,ring,stragglar --transport ce --straggler 1:8ms --pipeline $p -n 10 -w 3
done
AR_CE_PROGRAM=round row "straggler 8 ms per-round p4" --sizes 1G --algo nccl,stragglar --transport ce --straggler 1:8ms --pipeline 4 -n 10 -w 3
tar -C "$W" -czf "$O/flow.tar.gz" . 2>/dev/null
