#!/usr/bin/env bash
# One device call that produces the checked-in reference run: every algorithm on every
# transport, 1 KiB..8 GiB, 4 GPUs; each algorithm/transport group in its own process so a hang
# loses only that group's rows; then runtime bad-input checks and an 8 ms straggler at 1 GiB.
# Usage (on the GPU machine): B=build-final OUT=$OUT bash tools/experiments/reference.sh
. "$(dirname "$0")/lib.sh"
gpus=0,1,2,3
common=(--gpus "$gpus" -b 1K -e 8G -f 2 -n 20 -w 5 -T 30)
log() { echo "$*" | tee -a "$O/reference.log"; }
# left SECONDS: true while the call has at least SECONDS before its budget (DEADLINE, default 560 s)
left() { [ $(( ${DEADLINE:-560} - ($(date +%s) - T0) )) -ge "$1" ]; }

nvidia-smi -L | tee -a "$O/reference.log"
log "== delay self-test"
timeout -s KILL 60 "$A" run --self-test delay --gpus 0,1 2>&1 | tee -a "$O/reference.log"

algos=$("$A" --list | awk 'NR > 1 { print $1 }')
ref=$W/ref
mkdir -p "$ref"
: > "$ref/COMMAND"
i=0
for a in $algos; do
  if [ "$a" = nccl ]; then groups="nccl"; else groups="nccl-p2p,sm ce"; fi
  for t in $groups; do
    i=$((i + 1))
    tp=(--transport "$t"); [ "$a" = nccl ] && tp=()
    cmd=("$A" run "${common[@]}" --algo "$a" "${tp[@]}" --out "$W/part$i")
    echo "${cmd[*]}" | sed "s|$W/part$i|PART|" >> "$ref/COMMAND"
    start=$(date +%s)
    timeout -s KILL 120 "${cmd[@]}" > "$W/part$i.log" 2>&1
    rc=$?
    log "$a/$t: exit $rc in $(( $(date +%s) - start )) s"
    [ "$rc" -ne 0 ] && tail -n 3 "$W/part$i.log" | tee -a "$O/reference.log"
    # a failed part is measured again with the fallback build (if given), and that is what is kept
    if [ "$rc" -ne 0 ] && [ -n "${FALLBACK:-}" ] && left 120; then
      cmd=("$FALLBACK/arbench" run "${common[@]}" --algo "$a" "${tp[@]}" --out "$W/part$i")
      rm -rf "$W/part$i"
      echo "${cmd[*]}" | sed "s|$W/part$i|PART|" >> "$ref/COMMAND"
      timeout -s KILL 120 "${cmd[@]}" > "$W/part$i.fallback.log" 2>&1
      log "$a/$t: fallback exit $?"
    fi
    # merge: one header, every part's rows, flushed as we go so a cut call keeps them
    if [ -s "$W/part$i/results.csv" ]; then
      [ -s "$ref/results.csv" ] || head -n 1 "$W/part$i/results.csv" > "$ref/results.csv"
      tail -n +2 "$W/part$i/results.csv" >> "$ref/results.csv"
      cp "$ref/results.csv" "$O/results.csv"
    fi
    [ -f "$ref/meta.txt" ] || cp "$W/part$i/meta.txt" "$ref/meta.txt" 2>/dev/null
  done
done
cp "$ref/COMMAND" "$ref/meta.txt" "$O/" 2>/dev/null
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { n[$c["status"]]++; w += $c["wrong"] } END { for (s in n) printf "status %s: %d rows\n", s, n[s]; printf "wrong total: %d\n", w }' \
  "$ref/results.csv" | tee -a "$O/reference.log"

log "== bad runtime input (at $(( $(date +%s) - T0 )) s)"
timeout -s KILL 60 "$A" run --gpus 0,9 --algo nccl --sizes 1K -n 2 -w 1 --out "$W/bad1" 2>&1 | tail -n 3 | tee -a "$O/reference.log"
timeout -s KILL 60 "$A" run --gpus "$gpus" --algo nccl,ring -b 4G -e 1T -n 2 -w 1 --out "$W/bad2" > "$W/bad2.log" 2>&1
log "-e 1T: exit $?"; grep -E "oom|ok" "$W/bad2.log" | cut -c1-120 | tee -a "$O/reference.log"
timeout -s KILL 60 "$A" run --gpus 0,1,2 --algo stragglar,ring --sizes 1M -n 2 -w 1 --out "$W/bad3" > "$W/bad3.log" 2>&1
log "stragglar on 3 GPUs: exit $?"; grep -E "n/a|ok" "$W/bad3.log" | cut -c1-140 | tee -a "$O/reference.log"

log "== straggler 8 ms at 1 GiB (rank 3) (at $(( $(date +%s) - T0 )) s)"
left 90 && timeout -s KILL 150 "$A" run --gpus "$gpus" --algo nccl,ring,rhd,direct,bcast,stragglar --transport nccl-p2p,ce,sm \
  --sizes 1G --straggler 3:8ms -n 10 -w 3 -T 60 --out "$W/straggler" > "$W/straggler.log" 2>&1
log "straggler: exit $?"
cp "$W/straggler/results.csv" "$O/straggler.csv" 2>/dev/null
echo "$A run --gpus $gpus --algo nccl,ring,rhd,direct,bcast,stragglar --transport nccl-p2p,ce,sm --sizes 1G --straggler 3:8ms -n 10 -w 3 -T 60" > "$O/straggler.COMMAND"
(cd "$W" && tar czf "$O/logs.tgz" part*.log bad*.log straggler.log straggler/meta.txt 2>/dev/null)
if [ -n "${NEXT:-}" ] && left 60; then
  log "== next build: $NEXT (at $(( $(date +%s) - T0 )) s)"
  DEADLINE=$(( ${DEADLINE:-560} - ($(date +%s) - T0) )) OUT=$O B=$NEXT bash tests/gpu/${NEXT_SCRIPT:-next.sh} 2>&1 | tee -a "$O/reference.log"
fi
log "done at $(( $(date +%s) - T0 )) s"
