#!/usr/bin/env bash
# One device call: a CUPTI timeline of optcc-switch at 1 GiB with GPU 3 2x slower (where its
# time goes beyond the bound), optcc-switch at k = 8 and 12, and why stragglar was slower in
# the --find-critical process than alone (iterations, algorithm set).
# Output: $OUT/diag.log, $OUT/timeline_optcc_switch.csv.gz, $OUT/diag.tgz.
# Usage (on the GPU machine): B=.carry/x OUT=$OUT bash tools/experiments/diag.sh
. "$(dirname "$0")/lib.sh"
L="$O/diag.log"
r() { row "$L" 120 "$@"; }
d=(--sizes 1G --transport ce --degrade 3:2.0 -n 10 -w 3)
r "2x optcc-switch k=16, timeline" --algo optcc-switch "${d[@]}" --profile timeline
gzip -c "$W/r$i/timeline.csv" > "$O/timeline_optcc_switch.csv.gz" 2>/dev/null
for k in 8 12; do r "2x optcc-switch k=$k" --algo optcc-switch --segments $k "${d[@]}"; done
s=(--sizes 1G --transport ce --straggler 1:8ms)
r "8 ms, nccl+stragglar -n 5 -w 2" --algo nccl,stragglar "${s[@]}" -n 5 -w 2
r "8 ms, six algorithms -n 5 -w 2" --algo nccl,ring,rhd,direct,swing-bw,stragglar "${s[@]}" -n 5 -w 2
r "8 ms, six algorithms -n 20 -w 5" --algo nccl,ring,rhd,direct,swing-bw,stragglar "${s[@]}" -n 20 -w 5
r "8 ms, stragglar first -n 5 -w 2" --algo stragglar,nccl,ring "${s[@]}" -n 5 -w 2
r "64 ms, nccl+stragglar" --algo nccl,stragglar --sizes 1G --transport ce --straggler 1:64ms -n 5 -w 2
r "8 ms, 256M nccl+stragglar" --algo nccl,stragglar --sizes 256M --transport ce --straggler 1:8ms -n 20 -w 5
(cd "$W" && tar czf "$O/diag.tgz" . 2>/dev/null)
echo "done in $(( $(date +%s) - T0 )) s" | tee -a "$L"
