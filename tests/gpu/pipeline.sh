#!/usr/bin/env bash
# Mini-batch counts on the ce transport, measured: async-ring at 1 GiB and 8 GiB, and StragglAR
# under an 8 ms straggler at 1 GiB, beside nccl in the same process. Output in $OUT/next.tgz.
set -u
cd "$(dirname "$0")/../.."
export NCCL_NVLS_ENABLE=0
A=${B:-build}/arbench
O=${OUT:-$(mktemp -d)}
W=$(mktemp -d)
T0=$(date +%s)
step() { # step NAME LIMIT CMD...
  local name=$1 lim=$2 left=$(( ${DEADLINE:-300} - ($(date +%s) - T0) - 10 ))
  shift 2
  if [ "$left" -lt 20 ]; then echo "-- $name: skipped (out of time)"; return; fi
  [ "$lim" -gt "$left" ] && lim=$left
  echo "$*" > "$W/$name.COMMAND"
  timeout -s KILL "$lim" "$@" > "$W/$name.log" 2>&1
  echo "-- $name: exit $?"
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { printf "  %-10s %-8s %11s p %-3s delay %7s median %9s after %9s wrong %s %s\n", $c["algorithm"],
      $c["transport"], $c["bytes"], $c["pipeline"], $c["delay_us"], $c["time_us_median"],
      $c["time_after_arrival_us"], $c["wrong"], $c["status"] }' "$W/$name/results.csv" 2>/dev/null
}
for p in 2 4 8 16 32; do
  step async_p$p 40 "$A" run --gpus 0,1,2,3 --algo nccl,async-ring,ring --transport ce --sizes 1G,8G \
    --pipeline $p -n 10 -w 3 -T 60 --out "$W/async_p$p"
done
for p in 1 4 8 16; do
  step strag_p$p 40 "$A" run --gpus 0,1,2,3 --algo nccl,stragglar,rhd --transport ce,sm --sizes 1G \
    --straggler 3:8ms --pipeline $p -n 10 -w 3 -T 60 --out "$W/strag_p$p"
done
(cd "$W" && tar czf "$O/next.tgz" . 2>/dev/null)
