#!/usr/bin/env bash
# One device call that opens a GPU session: link rates (tools/linkprobe), a slice of the size
# sweep on every transport (checks the per-iteration inputs and the new schedules), the ce
# transport's automatic mini-batches against none, an 8 ms straggler with --phases, the
# transport checker with round marks, `make gputest`'s sweep on 2..4 GPUs, and one Nsight
# Systems attempt. Parts run while the call's DEADLINE (seconds, default 540) allows.
# Usage (on the GPU machine): B=.carry/x OUT=$OUT bash tools/experiments/probe.sh
# GPUS (default 0,1,2,3) picks the GPUs, SLICE_SIZES the slice's sizes; PARTS (default all)
# a subset of: link slice ll cep1
# phases tpcheck nsys gputest.
# Everything lands in $OUT/probe.tar.gz (run folders) and $OUT/probe.log.
set -u
cd "$(dirname "$0")/../.."
export NCCL_NVLS_ENABLE=0
B=${B:-build}
A=$B/arbench
O=${OUT:-$(mktemp -d)}
W=$(mktemp -d)
T0=$(date +%s)
left() { [ $(( ${DEADLINE:-540} - ($(date +%s) - T0) )) -ge "$1" ]; }
log() { echo "[$(( $(date +%s) - T0 ))s] $*" | tee -a "$O/probe.log"; }
g4=(--gpus "${GPUS:-0,1,2,3}")
want() { [ "${PARTS:-all}" = all ] || [[ " $PARTS " == *" $1 "* ]]; }
pack() { tar -C "$W" -czf "$O/probe.tar.gz" . 2>/dev/null; }

nvidia-smi -L | tee -a "$O/probe.log"
if want link; then
  log "== linkprobe"
  timeout -s KILL 120 "$B/linkprobe" $((256 << 20)) 5 2>&1 | tee "$W/linkprobe.txt" >>"$O/probe.log"
fi

if want slice; then
  log "== slice: every transport, --pipeline 0"
  timeout -s KILL 200 "$A" run "${g4[@]}" --sizes "${SLICE_SIZES:-1K,4K,64K,256K,1M,4M,16M,64M,256M,1G,8G}" \
  --algo ${SLICE_ALGOS:-nccl,oneshot,direct,ring,rhd,rd,async-ring,stragglar} --transport ce,sm,nccl-p2p \
  --pipeline 0 -n 10 -w 3 -T 60 --out "$W/slice" >"$W/slice.log" 2>&1
  log "slice rc=$? rows=$(($(wc -l <"$W/slice/results.csv") - 1))"
fi
pack

if want ll && left 200; then
  log "== oneshot/sm low-latency ceiling: AR_LL_MAX_BYTES=8M against the default"
  AR_LL_MAX_BYTES=$((8 << 20)) timeout -s KILL 60 "$A" run "${g4[@]}" --sizes 256K,512K,1M,2M,4M,8M \
    --algo nccl,oneshot --transport sm -n 20 -w 5 -T 30 --out "$W/ll8m" >"$W/ll8m.log" 2>&1
  log "ll8m rc=$?"
fi

if want cep1 && left 200; then
  log "== ce --pipeline 1 (no mini-batches) for comparison"
  timeout -s KILL 120 "$A" run "${g4[@]}" --sizes 256M,1G,8G --algo ring,rhd,direct,stragglar \
    --transport ce --pipeline 1 -n 10 -w 3 -T 60 --out "$W/ce-p1" >"$W/ce-p1.log" 2>&1
  log "ce-p1 rc=$?"
fi
if want phases && left 180; then
  log "== 8 ms straggler, 1 GiB, --phases"
  timeout -s KILL 120 "$A" run "${g4[@]}" --sizes 1G --algo nccl,ring,stragglar \
    --transport ce,sm --straggler 3:8ms --pipeline 4 --phases -n 8 -w 2 -T 60 \
    --out "$W/phases" >"$W/phases.log" 2>&1
  log "phases rc=$?"
fi
pack
if want tpcheck && left 150 && [ -x "$B/tp_check" ]; then
  log "== tp_check gpu ce with marks"
  timeout -s KILL 100 "$B/tp_check" gpu --transport ce --algos ring,rhd,stragglar,bcast,async-ring,oneshot \
    --sizes 1M,64M,256M --pipelines 0,1,4 --marks 1 >"$W/tp_check.log" 2>&1
  log "tp_check rc=$? $(tail -n 1 "$W/tp_check.log")"
fi
NSYS=/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys
if want nsys && left 120; then
  log "== nsys attempt ($NSYS)"
  ls "$(dirname "$NSYS")" >"$W/nsys-dir.txt" 2>&1
  ( cd "$W" && timeout -s KILL 90 "$NSYS" profile --trace=cuda,nvtx --force-overwrite true -o nsys-short \
      "$OLDPWD/$A" run "${g4[@]}" --sizes 1M --algo ring,stragglar --transport ce \
      --straggler 1:1ms -n 3 -w 1 --out "$W/nsys-run" ) >"$W/nsys.log" 2>&1
  log "nsys rc=$? $(ls -la "$W"/nsys-short* 2>/dev/null | tr '\n' ' ')"
  for f in "$W"/nsys-short*; do # only a small report travels back
    [ -f "$f" ] && [ "$(stat -c %s "$f")" -gt $((12 << 20)) ] && rm -f "$f" && log "nsys: $f too big to bring back"
  done
fi
pack
if want gputest && left 150; then
  log "== gputest (2..4 GPUs)"
  GPUTEST_SIZES=1K,1000004,1M,64M GPUTEST_OUT="$W/gputest" timeout -s KILL $(( ${DEADLINE:-540} - ($(date +%s) - T0) - 20 )) \
    bash tests/gpu/run.sh >"$W/gputest.log" 2>&1
  log "gputest: $(tail -n 1 "$W/gputest.log")"
  rm -rf "$W/gputest/"*/*.png 2>/dev/null
fi
pack
log "done"
