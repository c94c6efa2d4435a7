#!/usr/bin/env bash
# The ce, sm and ll transports' programs on the CPU: tests/gpu/tp_check.c `sim` compiles every
# schedule (registry and synthetic) for 2..8 ranks into the per-round, dataflow ring, dataflow
# direct and flow programs and runs them in an adversarial simulator (wrong sums, stalls,
# unsound --phases marks), then the timed simulator's checks; `llsim` (at the same time)
# compiles them into ll programs and runs those in a simulator of the ll kernel (warps owning
# slices, slots of two parities), then corrupted programs that must fail. One case per line of
# its own. `make test` runs sim on 2..3 ranks, 1 seed, then on 4 ranks the schedules whose 2-rank
# case is degenerate (recursive doubling and halving, Swing, the tori, stragglar), llsim on 2..8
# ranks, 1 seed, sizes up to 1025 elements (about 10 s of CPU in all); `make test-long` (also in
# CI) sim on 2..8 ranks, 4 seeds, llsim 4 seeds up to 12345 elements and 1 seed of 100003.
. "$(dirname "$0")/lib.sh"
B=${B:-build}
if ! bash tests/gpu/build_tp_check.sh "$B" >"$tmp/build.log" 2>&1; then
  bad "tp_check does not build: $(tail -n 3 "$tmp/build.log")"
  finish
fi
if long; then
  sweep=(--ranks-max 8 --seeds 4)
  sweep4=()
  llsweep=(--ranks-max 8 --seeds 4 --sizes 1e,5e,67e,1025e,4099e,12345e)
  llbig=(--ranks-max 8 --seeds 1 --sizes 100003e --negative 0)
else
  sweep=(--ranks-max 3 --seeds 1)
  # 4 ranks: the schedules that are one exchange on 2 (OPTCC's programs at 4 ranks take most of
  # the long sweep's time: there)
  sweep4=(--ranks-max 4 --seeds 1 --algos rd,rhd,swing-bw,swing-lat,swing-mp,bucket,stragglar,rd-torus,rhd-torus,swing-lat-torus,x-rd,x-rd-pipe,x-pair)
  llsweep=(--ranks-max 8 --seeds 1 --sizes 1e,5e,67e,1025e)
  llbig=()
fi
# under the sanitizers (make test-asan) the simulator runs for many minutes even reduced: left out
if [ -n "${SAN_FLAGS:-}" ]; then echo "skipped: the transport simulator under the sanitizers (too slow)"; finish; exit; fi
# tally LOG NAME RC: counts LOG's ok and failure lines; RC, the exit status, and its last line
# (its count) must say it passed
tally() {
  local log=$1 name=$2 rc=$3 p f
  p=$(grep -c '^ok ' "$log")
  f=$(grep -cE '^(FAIL|WRONG|STALL)' "$log")
  pass=$((pass + p))
  grep -E '^(FAIL|WRONG|STALL)' "$log" | head -n 20
  [ "$f" -gt 0 ] && fail=$((fail + f))
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then bad "tp_check $name exited $rc: $(tail -n 3 "$log")"; fi
  if ! tail -n 1 "$log" | grep -qE '^[0-9]+ passed, 0 failed$'; then
    [ "$f" -eq 0 ] && [ "$rc" -eq 0 ] && bad "tp_check $name did not end with its count: $(tail -n 1 "$log")"
  fi
}
(
  "$B/tp_check" llsim "${llsweep[@]}" >"$tmp/llsim.log" 2>&1
  echo $? >"$tmp/llsim.rc"
  if [ ${#llbig[@]} -gt 0 ]; then
    "$B/tp_check" llsim "${llbig[@]}" >"$tmp/llbig.log" 2>&1
    echo $? >"$tmp/llbig.rc"
  fi
) &
llpid=$!
"$B/tp_check" sim "${sweep[@]}" >"$tmp/sim.log" 2>&1
rc=$?
if [ ${#sweep4[@]} -gt 0 ]; then
  "$B/tp_check" sim "${sweep4[@]}" >"$tmp/sim4.log" 2>&1
  rc4=$?
fi
wait "$llpid"
tally "$tmp/sim.log" sim "$rc"
if [ ${#sweep4[@]} -gt 0 ]; then
  tally "$tmp/sim4.log" "sim (4 ranks)" "$rc4"
  # every schedule named ran on 4 ranks (a renamed one would be skipped unseen)
  for a in $(printf '%s\n' "${sweep4[@]}" | sed -n 's/,/ /gp'); do
    grep -q "^ok   $a n=4: " "$tmp/sim4.log" && ok || bad "sim (4 ranks): $a did not run on 4 ranks: $(grep "$a n=4" "$tmp/sim4.log" | head -n 2)"
  done
fi
tally "$tmp/llsim.log" llsim "$(cat "$tmp/llsim.rc" 2>/dev/null || echo 1)"
[ ${#llbig[@]} -gt 0 ] && tally "$tmp/llbig.log" "llsim (100003 elements)" "$(cat "$tmp/llbig.rc" 2>/dev/null || echo 1)"
finish
