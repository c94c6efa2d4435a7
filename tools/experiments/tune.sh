#!/usr/bin/env bash
# One device call that picks the defaults the nightly run depends on, on 4 GPUs: the dataflow
# ring's mini-batch size and copy streams (AR_CE_RING_BATCH, AR_CE_RING_STREAMS), the
# low-latency oneshot's ceiling (AR_LL_MAX_BYTES), and stragglar's mini-batches under an 8 ms
# straggler, each against nccl in the same process. Output: $OUT/tune.log, $OUT/tune.tar.gz.
# Usage (on the GPU machine): B=.carry/x OUT=$OUT bash tools/experiments/tune.sh
. "$(dirname "$0")/lib.sh"
row_tune() { row "$O/tune.log" 120 "$@"; }
"${B:-build}/linkprobe" $((256 << 20)) 3 >"$W/linkprobe.txt" 2>&1
row_tune "ring family, transport's choice" --sizes 1G,8G --algo nccl,ring,async-ring --transport ce --pipeline 0 -n 10 -w 3
for s in 1 2; do
  for b in 64 128 256; do
    AR_CE_RING_STREAMS=$s AR_CE_RING_BATCH=$b row_tune "async-ring streams $s batch $b MiB" \
      --sizes 1G,8G --algo async-ring --transport ce --pipeline 0 -n 10 -w 3
  done
done
AR_LL_MAX_BYTES=$((8 << 20)) row_tune "oneshot ceiling" --sizes 1K,64K,256K,1M,2M,4M,8M --algo nccl,oneshot \
  --transport sm -n 20 -w 5
for p in 0 4 8 16; do
  row_tune "stragglar 8 ms p$p" --sizes 1G --algo nccl,stragglar --transport ce --straggler 1:8ms --pipeline $p -n 8 -w 2
done
tar -C "$W" -czf "$O/tune.tar.gz" . 2>/dev/null
