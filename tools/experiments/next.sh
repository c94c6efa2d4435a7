#!/usr/bin/env bash
# The straggler and degraded-link checks that follow the reference sweep in one device call
# (tools/experiments/reference.sh runs this with NEXT=<build dir>): the degrade self-test, ring vs optcc
# at 1 GiB with one GPU 2x slower, a factor sweep, and a critical-delay search at 1 GiB.
# Everything lands in $OUT/next.tgz; a summary goes to stdout. DEADLINE: seconds left.
. "$(dirname "$0")/lib.sh"
csv() { # csv DIR: the rows that matter, by column name
  [ -f "$1/results.csv" ] || return
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { printf "  %-10s %-8s %11s delay %8s factor %-4s k %-3s median %10s after %10s wrong %s %s lb %s\n",
      $c["algorithm"], $c["transport"], $c["bytes"], $c["delay_us"], $c["factor"], $c["pipeline"],
      $c["time_us_median"], $c["time_after_arrival_us"], $c["wrong"], $c["status"],
      ("lower_bound_us" in c ? $c["lower_bound_us"] : "") }' "$1/results.csv"
}
step selftest 90 "$A" run --self-test degrade --gpus 0,1,2,3
grep -iE "peer|pass|fail|healthy|requested|measured" "$W/selftest.log" | head -20
step degraded 120 "$A" run --gpus 0,1,2,3 --algo nccl,ring,optcc --transport ce,sm,nccl-p2p --sizes 1G \
  --degrade 3:2.0 -n 10 -w 3 -T 60 --out "$W/degraded"
csv "$W/degraded"; grep -h '^degrade_healthy_bw' "$W/degraded/meta.txt" 2>/dev/null
factors_conf "$W/factors.conf" "--gpus 0,1,2,3 --algo ring,optcc --transport ce,sm --sizes 1G -n 5 -w 2 -T 60" 1.0 1.5 2.0 3.0 4.0
step factors 120 "$A" run --config "$W/factors.conf" --out "$W/factors"
csv "$W/factors"
step critical 120 "$A" run --gpus 0,1,2,3 --find-critical 1G --algo nccl,ring,rhd,direct,stragglar --transport ce \
  --straggler 3:0 -n 5 -w 2 -T 60 --out "$W/critical"
cat "$W/critical/critical.csv" 2>/dev/null
(cd "$W" && tar czf "$O/next.tgz" . 2>/dev/null)
