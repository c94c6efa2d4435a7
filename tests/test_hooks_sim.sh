#!/usr/bin/env bash
# The transports' two opt-in hooks, end to end on the simulated machine of tests/sim/fake_gpu.c
# (the real harness objects; the fake's transports report what the real ones would):
#   1. --pipeline 0 (the transport chooses) is accepted, from the command line and a config;
#      the CSV's pipeline column holds the count the transport used (struct tp_job's
#      pipeline_used): ce the count asked for or its own choice per size (async-ring's 1 too),
#      sm, ll and nccl-p2p 1 whatever was asked; the default stays 1.
#   2. --phases with round marks (struct tp_marks; the fake marks under AR_SIM_ROUNDS=1): each
#      rank's `round k` lines for exactly the rounds it takes part in (arbench schedule), back
#      to back from the collective's start to its end; a `precondition` line on the ranks of a
#      straggler-aware schedule that run one, ending before the straggler's delay does, none
#      on the straggler; sm's (and ll's) clock stamps placed as ce's events are; no round lines
#      from a transport that marks nothing, and plots/ draws them.
# The real transports' marks and counts are checked on the CPU by tests/gpu/tp_check.c (sim)
# and on GPUs by `tp_check gpu --marks 1 --pipelines 0,1`.
. "$(dirname "$0")/lib.sh"
B=${B:-build}

. tests/sim/build.sh
sim_build hooks

# pipe FILE ALGO TRANSPORT BYTES: that row's pipeline column
pipe() {
  awk -F, -v a="$2" -v t="$3" -v b="$4" -v ac="$(col "$1" algorithm)" -v tc="$(col "$1" transport)" \
      -v bc="$(col "$1" bytes)" -v pc="$(col "$1" pipeline)" -v sc="$(col "$1" status)" \
      'NR > 1 && $ac == a && $tc == t && $bc == b { print $pc "/" $sc; exit }' "$1"
}

# ---- 1. --pipeline 0 ----
expect 0 'rows: 2 \(2 to measure' "$A" run --pipeline 0 --dry-run --gpus 0,1 --algo ring,rhd -b 1M -e 1M
expect 2 "^arbench: --pipeline: bad value '-1'" "$A" run --pipeline -1 --dry-run --gpus 0,1
expect 2 "^arbench: --pipeline: bad value '1025'" "$A" run --pipeline 1025 --dry-run --gpus 0,1
printf -- '--gpus 0,1 --algo ring -b 1M -e 1M\n[scenario auto]\n--pipeline 0\n' >"$tmp/p.conf"
expect 0 'scenario auto' "$A" run --config "$tmp/p.conf" --dry-run
"$A" run --help | grep -q -- '0: the transport chooses' && ok || bad "--help does not say what --pipeline 0 does"

# 2 ranks (the fake runs async-ring there); ring moves half vectors: 256 MiB -> 16 x 8 MiB,
# more than ce's 8 at most; 16 MiB -> one 8 MiB batch; async-ring's dataflow program aims at
# 256 MiB batches, 4 at least: 128 MiB -> 4, 8 MiB -> 4
run_p() { "$S" run --gpus 0,1 --algo nccl,ring,async-ring --transport ce,sm,nccl-p2p,ll -b 16M -e 256M \
            -f 16 -n 2 -w 0 --out "$tmp/$1" "${@:2}" >"$tmp/$1.out" 2>&1; }
run_p auto --pipeline 0 && ok || bad "--pipeline 0 run failed: $(cat "$tmp/auto.out")"
r=$tmp/auto/results.csv
for t in ce sm nccl-p2p ll; do
  for a in ring async-ring; do
    case $t/$a in ce/ring) w256=8 w16=1 ;; ce/async-ring) w256=4 w16=4 ;; *) w256=1 w16=1 ;; esac
    [ "$(pipe "$r" $a $t 268435456)" = "$w256/ok" ] && [ "$(pipe "$r" $a $t 16777216)" = "$w16/ok" ] && ok ||
      bad "--pipeline 0: $a/$t: pipeline column $(pipe "$r" $a $t 268435456) at 256 MiB (want $w256), $(pipe "$r" $a $t 16777216) at 16 MiB (want $w16)"
  done
