#!/usr/bin/env bash
# Mini-batch counts on the ce transport, measured: async-ring at 1 GiB and 8 GiB, and StragglAR
# under an 8 ms straggler at 1 GiB, beside nccl in the same process. Output in $OUT/next.tgz.
. "$(dirname "$0")/lib.sh"
pstep() { # pstep NAME LIMIT CMD...: step, then the rows of $W/NAME
  step "$@"
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { printf "  %-10s %-8s %11s p %-3s delay %7s median %9s after %9s wrong %s %s\n", $c["algorithm"],
      $c["transport"], $c["bytes"], $c["pipeline"], $c["delay_us"], $c["time_us_median"],
      $c["time_after_arrival_us"], $c["wrong"], $c["status"] }' "$W/$1/results.csv" 2>/dev/null
}
for p in 2 4 8 16 32; do
  pstep async_p$p 40 "$A" run --gpus 0,1,2,3 --algo nccl,async-ring,ring --transport ce --sizes 1G,8G \
    --pipeline $p -n 10 -w 3 -T 60 --out "$W/async_p$p"
done
for p in 1 4 8 16; do
  pstep strag_p$p 40 "$A" run --gpus 0,1,2,3 --algo nccl,stragglar,rhd --transport ce,sm --sizes 1G \
    --straggler 3:8ms --pipeline $p -n 10 -w 3 -T 60 --out "$W/strag_p$p"
done
(cd "$W" && tar czf "$O/next.tgz" . 2>/dev/null)
