#!/usr/bin/env bash
# The ce and sm transports' programs on the CPU: tests/gpu/tp_check.c `sim` compiles every
# schedule (registry and synthetic) for 2..8 ranks into the per-round, dataflow ring, dataflow
# direct and flow programs and runs them in an adversarial simulator (wrong sums, stalls,
# unsound --phases marks), then the timed simulator's checks. One case per line of its own.
# `make test` runs 2..6 ranks, 2 seeds (about 30 s); `make test-long` (TP_SIM_LONG=1, also in
# CI) 2..8 ranks, 4 seeds.
. "$(dirname "$0")/lib.sh"
B=${B:-build}
if ! bash tests/gpu/build_tp_check.sh "$B" >"$tmp/build.log" 2>&1; then
  bad "tp_check does not build: $(tail -n 3 "$tmp/build.log")"
  finish
fi
if [ "${TP_SIM_LONG:-0}" = 1 ]; then sweep=(--ranks-max 8 --seeds 4); else sweep=(--ranks-max 6 --seeds 2); fi
# under the sanitizers (make test-asan) the simulator runs for many minutes even reduced: left out
if [ -n "${SAN_FLAGS:-}" ]; then echo "skipped: the transport simulator under the sanitizers (too slow)"; finish; exit; fi
"$B/tp_check" sim "${sweep[@]}" >"$tmp/sim.log" 2>&1
rc=$?
p=$(grep -c '^ok ' "$tmp/sim.log")
f=$(grep -cE '^(FAIL|WRONG|STALL)' "$tmp/sim.log")
pass=$((pass + p))
grep -E '^(FAIL|WRONG|STALL)' "$tmp/sim.log" | head -n 20
[ "$f" -gt 0 ] && fail=$((fail + f))
if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then bad "tp_check sim exited $rc: $(tail -n 3 "$tmp/sim.log")"; fi
if ! tail -n 1 "$tmp/sim.log" | grep -qE '^[0-9]+ passed, 0 failed$'; then
  [ "$f" -eq 0 ] && [ "$rc" -eq 0 ] && bad "tp_check sim did not end with its count: $(tail -n 1 "$tmp/sim.log")"
fi
finish