done
[ "$(pipe "$r" nccl nccl 268435456)" = "1/ok" ] && ok || bad "--pipeline 0: nccl's column: $(pipe "$r" nccl nccl 268435456)"
run_p given --pipeline 4 && ok || bad "--pipeline 4 run failed"
r=$tmp/given/results.csv
[ "$(pipe "$r" ring ce 268435456)" = 4/ok ] && [ "$(pipe "$r" async-ring ce 268435456)" = 4/ok ] &&
  [ "$(pipe "$r" ring sm 268435456)" = 1/ok ] && [ "$(pipe "$r" ring nccl-p2p 16777216)" = 1/ok ] &&
  [ "$(pipe "$r" ring ll 268435456)" = 1/ok ] && [ "$(pipe "$r" async-ring ll 268435456)" = 1/ok ] && ok ||
  bad "--pipeline 4: ring/ce $(pipe "$r" ring ce 268435456), async-ring/ce $(pipe "$r" async-ring ce 268435456), ring/sm $(pipe "$r" ring sm 268435456), ring/nccl-p2p $(pipe "$r" ring nccl-p2p 16777216), ring/ll $(pipe "$r" ring ll 268435456), async-ring/ll $(pipe "$r" async-ring ll 268435456)"
run_p default && ok || bad "default run failed"
r=$tmp/default/results.csv
# the default is 1, as the reference runs had it; async-ring on ce chose per size then as now
[ "$(pipe "$r" ring ce 268435456)" = 1/ok ] && [ "$(pipe "$r" ring sm 268435456)" = 1/ok ] &&
  [ "$(pipe "$r" async-ring ce 268435456)" = 4/ok ] && [ "$(pipe "$r" async-ring ce 16777216)" = 4/ok ] && ok ||
  bad "default: ring/ce $(pipe "$r" ring ce 268435456), ring/sm $(pipe "$r" ring sm 268435456), async-ring/ce $(pipe "$r" async-ring ce 268435456) and $(pipe "$r" async-ring ce 16777216)"

# ---- 2. round marks in phases.csv ----
R=$tmp/run
AR_SIM_ROUNDS=1 "$S" run --gpus 0,1,2,3 --algo nccl,ring,bcast,stragglar --transport ce,sm,nccl-p2p,ll \
  -b 4M -e 4M --straggler 1:2ms -n 3 -w 1 --phases --out "$R" >"$tmp/run.out" 2>&1 && ok ||
  bad "marked run failed: $(cat "$tmp/run.out")"
F=$R/phases.csv
[ "$(head -n 1 "$F")" = "run_id,algorithm,transport,bytes,rank,phase,start_us,end_us,scenario,iteration,delay_us" ] && ok ||
  bad "phases.csv header: $(head -n 1 "$F")"
