#!/usr/bin/env bash
# The nightly job's remaining parts after a first device call ran `--scenario clean` up to
# 4 GiB (see runs/reference/h200x4-nightly/COMMAND): each part in its own process with a 60 s
# watchdog, so a hang loses one part; optcc and optcc-multi on ce stop at 2 GiB (their 4 GiB
# row did not finish in 300 s in the first call), and the straggler and degraded sweeps stop
# at 1 GiB. Every part writes its own run folder under $OUT/parts (packed into parts.tgz).
# Usage (on the GPU machine): B=.carry/x OUT=$OUT bash tools/experiments/nightly_rest.sh
set -u
cd "$(dirname "$0")/../.."
export NCCL_NVLS_ENABLE=0
A=${B:-build}/arbench
O=${OUT:-$(mktemp -d)}
W=$(mktemp -d)/parts
mkdir -p "$W"
T0=$(date +%s)
left() { [ $(( ${DEADLINE:-470} - ($(date +%s) - T0) )) -ge "$1" ]; }
cfg=(--config configs/nightly.conf --gpus 0,1,2,3 -T 60)
# part NAME SECONDS ARGS...: one arbench process, killed after SECONDS
part() {
  local name=$1 secs=$2; shift 2
  left 30 || { echo "[$(( $(date +%s) - T0 ))s] skip $name: no time left" | tee -a "$O/rest.log"; return; }
  echo "$A run ${cfg[*]} $* --out parts/$name" >>"$W/COMMANDS"
  timeout -s KILL "$secs" "$A" run "${cfg[@]}" "$@" --out "$W/$name" >"$W/$name.log" 2>&1
  echo "[$(( $(date +%s) - T0 ))s] $name rc=$? rows=$(($(wc -l <"$W/$name/results.csv" 2>/dev/null || echo 1) - 1))" | tee -a "$O/rest.log"
  tar -C "$(dirname "$W")" -czf "$O/parts.tgz" parts 2>/dev/null
}
all_but_optcc=$(awk 'NR > 1 && $1 !~ /^optcc/ { printf "%s%s", s, $1; s = "," }' < <("$A" --list))
part clean-4g-8g 150 --scenario clean --sizes 4G,8G --algo "$all_but_optcc"
part clean-optcc 60 --scenario clean --sizes 4G,8G --algo optcc,optcc-multi --transport nccl-p2p,sm
part profile-8ms 60 --scenario profile-8ms
part straggler-8ms 110 --scenario straggler-8ms -e 1G
part degraded-2x 100 --scenario degraded-2x -e 1G
part critical 120 --scenario critical
