#!/usr/bin/env bash
# One device call that checks and times the ce flow program (src/cuda/tp_flow.cu) on 4 GPUs:
# the link probe, the correctness sweep on ce (2, 3 and 4 GPUs), then large sizes against nccl
# in the same process (the flow program, AR_CE_PROGRAM=flow, at the transport's choice and at
# set mini-batches; the default programs beside it), mid sizes, and an 8 ms straggler at 1 GiB.
# Output: $OUT/flow.log, $OUT/flow.tar.gz (every run folder and log).
# Usage (on the GPU machine): B=.carry/x OUT=$OUT bash tools/experiments/flow.sh
. "$(dirname "$0")/lib.sh"
row_flow() { row "$O/flow.log" 150 "$@"; }
"${B:-build}/linkprobe" $((256 << 20)) 5 ce,perm,gap,gapflag >"$W/linkprobe.txt" 2>&1
cat "$W/linkprobe.txt" >>"$O/flow.log"
GPUTEST_TRANSPORTS=ce GPUTEST_SIZES=1K,1000004,64M GPUTEST_OUT="$W/gputest" \
  timeout -s KILL 200 bash tests/gpu/run.sh >"$W/gputest.log" 2>&1
echo "== gputest ce (rc=$?): $(tail -n 1 "$W/gputest.log")" | tee -a "$O/flow.log"
grep -E "^(FAIL|fail)" "$W/gputest.log" | head -20 | tee -a "$O/flow.log"
AR_CE_PROGRAM=flow row_flow "flow, transport's choice" --sizes 1G,8G --algo nccl,ring,rhd,direct,swing-bw --transport ce --pipeline 0 -n 20 -w 5
row_flow "default programs" --sizes 1G,8G --algo nccl,rhd,direct --transport ce --pipeline 0 -n 10 -w 3
for p in 3 4 8; do
  AR_CE_PROGRAM=flow row_flow "flow p$p" --sizes 1G,8G --algo nccl,rhd,direct --transport ce --pipeline $p -n 10 -w 3
done
AR_CE_PROGRAM=flow row_flow "mid sizes, flow" --sizes 256K,1M,4M,16M,64M,256M --algo nccl,ring,rhd,direct,oneshot --transport ce --pipeline 0 -n 20 -w 5
for p in 0 4; do
  AR_CE_PROGRAM=flow row_flow "straggler 8 ms flow p$p" --sizes 1G --algo nccl,ring,stragglar --transport ce --straggler 1:8ms --pipeline $p -n 10 -w 3
done
row_flow "straggler 8 ms per-round p4" --sizes 1G --algo nccl,stragglar --transport ce --straggler 1:8ms --pipeline 4 -n 10 -w 3
tar -C "$W" -czf "$O/flow.tar.gz" . 2>/dev/null