for a in ring bcast stragglar; do
  # the rounds each rank takes part in, from the schedule: "rank:k k k"
  want=$("$A" schedule --algo $a --ranks 4 --straggler 1 | awk '
    /^round [0-9]+/ { k = $2 + 0; sub(/:$/, "", k)
      for (i = 3; i <= NF; i++) if ($i ~ /^[0-9]+->[0-9]+$/) { split($i, e, "->"); in_[e[1], k] = 1; in_[e[2], k] = 1 }
      if (k > m) m = k }
    END { for (r = 0; r < 4; r++) { printf "%d:", r; for (k = 0; k <= m; k++) if ((r, k) in in_) printf " %d", k; printf "\n" } }')
  npre=$("$A" schedule --algo $a --ranks 4 --straggler 1 | sed -n 's/^precondition_rounds: //p')
  for t in ce sm nccl-p2p ll; do
    got=$(awk -F, -v a=$a -v t=$t 'NR > 1 && $2 == a && $3 == t && $6 ~ /^round / { split($6, w, " "); l[$5] = l[$5] " " w[2] }
          END { for (r = 0; r < 4; r++) printf "%d:%s\n", r, l[r] }' "$F")
    [ "$got" = "$want" ] && ok || bad "$a/$t: rounds per rank: $(echo $got) (want $(echo $want))"
    # back to back, from the collective's start to its end (the fake's clocks are exact)
    awk -F, -v a=$a -v t=$t 'NR > 1 && $2 == a && $3 == t {
          if ($6 == "allreduce") { s[$5] = $7; e[$5] = $8 }
          else if ($6 ~ /^round /) { if (!($5 in at)) first[$5] = $7; else if ($7 != at[$5]) bad++; at[$5] = $8 } }
          END { for (r in s) { n++; if (first[r] != s[r] || at[r] - e[r] > 0.002 || e[r] - at[r] > 0.002) bad++ } exit bad || n != 4 }' "$F" && ok ||
      bad "$a/$t: round lines not back to back across the collective"
    # the precondition: on the others only, from the collective's start to round npre-1's end
    if [ "${npre:-0}" -gt 0 ]; then
      awk -F, -v a=$a -v t=$t -v np="$npre" 'NR > 1 && $2 == a && $3 == t {
            if ($6 == "precondition") { p[$5] = $8; ps[$5] = $7; n++ }
            if ($6 == "round " (np - 1)) re[$5] = $8
            if ($6 == "allreduce") s[$5] = $7 }
            END { if (1 in p) bad++
                  for (r in p) if (p[r] != re[r] || ps[r] != s[r] || !(p[r] + 0 < 2000)) bad++
                  exit bad || n != 3 }' "$F" && ok ||
        bad "$a/$t: precondition lines: $(grep ",$a,$t,.*precondition" "$F" | tr '\n' ' ')"
      # the straggler's first round starts once its delay has ended
      awk -F, -v a=$a -v t=$t 'NR > 1 && $2 == a && $3 == t && $5 == 1 && $6 ~ /^round / { if (!f++ && $7 + 0 < 2000) bad++ }
            END { exit bad || !f }' "$F" && ok || bad "$a/$t: the straggler's rounds start before its delay ends"
    else
      grep -q ",$a,$t,.*,precondition," "$F" && bad "$a/$t: a precondition without precondition rounds" || ok
    fi
  done
  # sm's clock stamps land where ce's events do (same model), to the nanosecond
  paste -d, <(grep ",$a,ce,.*,round " "$F" | cut -d, -f5-8) <(grep ",$a,sm,.*,round " "$F" | cut -d, -f5-8) |
    awk -F, '{ if ($1 != $5 || $2 != $6 || $3 - $7 > 0.002 || $7 - $3 > 0.002 || $4 - $8 > 0.002 || $8 - $4 > 0.002) bad++; n++ }
             END { exit bad || !n }' && ok || bad "$a: sm's stamped rounds differ from ce's"
done
grep -q ',nccl,nccl,.*,round ' "$F" && bad "round lines for native nccl" || ok
# only the last timed iteration is marked: one line per rank and round
[ "$(grep ',ring,ce,.*,round ' "$F" | wc -l)" -eq 24 ] && ok || bad "ring/ce: $(grep -c ',ring,ce,.*,round ' "$F") round lines, want 4 x 6"

# a transport that marks nothing: the phases of before, no round lines
"$S" run --gpus 0,1,2,3 --algo bcast --transport ce -b 4M -e 4M --straggler 1:2ms -n 2 -w 0 --phases \
  --out "$tmp/plain" >/dev/null 2>&1 && ok || bad "unmarked run failed"
[ "$(cut -d, -f6 "$tmp/plain/phases.csv" | sort | uniq -c | awk '{ printf "%s=%s ", $2, $1 }')" = "allreduce=4 delay=1 phase=1 " ] && ok ||
  bad "unmarked phases.csv: $(cut -d, -f6 "$tmp/plain/phases.csv" | sort | uniq -c | tr '\n' ' ')"

# plots/ draws the rounds inside the collectives
if command -v gnuplot >/dev/null 2>&1; then
  bash plots/plot.sh "$R" >/dev/null 2>&1
  ls "$R/plots"/phases_4MiB_d2ms_1.png "$R/plots"/phases_4MiB_d2ms_2.png >/dev/null 2>&1 &&
    grep -q 'round (alternating shades)' "$R/plots/phases_4MiB_d2ms_1.svg" && grep -q 'precondition' "$R/plots/phases_4MiB_d2ms_1.svg" &&
    ok || bad "phases pictures: $(ls "$R/plots")"
else
  echo "skipped: gnuplot is not installed, so the phases pictures were not checked"
fi

finish
