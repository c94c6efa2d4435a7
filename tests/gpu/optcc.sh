#!/usr/bin/env bash
# One device call for issue #4 after the flow program took over degraded jobs and stragglar
# (src/cuda/tp_flow.cu): the degrade self-test, ring / optcc / optcc-switch at 1 GiB with GPU 3
# 2x slower (also the per-round program, AR_CE_PROGRAM=round, for comparison), optcc-switch's k,
# stragglar against nccl with an 8 ms straggler, the factor sweep 1..4, and the critical delay
# for 64 MiB..4 GiB. Output: $OUT/optcc.log and $OUT/optcc.tgz (every run folder).
# Usage (on the GPU machine): B=.carry/x OUT=$OUT DEADLINE=560 bash tests/gpu/optcc.sh
. "$(dirname "$0")/lib.sh"
L="$O/optcc.log"
r() { row "$L" 120 "$@"; }
step selftest 90 "$A" run --self-test degrade --gpus 0,1,2,3
grep -iE "peer|pass|fail|healthy|requested|measured" "$W/selftest.log" | head -20 | tee -a "$L"
d=(--sizes 1G --transport ce --degrade 3:2.0 -n 10 -w 3)
r "2x, default programs" --algo ring,optcc,optcc-switch,direct "${d[@]}"
grep -h '^degrade_healthy_bw' "$W/r$i/meta.txt" | tee -a "$L"
awk -F, 'NR == 1 { for (k = 1; k <= NF; k++) c[$k] = k; next } { print "  lower bound", $c["algorithm"], $c["lower_bound_us"] }' "$W/r$i/results.csv" | head -1 | tee -a "$L"
AR_CE_PROGRAM=round r "2x, per-round program" --algo ring,optcc "${d[@]}"
for k in 24 32; do r "2x, optcc-switch k=$k" --algo optcc-switch --segments $k "${d[@]}"; done
s=(--sizes 1G --algo nccl,stragglar --transport ce --straggler 1:8ms -n 20 -w 5)
r "straggler 8 ms, flow (default)" "${s[@]}" --pipeline 0
for p in 2 4; do r "straggler 8 ms, flow p$p" "${s[@]}" --pipeline $p; done
AR_SUM_BLOCKS=32 r "straggler 8 ms, flow, 32 sum blocks" "${s[@]}" --pipeline 0
r "straggler 8 ms, flow (default), again" "${s[@]}" --pipeline 0
cat > "$W/factors.conf" <<CONF
--gpus 0,1,2,3 --algo ring,optcc,optcc-switch --transport ce --sizes 1G -n 5 -w 2 -T 60
[scenario x1]
--degrade 3:1.0
[scenario x1.5]
--degrade 3:1.5
[scenario x2]
--degrade 3:2.0
[scenario x2.5]
--degrade 3:2.5
[scenario x3]
--degrade 3:3.0
[scenario x4]
--degrade 3:4.0
CONF
step factors 150 "$A" run --config "$W/factors.conf" --out "$W/factors"
awk -F, 'NR == 1 { for (k = 1; k <= NF; k++) c[$k] = k; next } { printf "  %-12s factor %-4s k %-3s median %10s lb %10s wrong %s %s\n", $c["algorithm"], $c["factor"], $c["pipeline"], $c["time_us_median"], $c["lower_bound_us"], $c["wrong"], $c["status"] }' "$W/factors/results.csv" 2>/dev/null | tee -a "$L"
step critical 240 "$A" run --gpus 0,1,2,3 --find-critical 64M,256M,1G,4G --algo nccl,ring,rhd,direct,swing-bw,stragglar \
  --transport ce --straggler 1:0 -n 5 -w 2 -T 60 --out "$W/critical"
cat "$W/critical/critical.csv" 2>/dev/null | tee -a "$L"
(cd "$W" && tar czf "$O/optcc.tgz" . 2>/dev/null)
echo "done in $(( $(date +%s) - T0 )) s" | tee -a "$L"
